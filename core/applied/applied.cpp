// Applied graph analysis. Sections: collectives, groups -> mesh dims, costs, node matching, transition paths,
// the checks, an applied graph alone.
#include "core/applied/applied.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <set>
#include <sstream>

#include "core/model/layout.h"
#include "core/model/enum_names.h"

namespace ss {
namespace {

std::string stripOverload(std::string op) {
  for (const char* s : {".default", ".Tensor", ".int", ".Scalar"})
    if (op.size() > std::strlen(s) && op.compare(op.size() - std::strlen(s), std::string::npos, s) == 0) {
      op.resize(op.size() - std::strlen(s));
      break;
    }
  return op;
}

bool isWait(const Node& n) { return n.op.rfind("_c10d_functional.wait_tensor", 0) == 0; }

const std::vector<int64_t>* knownShape(const TensorMeta* m) { return m && m->known ? &m->shape : nullptr; }

int64_t numelOf(const std::vector<int64_t>& s) {
  int64_t e = 1;
  for (int64_t d : s) e = d > 0 && e > INT64_MAX / d ? INT64_MAX : e * std::max<int64_t>(d, 0);
  return e;
}

std::string coordString(const std::vector<int64_t>& c) {
  std::string s = "(";
  for (size_t i = 0; i < c.size(); ++i) s += (i ? ", " : "") + std::to_string(c[i]);
  return s + ")";
}

std::string meshDimString(const DeviceMesh& mesh, int d) {
  if (d == -2) return "the flattened mesh";
  if (d < 0) return "an unmapped mesh dim";
  return "mesh dim " + std::to_string(d) + " (" + mesh.dimName(d) + ")";
}

}  // namespace

// ---- collectives ----

namespace {
constexpr EnumName<TransitionState> kTransitionStateNames[] = {
    {TransitionState::Applied, "applied"},
    {TransitionState::Missing, "missing"},
    {TransitionState::Unjudged, "unjudged"}};
static_assert(enumTableCovers(kTransitionStateNames, TransitionState::Unjudged) &&
              enumNamesValid(kTransitionStateNames));
}  // namespace

const char* transitionStateName(TransitionState s) { return enumName(kTransitionStateNames, s, "unjudged"); }

std::string meshDimLabel(const DeviceMesh& mesh, int meshDim) {
  if (meshDim == -2) return "all dims";
  if (meshDim < 0 || meshDim >= mesh.ndim()) return "dim?";
  return mesh.dimName(meshDim);
}

std::string collectiveLabel(const AppliedCollective& c, const DeviceMesh& mesh) {
  std::string s = std::string(collectiveName(c.kind)) + " " + meshDimLabel(mesh, c.meshDim);
  if (c.bytes > 0) s += " " + formatBytes(c.bytes) + " " + formatTimeUs(c.timeUs);
  return s;
}

std::string AppliedTransition::label(const std::vector<AppliedCollective>& cs, const DeviceMesh& mesh) const {
  auto steps = [&](const std::vector<RedistributeStep>& v) {
    std::string s;
    int64_t bytes = 0;
    for (const auto& st : v) {
      s += (s.empty() ? "" : " + ") + std::string(collectiveName(st.kind)) + " " + meshDimLabel(mesh, st.meshDim);
      bytes += st.bytesSent;
    }
    return s + " " + formatBytes(bytes);
  };
  switch (state) {
    case TransitionState::Missing: return "missing " + steps(missing);
    case TransitionState::Unjudged: return steps(planned) + " (not judged)";
    case TransitionState::Applied: break;
  }
  std::string s;
  for (int k : collectives)
    if (k >= 0 && k < static_cast<int>(cs.size())) s += (s.empty() ? "" : " + ") + collectiveLabel(cs[static_cast<size_t>(k)], mesh);
  return s.empty() ? steps(planned) : s;
}

const AppliedTransition* AppliedGraph::transitionAt(int consumer, int input) const {
  for (const auto& t : transitions)
    if (t.consumer == consumer && t.input == input) return &t;
  return nullptr;
}

std::string AppliedCollective::toString(const DeviceMesh& mesh) const {
  std::string s = std::string(collectiveName(kind)) + " (" + op + ") on " + meshDimString(mesh, meshDim) + ", group '" + group + "'";
  if (bytes > 0) s += ", " + formatBytes(bytes) + " per rank, " + formatTimeUs(timeUs);
  return s;
}

std::vector<AppliedCollective> findCollectives(const Graph& g) {
  std::vector<AppliedCollective> out;
  for (int i = 0; i < g.size(); ++i) {
    const Node& n = g.nodes[i];
    const bool c10d = n.op.rfind("_c10d_functional.", 0) == 0;
    const bool dt = n.op.rfind("_dtensor.shard_dim_alltoall", 0) == 0;
    if ((!c10d && !dt) || isWait(n)) continue;
    AppliedCollective c;
    c.node = i;
    c.op = stripOverload(n.op.substr(n.op.find('.') + 1));
    auto strArg = [&](size_t k) { return k < n.args.size() && n.args[k].kind == Arg::Kind::String ? n.args[k].s : std::string(); };
    auto intArg = [&](size_t k) { return k < n.args.size() && n.args[k].isInt() ? n.args[k].i : int64_t{0}; };
    if (c.op == "all_gather_into_tensor" || c.op == "all_gather_into_tensor_coalesced") {
      c.kind = CollectiveKind::AllGather;
      c.groupSize = intArg(1);
      c.group = strArg(2);
    } else if (c.op == "reduce_scatter_tensor" || c.op == "reduce_scatter_tensor_coalesced") {
      c.kind = CollectiveKind::ReduceScatter;
      c.reduceOp = strArg(1);
      c.groupSize = intArg(2);
      c.group = strArg(3);
    } else if (c.op == "all_reduce" || c.op == "all_reduce_coalesced") {
      c.kind = CollectiveKind::AllReduce;
      c.reduceOp = strArg(1);
      c.group = strArg(2);
    } else if (c.op == "all_to_all_single") {
      c.kind = CollectiveKind::AllToAll;
      if (n.args.size() > 1 && n.args[1].isList() && !n.args[1].items.empty())
        c.groupSize = static_cast<int64_t>(n.args[1].items.size());
      c.group = strArg(3);
    } else if (dt) {
      c.kind = CollectiveKind::AllToAll;
      c.gatherDim = static_cast<int>(intArg(1));
      c.shardDim = static_cast<int>(intArg(2));
      c.group = strArg(3);
    } else {
      // broadcast and the rest: kept (they communicate), kind unknown; the group is the last string argument.
      for (size_t k = n.args.size(); k-- > 0;)
        if (n.args[k].kind == Arg::Kind::String) { c.group = n.args[k].s; break; }
    }
    if (!n.args.empty() && n.args[0].isTensor())
      if (const TensorMeta* m = g.meta(n.args[0].t)) {
        if (m->known) c.inShape = m->shape;
        c.dtype = m->dtype;
      }
    if (!n.outputs.empty() && n.outputs[0].known) {
      c.outShape = n.outputs[0].shape;
      if (c.dtype == DType::Unknown) c.dtype = n.outputs[0].dtype;
    }
    // shard_dim_alltoall grows its gather dim by the group size.
    if (dt && c.groupSize == 0 && c.gatherDim >= 0 && c.gatherDim < static_cast<int>(c.inShape.size()) &&
        c.gatherDim < static_cast<int>(c.outShape.size()) && c.inShape[c.gatherDim] > 0 &&
        c.outShape[c.gatherDim] % c.inShape[c.gatherDim] == 0)
      c.groupSize = c.outShape[c.gatherDim] / c.inShape[c.gatherDim];
    for (const auto& [user, input] : g.users(i))
      if (isWait(g.nodes[user])) { c.wait = user; break; }
    out.push_back(std::move(c));
  }
  return out;
}

// ---- groups -> mesh dims ----

namespace {
bool groupLess(const std::string& a, const std::string& b) {
  char* ea;
  char* eb;
  const long x = std::strtol(a.c_str(), &ea, 10), y = std::strtol(b.c_str(), &eb, 10);
  if (*ea == 0 && *eb == 0 && !a.empty() && !b.empty()) return x < y;
  return a < b;
}
}  // namespace

std::string torchGroupName(const DeviceMesh& mesh, int dim, const std::vector<int64_t>& coord) {
  const int nd = mesh.ndim();
  if (dim < 0 || dim >= nd || static_cast<int>(coord.size()) != nd) return "";
  int64_t name = 1;
  for (int e = 0; e < dim; ++e) name += mesh.size() / std::max<int64_t>(mesh.dimSize(e), 1);
  // The slice's row in mesh.swapdims(-1, dim).reshape(-1, n): row-major over the other dims, the last dim taking
  // `dim`'s place.
  std::vector<int> order;
  for (int e = 0; e < nd - 1; ++e) order.push_back(e == dim ? nd - 1 : e);
  int64_t row = 0;
  for (int e : order) row = row * mesh.dimSize(e) + coord[e];
  return std::to_string(name + row);
}

std::vector<GroupMapping> mapGroups(std::vector<AppliedCollective>& cs, const DeviceMesh& mesh,
                                    const std::map<std::string, int>& overrides, const std::vector<int64_t>* coord) {
  std::map<std::string, GroupMapping> byName;
  std::map<std::string, std::set<int64_t>> sizes;
  for (const auto& c : cs) {
    auto& g = byName[c.group];
    g.group = c.group;
    ++g.uses;
    if (c.groupSize > 0) sizes[c.group].insert(c.groupSize);
  }
  std::vector<char> taken(mesh.ndim(), 0);
  for (auto& [name, g] : byName) {
    if (auto it = sizes.find(name); it != sizes.end() && it->second.size() == 1) g.size = *it->second.begin();
    if (auto o = overrides.find(name); o != overrides.end()) {
      g.meshDim = o->second;
      g.how = "--group";
      if (g.meshDim >= 0 && g.meshDim < mesh.ndim()) {
        taken[g.meshDim] = 1;
        if (g.size == 0) g.size = mesh.dimSize(g.meshDim);
      }
    }
  }
  auto candidates = [&](const GroupMapping& g) {
    std::vector<int> out;
    for (int d = 0; d < mesh.ndim(); ++d)
      if (!taken[d] && (g.size == 0 || mesh.dimSize(d) == g.size)) out.push_back(d);
    return out;
  };
  // By size: a size only one mesh dim has, or the whole mesh's.
  for (auto& [name, g] : byName) {
    if (!g.how.empty()) continue;
    if (auto it = sizes.find(name); it != sizes.end() && it->second.size() > 1) {
      g.how = "inconsistent: used with group sizes";
      for (int64_t s : it->second) g.how += " " + std::to_string(s);
      g.consistent = false;
      continue;
    }
    if (g.size == 0) continue;
    std::vector<int> all;
    for (int d = 0; d < mesh.ndim(); ++d)
      if (mesh.dimSize(d) == g.size) all.push_back(d);
    if (all.size() == 1) {
      g.meshDim = all[0];
      g.how = "size";
      taken[all[0]] = 1;
    } else if (all.empty() && mesh.ndim() > 1 && g.size == mesh.size()) {
      g.meshDim = -2;
      g.how = "size (the flattened mesh)";
    }
  }
  // A group its collectives give two sizes: the one size that fits exactly one mesh dim no other group took
  // decides its dim; its collectives of another size stay unmapped and perform no planned step.
  for (auto& [name, g] : byName) {
    if (g.consistent || g.meshDim != -1) continue;
    int found = -1, fits = 0;
    int64_t foundSize = 0;
    for (int64_t s : sizes[name]) {
      int dim = -1, dims = 0;
      for (int d = 0; d < mesh.ndim(); ++d)
        if (!taken[d] && mesh.dimSize(d) == s) dim = d, ++dims;
      if (dims == 1) found = dim, foundSize = s, ++fits;
    }
    if (fits != 1) continue;
    g.meshDim = found;
    g.size = foundSize;
    taken[found] = 1;
    g.how += ", mapped by size " + std::to_string(foundSize);
  }
  // torch's group numbering: of the mesh dims a group's size fits, the one whose DeviceMesh group on this rank has
  // the group's name (a 2x2 mesh's size-2 group '3' is mesh dim 1 on rank 0).
  if (coord && static_cast<int>(coord->size()) == mesh.ndim())
    for (auto& [name, g] : byName) {
      if (!g.how.empty() || g.size == 0) continue;
      int dim = -1, fits = 0;
      for (int d : candidates(g))
        if (torchGroupName(mesh, d, *coord) == name) dim = d, ++fits;
      if (fits != 1) continue;
      g.meshDim = dim;
      g.how = "torch's group numbering";
      taken[dim] = 1;
    }
  // Elimination, repeated while it decides something.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& [name, g] : byName) {
      if (!g.how.empty()) continue;
      auto c = candidates(g);
      // Only decide when this group is the only undecided one that could take the dim.
      if (c.size() == 1) {
        int rivals = 0;
        for (auto& [n2, g2] : byName)
          if (&g2 != &g && g2.how.empty()) {
            auto c2 = candidates(g2);
            if (std::find(c2.begin(), c2.end(), c[0]) != c2.end()) ++rivals;
          }
        if (rivals == 0) {
          g.meshDim = c[0];
          g.how = "elimination";
          if (g.size == 0) g.size = mesh.dimSize(c[0]);
          taken[c[0]] = 1;
          changed = true;
        }
      }
    }
  }
  for (auto& [name, g] : byName)
    if (g.how.empty()) {
      auto c = candidates(g);
      g.how = "ambiguous: ";
      if (c.empty()) g.how += "no mesh dim of size " + std::to_string(g.size) + " is left";
      else {
        g.how += "mesh dims";
        for (int d : c) g.how += " " + std::to_string(d);
        g.how += " fit (pass --group " + name + "=MESHDIM)";
      }
    }
  std::vector<GroupMapping> out;
  for (auto& [name, g] : byName) out.push_back(g);
  std::sort(out.begin(), out.end(), [](const GroupMapping& a, const GroupMapping& b) { return groupLess(a.group, b.group); });
  for (auto& c : cs) {
    const GroupMapping& g = byName[c.group];
    c.meshDim = g.consistent || c.groupSize == g.size ? g.meshDim : -1;
    if (c.groupSize == 0) c.groupSize = g.meshDim >= 0 ? mesh.dimSize(g.meshDim) : g.meshDim == -2 ? mesh.size() : g.size;
  }
  return out;
}

