#pragma once
// Which ops a plan may contain for the runner to execute it: one allow-list of pure tensor computations.
//
// Contract:
// - An op is allowed when its namespace and name (the overload does not matter; a leading "torch.ops." is ignored)
//   are on the list in core/ops/op_table.cpp (its runs-in flags), or it is the in-place form (`name_`) or a backward (`name_backward`,
//   `name_backward_data`) of an aten op on the list. Everything else is refused: ops that read or write files
//   (`aten.from_file`, ops taking file names), share or swap storage (`set_`, `share_memory_`, pinned memory),
//   touch raw pointers, the OS or process state, and any op of an unknown namespace (custom ops).
// - Pure means: its only effects are on the tensors it is given or returns (random ops advance the child's own
//   generator; collectives talk only to the plan's own process groups).
// - Arguments may nest at most kMaxRunArgDepth levels (a list of tensors, a list of optional tensors): no ATen
//   schema takes deeper lists, and the runner refuses deeper ones rather than recursing into them.
// - Used by `check` (diagnostic "unsafe-op", error, at the node), by `shardscope run` and the Run view (refused
//   before the child starts) and by the runner itself before and while executing (it trusts no parent).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ss {

struct Node;
class Graph;

inline constexpr int kMaxRunArgDepth = 2;

// True when `op` (a node's op string, e.g. "aten.mm.default") is on the allow-list.
bool isPureTensorOp(std::string_view op);

// Why a call node cannot run safely (one sentence naming the op), or nullopt when it can. Non-call nodes
// (placeholders, output, get_attr) are always safe.
std::optional<std::string> unsafeReason(const Node& node);

struct UnsafeNode {
  int node = -1;
  std::string name;    // node name
  std::string op;
  std::string reason;  // unsafeReason's sentence
  // "node 'from_file' (aten.from_file.default): ..." for refusals.
  std::string toString() const;
};
// Every unsafe call node in graph order (empty: the graph may run).
std::vector<UnsafeNode> unsafeNodes(const Graph& graph);

}  // namespace ss
