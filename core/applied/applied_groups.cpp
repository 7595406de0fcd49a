// Applied graph analysis, part: the collectives an applied graph performs, their process groups mapped to mesh
// dims, and their costs. See applied.h for the contracts.
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
  std::string s = std::string(collectiveName(kind)) + " (" + op + ") on " + meshDimString(mesh, meshDim) + ", group '" + Error::oneLine(group) + "'";
  if (bytes > 0) s += ", " + formatBytes(bytes) + " per rank, " + formatTimeUs(timeUs);
  return s;
}

namespace {

int64_t intArgOr(const Node& n, size_t k, int64_t dflt) {
  if (k < n.args.size() && n.args[k].isInt()) return n.args[k].i;
  for (const auto& [key, v] : n.kwargs)
    if (key == "dim" && v.isInt()) return v.i;
  return dflt;
}

// A dim as a non-negative index into a value of rank `rank` (cat(.., -1)); -1 when out of range.
int normalDim(int64_t d, int rank) {
  if (d < 0) d += rank;
  return d >= 0 && d < rank ? static_cast<int>(d) : -1;
}

int outRank(const Graph& g, int n) {
  const Node& x = g.nodes[n];
  return x.outputs.size() == 1 && x.outputs[0].known ? x.outputs[0].rank() : -1;
}

// The cat that reads every getitem of split node `split` (and nothing else), -1 when there is none.
int catOfSplit(const Graph& g, int split) {
  int cat = -1;
  for (const auto& [gi, in] : g.users(split)) {
    if (g.nodes[gi].opName() != "getitem") return -1;
    for (const auto& [u, in2] : g.users(gi)) {
      if (g.nodes[u].opName() != "cat" || (cat >= 0 && cat != u)) return -1;
      cat = u;
    }
  }
  return cat;
}

// Fills c.tensorDim and c.result (applied.h): the reassembly the apply pass puts around a gather or a scatter.
void findReassembly(const Graph& g, AppliedCollective& c) {
  c.result = c.wait >= 0 ? c.wait : c.node;
  const int rank = static_cast<int>(c.inShape.empty() ? c.outShape.size() : c.inShape.size());
  if (c.kind == CollectiveKind::AllGather) {
    c.tensorDim = rank > 0 ? 0 : -1;
    const auto& us = g.users(c.result);
    if (us.size() != 1) return;
    const int split = us[0].first;
    if (g.nodes[split].opName() != "split" || normalDim(intArgOr(g.nodes[split], 2, 0), rank) != 0) return;
    const int cat = catOfSplit(g, split);
    if (cat < 0) return;
    c.tensorDim = normalDim(intArgOr(g.nodes[cat], 1, 0), rank);
    c.result = cat;
  } else if (c.kind == CollectiveKind::ReduceScatter) {
    c.tensorDim = rank > 0 ? 0 : -1;
    const auto& ins = g.inputs(c.node);
    if (ins.empty()) return;
    const int cat = ins[0].node;
    if (g.nodes[cat].opName() != "cat" || normalDim(intArgOr(g.nodes[cat], 1, 0), rank) != 0) return;
    const auto& parts = g.inputs(cat);
    if (parts.empty() || g.nodes[parts[0].node].opName() != "getitem" || g.inputs(parts[0].node).empty()) return;
    const int split = g.inputs(parts[0].node)[0].node;
    if (g.nodes[split].opName() != "split" || catOfSplit(g, split) != cat) return;
    c.tensorDim = normalDim(intArgOr(g.nodes[split], 2, 0), outRank(g, cat) >= 0 ? outRank(g, cat) : rank);
  } else if (c.op == "shard_dim_alltoall") {
    c.tensorDim = c.gatherDim >= 0 && c.gatherDim < rank ? c.gatherDim : -1;
  }
}

// "" when `size` (a group size the graph gives) is a number of ranks a process group can have; else why not.
std::string groupSizeProblem(int64_t size, const char* what) {
  if (size >= 1 && size <= limits::kMaxRanks) return "";
  return std::string(what) + " " + std::to_string(size) + " is not a number of ranks (1 to " +
         std::to_string(limits::kMaxRanks) + ")";
}

// "" when tensor dim `d` (a gather or shard dim the graph gives) is one of a value of rank `rank` (-1: unknown,
// then any dim a tensor may have); else why not.
std::string tensorDimProblem(int64_t d, int rank, const char* what) {
  const int64_t r = rank >= 0 ? rank : limits::kMaxTensorRank;
  if (d >= -r && d < r) return "";
  return std::string(what) + " " + std::to_string(d) + " is out of range for " +
         (rank >= 0 ? "a tensor of " + std::to_string(rank) + " dims" : std::string("any tensor"));
}

// all_to_all_single's split lists: at most kMaxRanks entries, literal sizes not negative.
std::string splitListProblem(const Arg& a, const char* what) {
  if (!a.isList()) return "";
  if (static_cast<int64_t>(a.items.size()) > limits::kMaxRanks)
    return std::string(what) + " has " + std::to_string(a.items.size()) + " entries, more than a group's ranks (" +
           std::to_string(limits::kMaxRanks) + ")";
  for (size_t k = 0; k < a.items.size(); ++k)
    if (a.items[k].isInt() && a.items[k].i < 0)
      return std::string(what) + " entry " + std::to_string(k) + " is " + std::to_string(a.items[k].i) + ", a negative size";
  return "";
}

}  // namespace

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
    auto isIntArg = [&](size_t k) { return k < n.args.size() && n.args[k].isInt(); };
    auto intArg = [&](size_t k) { return isIntArg(k) ? n.args[k].i : int64_t{0}; };
    // A group size argument: absent (not an int) leaves it unknown; present, it must be a number of ranks.
    auto sizeArg = [&](size_t k) {
      if (!isIntArg(k)) return;
      if (std::string why = groupSizeProblem(n.args[k].i, "group size"); !why.empty()) c.invalid = why;
      else c.groupSize = n.args[k].i;
    };
    if (c.op == "all_gather_into_tensor" || c.op == "all_gather_into_tensor_coalesced") {
      c.kind = CollectiveKind::AllGather;
      sizeArg(1);
      c.group = strArg(2);
    } else if (c.op == "reduce_scatter_tensor" || c.op == "reduce_scatter_tensor_coalesced") {
      c.kind = CollectiveKind::ReduceScatter;
      c.reduceOp = strArg(1);
      sizeArg(2);
      c.group = strArg(3);
    } else if (c.op == "all_reduce" || c.op == "all_reduce_coalesced") {
      c.kind = CollectiveKind::AllReduce;
      c.reduceOp = strArg(1);
      c.group = strArg(2);
    } else if (c.op == "all_to_all_single") {
      c.kind = CollectiveKind::AllToAll;
      for (size_t k : {size_t{1}, size_t{2}})
        if (c.invalid.empty() && k < n.args.size())
          c.invalid = splitListProblem(n.args[k], k == 1 ? "output_split_sizes" : "input_split_sizes");
      // One split per rank in each list (torch's all_to_all_single requires as many as the group has ranks).
      if (c.invalid.empty() && n.args.size() > 2 && n.args[1].isList() && n.args[2].isList() &&
          !n.args[1].items.empty() && !n.args[2].items.empty() && n.args[1].items.size() != n.args[2].items.size())
        c.invalid = "output_split_sizes has " + std::to_string(n.args[1].items.size()) + " entries and input_split_sizes " +
                    std::to_string(n.args[2].items.size()) + ", where each has one per rank of the group";
      if (c.invalid.empty() && n.args.size() > 1 && n.args[1].isList() && !n.args[1].items.empty())
        c.groupSize = static_cast<int64_t>(n.args[1].items.size());
      c.group = strArg(3);
    } else if (dt) {
      c.kind = CollectiveKind::AllToAll;
      c.group = strArg(3);
    } else {
      // broadcast and the rest: kept (they communicate), kind unknown; the group is the last string argument.
      for (size_t k = n.args.size(); k-- > 0;)
        if (n.args[k].kind == Arg::Kind::String) { c.group = n.args[k].s; break; }
    }
    int inRank = -1;  // its input's rank, -1 when not known
    if (!n.args.empty() && n.args[0].isTensor())
      if (const TensorMeta* m = g.meta(n.args[0].t)) {
        if (m->known) c.inShape = m->shape, inRank = m->rank();
        c.dtype = m->dtype;
      }
    if (!n.outputs.empty() && n.outputs[0].known) {
      c.outShape = n.outputs[0].shape;
      if (c.dtype == DType::Unknown) c.dtype = n.outputs[0].dtype;
    }
    if (dt) {
      // Its gather and shard dims index its input's shape: checked against the input's rank (any tensor's when
      // unknown) before they are narrowed to int.
      for (auto [k, what] : {std::pair<size_t, const char*>{1, "gather dim"}, {2, "shard dim"}}) {
        if (!isIntArg(k) || !c.invalid.empty()) continue;
        c.invalid = tensorDimProblem(n.args[k].i, inRank, what);
      }
      if (c.invalid.empty()) {
        // Negative dims count from the end, as torch's do (-1 stays unknown while the rank is).
        auto normal = [&](int64_t d) { return static_cast<int>(d < 0 && inRank >= 0 ? d + inRank : d); };
        c.gatherDim = normal(intArg(1));
        c.shardDim = normal(intArg(2));
      }
    }
    // shard_dim_alltoall grows its gather dim by the group size.
    if (dt && c.invalid.empty() && c.groupSize == 0 && c.gatherDim >= 0 &&
        c.gatherDim < static_cast<int>(c.inShape.size()) && c.gatherDim < static_cast<int>(c.outShape.size()) &&
        c.inShape[c.gatherDim] > 0 && c.outShape[c.gatherDim] % c.inShape[c.gatherDim] == 0) {
      const int64_t size = c.outShape[c.gatherDim] / c.inShape[c.gatherDim];
      if (std::string why = groupSizeProblem(size, "the group size its gather dim shows,"); !why.empty()) c.invalid = why;
      else c.groupSize = size;
    }
    for (const auto& [user, input] : g.users(i))
      if (isWait(g.nodes[user])) { c.wait = user; break; }
    findReassembly(g, c);
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