std::optional<DeviceMesh> inferMesh(const std::vector<AppliedCollective>& cs, std::map<std::string, int>* groupDims) {
  std::map<std::string, int64_t, decltype(&groupLess)> sizes(&groupLess);
  for (const auto& c : cs)
    if (c.groupSize > 1) sizes[c.group] = c.groupSize;
  if (sizes.empty()) return std::nullopt;
  std::vector<std::pair<std::string, int64_t>> gs(sizes.begin(), sizes.end());
  // torch's world group '0' and one other group of a smaller size s dividing it: a 2-D mesh (S/s, s) or (s, S/s)
  // whose other dim has no collective; torch's group numbering on rank 0 says which dim the group is (dsv3_2x2's
  // '0' of size 4 and '3' of size 2: '3' is dim 1's group of a 2x2 mesh, not a 4x2 mesh).
  if (gs.size() == 2 && gs[0].first == "0" && gs[1].second < gs[0].second && gs[0].second % gs[1].second == 0) {
    const int64_t world = gs[0].second, s = gs[1].second;
    std::optional<DeviceMesh> found;
    int dim = -1, fits = 0;
    for (int d = 0; d < 2; ++d) {
      auto m = DeviceMesh::make(d == 0 ? std::vector<int64_t>{s, world / s} : std::vector<int64_t>{world / s, s});
      if (m && torchGroupName(*m, d, {0, 0}) == gs[1].first) found = *m, dim = d, ++fits;
    }
    if (fits == 1) {
      if (groupDims) (*groupDims)[gs[1].first] = dim;
      return found;
    }
  }
  if (gs.size() >= 3) {
    // A group whose size is the product of all the others is the flattened mesh.
    for (size_t i = 0; i < gs.size(); ++i) {
      int64_t prod = 1;
      for (size_t k = 0; k < gs.size(); ++k)
        if (k != i) prod *= gs[k].second;
      if (prod == gs[i].second) {
        gs.erase(gs.begin() + static_cast<long>(i));
        break;
      }
    }
  }
  std::vector<int64_t> shape;
  for (auto& [n, s] : gs) {
    if (groupDims) (*groupDims)[n] = static_cast<int>(shape.size());
    shape.push_back(s);
  }
  if (shape.size() > static_cast<size_t>(kMaxMeshDims)) return std::nullopt;
  auto m = DeviceMesh::make(shape);
  if (!m) return std::nullopt;
  return *m;
}

