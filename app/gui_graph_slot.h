#pragma once
// The graph pane: the layered DAG view (views/GraphView.h) with its state, and what the app tells it (an edit's
// revision, Ctrl+F, a new document).
#include <cstdint>

#include "core/diagnostics.h"
#include "core/plan.h"
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

 private:
  struct Impl;
  Impl* impl_ = nullptr;
};

}  // namespace ss::app
