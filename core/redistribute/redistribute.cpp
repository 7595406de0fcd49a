// Redistribute planning (which collective on which mesh dim, in which order) and its cost (bytes and time).
//
// Section index: helpers; State (placements + split order being transformed); byte counts; step emission;
// normalisation of a spec into a State; the planners (DTensor's greedy, the split-stack planner, DTensor's
// graph search); planRedistribute; printing.
//
// Which planner: as DTensor 2.14 (torch/distributed/tensor/_redistribute.py, _gen_transform_infos_non_cached).
// Both specs in the default shard order (mesh-dim order), no _StridedShard: its greedy algorithm, followed step
// for step. A non-default order, or a _StridedShard it decodes into one: its min-cost graph search, searched the
// same way with its own prices (see GraphPlanner), so the steps and their order are the ones DTensor runs for
// that tensor size. A _StridedShard that decodes into no shard order (its split factor is no product of later
// mesh-dim sizes, e.g. a view's on a 1-D mesh): the greedy algorithm on the placements as given. The split-stack
// planner (valid plans under the same legality rules, not necessarily DTensor's) only plans where the graph
// search would pass its budget (meshes of 5+ dims with non-default orders).
//
// Hot path: planRedistribute is called per edge per check and by solvers' cost loops. For default orders it
// allocates only the steps vector (one reserve) and, when refused, the reason string; everything else is
// fixed-size arrays. The graph search (non-default orders only) allocates its frontier.
#include "core/redistribute/redistribute.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <queue>
#include <unordered_set>

#include "core/model/saturate.h"
#include "core/model/enum_names.h"