// ---- costs (docs/cost-model.md's formulas, on the local shapes the applied graph shows) ----

void costCollectives(std::vector<AppliedCollective>& cs, const CostModel& cost) {
  for (auto& c : cs) {
    const int64_t k = std::max<int64_t>(c.groupSize, 1);
    const int64_t bytesPer = dtypeBytes(c.dtype);
    const int64_t eIn = c.inShape.empty() && c.outShape.empty() ? 0 : numelOf(c.inShape.empty() ? c.outShape : c.inShape);
    int64_t elems = 0;
    int steps = 0;
    switch (c.kind) {
      case CollectiveKind::AllGather: elems = (k - 1) * eIn; steps = static_cast<int>(k - 1); break;
      case CollectiveKind::ReduceScatter: elems = (k - 1) * ((eIn + k - 1) / k); steps = static_cast<int>(k - 1); break;
      case CollectiveKind::AllReduce: elems = 2 * (k - 1) * ((eIn + k - 1) / k); steps = static_cast<int>(2 * (k - 1)); break;
      case CollectiveKind::AllToAll: elems = (k - 1) * ((eIn + k - 1) / k); steps = static_cast<int>(k - 1); break;
      default: break;
    }
    c.bytes = elems * bytesPer;
    const Link& link = c.meshDim >= 0 ? cost.linkFor(c.meshDim) : cost.intraNode;
    c.timeUs = steps * link.alphaUs + (link.betaGBps > 0 ? static_cast<double>(c.bytes) / (link.betaGBps * 1e3) : 0.0);
  }
}

