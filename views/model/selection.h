#pragma once
// Shared UI state every view reads and writes: what is selected, and the queue of edits views request.
//
// Contract: views never change the Plan. They push ss::Command values on a CommandQueue; the owner of the
// document (views/model/document.h) drains the queue after the frame, applies each through ss::EditHistory and
// re-checks. Selection changes go through the helpers below so `generation` bumps and every view can react
// (centre on the node, reset a scroll) exactly once per change: a view remembers the generation it last saw.
#include <cstdint>
#include <vector>

#include "core/plan/edit.h"

namespace ss::views {

struct Selection {
  int node = -1;             // selected node index in the plan's graph; -1 = none
  int input = -1;            // selected input edge (consumer = node, input index); -1 = the node itself
  int output = 0;            // which output of `node` the mesh/tensor views show when no input is selected
  int64_t pinnedRank = -1;   // device pinned in the mesh view (click); -1 = none
  bool centreRequested = false;  // set on selection from a list: the graph view centres on `node`, then clears it
  uint64_t generation = 0;   // bumps on every change

  void selectNode(int n, bool centre = false) {
    node = n; input = -1; output = 0; centreRequested = centre; ++generation;
  }
  void selectEdge(int consumer, int inputIndex, bool centre = false) {
    node = consumer; input = inputIndex; output = 0; centreRequested = centre; ++generation;
  }
  void pinRank(int64_t r) { pinnedRank = (pinnedRank == r) ? -1 : r; ++generation; }
  void clear() { node = -1; input = -1; output = 0; pinnedRank = -1; centreRequested = false; ++generation; }
  bool hasNode() const { return node >= 0; }
  bool hasEdge() const { return node >= 0 && input >= 0; }
};

// Edits requested during a frame, applied in order after it.
struct CommandQueue {
  std::vector<Command> pending;
  void push(Command c) { pending.push_back(std::move(c)); }
  bool empty() const { return pending.empty(); }
};

}  // namespace ss::views