namespace ss {

namespace {
constexpr EnumName<CollectiveKind> kCollectiveNames[] = {
    {CollectiveKind::None, "none"},
    {CollectiveKind::AllGather, "all_gather"},
    {CollectiveKind::AllReduce, "all_reduce"},
    {CollectiveKind::ReduceScatter, "reduce_scatter"},
    {CollectiveKind::AllToAll, "all_to_all"},
    {CollectiveKind::LocalChunk, "chunk"},
    {CollectiveKind::LocalDivide, "divide"},
    {CollectiveKind::LocalEmbed, "embed"}};
static_assert(enumTableCovers(kCollectiveNames, CollectiveKind::LocalEmbed) && enumNamesValid(kCollectiveNames));
}  // namespace

const char* collectiveName(CollectiveKind k) { return enumName(kCollectiveNames, k, "none"); }

const Link& CostModel::linkFor(int meshDim) const {
  if (meshDim >= 0 && meshDim < static_cast<int>(interNodeDims.size()) && interNodeDims[meshDim]) return interNode;
  return intraNode;
}

namespace {

int64_t ceilDiv(int64_t n, int64_t k) { return n <= 0 ? 0 : n / k + (n % k != 0); }

bool isCommunication(CollectiveKind k) {
  return k == CollectiveKind::AllGather || k == CollectiveKind::AllReduce || k == CollectiveKind::ReduceScatter ||
         k == CollectiveKind::AllToAll;
}

// ---- State: the placements being transformed, one per mesh dim, plus a split key per mesh dim ----------------
// Mesh dims that shard the same tensor dim split it in ascending key order (the shard order). Only plain
// Shard, Replicate and Partial appear in a State: _StridedShard is normalised into Shard + key first, except in
// DTensor's greedy fallback for a _StridedShard that is no shard order (Planner::raw), where it stays as given.
struct State {
  int ndim = 0;
  std::array<Placement, kMaxMeshDims> p{};
  std::array<int, kMaxMeshDims> key{};
};

// Everything the byte counts need, fixed for one call.
struct Problem {
  const TensorMeta* meta;
  const DeviceMesh* mesh;
  const CostModel* cost;
  int dtypeBytes = 0;
  bool sizesKnown = false;
};

// Largest extent of tensor dim `d` on any rank after the splits of the mesh dims sharding it whose key is below
// `keyLimit`, applied in key order. torch.chunk gives coordinate 0 the largest chunk at every level, and each
// mesh dim shards one tensor dim, so all-zero coordinates hold the largest share of every dim at once.
int64_t extent(const Problem& pr, const State& st, int d, int keyLimit) {
  int64_t n = pr.meta->shape[d];
  std::array<int, kMaxMeshDims> order{};
  int count = 0;
  for (int m = 0; m < st.ndim; ++m) {
    if (st.p[m].isShard(d) && st.key[m] < keyLimit) {
      int i = count++;
      while (i > 0 && st.key[order[i - 1]] > st.key[m]) { order[i] = order[i - 1]; --i; }
      order[i] = m;
    }
  }
  for (int i = 0; i < count; ++i) n = ceilDiv(n, pr.mesh->dimSize(order[i]));
  return n;
}

// Product of the current largest extents of every tensor dim except `skipA` and `skipB`.
int64_t otherElements(const Problem& pr, const State& st, int skipA, int skipB) {
  int64_t e = 1;
  for (int d = 0; d < pr.meta->rank(); ++d) {
    if (d == skipA || d == skipB) continue;
    e = satMul(e, extent(pr, st, d, std::numeric_limits<int>::max()));
    if (e == 0) return 0;
  }
  return e;
}

// Wire bytes one rank sends for the transform of mesh dim `m` to `to` in state `st` (see docs/cost-model.md).
// DTensor pads uneven shards to the full chunk ceil(L/k) before all_gather, reduce_scatter and all_to_all, so
// the padded chunk is what travels; ring algorithms send k-1 chunks (all_reduce: 2(k-1), reduce-scatter then
// all-gather of ceil(E/k)-element chunks).
int64_t bytesFor(const Problem& pr, const State& st, int m, CollectiveKind kind, const Placement& to, int newKey) {
  if (!pr.sizesKnown || !isCommunication(kind)) return 0;
  const int64_t k = pr.mesh->dimSize(m);
  const Placement& from = st.p[m];
  int64_t elements = 0;
  switch (kind) {
    case CollectiveKind::AllGather: {
      int64_t chunk = ceilDiv(extent(pr, st, from.dim, st.key[m]), k);
      elements = satMul(satMul(k - 1, chunk), otherElements(pr, st, from.dim, -1));
      break;
    }
    case CollectiveKind::AllToAll: {
      int64_t chunkFrom = ceilDiv(extent(pr, st, from.dim, st.key[m]), k);
      int64_t chunkTo = ceilDiv(extent(pr, st, to.dim, newKey), k);
      elements = satMul(satMul(satMul(k - 1, chunkFrom), chunkTo), otherElements(pr, st, from.dim, to.dim));
      break;
    }
    case CollectiveKind::ReduceScatter: {
      int64_t chunk = ceilDiv(extent(pr, st, to.dim, newKey), k);
      elements = satMul(satMul(k - 1, chunk), otherElements(pr, st, to.dim, -1));
      break;
    }
    case CollectiveKind::AllReduce: {
      int64_t all = otherElements(pr, st, -1, -1);
      elements = satMul(satMul(2, k - 1), ceilDiv(all, k));
      break;
    }
    default: break;
  }
  return satMul(elements, pr.dtypeBytes);
}

// Latency steps of each algorithm: ring all_gather / reduce_scatter k-1, ring all_reduce 2(k-1), pairwise
// all_to_all k-1.
double timeFor(const Problem& pr, int m, CollectiveKind kind, int64_t bytes) {
  if (!isCommunication(kind)) return 0;
  const Link& link = pr.cost->linkFor(m);
  const double k = static_cast<double>(pr.mesh->dimSize(m));
  const double steps = kind == CollectiveKind::AllReduce ? 2 * (k - 1) : k - 1;
  const double transfer = link.betaGBps > 0 ? static_cast<double>(bytes) / (link.betaGBps * 1e3) : 0;  // us
  return steps * link.alphaUs + transfer;
}

CollectiveKind kindOf(const Placement& from, const Placement& to) {
  if (from == to) return CollectiveKind::None;
  if (to.isReplicate()) return from.isPartial() ? CollectiveKind::AllReduce : CollectiveKind::AllGather;
  if (to.isShard()) {
    if (from.isPartial()) return CollectiveKind::ReduceScatter;
    if (from.isReplicate()) return CollectiveKind::LocalChunk;
    return CollectiveKind::AllToAll;
  }
  if (from.isShard()) return CollectiveKind::LocalEmbed;  // S -> P(sum); other S -> P are refused before planning
  return CollectiveKind::LocalDivide;  // R -> P; R -> P(product) and P(a) -> P(b) are refused before planning
}

// The kind of a transform touching a _StridedShard in DTensor's greedy fallback (redistribute_local_tensor):
// _StridedShard -> Shard, Shard -> _StridedShard and between two _StridedShards go through Replicate on the
// same mesh dim (an all_gather, then a local chunk); Partial -> _StridedShard reduces, then chunks.
CollectiveKind kindOfRaw(const Placement& from, const Placement& to) {
  const bool strided = from.kind == PlacementKind::StridedShard || to.kind == PlacementKind::StridedShard;
  if (strided && !(from == to) && from.isShard() && to.isShard()) return CollectiveKind::AllGather;
  if (strided && from.isPartial() && to.isShard()) return CollectiveKind::AllReduce;
  return kindOf(from, to);
}

// Everything one planning call carries: the problem, the display placements and the output.
struct Planner {
  Problem pr;
  const ShardingSpec* srcSpec;
  const ShardingSpec* dstSpec;
  State cur;
  State dst;             // normalised target
  RedistributePlan* out;
  // DTensor's greedy fallback for a _StridedShard that is no shard order: the States hold _StridedShards as
  // given, every split in mesh-dim order.
  bool raw = false;
  // Set when a step is one DTensor raises on at run time (R -> P(product), which the graph search may route
  // through) or, in the fallback, gets wrong (a split sized by the wrong logical size, or added or undone where
  // it is not its tensor dim's innermost): the plan is then refused.
  std::string stepWhy;

