#pragma once
// The graph pane: the graph helper's layered DAG view (views/GraphView.h) when the build has it, else the
// searchable node list. One place decides, so the rest of the app does not care which.
#include "core/diagnostics.h"
#include "core/plan.h"
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
  // The last run's first divergent node (-1: none): the graph marks it and fades what runs after it.
  void setDivergentNode(int node);
  int divergentNode() const;

 private:
  struct Impl;
  Impl* impl_ = nullptr;
  views::NodeListViewState list_;
};

}  // namespace ss::app
