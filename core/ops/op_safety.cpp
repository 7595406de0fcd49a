// Whether the runner may execute an op (see core/ops/op_safety.h for the contract): the op table's runs-in
// facts (core/ops/op_table.cpp, with the reasons ops are left out), read by namespace, plus the argument depth.
#include "core/ops/op_safety.h"

#include <algorithm>

#include "core/model/graph.h"
#include "core/ops/op_table.h"

namespace ss {
namespace {

// The five namespaces of the plan's own collectives (core/rules/collective.cpp knows them by these names).
constexpr std::string_view kCollectiveNamespaces[] = {"_c10d_functional", "c10d_functional", "c10d",
                                                      "_c10d_functional_autograd", "_dtensor"};

// The op-table bit that admits namespace `ns`, or kRunsExact when only a full-name entry can.
uint16_t runsBit(std::string_view ns) {
  if (ns == "aten") return ops::kRunsAten;
  if (ns == "prims") return ops::kRunsPrims;
  if (ns == "operator") return ops::kRunsOperator;
  if (ns == "_operator") return ops::kRunsUnderscoreOperator;
  if (ns == "autoparallel") return ops::kRunsAutoparallel;
  for (std::string_view c : kCollectiveNamespaces)
    if (ns == c) return ops::kRunsCollective;
  return ops::kRunsExact;
}

bool runsIn(std::string_view key, uint16_t bit) {
  const ops::OpEntry* e = ops::findOpKey(key);
  return e && (e->runsIn & bit);
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

int argDepth(const Arg& a) {
  if (!a.isList()) return 0;
  int deepest = 0;
  for (const Arg& x : a.items) {
    deepest = std::max(deepest, argDepth(x));
    if (deepest > kMaxRunArgDepth) break;  // enough to refuse (and bounded work on hostile input)
  }
  return deepest + 1;
}

}  // namespace

bool isPureTensorOp(std::string_view op) {
  if (op.starts_with("torch.ops.")) op.remove_prefix(10);
  const size_t dot = op.find('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view ns = op.substr(0, dot);
  std::string_view name = op.substr(dot + 1);
  name = name.substr(0, name.find('.'));  // drop the overload
  if (name.empty()) return false;
  const uint16_t bit = runsBit(ns);
  if (bit == ops::kRunsExact) return runsIn(op.substr(0, dot + 1 + name.size()), bit);
  if (bit != ops::kRunsAten) return runsIn(name, bit);
  if (const ops::OpEntry* e = ops::findOpKey(name); e && e->refused) return false;
  if (runsIn(name, bit)) return true;
  // In-place forms and backwards of listed aten ops ("add_", "gelu_backward", "_softmax_backward_data").
  for (std::string_view suffix : {"_backward_data", "_backward", "_"}) {
    if (!endsWith(name, suffix)) continue;
    if (runsIn(name.substr(0, name.size() - suffix.size()), bit)) return true;
  }
  return false;
}

std::optional<std::string> unsafeReason(const Node& node) {
  if (node.kind != NodeKind::Call) return std::nullopt;
  if (!isPureTensorOp(node.op))
    return "op " + node.op +
           " is not on the runner's list of pure tensor ops (it could read or write files, share storage or touch "
           "process state); the runner refuses to execute it";
  auto tooDeep = [](const Arg& a) { return argDepth(a) > kMaxRunArgDepth; };
  for (const Arg& a : node.args)
    if (tooDeep(a))
      return "an argument of " + node.op + " nests lists deeper than " + std::to_string(kMaxRunArgDepth) +
             " levels; the runner refuses it";
  for (const auto& [key, a] : node.kwargs)
    if (tooDeep(a))
      return "argument '" + key + "' of " + node.op + " nests lists deeper than " +
             std::to_string(kMaxRunArgDepth) + " levels; the runner refuses it";
  return std::nullopt;
}

std::string UnsafeNode::toString() const { return "node '" + name + "' (" + op + "): " + reason; }

std::vector<UnsafeNode> unsafeNodes(const Graph& graph) {
  std::vector<UnsafeNode> out;
  for (int n = 0; n < graph.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (auto why = unsafeReason(node)) out.push_back(UnsafeNode{n, node.name, node.op, *why});
  }
  return out;
}

}  // namespace ss