  // Applies "mesh dim m becomes `to`" to `cur`, emitting a step unless the mesh dim has size 1 (DTensor skips
  // those: one chunk needs no collective) or nothing changes.
  void apply(int m, const Placement& to, int newKey) {
    const Placement from = cur.p[m];
    const CollectiveKind kind = raw ? kindOfRaw(from, to) : kindOf(from, to);
    if (kind == CollectiveKind::None) return;
    if (stepWhy.empty() && pr.mesh->dimSize(m) > 1 && from.isReplicate() && to.isPartial() &&
        to.reduce == ReduceOp::Product)
      stepWhy = "mesh dim " + std::to_string(m) + " (" + pr.mesh->dimName(m) + "): the plan passes R -> P(product), "
                "and DTensor cannot turn a replicated value into Partial(product) (that would take an n-th root)";
    if (raw && stepWhy.empty() && pr.mesh->dimSize(m) > 1) {
      const std::string step = "mesh dim " + std::to_string(m) + ": " + from.shortString() + " -> " + to.shortString();
      // DTensor sizes each mesh dim's transform by the splits of the plain Shards before it in the source
      // (mesh_dims_to_logical_shape skips _StridedShard): undoing a split of d while an earlier mesh dim still
      // splits d, where the source has a _StridedShard, pads and unpads with the wrong sizes, so the run raises
      // or returns wrong data.
      if (from.isShard())
        for (int earlier = 0; earlier < m && stepWhy.empty(); ++earlier) {
          const Placement& e = srcPlacement0[earlier];
          if (e.kind == PlacementKind::StridedShard && e.dim == from.dim && cur.p[earlier].isShard(from.dim) &&
              pr.mesh->dimSize(earlier) > 1)
            stepWhy = step + ": DTensor's greedy planner sizes this split of dim " + std::to_string(from.dim) +
                     " as if mesh dim " + std::to_string(earlier) + "'s " + e.shortString() +
                     " (no shard order) did not split it, so its run raises or returns wrong data";
        }
      // A split of d added or undone while a later mesh dim still splits d inside it: DTensor's nested-shard
      // check does not see a _StridedShard, and the result would be wrong.
      for (const Placement* end : {&from, &to}) {
        if (!end->isShard() || !stepWhy.empty()) continue;
        for (int later = m + 1; later < cur.ndim; ++later)
          if (cur.p[later].isShard(end->dim) && pr.mesh->dimSize(later) > 1 && stepWhy.empty())
            stepWhy = step + " would change a split of dim " + std::to_string(end->dim) + " inside mesh dim " +
                     std::to_string(later) + "'s " + cur.p[later].shortString() +
                     " (DTensor's greedy planner does not see the nesting of a _StridedShard that is no shard "
                     "order, and its result would be wrong)";
      }
    }
    if (pr.mesh->dimSize(m) > 1) {
      RedistributeStep s;
      s.meshDim = m;
      s.meshDimName = pr.mesh->dimName(m);
      s.kind = kind;
      s.groupSize = pr.mesh->dimSize(m);
      // Show the user's own notation (e.g. _StridedShard) at the ends of the path.
      s.from = from == srcNormalised(m) ? (*srcSpec)[m] : from;
      s.to = to == dst.p[m] ? (*dstSpec)[m] : to;
      s.fromSplit = from.kind == PlacementKind::StridedShard ? from.splitFactor : 1;
      s.toSplit = to.kind == PlacementKind::StridedShard ? to.splitFactor : 1;
      s.bytesSent = bytesFor(pr, cur, m, kind, to, newKey);
      s.bytesReceived = s.bytesSent;  // every algorithm here is symmetric per rank
      s.timeUs = timeFor(pr, m, kind, s.bytesSent);
      out->steps.push_back(std::move(s));
    }
    cur.p[m] = to;
    cur.key[m] = newKey;
  }
  Placement srcPlacement0[kMaxMeshDims];
  const Placement& srcNormalised(int m) const { return srcPlacement0[m]; }
};

// ---- Normalisation -----------------------------------------------------------------------------------------
// Fills `st` from `spec`; returns false with `why` set when the spec cannot be planned. `isDefault` tells whether
// every tensor dim is split in mesh-dim order (DTensor's default shard order).
// `keepStrided`: keep _StridedShard as it is (keys in mesh-dim order), for DTensor's greedy fallback. Without it, a
// _StridedShard that decodes into no shard order sets `undecodable` (the caller then normalises both ends raw).
bool normalise(const ShardingSpec& spec, const char* which, const Problem& pr, State& st, bool& isDefault,
               bool keepStrided, bool& undecodable, std::string& why) {
  const int n = pr.mesh->ndim();
  if (spec.meshDims() != n) {
    why = std::string(which) + " spec " + spec.toMeshString() + " has " + std::to_string(spec.meshDims()) +
          " placements but the mesh has " + std::to_string(n) + " dims";
    return false;
  }
  if (!spec.order.empty() && static_cast<int>(spec.order.size()) != n) {
    why = std::string(which) + " spec " + spec.toMeshString() + " has a shard order of " +
          std::to_string(spec.order.size()) + " entries for a " + std::to_string(n) + "-dim mesh";
    return false;
  }
  st.ndim = n;
  bool hasStrided = false;
  for (int m = 0; m < n; ++m) {
    const Placement& p = spec.placements[m];
    if (p.isShard()) {
      if (p.dim < 0 || (pr.meta->known && p.dim >= pr.meta->rank())) {
        why = std::string(which) + " spec " + spec.toMeshString() + " shards dim " + std::to_string(p.dim) +
              " of a rank-" + std::to_string(pr.meta->rank()) + " tensor";
        return false;
      }
      if (p.kind == PlacementKind::StridedShard) {
        if (p.splitFactor < 1) {
          why = std::string(which) + " spec " + spec.toMeshString() + " has split factor " +
                std::to_string(p.splitFactor) + " (must be >= 1)";
          return false;
        }
        hasStrided = true;
      }
    }
    // A split factor of 1 cuts one chunk into k: the layout of a Shard, planned as one.
    const bool asShard = p.kind == PlacementKind::StridedShard && (!keepStrided || p.splitFactor == 1);
    st.p[m] = asShard ? Placement::shard(p.dim) : p;
    st.key[m] = spec.order.empty() || !p.isShard() ? m : spec.order[m];
  }
  if (keepStrided) {
    // DTensor's greedy planner reads the placements alone: every split in mesh-dim order.
    isDefault = spec.defaultOrder();
    if (!isDefault) {
      why = std::string(which) + " spec " + spec.toMeshString() + " has a non-default shard order next to a "
            "_StridedShard that is no shard order: DTensor's fallback planner would ignore the order";
      return false;
    }
    for (int m = 0; m < n; ++m) st.key[m] = m;
    return true;
  }
  if (hasStrided) {
    // _StridedShard(d, sf) on mesh dim m means: tensor dim d was first split by later mesh dims whose sizes
    // multiply to sf, then by m (DTensor's _normalize_placements_into_shard_order). Walk the mesh dims sharding
    // d from the last one back, inserting m after the prefix of the split sequence whose sizes multiply to sf.
    for (int m0 = 0; m0 < n; ++m0) {
      const Placement& first = spec.placements[m0];
      if (!first.isShard()) continue;
      const int d = first.dim;
      bool earlierSeen = false;
      for (int m = 0; m < m0; ++m) earlierSeen |= spec.placements[m].isShard(d);
      if (earlierSeen) continue;  // tensor dim d already handled
      std::array<int, kMaxMeshDims> seq{};
      int len = 0;
      for (int m = n - 1; m >= m0; --m) {
        const Placement& p = spec.placements[m];
        if (!p.isShard(d)) continue;
        const int64_t sf = p.kind == PlacementKind::StridedShard ? p.splitFactor : 1;
        int at = -1;
        int64_t product = 1;
        for (int i = 0; i <= len; ++i) {
          if (product == sf) { at = i; break; }
          if (i == len) break;
          product = satMul(product, pr.mesh->dimSize(seq[i]));
        }
        if (at < 0) {
          // Its split factor is no product of the sizes of later mesh dims sharding d (a view's _StridedShard,
          // say): DTensor's _StridedShardNotDecodableError, after which it plans greedily on the placements.
          undecodable = true;
          return true;
        }
        for (int i = len; i > at; --i) seq[i] = seq[i - 1];
        seq[at] = m;
        ++len;
      }
      for (int i = 0; i < len; ++i) st.key[seq[i]] = i;  // raw split positions; canonicalised below
    }
  }
  // Canonical keys: the mesh dims sharding one tensor dim get that set of mesh indices, handed out in split
  // order. Keys then compare correctly with the mesh-index keys new splits get, and "default order" is key == m.
  std::array<int, kMaxMeshDims> raw = st.key;
  std::array<bool, kMaxMeshDims> done{};
  isDefault = true;
  for (int m0 = 0; m0 < n; ++m0) {
    if (done[m0] || !st.p[m0].isShard()) continue;
    const int d = st.p[m0].dim;
    std::array<int, kMaxMeshDims> bySplit{};
    int len = 0;
    for (int m = m0; m < n; ++m) {
      if (!st.p[m].isShard(d)) continue;
      done[m] = true;
      int i = len++;
      while (i > 0 && raw[bySplit[i - 1]] > raw[m]) { bySplit[i] = bySplit[i - 1]; --i; }
      bySplit[i] = m;
    }
    // The mesh indices in ascending order are the mesh dims in mesh order: walk them alongside.
    int next = 0;
    for (int m = m0; m < n; ++m) {
      if (!st.p[m].isShard(d)) continue;
      st.key[bySplit[next]] = m;
      if (bySplit[next] != m) isDefault = false;
      ++next;
    }
  }
  return true;
}

// ---- DTensor's greedy planner (generate_greedy_transform_infos) ----------------------------------------------
// Pass 1 (only when the source is sharded over more than one rank): mesh dims from last to first; a target
// Shard(d) whose earlier mesh dims shard d differently in source and target first goes to Replicate (its split
// would nest in the wrong place); every mesh dim that differs is transformed. Pass 2: mesh dims from first to
// last, every remaining difference is transformed.
void planGreedy(Planner& pl) {
  const int n = pl.cur.ndim;
  int64_t numShards = 1;
  for (int m = 0; m < n; ++m)
    if (pl.cur.p[m].isShard()) numShards = satMul(numShards, pl.pr.mesh->dimSize(m));
  if (numShards > 1) {
    // DTensor tests isinstance(target, Shard) and is_shard(d), which a _StridedShard (only in the fallback's raw
    // States) does not pass.
    auto plainShard = [](const Placement& p, int d) { return p.kind == PlacementKind::Shard && p.dim == d; };
    for (int m = n - 1; m >= 0; --m) {
      Placement target = pl.dst.p[m];
      if (target.kind == PlacementKind::Shard) {
        const int d = target.dim;
        for (int i = 0; i < m; ++i) {
          if (plainShard(pl.cur.p[i], d) != plainShard(pl.dst.p[i], d)) { target = Placement::replicate(); break; }
        }
      }
      if (!(pl.cur.p[m] == target)) pl.apply(m, target, m);
    }
  }
  for (int m = 0; m < n; ++m)
    if (!(pl.cur.p[m] == pl.dst.p[m])) pl.apply(m, pl.dst.p[m], m);
}

// ---- Split-stack planner (non-default shard orders past the graph search's budget) ------------------------
// Each tensor dim holds a stack of splits (mesh dims in key order). Only the innermost split can be undone
// (all_gather) or moved to another tensor dim (all_to_all, where it becomes that dim's innermost split), and a
// new split always goes innermost: the transitions DTensor's graph planner allows. It moves each misplaced split
// with one all_to_all when it can, else through Replicate: valid, but not priced as DTensor prices paths.
struct Stacks {
  // For tensor dim d: mesh dims in split order. Tensor rank is unbounded but at most ndim dims are sharded, so
  // stacks are keyed by slot; slotDim[s] is the tensor dim of slot s.
  std::array<int, kMaxMeshDims> slotDim{};
  std::array<std::array<int, kMaxMeshDims>, kMaxMeshDims> mesh{};
  std::array<int, kMaxMeshDims> len{};
  int slots = 0;

