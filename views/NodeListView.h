#pragma once
// Node list: every node with its op, output shape, output placement and worst diagnostic, searchable by name
// or op. It fills the graph pane until the graph view is available, and backs Ctrl+F search everywhere.
#include <string>
#include <vector>

#include "core/diagnostics.h"
#include "core/plan.h"
#include "views/Selection.h"

namespace ss::views {

struct NodeListViewState {
  char search[128] = {};
  bool onlyProblems = false;
  bool focusSearch = false;        // set by Ctrl+F: the search box takes keyboard focus next frame
  uint64_t seenGeneration = ~uint64_t{0};
  int rowsShown = 0;
};

// Node indices matching a case-insensitive substring of name or op (all when empty), optionally only nodes
// with a warning or error. Plain C++, unit-tested.
std::vector<int> searchNodes(const Plan& plan, const Diagnostics& diags, const std::string& needle, bool onlyProblems);

void drawNodeListView(const Plan& plan, const Diagnostics& diags, NodeListViewState& state, Selection& sel,
                      CommandQueue& cmds);

}  // namespace ss::views
