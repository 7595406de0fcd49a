#pragma once
// The graph pane: the layered DAG view (views/GraphView.h) with its state, and what the app tells it (an edit's
// revision, Ctrl+F, a new document).
#include <cstdint>

#include "core/diagnostics.h"
#include "core/plan.h"
#include "views/GraphDiff.h"
#include "views/Selection.h"

namespace ss::app {

class GraphSlot {
 public:
  GraphSlot();
  ~GraphSlot();
  void draw(const Plan& plan, const Diagnostics& diags, views::Selection& sel, uint64_t revision);
  void focusSearch();        // Ctrl+F
  void planReplaced();       // a new document: fit the view
  // A layout is being computed on the worker thread: keep drawing until it lands.
  bool busy() const;
  // Compare mode: badges over the graph (nullptr: none). The caller keeps `marks` alive while it is set.
  void setDiffMarks(const views::GraphDiffMarks* marks);
  // The graph view's last frame (tests): its compare-mode badges.
  const std::vector<views::DiffBadgeRecord>& diffRecords() const;
  // The last run's first divergent node (-1: none): the graph marks it and fades what runs after it.
  void setDivergentNode(int node);
  int divergentNode() const;

 private:
  struct Impl;
  Impl* impl_ = nullptr;
};

}  // namespace ss::app