  int slotOf(int d) {
    for (int s = 0; s < slots; ++s) if (slotDim[s] == d) return s;
    slotDim[slots] = d;
    len[slots] = 0;
    return slots++;
  }
  static Stacks of(const State& st) {
    Stacks k;
    std::array<int, kMaxMeshDims> byKey{};  // mesh dims by key (insertion sort: at most 8, stable)
    for (int m = 0; m < st.ndim; ++m) {
      int i = m;
      while (i > 0 && st.key[byKey[i - 1]] > st.key[m]) { byKey[i] = byKey[i - 1]; --i; }
      byKey[i] = m;
    }
    for (int i = 0; i < st.ndim; ++i) {
      int m = byKey[i];
      if (!st.p[m].isShard()) continue;
      int s = k.slotOf(st.p[m].dim);
      k.mesh[s][k.len[s]++] = m;
    }
    return k;
  }
  int lengthFor(int d) const {
    for (int s = 0; s < slots; ++s) if (slotDim[s] == d) return len[s];
    return 0;
  }
  int at(int d, int i) const {
    for (int s = 0; s < slots; ++s) if (slotDim[s] == d) return mesh[s][i];
    return -1;
  }
};

void planStacks(Planner& pl) {
  const int n = pl.cur.ndim;
  const Stacks want = Stacks::of(pl.dst);
  int nextKey = 1000;  // above every normalised key: a new split is innermost
  // Length of the prefix of tensor dim d's current stack that already matches the target stack.
  auto matched = [&](const Stacks& have, int d) {
    int i = 0;
    while (i < have.lengthFor(d) && i < want.lengthFor(d) && have.at(d, i) == want.at(d, i)) ++i;
    return i;
  };
  // Can mesh dim m become the next split of tensor dim e right now?
  auto appendable = [&](const Stacks& have, int e, int m) {
    int h = have.lengthFor(e);
    return matched(have, e) == h && h < want.lengthFor(e) && want.at(e, h) == m;
  };
  // Phase 1: undo every split that is not part of a matching prefix, innermost first.
  for (bool again = true; again;) {
    again = false;
    Stacks have = Stacks::of(pl.cur);
    for (int s = 0; s < have.slots && !again; ++s) {
      const int d = have.slotDim[s];
      if (have.len[s] > matched(have, d)) {
        const int m = have.mesh[s][have.len[s] - 1];
        const Placement& target = pl.dst.p[m];
        if (target.isShard() && target.dim != d && appendable(have, target.dim, m)) {
          pl.apply(m, target, nextKey++);
        } else {
          pl.apply(m, Placement::replicate(), m);
        }
        again = true;
      }
    }
  }
  // Phase 2: everything else in mesh-dim order; a new split waits until it is the next one its stack needs.
  for (bool progress = true; progress;) {
    progress = false;
    for (int m = 0; m < n; ++m) {
      const Placement& target = pl.dst.p[m];
      if (pl.cur.p[m] == target) continue;
      if (target.isShard()) {
        if (!appendable(Stacks::of(pl.cur), target.dim, m)) continue;
        pl.apply(m, target, nextKey++);
      } else {
        pl.apply(m, target, m);
      }
      progress = true;
    }
  }
}


// ---- DTensor's graph planner (DTensorRedistributePlanner.find_min_cost_path, PyTorch 2.14) --------------------
// DTensor plans a redistribute whose specs have a non-default shard order (or a _StridedShard it decodes into
// one) as a shortest path over states (placements + every tensor dim's split list), Dijkstra from the source,
// with one transform per edge and its own communication-time estimate per edge. Which path wins depends on the
// tensor's size: an all_to_all is priced as an all_gather of the local bytes plus a 1.0 us penalty, so for a
// small tensor gathering and re-chunking (all_gather of the whole, chunk free) is cheaper, for a large one the
// all_to_all. To give the steps DTensor runs, we search the same graph in the same order with the same prices:
// the transitions of get_next_state (enumerated in its order), _get_shard_to_partial_target_states, the costs of
// _compute_placement_transition_cost / allgather_cost / allreduce_cost / reduce_scatter_cost, and a heap keyed on
// (cost, insertion counter), so ties break as DTensor breaks them.
//
// Topology: DTensor's MeshTopoInfo prices a mesh dim as inter-host (bandwidth x 0.22, latency 2.7 us instead of
// 0.6) when the mesh dims from it to the last hold more devices than one host has; we read that per mesh dim
// from CostModel::interNodeDims (default: one host). Only the choice of path uses DTensor's prices; the plan's
// bytes and times are core's own cost model.
//
// The search allocates its frontier: it runs only for non-default orders (the hot path is the greedy planner).
// Its state space grows as (tensor rank + 2)^ndim * ndim!; past kGraphStates visited states (meshes of 5+ dims)
// it gives up and the split-stack planner above plans instead.
constexpr int kGraphStates = 200000;

struct GState {
  std::array<Placement, kMaxMeshDims> p{};
  std::array<int8_t, kMaxMeshDims> pos{};  // position of mesh dim m in its tensor dim's split list; -1: no Shard
  bool operator==(const GState& o) const {
    for (int m = 0; m < kMaxMeshDims; ++m)
      if (!(p[m] == o.p[m]) || pos[m] != o.pos[m]) return false;
    return true;
  }
};
struct GStateHash {
  size_t operator()(const GState& s) const noexcept {
    size_t h = 1469598103934665603ull;
    for (int m = 0; m < kMaxMeshDims; ++m) {
      h = (h ^ s.p[m].hash()) * 1099511628211ull;
      h = (h ^ static_cast<size_t>(s.pos[m] + 1)) * 1099511628211ull;
    }
    return h;
  }
};

struct GraphPlanner {
  int ndim = 0;
  int tensorRank = 0;
  double bytes = 0;                          // itemsize * numel, as DTensor's spec_to_bytes
  std::array<int64_t, kMaxMeshDims> size{};  // mesh dim sizes
  std::array<double, kMaxMeshDims> bw{};     // GB/s
  std::array<double, kMaxMeshDims> lat{};    // us
  std::array<bool, 5> partialOps{};          // reduce ops present in source or target (R -> P transitions)
  GState dst;

