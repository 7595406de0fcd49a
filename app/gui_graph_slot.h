#pragma once
// The graph pane: the graph helper's layered DAG view (views/GraphView.h) when the build has it, else the
// searchable node list. One place decides, so the rest of the app does not care which.
#include "core/diagnostics.h"
#include "core/plan.h"
#include "views/GraphDiff.h"
#include "views/NodeListView.h"
#include "views/Selection.h"

namespace ss::app {

class GraphSlot {
 public:
  GraphSlot();
  ~GraphSlot();
  void draw(const Plan& plan, const Diagnostics& diags, views::Selection& sel, views::CommandQueue& cmds,
            uint64_t revision);
  void focusSearch();        // Ctrl+F
  void planReplaced();       // a new document: fit the view
  bool hasGraphView() const;
  // A layout is being computed on the worker thread: keep drawing until it lands.
  bool busy() const;
  views::NodeListViewState& nodeList() { return list_; }
  // Compare mode: badges over the graph (nullptr: none). The caller keeps `marks` alive while it is set.
  void setDiffMarks(const views::GraphDiffMarks* marks);
  // The graph view's last frame (tests): its compare-mode badges.
  const std::vector<views::DiffBadgeRecord>& diffRecords() const;

 private:
  struct Impl;
  Impl* impl_ = nullptr;
  views::NodeListViewState list_;
};

}  // namespace ss::app
