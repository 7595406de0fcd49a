// Redistribute planning (which collective on which mesh dim, in which order) and its cost (bytes and time).
//
// Section index: helpers; State (placements + split order being transformed); byte counts; step emission;
// normalisation of a spec into a State; the two planners (DTensor's greedy, and the split-stack planner for
// non-default shard orders and _StridedShard); planRedistribute; printing.
//
// Why two planners: DTensor (torch/distributed/tensor/_redistribute.py) plans with its greedy algorithm when
// both specs use the default shard order (mesh-dim order) and with a min-cost graph search otherwise. We follow
// the greedy algorithm step for step, so the steps and their order are the ones DTensor runs. For non-default
// orders (including _StridedShard, which DTensor normalises into ordered Shards) we use a planner that obeys
// the same legality rules as DTensor's graph search (only the innermost split of a tensor dim can be gathered
// or moved; a new split always becomes innermost) and greedily moves each misplaced split with one all_to_all
// when possible, else through Replicate. Its plan is valid but may cost more than DTensor's minimum.
//
// Hot path: planRedistribute is called per edge per check and by solvers' cost loops, so it allocates only
// the steps vector (one reserve) and, when refused, the reason string. Everything else is fixed-size arrays.
#include "core/redistribute.h"

#include <array>
#include <cinttypes>
#include <cstdio>
#include <limits>

namespace ss {

const char* collectiveName(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::None: return "none";
    case CollectiveKind::AllGather: return "all_gather";
    case CollectiveKind::AllReduce: return "all_reduce";
    case CollectiveKind::ReduceScatter: return "reduce_scatter";
    case CollectiveKind::AllToAll: return "all_to_all";
    case CollectiveKind::LocalChunk: return "chunk";
    case CollectiveKind::LocalDivide: return "divide";
    case CollectiveKind::LocalEmbed: return "embed";
  }
  return "none";
}

const Link& CostModel::linkFor(int meshDim) const {
  if (meshDim >= 0 && meshDim < static_cast<int>(interNodeDims.size()) && interNodeDims[meshDim]) return interNode;
  return intraNode;
}

namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// Saturating multiply of non-negative numbers: a described 10^12-element tensor times a dtype never wraps.
int64_t satMul(int64_t a, int64_t b) {
  if (a <= 0 || b <= 0) return 0;
  if (a > kInt64Max / b) return kInt64Max;
  return a * b;
}
int64_t satAdd(int64_t a, int64_t b) { return a > kInt64Max - b ? kInt64Max : a + b; }
int64_t ceilDiv(int64_t n, int64_t k) { return n <= 0 ? 0 : n / k + (n % k != 0); }

bool isCommunication(CollectiveKind k) {
  return k == CollectiveKind::AllGather || k == CollectiveKind::AllReduce || k == CollectiveKind::ReduceScatter ||
         k == CollectiveKind::AllToAll;
}

// ---- State: the placements being transformed, one per mesh dim, plus a split key per mesh dim ----------------
// Mesh dims that shard the same tensor dim split it in ascending key order (the shard order). Only plain
// Shard, Replicate and Partial appear in a State: _StridedShard is normalised into Shard + key first.
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

// Everything one planning call carries: the problem, the display placements and the output.
struct Planner {
  Problem pr;
  const ShardingSpec* srcSpec;
  const ShardingSpec* dstSpec;
  State cur;
  State dst;             // normalised target
  RedistributePlan* out;