  // The mesh dim at the end of tensor dim d's split list (-1: none), and the list's length.
  int lastOf(const GState& s, int d) const {
    int best = -1, bestPos = -1;
    for (int m = 0; m < ndim; ++m)
      if (s.p[m].kind == PlacementKind::Shard && s.p[m].dim == d && s.pos[m] > bestPos) { best = m; bestPos = s.pos[m]; }
    return best;
  }
  int lengthOf(const GState& s, int d) const {
    int n = 0;
    for (int m = 0; m < ndim; ++m) n += s.p[m].kind == PlacementKind::Shard && s.p[m].dim == d;
    return n;
  }
  // Tensor dims with a non-empty split list, ascending (DTensor's ShardOrder is sorted by tensor dim).
  int shardedDims(const GState& s, std::array<int, kMaxMeshDims>& out) const {
    int n = 0;
    for (int m = 0; m < ndim; ++m) {
      if (s.p[m].kind != PlacementKind::Shard) continue;
      const int d = s.p[m].dim;
      bool seen = false;
      for (int i = 0; i < n; ++i) seen |= out[i] == d;
      if (seen) continue;
      int i = n++;  // insertion sort: at most kMaxMeshDims entries
      while (i > 0 && out[i - 1] > d) { out[i] = out[i - 1]; --i; }
      out[i] = d;
    }
    return n;
  }