std::vector<AppliedGraph::Total> AppliedGraph::totals() const {
  std::vector<Total> out;
  for (const auto& c : collectives) {
    auto it = std::find_if(out.begin(), out.end(), [&](const Total& t) { return t.kind == c.kind && t.meshDim == c.meshDim; });
    if (it == out.end()) out.push_back({c.kind, c.meshDim, 1, c.bytes, c.timeUs});
    else {
      ++it->count;
      it->bytes += c.bytes;
      it->timeUs += c.timeUs;
    }
  }
  std::sort(out.begin(), out.end(), [](const Total& a, const Total& b) { return std::tie(a.meshDim, a.kind) < std::tie(b.meshDim, b.kind); });
  return out;
}

std::string AppliedGraph::summary(const DeviceMesh& mesh) const {
  std::ostringstream s;
  s << "applied graph on rank " << rank << " " << coordString(coord) << ": " << matched << " of " << planNodes
    << " plan nodes matched, " << collectives.size() << " collectives";
  if (transitionsPlanned > 0) s << ", " << transitionsFound << " of " << transitionsPlanned << " planned transitions found";
  for (const auto& g : groups) s << "; group '" << g.group << "' -> " << meshDimString(mesh, g.meshDim) << " (" << g.how << ")";
  return s.str();
}

// ---- node matching ----

