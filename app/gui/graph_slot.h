#pragma once
// The graph pane: the layered DAG view (views/graph_view.h) with its state, and what the app tells it (an edit's
// revision, Ctrl+F, a new document).
#include <cstdint>

#include "core/applied/applied.h"
#include "core/model/diagnostics.h"
#include "core/model/plan.h"
#include "views/graph_diff.h"
#include "views/graph_view.h"
#include "views/model/selection.h"

namespace ss::app {

class GraphSlot {
 public:
  GraphSlot();
  ~GraphSlot();
  // `applied` / `alone` (the document's applied graphs, or an applied graph alone; may be empty / nullptr) give
  // the overlay: what the applied graph did on each planned edge, collectives drawn as collectives.
  void draw(const Plan& plan, const Diagnostics& diags, views::Selection& sel, uint64_t revision,
            const std::vector<AppliedGraph>* applied = nullptr, const AppliedAlone* alone = nullptr);
  void focusSearch();        // Ctrl+F
  // The graph keys (views/keys.h): fit, zoom by `factor` about the view's centre, pan by screen pixels (the
  // graph moves by dx, dy). Applied on the graph's next frame; requests in one frame add up.
  void requestFit();
  void requestZoom(double factor);
  void requestPan(double dx, double dy);
  void planReplaced();       // a new document: fit the view, forget the search
  // A layout is being computed on the worker thread: keep drawing until it lands.
  bool busy() const;
  // Compare mode: badges over the graph (nullptr: none). The caller keeps `marks` alive while it is set.
  void setDiffMarks(const views::GraphDiffMarks* marks);
  // The graph view's last frame (tests): its compare-mode badges.
  const std::vector<views::DiffBadgeRecord>& diffRecords() const;
  // The last run's first divergent node (-1: none): the graph marks it and fades what runs after it.
  void setDivergentNode(int node);
  int divergentNode() const;
  // The graph view's last frame (tests): its model (nullptr until laid out), camera and records.
  const views::GraphViewState& viewState() const;

 private:
  struct Impl;
  Impl* impl_ = nullptr;
};

}  // namespace ss::app
