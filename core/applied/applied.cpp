// Applied graph analysis, part: matching an applied graph's nodes to the plan's (compute order, decomposed einsums,
// inlined higher-order regions), and an applied graph alone. The collectives and groups are applied_groups.cpp's,
// the checks applied_check.cpp's. See applied.h for the contracts.
#include "core/applied/applied.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <set>
#include <sstream>

#include "core/applied/applied_detail.h"
#include "core/model/layout.h"
#include "core/model/enum_names.h"
#include "core/model/limits.h"
#include "core/model/saturate.h"

namespace ss {
using namespace applied_detail;

// ---- node matching ----

namespace {

bool isPlanCompute(const Node& n) { return n.kind == NodeKind::Call && n.opName() != "alias"; }

bool isHigherOrder(const Node& n) {
  std::string_view o = n.op;
  if (o.rfind("torch.ops.", 0) == 0) o.remove_prefix(10);
  return n.kind == NodeKind::Call && o.rfind("higher_order.", 0) == 0;
}

}  // namespace

namespace applied_detail {

// See applied_detail.h. Higher-order ops the applied graph inlines (apply_sharding traces through a
// local_map_hop's body: no applied node has its op): 1 at such a HOP, 2 at the getitems reading its outputs. Neither has an applied counterpart, so
// neither is matched by op order (an inlined body's getitems are other getitems).
std::vector<char> inlinedHops(const Graph& pg, const Graph& ag) {
  std::vector<char> out(pg.size(), 0);
  std::set<std::string> appliedHops;
  for (const Node& n : ag.nodes)
    if (isHigherOrder(n)) appliedHops.insert(n.opName());
  for (int i = 0; i < pg.size(); ++i) {
    const Node& n = pg.nodes[i];
    if (!isHigherOrder(n) || appliedHops.count(n.opName())) continue;
    out[i] = 1;
    for (const auto& [u, in] : pg.users(i))
      if (pg.nodes[u].opName() == "getitem") out[u] = 2;
  }
  return out;
}

std::optional<std::vector<int64_t>> planLocalShape(const Plan& plan, int node, const std::vector<int64_t>& coord) {
  const Node& n = plan.graph.nodes[node];
  if (n.outputs.size() != 1 || !n.outputs[0].known) return std::nullopt;
  if (node >= static_cast<int>(plan.specs.size()) || plan.specs[node].outputs.empty() || !plan.specs[node].outputs[0])
    return std::nullopt;
  const ShardingSpec& s = *plan.specs[node].outputs[0];
  if (s.meshDims() != plan.mesh.ndim()) return std::nullopt;
  auto l = localShape(n.outputs[0].shape, plan.mesh, s, plan.mesh.rankOf(coord));
  if (!l) return std::nullopt;
  return *l;
}

}  // namespace applied_detail

namespace {

// Whether applied node `j` may be the image of decomposed plan op `node` (planCompute index `q`, matching resumed
// at index `pp`): the chain's result reads every operand. Each operand's producer (through plan aliases without a
// counterpart) must be matched already when it lies ahead of the matching (index pp..q-1: matching `node` now would
// skip it), and `j` must reach each matched producer's image upstream through unmatched nodes and the chain's own
// pieces (its source line). A piece of an operand's transition (llama3_2d's clone_5, the chunk of the tangent for
// einsum_default_15, has einsum_default_16's local shape and source line) reaches one operand only.
bool readsEveryOperand(const Plan& plan, const AppliedGraph& a, const std::vector<int>& planCompute, size_t pp,
                       size_t q, int j) {
  const Graph& pg = plan.graph;
  const Graph& g = a.graph.graph;
  const int node = planCompute[q];
  std::set<int> targets;
  for (const TensorRef& r : pg.inputs(node)) {
    int p = r.node;
    for (int hops = 0; hops < 16 && p >= 0 && a.appliedOf[p] < 0 && pg.nodes[p].opName() == "alias" &&
                       !pg.inputs(p).empty();
         ++hops)
      p = pg.inputs(p)[0].node;
    if (p < 0) continue;
    if (a.appliedOf[p] >= 0) {
      targets.insert(a.appliedOf[p]);
      continue;
    }
    const auto from = planCompute.begin() + static_cast<long>(pp), to = planCompute.begin() + static_cast<long>(q);
    if (std::find(from, to, p) != to) return false;  // its producer is still to be matched
  }
  const std::string& code = g.nodes[j].source.code;
  std::vector<int> stack{j};
  std::set<int> seen;
  size_t reached = 0;
  while (!stack.empty() && reached < targets.size() && seen.size() < 4096) {
    const int cur = stack.back();
    stack.pop_back();
    if (cur < 0 || !seen.insert(cur).second) continue;
    if (cur != j && targets.count(cur)) {
      ++reached;
      continue;
    }
    const Node& x = g.nodes[cur];
    const bool through = cur == j || (x.kind != NodeKind::Placeholder &&
                                      (a.planOf[cur] < 0 || (!code.empty() && x.source.code == code &&
                                                             isDecompositionPiece(matchKey(x)))));
    if (!through) continue;
    for (const TensorRef& r : g.inputs(cur)) stack.push_back(r.node);
  }
  return reached == targets.size();
}

}  // namespace

AppliedGraph analyzeApplied(const Plan& plan, Plan applied, const AppliedOptions& opts) {
  AppliedGraph a;
  a.graph = std::move(applied);
  a.graph.graph.reindex();
  const Graph& ag = a.graph.graph;
  const Graph& pg = plan.graph;
  a.rank = opts.rank >= 0 && opts.rank < plan.mesh.size() ? opts.rank : 0;
  a.coord = plan.mesh.coordOf(a.rank);
  a.collectives = findCollectives(ag);
  a.groups = mapGroups(a.collectives, plan.mesh, opts.groups, &a.coord);
  costCollectives(a.collectives, opts.cost);
  a.planOf.assign(ag.size(), -1);
  a.appliedOf.assign(pg.size(), -1);
  std::vector<char> isComm(ag.size(), 0);
  for (const auto& c : a.collectives) isComm[c.node] = 1;
  // Placeholders (and get_attr) by name; the output node with the output node.
  const std::vector<char> inlined = inlinedHops(pg, ag);
  std::vector<int> planCompute;
  for (int i = 0; i < pg.size(); ++i) {
    const Node& n = pg.nodes[i];
    if (n.kind == NodeKind::Placeholder) {
      ++a.planNodes;
      const int j = ag.find(n.name);
      if (j >= 0 && ag.nodes[j].kind == NodeKind::Placeholder) {
        a.planOf[j] = i;
        a.appliedOf[i] = j;
        ++a.matched;
      }
    } else if (isPlanCompute(n) && !inlined[i]) {
      planCompute.push_back(i);
    }
  }
  if (pg.outputNode() >= 0 && ag.outputNode() >= 0) {
    a.planOf[ag.outputNode()] = pg.outputNode();
    a.appliedOf[pg.outputNode()] = ag.outputNode();
  }
  a.planNodes += static_cast<int>(planCompute.size());
  std::vector<std::string> planKeys(planCompute.size());
  for (size_t q = 0; q < planCompute.size(); ++q) planKeys[q] = matchKey(pg.nodes[planCompute[q]]);
  // Plan nodes right after an inlined higher-order op: the applied graph has the op's body there, whose ops are
  // no plan node's; such a plan node matches only an applied op whose source line agrees (or is missing).
  std::vector<char> afterInlined(planCompute.size(), 0);
  for (size_t q = 0; q < planCompute.size(); ++q)
    for (int i = q ? planCompute[q - 1] + 1 : 0; i < planCompute[q] && !afterInlined[q]; ++i)
      afterInlined[q] = inlined[i] == 1;
  size_t pp = 0;
  for (int j = 0; j < ag.size() && pp < planCompute.size(); ++j) {
    const Node& an = ag.nodes[j];
    if (an.kind != NodeKind::Call || isComm[j] || isWait(an)) continue;
    const std::string key = matchKey(an);
    const std::vector<int64_t>* ashape = an.outputs.size() == 1 ? knownShape(&an.outputs[0]) : nullptr;
    int found = -1;
    const size_t end = std::min(planCompute.size(), pp + static_cast<size_t>(std::max(opts.window, 1)));
    for (size_t q = pp; q < end && found < 0; ++q) {
      const Node& pn = pg.nodes[planCompute[q]];
      if (planKeys[q] != key) {
        // A decomposed plan op: the piece of its chain with its source line and its local shape.
        if (!isDecomposedInApplied(planKeys[q]) || !isDecompositionPiece(key) || pn.source.code.empty() ||
            pn.source.code != an.source.code)
          continue;
        auto want = planLocalShape(plan, planCompute[q], a.coord);
        if (!want || !ashape || *want != *ashape || !readsEveryOperand(plan, a, planCompute, pp, q, j)) continue;
        found = static_cast<int>(q);
        break;
      }
      if (!pn.source.code.empty() && !an.source.code.empty() && pn.source.code != an.source.code) continue;
      auto want = planLocalShape(plan, planCompute[q], a.coord);
      if (want && ashape && *want != *ashape) continue;
      found = static_cast<int>(q);
    }
    // The next plan node of that op with another shape: matched all the same (its shape is then a finding),
    // unless the applied node may be a piece of a decomposed plan op on its source line (einsum's permutes and
    // views are no findings).
    const Node& next = pg.nodes[planCompute[pp]];
    const bool bodyOp = afterInlined[pp] && !next.source.code.empty() && !an.source.code.empty() &&
                        next.source.code != an.source.code;
    if (found < 0 && planKeys[pp] == key && !bodyOp) {
      bool piece = false;
      if (isDecompositionPiece(key) && !an.source.code.empty())
        for (size_t q = pp >= 4 ? pp - 4 : 0; q < end && !piece; ++q)
          piece = isDecomposedInApplied(planKeys[q]) && pg.nodes[planCompute[q]].source.code == an.source.code;
      if (!piece) found = static_cast<int>(pp);
    }
    if (found < 0) continue;
    const int p = planCompute[found];
    a.planOf[j] = p;
    a.appliedOf[p] = j;
    ++a.matched;
    pp = static_cast<size_t>(found) + 1;
  }
  return a;
}


// ---- an applied graph alone ----

AppliedAlone analyzeAppliedAlone(Plan applied, const std::optional<DeviceMesh>& mesh, const AppliedOptions& opts) {
  AppliedAlone out;
  applied.graph.reindex();
  out.collectives = findCollectives(applied.graph);
  std::optional<DeviceMesh> m = mesh;
  std::map<std::string, int> groups;
  if (!m) {
    m = inferMesh(out.collectives, &groups);
    out.meshInferred = m.has_value();
    // Sizes that make no mesh (past kMaxRanks ranks or kMaxMeshDims dims together): each collective with a size is
    // invalid, naming them all (which one is wrong the graph does not say).
    std::map<std::string, int64_t> sizes;
    for (const auto& c : out.collectives)
      if (c.groupSize > 1) sizes[c.group] = c.groupSize;
    if (!m && !sizes.empty()) {
      out.meshProblem = "the group sizes of its collectives (";
      bool first = true;
      for (const auto& [g, size] : sizes) {
        out.meshProblem += (first ? "" : ", ") + std::to_string(size) + " on group '" + Error::oneLine(g) + "'";
        first = false;
      }
      out.meshProblem += ") make no mesh of at most " + std::to_string(limits::kMaxRanks) + " ranks and " +
                         std::to_string(limits::kMaxMeshDims) + " dims";
      for (auto& c : out.collectives)
        if (c.groupSize > 1) {
          c.invalid = out.meshProblem;
          c.groupSize = 0;
        }
    }
  }
  for (const auto& [g, dim] : opts.groups) groups[g] = dim;
  applied.mesh = m.value_or(DeviceMesh());
  applied.specs.clear();
  applied.redistributes.clear();
  applied.normalizeSpecs();
  // With an inferred mesh, groups ordered by name are its dims in order (then --group overrides).
  const std::vector<int64_t> coord =
      applied.mesh.coordOf(opts.rank >= 0 && opts.rank < applied.mesh.size() ? opts.rank : 0);
  out.groups = mapGroups(out.collectives, applied.mesh, groups, &coord);
  costCollectives(out.collectives, opts.cost);
  out.plan = std::move(applied);
  return out;
}

}  // namespace ss
