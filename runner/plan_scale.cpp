#include "runner/plan_scale.h"

#include <map>

#include "core/model/layout.h"

namespace ss::runner {
namespace {

using Group = std::pair<std::vector<int64_t>, std::vector<int64_t>>;  // (input dim sizes, output dim sizes)

// Groups of dims whose products match between a view's input and output shapes (size-1 dims join a group).
std::vector<Group> viewGroups(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  std::vector<Group> groups;
  size_t i = 0, j = 0;
  while (i < in.size() || j < out.size()) {
    Group g;
    int64_t pi = 1, po = 1;
    if (i < in.size()) { pi *= in[i]; g.first.push_back(in[i++]); }
    if (j < out.size()) { po *= out[j]; g.second.push_back(out[j++]); }
    while (pi != po) {
      if (pi < po && i < in.size()) { pi *= in[i]; g.first.push_back(in[i++]); }
      else if (j < out.size()) { po *= out[j]; g.second.push_back(out[j++]); }
      else if (i < in.size()) { pi *= in[i]; g.first.push_back(in[i++]); }
      else break;
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

bool isShapeOp(const std::string& n) {
  return n == "view" || n == "reshape" || n == "_unsafe_view" || n == "expand" || n == "full" || n == "zeros" ||
         n == "ones" || n == "empty" || n == "empty_strided" || n == "new_zeros" || n == "new_ones" ||
         n == "new_full" || n == "new_empty" || n == "rand" || n == "randn";
}

}  // namespace

Result<Plan> scalePlan(const Plan& plan, int factor) {
  if (factor < 1) return Error{"--scale must be >= 1, got " + std::to_string(factor), 0, 0, {}};
  if (factor == 1) return plan;
  std::map<int64_t, int64_t> scaled;
  auto f = [&](int64_t v) {
    auto it = scaled.find(v);
    if (it != scaled.end()) return it->second;
    return (v > 1 && v % factor == 0) ? v / factor : v;
  };
  auto product = [&](const std::vector<int64_t>& dims) {
    int64_t p = 1;
    for (int64_t d : dims) p *= f(d);
    return p;
  };
  const Graph& g = plan.graph;
  std::vector<std::pair<int, Group>> viewEdges;
  for (int n = 0; n < g.size(); ++n) {
    const Node& node = g.nodes[n];
    std::string op = node.opName();
    if (op != "view" && op != "reshape" && op != "_unsafe_view") continue;
    if (node.outputs.empty() || !node.outputs[0].known || g.inputs(n).empty()) continue;
    const TensorMeta* in = g.meta(g.inputs(n)[0]);
    if (!in || !in->known) continue;
    for (auto& grp : viewGroups(in->shape, node.outputs[0].shape)) viewEdges.push_back({n, grp});
  }
  // Merged and split dims take the product of their parts (repeat: a merged size may feed another view).
  for (int pass = 0; pass < 3; ++pass)
    for (const auto& [n, grp] : viewEdges) {
      if (grp.first.size() > 1 && grp.second.size() == 1) scaled[grp.second[0]] = product(grp.first);
      else if (grp.first.size() == 1 && grp.second.size() > 1) scaled[grp.first[0]] = product(grp.second);
    }
  for (const auto& [n, grp] : viewEdges)
    if (product(grp.first) != product(grp.second))
      return Error{"--scale " + std::to_string(factor) + " cannot keep node '" + g.nodes[n].name +
                       "' consistent: its view dims " + shapeToString(grp.first) + " -> " + shapeToString(grp.second) +
                       " do not scale alike; try another factor",
                   0, 0, {}};
  Plan out = plan;
  for (int n = 0; n < out.graph.size(); ++n) {
    Node& node = out.graph.nodes[n];
    for (auto& m : node.outputs)
      for (auto& d : m.shape) d = f(d);
    if (!isShapeOp(node.opName()) || node.outputs.empty()) continue;
    // The size argument: a list of ints; follow the (scaled) output shape, keeping -1 entries.
    auto fix = [&](Arg& a) {
      if (!a.isList() || a.items.size() != node.outputs[0].shape.size()) return;
      for (size_t k = 0; k < a.items.size(); ++k)
        if (a.items[k].isInt() && a.items[k].i != -1) a.items[k].i = node.outputs[0].shape[k];
    };
    for (auto& a : node.args) fix(a);
    for (auto& kw : node.kwargs)
      if (kw.first == "size" || kw.first == "shape") fix(kw.second);
  }
  out.graph.reindex();
  if (!out.name.empty()) out.name += " (scale 1/" + std::to_string(factor) + ")";
  return out;
}

}  // namespace ss::runner
