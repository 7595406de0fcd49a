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

// Shards of tensor dim `d` under `spec`: the product of the sizes of the mesh dims sharding it; the mesh dims'
// "mesh dim 0 (sp)" names in `where`.
int64_t shardsOf(const ShardingSpec& spec, const DeviceMesh& mesh, int d, std::string& where) {
  int64_t k = 1;
  for (int m = 0; m < spec.meshDims() && m < mesh.ndim(); ++m) {
    if (!spec[m].isShard(d) || mesh.dimSize(m) == 1) continue;
    k *= mesh.dimSize(m);
    where += std::string(where.empty() ? "" : " and ") + "mesh dim " + std::to_string(m) + " (" + mesh.dimName(m) + ")";
  }
  return k;
}

// Why `scaled` (the plan at --scale `factor`) would not mean what `plan` means, naming the first dim that
// changes its meaning; empty when it keeps it:
//   - a dim larger than 1 becomes 1: a size-1 dim broadcasts and squeezes, so ops would compute something else;
//   - a sharded dim (by an output or input spec, a redistribute's end, or an AutoSP tag's sequence split) that
//     splits evenly would split unevenly, or an uneven one would change its chunks: the layouts, padding and
//     empty shards the verdict depends on would change.
std::string meaningChange(const Plan& plan, const Plan& scaled, int factor) {
  const Graph& g = plan.graph;
  auto dimText = [&](int n, int o, int d, int64_t before, int64_t after) {
    std::string s = "--scale " + std::to_string(factor) + " would change the plan: dim " + std::to_string(d) + " of '" +
                    g.nodes[static_cast<size_t>(n)].name + "'";
    if (o > 0) s += " (output " + std::to_string(o) + ")";
    return s + " (" + std::to_string(before) + " -> " + std::to_string(after) + ")";
  };
  // Checks one tensor (node n's output o) under `spec`; nullptr spec: only the size-1 rule.
  auto judge = [&](int n, int o, const ShardingSpec* spec) -> std::string {
    const auto& outs = g.nodes[static_cast<size_t>(n)].outputs;
    const auto& outsScaled = scaled.graph.nodes[static_cast<size_t>(n)].outputs;
    if (o < 0 || o >= static_cast<int>(outs.size()) || !outs[static_cast<size_t>(o)].known) return {};
    const auto& a = outs[static_cast<size_t>(o)].shape;
    const auto& b = outsScaled[static_cast<size_t>(o)].shape;
    for (size_t d = 0; d < a.size() && d < b.size(); ++d) {
      if (a[d] == b[d]) continue;
      if (a[d] > 1 && b[d] == 1)
        return dimText(n, o, static_cast<int>(d), a[d], b[d]) + " would become 1, which broadcasts: the plan would "
               "compute something else; try a smaller --scale";
      if (!spec) continue;
      std::string where;
      const int64_t k = shardsOf(*spec, plan.mesh, static_cast<int>(d), where);
      if (k > 1 && (a[d] % k != 0 || b[d] % k != 0))
        return dimText(n, o, static_cast<int>(d), a[d], b[d]) + " is sharded over " + std::to_string(k) +
               " ranks by " + where + " (" + spec->toMeshString() + ") and would " +
               (a[d] % k == 0 ? "no longer split evenly" : "split into other uneven chunks") +
               ": the layouts would change; try a smaller --scale";
    }
    return {};
  };
  for (int n = 0; n < g.size(); ++n) {
    const NodeSpecs* ns = n < static_cast<int>(plan.specs.size()) ? &plan.specs[static_cast<size_t>(n)] : nullptr;
    const int outputs = static_cast<int>(g.nodes[static_cast<size_t>(n)].outputs.size());
    for (int o = 0; o < outputs; ++o) {
      const ShardingSpec* spec = ns && o < static_cast<int>(ns->outputs.size()) && ns->outputs[static_cast<size_t>(o)]
                                     ? &*ns->outputs[static_cast<size_t>(o)] : nullptr;
      if (std::string why = judge(n, o, spec); !why.empty()) return why;
    }
    // What each input is consumed in (an input spec or a redistribute's target) splits the producer's tensor.
    const auto& ins = g.inputs(n);
    for (size_t i = 0; i < ins.size(); ++i)
      if (const ShardingSpec* spec = plan.consumerSpecPtr(n, static_cast<int>(i)))
        if (std::string why = judge(ins[i].node, ins[i].output, spec); !why.empty()) return why;
  }
  for (const Redistribute& r : plan.redistributes) {
    if (r.node < 0 || r.node >= g.size() || r.input < 0 || r.input >= static_cast<int>(g.inputs(r.node).size())) continue;
    const TensorRef t = g.inputs(r.node)[static_cast<size_t>(r.input)];
    for (const ShardingSpec* spec : {&r.from, &r.to})
      if (std::string why = judge(t.node, t.output, spec); !why.empty()) return why;
  }
  // AutoSP tags split their sequence dim over the sequence-parallel ranks whatever the spec says.
  const int64_t sp = plan.run.spSize > 0 ? plan.run.spSize : plan.mesh.size();
  for (const auto& [n, tag] : plan.tags) {
    if (n < 0 || n >= g.size() || sp <= 1) continue;
    const int d = tag.effectiveDim();
    const auto& a = g.nodes[static_cast<size_t>(n)].outputs;
    const auto& b = scaled.graph.nodes[static_cast<size_t>(n)].outputs;
    if (a.empty() || !a[0].known || d < 0 || d >= static_cast<int>(a[0].shape.size())) continue;
    const int64_t before = a[0].shape[static_cast<size_t>(d)], after = b[0].shape[static_cast<size_t>(d)];
    if (before != after && (before % sp != 0 || after % sp != 0))
      return dimText(n, 0, d, before, after) + " is the sequence dim of AutoSP tag " + tag.toString() + ", split over " +
             std::to_string(sp) + " ranks, and would " + (before % sp == 0 ? "no longer split evenly" : "split into other uneven chunks") +
             "; try a smaller --scale";
  }
  return {};
}

Result<Plan> scaleUnchecked(const Plan& plan, int factor) {
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

}  // namespace

Result<Plan> scalePlan(const Plan& plan, int factor) {
  if (factor < 1) return Error{"--scale must be >= 1, got " + std::to_string(factor), 0, 0, {}};
  if (factor == 1) return plan;
  Result<Plan> out = scaleUnchecked(plan, factor);
  if (!out) return out;
  if (std::string why = meaningChange(plan, *out, factor); !why.empty()) return Error{why, 0, 0, {}};
  return out;
}

}  // namespace ss::runner