namespace {

std::string matchKey(const Node& n) {
  std::string op = n.opName();
  if (op == "t" || op == "transpose") return "permute";
  if (op == "reshape" || op == "_unsafe_view") return "view";
  // autoparallel's mixed-precision cast is traced back as prims' conversion.
  if (op == "dtype_cast" || op == "_to_copy") return "convert_element_type";
  return op;
}

// Plan ops the apply pass's re-trace (with Inductor's decompositions) replaces by a chain of simpler ops:
// `einsum('abk,kn->abn', ...)` becomes unsqueeze / permute / view around a bmm. Such a node matches the
// chain's op that carries its source line and its local shape (the chain's result).
bool isDecomposedInApplied(const std::string& key) { return key == "einsum"; }
bool isDecompositionPiece(const std::string& key) {
  return key == "view" || key == "permute" || key == "bmm" || key == "mm" || key == "unsqueeze" || key == "squeeze" ||
         key == "clone" || key == "expand" || key == "sum";
}

bool isPlanCompute(const Node& n) { return n.kind == NodeKind::Call && n.opName() != "alias"; }

bool isHigherOrder(const Node& n) {
  std::string_view o = n.op;
  if (o.rfind("torch.ops.", 0) == 0) o.remove_prefix(10);
  return n.kind == NodeKind::Call && o.rfind("higher_order.", 0) == 0;
}

// Higher-order ops the applied graph inlines (apply_sharding traces through a local_map_hop's body: no applied node
// has its op): 1 at such a HOP, 2 at the getitems reading its outputs. Neither has an applied counterpart, so
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

// ---- the checks ----

namespace {

std::string inputName(const Plan& plan, int node, int input) {
  const Node& n = plan.graph.nodes[node];
  // index_put's tensor inputs: self, the non-None indices, then values (docs/checks.md).
  if (n.opName() == "index_put" || n.opName() == "index_put_") {
    const int count = static_cast<int>(plan.graph.inputs(node).size());
    if (input == 0) return "self";
    if (input == count - 1) return "values";
    return "indices";
  }
  return "";
}

// The applied nodes between the applied consumer's input `input` and the first node matched to a plan node (or a
// placeholder): the ops that perform a transition. Returns the collectives on it (indices into cs) and the node
// reached.
std::vector<int> pathCollectives(const AppliedGraph& a, int appliedConsumer, int input, int* reached) {
  const Graph& g = a.graph.graph;
  std::vector<int> out;
  *reached = -1;
  const auto& ins = g.inputs(appliedConsumer);
  if (input < 0 || input >= static_cast<int>(ins.size())) return out;
  int cur = ins[input].node;
  for (int steps = 0; steps < 64 && cur >= 0; ++steps) {
    if (a.planOf[cur] >= 0 || g.nodes[cur].kind == NodeKind::Placeholder) {
      *reached = cur;
      return out;
    }
    for (size_t k = 0; k < a.collectives.size(); ++k)
      if (a.collectives[k].node == cur) out.push_back(static_cast<int>(k));
    const auto& ci = g.inputs(cur);
    cur = ci.empty() ? -1 : ci[0].node;
  }
  return out;
}

int collectiveIndexAt(const AppliedGraph& a, int node) {
  for (size_t k = 0; k < a.collectives.size(); ++k)
    if (a.collectives[k].node == node) return static_cast<int>(k);
  return -1;
}

// The applied image of the plan value input k of node c reads: its producer, or for a plan alias without a
// counterpart the aliased value's; -1 when it has none.
int producerImage(const Plan& plan, const AppliedGraph& a, int c, int k) {
  const Graph& pg = plan.graph;
  const auto& ins = pg.inputs(c);
  if (k < 0 || k >= static_cast<int>(ins.size())) return -1;
  int p = ins[k].node;
  for (int hops = 0; hops < 16 && p >= 0 && a.appliedOf[p] < 0 && pg.nodes[p].opName() == "alias" &&
                     !pg.inputs(p).empty();
       ++hops)
    p = pg.inputs(p)[0].node;
  return p >= 0 ? a.appliedOf[p] : -1;
}

// A decomposed consumer (einsum: unsqueeze / permute / view around a bmm) reads input k somewhere inside its chain,
// not at its image's input k: the collectives upstream of the image (every input, through unmatched nodes), nearest
// first, whose own upstream reaches `image` (the producer's image; when that is unknown, every one).
// The chain's own pieces (same source line) may have been matched to plan views / permutes of that line: passed.
std::vector<int> decomposedPathCollectives(const AppliedGraph& a, int appliedConsumer, int image) {
  const Graph& g = a.graph.graph;
  const std::string& code = g.nodes[appliedConsumer].source.code;
  auto unmatched = [&](int n) {
    const Node& x = g.nodes[n];
    if (x.kind == NodeKind::Placeholder) return false;
    return a.planOf[n] < 0 || (!code.empty() && x.source.code == code && isDecompositionPiece(matchKey(x)));
  };
  auto reaches = [&](int from) {
    if (image < 0) return true;
    std::vector<int> stack{from};
    std::set<int> seen;
    while (!stack.empty() && seen.size() < 256) {
      const int cur = stack.back();
      stack.pop_back();
      if (cur == image) return true;
      if (!seen.insert(cur).second || (cur != from && !unmatched(cur))) continue;
      for (const TensorRef& r : g.inputs(cur)) stack.push_back(r.node);
    }
    return false;
  };
  std::vector<int> out;
  std::vector<int> frontier;
  for (const TensorRef& r : g.inputs(appliedConsumer)) frontier.push_back(r.node);
  std::set<int> seen;
  for (size_t q = 0; q < frontier.size() && seen.size() < 256; ++q) {
    const int cur = frontier[q];
    if (cur < 0 || !seen.insert(cur).second || !unmatched(cur)) continue;
    if (const int k = collectiveIndexAt(a, cur); k >= 0 && reaches(cur)) out.push_back(k);
    for (const TensorRef& r : g.inputs(cur)) frontier.push_back(r.node);
  }
  return out;
}

// An inlined higher-order op's input: its transition is performed on the paths leaving the producer's image (the
// op's body follows, unmatched): the collectives downstream of `image` through unmatched nodes, nearest first.
std::vector<int> downstreamCollectives(const AppliedGraph& a, int image) {
  const Graph& g = a.graph.graph;
  std::vector<int> out;
  std::vector<int> frontier{image};
  std::set<int> seen;
  for (size_t q = 0; q < frontier.size() && seen.size() < 256; ++q) {
    const int cur = frontier[q];
    if (!seen.insert(cur).second) continue;
    if (cur != image && (a.planOf[cur] >= 0 || g.nodes[cur].kind == NodeKind::Output)) continue;
    if (const int k = collectiveIndexAt(a, cur); k >= 0) out.push_back(k);
    for (const auto& [u, in] : g.users(cur)) frontier.push_back(u);
  }
  return out;
}

bool isComm(CollectiveKind k) {
  return k == CollectiveKind::AllGather || k == CollectiveKind::AllReduce || k == CollectiveKind::ReduceScatter ||
         k == CollectiveKind::AllToAll;
}

// The collectives of `path` that performed steps (`used`) belong to the transition into plan node c's input k.
void claimUsed(AppliedGraph& a, const std::vector<int>& path, const std::vector<char>& used, int c, int k,
               AppliedTransition& tr, std::vector<char>& claimed) {
  for (size_t q = 0; q < path.size(); ++q)
    if (used[q]) {
      tr.collectives.push_back(path[q]);
      claimed[path[q]] = 1;
      a.collectives[path[q]].planConsumer = c;
      a.collectives[path[q]].planInput = k;
    }
}

// Where the transition into input k of plan node c is judged: there, or for a plan alias at a user with a counterpart.
std::pair<int, int> judgePoint(const Graph& pg, const AppliedGraph& a, int c, int k) {
  int judgeAt = c, judgeInput = k;
  if (a.appliedOf[c] < 0 && pg.nodes[c].opName() == "alias") {
    // Breadth-first through alias chains: the first user (in plan order) that has a counterpart.
    std::vector<int> frontier{c};
    for (int hops = 0; hops < 16 && !frontier.empty() && judgeAt == c; ++hops) {
      std::vector<int> next;
      for (int f : frontier)
        for (const auto& [u, in] : pg.users(f)) {
          if (judgeAt != c) break;
          if (a.appliedOf[u] >= 0) {
            judgeAt = u;
            judgeInput = in;
          } else if (pg.nodes[u].opName() == "alias") {
            next.push_back(u);
          }
        }
      frontier = std::move(next);
    }
  }
  return {judgeAt, judgeInput};
}

// False when the applied graph gives `group` two sizes (GroupMapping::consistent).
bool groupConsistent(const AppliedGraph& a, const std::string& group) {
  for (const GroupMapping& g : a.groups)
    if (g.group == group) return g.consistent;
  return true;
}

// The communicating steps of `rp` no collective on `path` performs; marks in `used` the collectives that perform one.
std::vector<const RedistributeStep*> missingSteps(const Plan& plan, const AppliedGraph& a, const RedistributePlan& rp,
                                                  const std::vector<int>& path, std::vector<char>& used) {
  std::vector<const RedistributeStep*> missing;
  for (const auto& st : rp.steps) {
    if (!isComm(st.kind)) continue;
    bool ok = false;
    for (size_t q = 0; q < path.size() && !ok; ++q) {
      const AppliedCollective& col = a.collectives[path[q]];
      const bool kindOk = col.kind == st.kind || (st.kind == CollectiveKind::AllToAll && col.kind == CollectiveKind::AllGather);
      // An unmapped group (two mesh dims of one size) performs a step of its size; an inconsistent one none.
      const bool dimOk = col.meshDim == st.meshDim || col.meshDim == -2 ||
                         (col.meshDim == -1 && col.groupSize == plan.mesh.dimSize(st.meshDim) &&
                          groupConsistent(a, col.group));
      if (kindOk && dimOk) {
        ok = true;
        if (!used[q]) used[q] = 1;
      }
    }
    if (!ok) missing.push_back(&st);
  }
  return missing;
}

// autoparallel casts a whole tensor, then splits it (numerically the same as split, then cast): a conversion whose
// planned input transition only splits (no communication) may show its input's unsplit local shape.
bool castThenSplit(const Plan& plan, const AppliedGraph& a, int p, const CostModel& cost) {
  const Graph& pg = plan.graph;
  if (matchKey(pg.nodes[p]) != "convert_element_type" || pg.inputs(p).empty()) return false;
  const int j = a.appliedOf[p];
  if (j < 0) return false;
  const Node& an = a.graph.graph.nodes[j];
  if (an.outputs.size() != 1 || !an.outputs[0].known) return false;
  auto src = plan.producerSpec(p, 0);
  auto dst = plan.consumerSpec(p, 0);
  const TensorMeta* meta = pg.meta(pg.inputs(p)[0]);
  if (!src || !dst || *src == *dst || !meta || !meta->known) return false;
  RedistributePlan rp = planRedistribute(*meta, plan.mesh, *src, *dst, cost);
  if (!rp.possible) return false;
  for (const auto& st : rp.steps)
    if (isComm(st.kind)) return false;
  auto l = localShape(meta->shape, plan.mesh, *src, plan.mesh.rankOf(a.coord));
  return l && *l == an.outputs[0].shape;
}

// Judges the planned transition into input k of call node c on this rank: records it in `a`, its findings in `d`.
void checkTransition(const Plan& plan, AppliedGraph& a, const CheckOptions& copts, const RedistIndex& redist,
                     const std::vector<char>& inlined, const std::string& where, int c, int k,
                     std::vector<char>& claimed, Diagnostics& d) {
  const Graph& pg = plan.graph;
  const Graph& ag = a.graph.graph;
  const Node& cn = pg.nodes[c];
  const auto& ins = pg.inputs(c);
  auto src = plan.producerSpec(c, k);
  std::optional<ShardingSpec> dst;
  if (int r = redist.find(c, k); r >= 0) {
    src = plan.redistributes[r].from;
    dst = plan.redistributes[r].to;
  } else {
    dst = plan.consumerSpec(c, k);
  }
  if (!src || !dst || *src == *dst) return;
  // This edge's findings: at the consumer and input, what arrives against what the plan wants there.
  auto edgeError = [&](DiagKind kind) {
    Diagnostic x;
    x.severity = Severity::Error;
    x.kind = kind;
    x.node = c;
    x.input = k;
    x.have = src;
    x.want = dst;
    return x;
  };
  const TensorMeta* meta = pg.meta(ins[k]);
  if (!meta) return;
  RedistributePlan rp = planRedistribute(*meta, plan.mesh, *src, *dst, copts.cost);
  if (!rp.possible) {
    // A change of a Partial's reduce op (P(sum) -> P(avg)), which DTensor refuses (the checker reports it), is what
    // autoparallel's apply pass performs as an all_reduce to Replicate and the free R -> P(avg): judged as that.
    ShardingSpec mid = *src;
    bool change = false;
    for (int m = 0; m < src->meshDims() && m < dst->meshDims(); ++m)
      if ((*src)[m].isPartial() && (*dst)[m].isPartial() && (*src)[m].reduce != (*dst)[m].reduce) {
        mid.placements[m] = Placement::replicate();
        change = true;
      }
    if (!change) return;
    RedistributePlan toR = planRedistribute(*meta, plan.mesh, *src, mid, copts.cost);
    RedistributePlan fromR = planRedistribute(*meta, plan.mesh, mid, *dst, copts.cost);
    if (!toR.possible || !fromR.possible) return;
    rp = std::move(toR);
    rp.steps.insert(rp.steps.end(), fromR.steps.begin(), fromR.steps.end());
  }
  ++a.transitionsPlanned;
  AppliedTransition tr;
  tr.consumer = c;
  tr.input = k;
  tr.from = src;
  tr.to = dst;
  for (const auto& st : rp.steps)
    if (isComm(st.kind)) tr.planned.push_back(st);
  // A plan alias has no counterpart (the apply pass's cleanup removes aliases): its transition is performed
  // before the alias's first user, judged there at the input that reads the alias.
  const auto [judgeAt, judgeInput] = judgePoint(pg, a, c, k);
  const int ac = a.appliedOf[judgeAt];
  if (ac < 0) {  // the consumer has no counterpart: nothing to judge
    // An inlined higher-order op (local_map_hop): its input's transition is on the paths leaving the producer's
    // image. Found there it is applied; not found it stays unjudged (the body may consume the value anywhere).
    const int image = inlined[judgeAt] == 1 ? producerImage(plan, a, judgeAt, judgeInput) : -1;
    if (image >= 0) {
      std::vector<int> path = downstreamCollectives(a, image);
      std::vector<char> used(path.size(), 0);
      if (missingSteps(plan, a, rp, path, used).empty()) {
        claimUsed(a, path, used, c, k, tr, claimed);
        tr.state = TransitionState::Applied;
        tr.appliedProducer = image;
        ++a.transitionsFound;
      }
    }
    a.transitions.push_back(std::move(tr));
    return;
  }
  tr.appliedConsumer = ac;
  if (judgeInput < static_cast<int>(ag.inputs(ac).size())) tr.appliedProducer = ag.inputs(ac)[judgeInput].node;
  // A decomposed consumer's image is the last piece of its chain, whose inputs are not the consumer's.
  const bool decomposed = isDecomposedInApplied(matchKey(pg.nodes[judgeAt]));
  int reached = -1;
  std::vector<int> path = pathCollectives(a, ac, judgeInput, &reached);
  if (decomposed)  // the input's own branch of the chain, after the first-input walk's
    for (int q : decomposedPathCollectives(a, ac, producerImage(plan, a, judgeAt, judgeInput)))
      if (std::find(path.begin(), path.end(), q) == path.end()) path.push_back(q);
  // Each communicating step needs a collective of its kind on its mesh dim (an all_to_all may be done as an
  // all_gather then a local chunk; the flattened mesh's collective covers every dim).
  std::vector<char> used(path.size(), 0);
  std::vector<const RedistributeStep*> missing = missingSteps(plan, a, rp, path, used);
  claimUsed(a, path, used, c, k, tr, claimed);
  // What arrives and what the consumer's spec needs, on this rank.
  const auto& aIns = ag.inputs(ac);
  const TensorMeta* arrives =
      !decomposed && judgeInput < static_cast<int>(aIns.size()) ? ag.meta(aIns[judgeInput]) : nullptr;
  std::optional<std::vector<int64_t>> need;
  if (meta->known)
    if (auto l = localShape(meta->shape, plan.mesh, *dst, plan.mesh.rankOf(a.coord))) need = *l;
  const std::string inName = inputName(plan, c, k);
  const std::string inLabel = "input " + std::to_string(k) + (inName.empty() ? "" : " (" + inName + ")");
  for (const RedistributeStep* st : missing) tr.missing.push_back(*st);
  tr.state = missing.empty() ? TransitionState::Applied : TransitionState::Missing;
  a.transitions.push_back(std::move(tr));
  if (missing.empty()) {
    ++a.transitionsFound;
    if (arrives && arrives->known && need && arrives->shape != *need && !castThenSplit(plan, a, c, copts.cost)) {
      Diagnostic x = edgeError(DiagKind::LocalShapeMismatch);
      x.message = "on " + where + " " + inLabel + " of " + cn.name + " arrives with local shape " +
                  shapeToString(arrives->shape) + " in the applied graph; the plan's " + dst->toMeshString() +
                  " of " + shapeToString(meta->shape) + " gives " + shapeToString(*need);
      d.items.push_back(std::move(x));
    }
    return;
  }
  Diagnostic x = edgeError(DiagKind::TransitionNotApplied);
  std::string steps;
  int64_t bytes = 0;
  double us = 0;
  for (const RedistributeStep* st : missing) {
    steps += (steps.empty() ? "" : " and ") + std::string(collectiveName(st->kind)) + " on " + meshDimString(plan.mesh, st->meshDim);
    bytes += st->bytesSent;
    us += st->timeUs;
  }
  const std::string producer = pg.nodes[ins[k].node].name;
  const int param = cn.kind == NodeKind::Output ? plan.gradientParamOf(k) : -1;
  const std::string what =
      param >= 0 ? " bringing the gradient of parameter " + pg.nodes[param].name +
                       (pg.nodes[param].modulePath.empty() ? "" : " (" + pg.nodes[param].modulePath + ")") +
                       " to its placement"
                 : "";
  x.message = "the planned " + src->toMeshString() + " -> " + dst->toMeshString() + " (" + steps + ", " +
              formatBytes(bytes) + " per rank)" + what + " is not in the applied graph: on " + where + " " + cn.name +
              " " + inLabel;
  if (arrives && arrives->known && need && arrives->shape == *need)  // e.g. a Partial left unreduced
    x.message += " receives a value of the right local shape " + shapeToString(*need) + " still in " +
                 src->toMeshString() + ", not " + dst->toMeshString();
  else
    x.message += " receives local " + (arrives && arrives->known ? shapeToString(arrives->shape) : std::string("?")) +
                 " where " + dst->toMeshString() + " needs " + (need ? shapeToString(*need) : "?");
  x.fix = "the apply pass must insert " + rp.summary() + " on the edge " + producer + " -> " + cn.name +
          " (input " + std::to_string(k) + ")";
  a.transitions.back().fix = x.fix;  // this transition's record (pushed above)
  const int readsFrom = judgeInput < static_cast<int>(aIns.size()) ? aIns[judgeInput].node : -1;
  x.notes.push_back("applied graph: '" + ag.nodes[ac].name + "' reads '" + (readsFrom >= 0 ? ag.nodes[readsFrom].name : "?") +
                    "'" + (path.empty() ? " with no collective between them" : " through collectives of other kinds or mesh dims"));
  for (const RedistributeStep* st : missing) x.notes.push_back("missing: " + st->toString());
  (void)us;
  d.items.push_back(std::move(x));
}

// Collectives no planned transition explains (not `claimed`): a warning each, recorded in a.unplanned.
void reportUnplannedCollectives(const Plan& plan, AppliedGraph& a, const std::vector<char>& claimed,
                                const std::vector<char>& inlined, Diagnostics& d) {
  const Graph& pg = plan.graph;
  const Graph& ag = a.graph.graph;
  // True when plan input `input` of `consumer` is (through aliases) an output of an inlined higher-order op.
  auto readsInlinedOutput = [&](int consumer, int input) {
    const auto& ins = pg.inputs(consumer);
    if (input < 0 || input >= static_cast<int>(ins.size())) return false;
    int p = ins[input].node;
    for (int hops = 0; hops < 16 && p >= 0 && pg.nodes[p].opName() == "alias" && !pg.inputs(p).empty(); ++hops)
      p = pg.inputs(p)[0].node;
    return p >= 0 && inlined[p] == 2;
  };
  for (size_t q = 0; q < a.collectives.size(); ++q) {
    if (claimed[q]) continue;
    const AppliedCollective& col = a.collectives[q];
    // The first plan node downstream (through the wait and unmatched ops); and whether any plan node it reaches
    // first reads it as an inlined higher-order op's output: then it is that op's own program (a local_map
    // region's all_to_all), no transition of the plan.
    int consumer = -1, input = -1;
    bool region = false;
    std::vector<int> frontier{col.wait >= 0 ? col.wait : col.node};
    std::set<int> seen;
    while (!frontier.empty() && seen.size() < 1024 && !region) {
      const int cur = frontier.back();
      frontier.pop_back();
      if (!seen.insert(cur).second) continue;
      for (const auto& [user, in] : ag.users(cur)) {
        if (a.planOf[user] >= 0) {
          if (consumer < 0) {
            consumer = a.planOf[user];
            input = in;
          }
          if (readsInlinedOutput(a.planOf[user], in)) region = true;
          continue;
        }
        frontier.push_back(user);
      }
    }
    if (region) continue;
    a.unplanned.push_back({static_cast<int>(q), consumer, input});
    Diagnostic x;
    x.severity = Severity::Warning;
    x.kind = DiagKind::UnplannedCollective;
    x.node = consumer;
    x.input = consumer >= 0 ? input : -1;
    x.message = "the applied graph's '" + ag.nodes[col.node].name + "' (" + col.toString(plan.mesh) +
                ") performs no transition the plan has" + (consumer >= 0 ? " (it feeds " + pg.nodes[consumer].name + ")" : "");
    d.items.push_back(std::move(x));
  }
}

// Matched nodes whose applied shape is not the plan's layout on this rank: an error each.
void reportLocalShapeMismatches(const Plan& plan, const AppliedGraph& a, const std::string& where,
                                const CostModel& cost, Diagnostics& d) {
  const Graph& pg = plan.graph;
  const Graph& ag = a.graph.graph;
  for (int p = 0; p < pg.size(); ++p) {
    const int j = a.appliedOf[p];
    if (j < 0 || pg.nodes[p].kind == NodeKind::Output) continue;
    const Node& an = ag.nodes[j];
    if (an.outputs.size() != 1 || !an.outputs[0].known) continue;
    auto want = planLocalShape(plan, p, a.coord);
    if (!want || *want == an.outputs[0].shape || castThenSplit(plan, a, p, cost)) continue;
    Diagnostic x;
    x.severity = Severity::Error;
    x.kind = DiagKind::LocalShapeMismatch;
    x.node = p;
    x.have = plan.specs[p].outputs[0];
    x.message = "on " + where + " the applied graph's '" + an.name + "' has local shape " +
                shapeToString(an.outputs[0].shape) + "; the plan's " + plan.specs[p].outputs[0]->toMeshString() + " of " +
                shapeToString(pg.nodes[p].outputs[0].shape) + " gives " + shapeToString(*want);
    d.items.push_back(std::move(x));
  }
}

}  // namespace

Diagnostics checkApplied(const Plan& plan, AppliedGraph& a, const CheckOptions& copts) {
  Diagnostics d;
  const Graph& pg = plan.graph;
  const std::string where = "rank " + std::to_string(a.rank) + " " + coordString(a.coord);
  std::vector<char> claimed(a.collectives.size(), 0);
  RedistIndex redist;
  redist.build(plan);
  const std::vector<char> inlined = inlinedHops(pg, a.graph.graph);
  a.transitionsPlanned = a.transitionsFound = 0;
  a.transitions.clear();
  a.unplanned.clear();
  for (auto& col : a.collectives) col.planConsumer = col.planInput = -1;  // re-judged from scratch (after an edit)
  for (int c = 0; c < pg.size(); ++c) {
    const Node& cn = pg.nodes[c];
    // Calls, and the output: a gradient's transition to its parameter's placement ends there.
    if (cn.kind != NodeKind::Call && cn.kind != NodeKind::Output) continue;
    const auto& ins = pg.inputs(c);
    for (int k = 0; k < static_cast<int>(ins.size()); ++k)
      checkTransition(plan, a, copts, redist, inlined, where, c, k, claimed, d);
  }
  reportUnplannedCollectives(plan, a, claimed, inlined, d);
  reportLocalShapeMismatches(plan, a, where, copts.cost, d);
  std::stable_sort(d.items.begin(), d.items.end(), [](const Diagnostic& x, const Diagnostic& y) {
    return std::make_pair(x.node < 0 ? INT32_MAX : x.node, x.input) < std::make_pair(y.node < 0 ? INT32_MAX : y.node, y.input);
  });
  return d;
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