  // Applies "mesh dim m becomes `to`" to `cur`, emitting a step unless the mesh dim has size 1 (DTensor skips
  // those: one chunk needs no collective) or nothing changes.
  void apply(int m, const Placement& to, int newKey) {
    const Placement from = cur.p[m];
    const CollectiveKind kind = kindOf(from, to);
    if (kind == CollectiveKind::None) return;
    if (pr.mesh->dimSize(m) > 1) {
      RedistributeStep s;
      s.meshDim = m;
      s.meshDimName = pr.mesh->dimName(m);
      s.kind = kind;
      s.groupSize = pr.mesh->dimSize(m);
      // Show the user's own notation (e.g. _StridedShard) at the ends of the path.
      s.from = from == srcNormalised(m) ? (*srcSpec)[m] : from;
      s.to = to == dst.p[m] ? (*dstSpec)[m] : to;
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
bool normalise(const ShardingSpec& spec, const char* which, const Problem& pr, State& st, bool& isDefault,
               std::string& why) {
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
    st.p[m] = p.kind == PlacementKind::StridedShard ? Placement::shard(p.dim) : p;
    st.key[m] = spec.order.empty() || !p.isShard() ? m : spec.order[m];
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
          why = std::string(which) + " spec " + spec.toMeshString() + ": " + p.shortString() + " on mesh dim " +
                std::to_string(m) + " is not an ordered Shard (its split factor " + std::to_string(sf) +
                " is no product of the sizes of later mesh dims sharding dim " + std::to_string(d) +
                "); DTensor cannot redistribute it either";
          return false;
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
    for (int m = n - 1; m >= 0; --m) {
      Placement target = pl.dst.p[m];
      if (target.isShard()) {
        const int d = target.dim;
        for (int i = 0; i < m; ++i) {
          if (pl.cur.p[i].isShard(d) != pl.dst.p[i].isShard(d)) { target = Placement::replicate(); break; }
        }
      }
      if (!(pl.cur.p[m] == target)) pl.apply(m, target, m);
    }
  }
  for (int m = 0; m < n; ++m)
    if (!(pl.cur.p[m] == pl.dst.p[m])) pl.apply(m, pl.dst.p[m], m);
}

// ---- Split-stack planner (non-default shard orders, _StridedShard) -------------------------------------------
// Each tensor dim holds a stack of splits (mesh dims in key order). Only the innermost split can be undone
// (all_gather) or moved to another tensor dim (all_to_all, where it becomes that dim's innermost split), and a
// new split always goes innermost: the transitions DTensor's graph planner allows.
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
  bool srcDefault = true, dstDefault = true;
  std::string why;
  if (!normalise(from, "source", pl.pr, pl.cur, srcDefault, why)) return refuse(std::move(why));
  if (!normalise(to, "target", pl.pr, pl.dst, dstDefault, why)) return refuse(std::move(why));
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
    if (a.isShard() && b.isPartial() && (a.kind == PlacementKind::StridedShard || b.reduce != ReduceOp::Sum))
      return refuse(where() + "DTensor turns only a Shard into Partial(sum) (the shard written into zeros); a " +
                    (a.kind == PlacementKind::StridedShard ? std::string("_StridedShard") : std::string("shard")) +
                    " cannot become a Partial(" + reduceOpName(b.reduce) + ") value");
    if (a.isReplicate() && b.isPartial() && b.reduce == ReduceOp::Product)
      return refuse(where() + "DTensor cannot turn a replicated value into Partial(product) (that would take an "
                    "n-th root)");
    if (a.isPartial() && b.isPartial() && a.reduce != b.reduce)
      return refuse(where() + "a redistribute cannot change a Partial's reduce op");
  }

  plan.steps.reserve(static_cast<size_t>(2 * pl.cur.ndim));
  if (pl.cur.ndim == 1) {
    // 1-D mesh: one direct transform (DTensor's shortcut).
    if (!(pl.cur.p[0] == pl.dst.p[0])) pl.apply(0, pl.dst.p[0], 0);
  } else if (srcDefault && dstDefault) {
    planGreedy(pl);
  } else {
    planStacks(pl);
  }
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

std::string formatBytes(int64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  static const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes) / 1024.0;
  int u = 0;
  while (v >= 1024.0 && u < 5) { v /= 1024.0; ++u; }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

std::string formatTimeUs(double us) {
  char buf[32];
  if (us < 1000.0) std::snprintf(buf, sizeof buf, "%.1f us", us);
  else if (us < 1e6) std::snprintf(buf, sizeof buf, "%.2f ms", us / 1e3);
  else std::snprintf(buf, sizeof buf, "%.2f s", us / 1e6);
  return buf;
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