  double allgather(double b, int m) const {  // also reduce_scatter_cost: the same formula
    const int64_t hops = size[m] - 1;
    const double latency = 6.6 + static_cast<double>(hops) * lat[m];
    const double t = (b * static_cast<double>(hops) / static_cast<double>(size[m])) / bw[m];
    return latency + t * 1e6;
  }
  double allreduce(double b, int m) const {
    const int64_t hops = 2 * (size[m] - 1);
    const double latency = 6.6 + static_cast<double>(hops) * lat[m];
    const double t = (b * static_cast<double>(hops) / static_cast<double>(size[m])) / bw[m];
    return latency + t * 1e6;
  }
  // one_step_redistribute_cost: `cur` differs from the next state on mesh dim m, from `a` to `b`.
  double cost(const GState& cur, int m, const Placement& a, const Placement& b) const {
    int64_t shards = 1;
    for (int i = 0; i < ndim; ++i)
      if (cur.p[i].isShard()) shards *= size[i];
    double gb = bytes / static_cast<double>(shards) / 1024 / 1024 / 1024;
    if (a.isShard() && b.isReplicate()) return allgather(gb * static_cast<double>(size[m]), m);
    if (a.isShard() && b.isShard()) return allgather(gb, m) + 1.0;
    if (a.isPartial() && b.isReplicate()) return allreduce(gb, m);
    if (a.isPartial() && b.isShard()) return allgather(gb, m);
    return 0.0;  // R -> S (a local chunk), R -> P (a local op)
  }

  struct Next {
    GState s;
    int m;
    double w;
  };
  // get_next_state's transitions, in its order, then the explicit Shard -> Partial(sum) ones.
  void expand(const GState& cur, std::vector<Next>& out) const {
    out.clear();
    std::array<int, kMaxMeshDims> dims{};
    const int nd = shardedDims(cur, dims);
    auto add = [&](int m, const Placement& to, int newPos, double w) {
      Next x{cur, m, w};
      x.s.p[m] = to;
      x.s.pos[m] = static_cast<int8_t>(newPos);
      out.push_back(x);
    };
    // 1: S(a) -> S(b) (all_to_all): the last split of a moves to the end of b's list.
    for (int i = 0; i < nd; ++i) {
      const int a = dims[i], x = lastOf(cur, a);
      for (int b = 0; b < tensorRank; ++b)
        if (b != a) add(x, Placement::shard(b), lengthOf(cur, b), cost(cur, x, cur.p[x], Placement::shard(b)));
    }
    // 2: S -> R (all_gather) of each tensor dim's last split.
    for (int i = 0; i < nd; ++i) {
      const int x = lastOf(cur, dims[i]);
      add(x, Placement::replicate(), -1, cost(cur, x, cur.p[x], Placement::replicate()));
    }
    // 3: P -> R (all_reduce).
    for (int m = 0; m < ndim; ++m)
      if (cur.p[m].isPartial()) add(m, Placement::replicate(), -1, cost(cur, m, cur.p[m], Placement::replicate()));
    // 4: R -> S (chunk): appended to the tensor dim's list.
    for (int m = 0; m < ndim; ++m)
      if (cur.p[m].isReplicate())
        for (int b = 0; b < tensorRank; ++b) add(m, Placement::shard(b), lengthOf(cur, b), 0.0);
    // 5: P -> S (reduce_scatter).
    for (int m = 0; m < ndim; ++m)
      if (cur.p[m].isPartial())
        for (int b = 0; b < tensorRank; ++b)
          add(m, Placement::shard(b), lengthOf(cur, b), cost(cur, m, cur.p[m], Placement::shard(b)));
    // 6: R -> P of the reduce ops in the source or target, never mixing ops other than sum with avg. DTensor
    // walks a Python set of op names here; we walk ReduceOp order (only matters when both ends hold several ops).
    for (int m = 0; m < ndim; ++m) {
      if (!cur.p[m].isReplicate()) continue;
      for (int op = 0; op < 5; ++op) {
        if (!partialOps[op]) continue;
        const ReduceOp r = static_cast<ReduceOp>(op);
        bool mixed = false;
        for (int i = 0; i < ndim; ++i) {
          if (i == m || !cur.p[i].isPartial() || cur.p[i].reduce == r) continue;
          const bool sumAvg = (r == ReduceOp::Sum || r == ReduceOp::Avg) &&
                              (cur.p[i].reduce == ReduceOp::Sum || cur.p[i].reduce == ReduceOp::Avg);
          if (!sumAvg) mixed = true;
        }
        if (!mixed) add(m, Placement::partial(r), -1, 0.0);
      }
    }
    // (7-12: _StridedShard states never occur here: both ends are decoded into Shards and a shard order.)
    // Explicit-only S -> P(sum) (a local embed), weight 0: a tensor dim's last split whose target is P(sum).
    for (int i = 0; i < nd; ++i) {
      const int x = lastOf(cur, dims[i]);
      if (dst.p[x].isPartial() && dst.p[x].reduce == ReduceOp::Sum) add(x, dst.p[x], -1, 0.0);
    }
  }