namespace {
// The sizes of the process groups a mesh has: every product of a non-empty set of its dims (one dim, a flattened
// sub-mesh, the whole mesh). A mesh has at most kMaxMeshDims dims, so at most 255 products.
std::set<int64_t> meshGroupSizes(const DeviceMesh& mesh) {
  std::set<int64_t> out;
  const int nd = mesh.ndim();
  for (unsigned m = 1; m < (1u << nd); ++m) {
    int64_t p = 1;
    for (int d = 0; d < nd; ++d)
      if (m & (1u << d)) p = satMul(p, mesh.dimSize(d));
    out.insert(p);
  }
  return out;
}
}  // namespace

std::vector<GroupMapping> mapGroups(std::vector<AppliedCollective>& cs, const DeviceMesh& mesh,
                                    const std::map<std::string, int>& overrides, const std::vector<int64_t>* coord) {
  // A size no process group of the mesh has: the collective is invalid (applied.h), before any group takes its size.
  const std::set<int64_t> groupSizes = meshGroupSizes(mesh);
  for (auto& c : cs)
    if (c.invalid.empty() && c.groupSize > 0 && c.groupSize != 1 && !groupSizes.count(c.groupSize)) {
      c.invalid = "group size " + std::to_string(c.groupSize) + " is the size of no process group of the mesh " +
                  mesh.toString() + " (a mesh dim, or a product of mesh dims)";
      c.groupSize = 0;
    }
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
      if (o->second >= 0 && o->second < mesh.ndim()) {
        g.meshDim = o->second;
        g.how = "--group";
        taken[g.meshDim] = 1;
        if (g.size == 0) g.size = mesh.dimSize(g.meshDim);
      } else {
        g.how = "--group names mesh dim " + std::to_string(o->second) + ", which the mesh " + mesh.toString() + " lacks";
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
  // torch's group numbering as a witness (when at least one mapped group agrees with it): a group mapped by size to
  // one mesh dim (or the flattened mesh) whose name torch gives another mesh dim's group on this rank is a
  // collective sent to the wrong process group (its size argument is not its group's): unmapped, inconsistent.
  if (coord && static_cast<int>(coord->size()) == mesh.ndim() && mesh.ndim() > 1) {
    auto agrees = [&](const GroupMapping& g) {
      return (g.meshDim >= 0 && torchGroupName(mesh, g.meshDim, *coord) == g.group) || (g.meshDim == -2 && g.group == "0");
    };
    bool witness = false;
    for (auto& [name, g] : byName) witness = witness || (g.how != "--group" && agrees(g));
    if (witness)
      for (auto& [name, g] : byName) {
        if (g.how == "--group" || g.meshDim == -1 || agrees(g)) continue;
        for (int d = 0; d < mesh.ndim(); ++d) {
          if (torchGroupName(mesh, d, *coord) != name) continue;
          g.how = "conflict: size " + std::to_string(g.size) + ", but torch names mesh dim " + std::to_string(d) +
                  "'s group (size " + std::to_string(mesh.dimSize(d)) + ") '" + name + "' on this rank";
          if (g.meshDim >= 0) taken[g.meshDim] = 0;
          g.meshDim = -1;
          g.consistent = false;
          break;
        }
      }
  }
  std::vector<GroupMapping> out;
  for (auto& [name, g] : byName) out.push_back(g);
  std::sort(out.begin(), out.end(), [](const GroupMapping& a, const GroupMapping& b) { return groupLess(a.group, b.group); });
  for (auto& c : cs) {
    if (!c.invalid.empty()) {
      c.meshDim = -1;
      continue;
    }
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
        if (k != i) prod = satMul(prod, gs[k].second);
      if (prod == gs[i].second) {
        gs.erase(gs.begin() + static_cast<long>(i));
        break;
      }
    }
  }
  // One dim per group; groupDims only for a mesh that exists (a group's dim indexes it).
  std::vector<int64_t> shape;
  std::map<std::string, int> dims;
  for (auto& [n, s] : gs) {
    dims[n] = static_cast<int>(shape.size());
    shape.push_back(s);
  }
  if (shape.size() > static_cast<size_t>(kMaxMeshDims)) return std::nullopt;
  auto m = DeviceMesh::make(shape);
  if (!m) return std::nullopt;
  if (groupDims)
    for (const auto& [n, d] : dims) (*groupDims)[n] = d;
  return *m;
}

// ---- costs (docs/cost-model.md's formulas, on the local shapes the applied graph shows) ----

void costCollectives(std::vector<AppliedCollective>& cs, const CostModel& cost) {
  for (auto& c : cs) {
    // k <= kMaxRanks (findCollectives and mapGroups check it); element counts saturate (a described tensor may
    // hold 2^62 elements), so bytes never wrap.
    const int64_t k = std::clamp<int64_t>(c.groupSize, 1, limits::kMaxRanks);
    const int64_t bytesPer = dtypeBytes(c.dtype);
    const int64_t eIn = c.inShape.empty() && c.outShape.empty() ? 0 : TensorMeta{c.inShape.empty() ? c.outShape : c.inShape, c.dtype, true}.numel();
    const int64_t chunk = eIn / k + (eIn % k != 0);
    int64_t elems = 0;
    int steps = 0;
    switch (c.kind) {
      case CollectiveKind::AllGather: elems = satMul(k - 1, eIn); steps = static_cast<int>(k - 1); break;
      case CollectiveKind::ReduceScatter: elems = satMul(k - 1, chunk); steps = static_cast<int>(k - 1); break;
      case CollectiveKind::AllReduce: elems = satMul(2 * (k - 1), chunk); steps = static_cast<int>(2 * (k - 1)); break;
      case CollectiveKind::AllToAll: elems = satMul(k - 1, chunk); steps = static_cast<int>(k - 1); break;
      default: break;
    }
    c.bytes = satMul(elems, bytesPer);
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
  // Group names are the graph's strings: escaped, so the summary stays one line.
  for (const auto& g : groups)
    s << "; group '" << Error::oneLine(g.group) << "' -> " << meshDimString(mesh, g.meshDim) << " (" << Error::oneLine(g.how) << ")";
  return s.str();
}

}  // namespace ss