  // The states from src to dst (inclusive); empty when the search ran past its budget.
  std::vector<GState> search(const GState& src) const {
    struct Entry {
      GState s;
      int parent;
    };
    struct Key {
      double cost;
      int64_t counter;
      int entry;
      bool operator>(const Key& o) const { return cost != o.cost ? cost > o.cost : counter > o.counter; }
    };
    std::vector<Entry> entries{{src, -1}};
    std::priority_queue<Key, std::vector<Key>, std::greater<Key>> pq;
    pq.push({0.0, 0, 0});
    int64_t counter = 0;
    std::unordered_set<GState, GStateHash> visited;
    std::vector<Next> next;
    while (!pq.empty()) {
      const Key k = pq.top();
      pq.pop();
      const GState cur = entries[k.entry].s;
      if (cur == dst) {
        std::vector<GState> path;
        for (int e = k.entry; e >= 0; e = entries[e].parent) path.push_back(entries[e].s);
        std::reverse(path.begin(), path.end());
        return path;
      }
      if (!visited.insert(cur).second) continue;
      if (static_cast<int>(visited.size()) > kGraphStates) return {};
      expand(cur, next);
      for (const Next& x : next) {
        if (visited.count(x.s)) continue;
        entries.push_back({x.s, k.entry});
        pq.push({k.cost + x.w, ++counter, static_cast<int>(entries.size()) - 1});
      }
    }
    return {};
  }
};

// DTensor's graph search from pl.cur to pl.dst, its path applied step by step. False (nothing applied) when the
// search ran past its budget.
bool planGraph(Planner& pl) {
  GraphPlanner g;
  const int n = pl.cur.ndim;
  g.ndim = n;
  int rank = pl.pr.meta->known ? pl.pr.meta->rank() : 0;
  for (int m = 0; m < n; ++m) {
    if (pl.cur.p[m].isShard()) rank = std::max(rank, pl.cur.p[m].dim + 1);
    if (pl.dst.p[m].isShard()) rank = std::max(rank, pl.dst.p[m].dim + 1);
  }
  g.tensorRank = rank;
  // spec_to_bytes: itemsize * numel (exact in a double up to 2^53 bytes); 0 when the sizes are unknown.
  g.bytes = pl.pr.sizesKnown ? static_cast<double>(satMul(pl.pr.meta->numel(), pl.pr.dtypeBytes)) : 0.0;
  for (int m = 0; m < n; ++m) {
    g.size[m] = pl.pr.mesh->dimSize(m);
    const bool inter = m < static_cast<int>(pl.pr.cost->interNodeDims.size()) && pl.pr.cost->interNodeDims[m];
    g.bw[m] = inter ? 87.7 * 0.22 : 87.7;
    g.lat[m] = inter ? 2.7 : 0.6;
  }
  auto toGraph = [&](const State& st) {
    GState s;
    for (int m = 0; m < kMaxMeshDims; ++m) s.pos[m] = -1;
    for (int m = 0; m < n; ++m) {
      s.p[m] = st.p[m];
      if (!st.p[m].isShard()) continue;
      int pos = 0;
      for (int o = 0; o < n; ++o) pos += o != m && st.p[o].isShard(st.p[m].dim) && st.key[o] < st.key[m];
      s.pos[m] = static_cast<int8_t>(pos);
    }
    return s;
  };
  for (int m = 0; m < n; ++m)
    for (const State* st : {&pl.cur, &pl.dst})
      if (st->p[m].isPartial()) g.partialOps[static_cast<int>(st->p[m].reduce)] = true;
  g.dst = toGraph(pl.dst);
  const std::vector<GState> path = g.search(toGraph(pl.cur));
  if (path.empty()) return false;
  int nextKey = 1000;  // above every normalised key: a new split is innermost
  for (size_t i = 1; i < path.size(); ++i) {
    for (int m = 0; m < n; ++m) {
      if (path[i].p[m] == path[i - 1].p[m]) continue;
      const Placement& to = path[i].p[m];
      pl.apply(m, to, to.isShard() ? nextKey++ : m);
    }
  }
  return true;
}

// Same placements on every mesh dim of size > 1, and every tensor dim split in the same order.
bool reachedTarget(const State& cur, const State& dst) {
  for (int m = 0; m < cur.ndim; ++m) {
    if (!(cur.p[m] == dst.p[m])) return false;
    if (!cur.p[m].isShard()) continue;
    for (int o = 0; o < cur.ndim; ++o) {
      if (o == m || !cur.p[o].isShard(cur.p[m].dim)) continue;
      if ((cur.key[o] < cur.key[m]) != (dst.key[o] < dst.key[m])) return false;
    }
  }
  return true;
}

}  // namespace

// ---- planRedistribute -------------------------------------------------------------------------------------
RedistributePlan planRedistribute(const TensorMeta& meta, const DeviceMesh& mesh, const ShardingSpec& from,
                                  const ShardingSpec& to, const CostModel& cost) {
  RedistributePlan plan;
  Planner pl;
  pl.pr.meta = &meta;
  pl.pr.mesh = &mesh;
  pl.pr.cost = &cost;
  pl.pr.dtypeBytes = dtypeBytes(meta.dtype);
  pl.pr.sizesKnown = meta.known && pl.pr.dtypeBytes > 0;
  for (int64_t s : meta.shape) pl.pr.sizesKnown &= s >= 0;
  pl.srcSpec = &from;
  pl.dstSpec = &to;
  pl.out = &plan;
  auto refuse = [&](std::string why) {
    plan.possible = false;
    plan.whyNot = std::move(why);
    plan.steps.clear();
    return plan;
  };
  if (mesh.ndim() > kMaxMeshDims) return refuse("the mesh has more than " + std::to_string(kMaxMeshDims) + " dims");
  bool srcDefault = true, dstDefault = true, undecodable = false;
  std::string why;
  if (!normalise(from, "source", pl.pr, pl.cur, srcDefault, false, undecodable, why)) return refuse(std::move(why));
  if (!normalise(to, "target", pl.pr, pl.dst, dstDefault, false, undecodable, why)) return refuse(std::move(why));
  if (undecodable) {
    // A _StridedShard that is no shard order on either end: DTensor plans both ends greedily as they are.
    pl.raw = true;
    if (!normalise(from, "source", pl.pr, pl.cur, srcDefault, true, undecodable, why)) return refuse(std::move(why));
    if (!normalise(to, "target", pl.pr, pl.dst, dstDefault, true, undecodable, why)) return refuse(std::move(why));
  }
  for (int m = 0; m < pl.cur.ndim; ++m) pl.srcPlacement0[m] = pl.cur.p[m];

  // Refusals, per mesh dim of size > 1 (DTensor skips size-1 mesh dims before it looks at the placements): the
  // transforms redistribute_local_tensor raises on (torch/distributed/tensor/_redistribute.py, 2.14).
  for (int m = 0; m < pl.cur.ndim; ++m) {
    if (mesh.dimSize(m) == 1) continue;
    const Placement& a = from.placements[m];
    const Placement& b = to.placements[m];
    // Built only when refusing: this loop runs on every planning call (the hot path allocates nothing else).
    auto where = [&] {
      return "mesh dim " + std::to_string(m) + " (" + mesh.dimName(m) + "): " + a.shortString() + " -> " +
             b.shortString() + ": ";
    };
    // A _StridedShard that decodes into a shard order is a Shard to DTensor's graph planner; one that does not
    // stays a _StridedShard, which redistribute_local_tensor does not turn into a Partial.
    const bool rawStrided = pl.raw && a.kind == PlacementKind::StridedShard;
    if (a.isShard() && b.isPartial() && (rawStrided || b.reduce != ReduceOp::Sum))
      return refuse(where() + "DTensor turns only a Shard into Partial(sum) (the shard written into zeros); a " +
                    (rawStrided ? std::string("_StridedShard") : std::string("shard")) + " cannot become a Partial(" +
                    reduceOpName(b.reduce) + ") value");
    if (a.isReplicate() && b.isPartial() && b.reduce == ReduceOp::Product)
      return refuse(where() + "DTensor cannot turn a replicated value into Partial(product) (that would take an "
                    "n-th root)");
    if (a.isPartial() && b.isPartial() && a.reduce != b.reduce)
      return refuse(where() + "a redistribute cannot change a Partial's reduce op");
  }

  plan.steps.reserve(static_cast<size_t>(2 * pl.cur.ndim));
  if (pl.cur.ndim == 1 && (pl.raw || (srcDefault && dstDefault))) {
    // 1-D mesh: one direct transform (DTensor's greedy shortcut).
    if (!(pl.cur.p[0] == pl.dst.p[0])) pl.apply(0, pl.dst.p[0], 0);
  } else if (pl.raw || (srcDefault && dstDefault)) {
    planGreedy(pl);
  } else if (!planGraph(pl)) {
    planStacks(pl);  // past the graph search's budget (meshes of 5+ dims): a valid plan, maybe not DTensor's
  }
  if (!pl.stepWhy.empty()) return refuse(std::move(pl.stepWhy));
  if (!reachedTarget(pl.cur, pl.dst))  // a planner bug, never a user error: report it rather than lie
    return refuse("internal error: no redistribute plan from " + from.toMeshString() + " to " + to.toMeshString());
  return plan;
}

// ---- Totals and printing -----------------------------------------------------------------------------------
int64_t RedistributePlan::totalBytes() const {
  int64_t total = 0;
  for (const auto& s : steps) total = satAdd(total, s.bytesSent);
  return total;
}

double RedistributePlan::totalTimeUs() const {
  double total = 0;
  for (const auto& s : steps) total += s.timeUs;
  return total;
}

namespace {
std::string meshDimLabel(const RedistributeStep& s) {
  std::string out = "mesh dim " + std::to_string(s.meshDim);
  if (!s.meshDimName.empty()) out += " (" + s.meshDimName + ")";
  return out;
}
std::string costLabel(const RedistributeStep& s) {
  if (!isCommunication(s.kind)) return "no communication";
  return formatBytes(s.bytesSent) + ", " + formatTimeUs(s.timeUs);
}
}  // namespace

std::string RedistributeStep::toString() const {
  return meshDimLabel(*this) + ": " + collectiveName(kind) + " " + from.shortString() + " -> " + to.shortString() +
         ", " + costLabel(*this);
}

std::string RedistributePlan::summary() const {
  if (!possible) return whyNot;
  if (steps.empty()) return "no communication";
  std::string out;
  for (const auto& s : steps) {
    if (!out.empty()) out += "; ";
    out += std::string(collectiveName(s.kind)) + " on " + meshDimLabel(s) + ", " + costLabel(s);
  }
  return out;
}

}  // namespace ss
