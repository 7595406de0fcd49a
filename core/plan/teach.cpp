// Expansion of the planner's redistribute steps into block movements (see core/plan/teach.h for the algorithms).
//
// Section index: blocks; the layouts between steps; one expansion per collective kind; teachRedistribute;
// text.
#include "core/plan/teach.h"

#include <algorithm>
#include <limits>

#include "core/model/saturate.h"

namespace ss {

namespace {
int64_t ceilDiv(int64_t n, int64_t k) { return n <= 0 ? 0 : n / k + (n % k != 0); }
}  // namespace

// ---- blocks -------------------------------------------------------------------------------------------------

int64_t Block::numel() const {
  int64_t n = 1;
  for (const DimSlice& d : dims) n = satMul(n, d.size());
  return dims.empty() ? 1 : n;
}

bool Block::empty() const {
  for (const DimSlice& d : dims)
    if (d.size() == 0) return true;
  return false;
}

std::string Block::toString() const {
  std::string s = "[";
  for (size_t d = 0; d < dims.size(); ++d) {
    if (d) s += ", ";
    if (dims[d].size() == 0) {
      s += "none";
      continue;
    }
    bool first = true;
    for (const Interval& p : dims[d].parts) {
      if (p.length == 0) continue;
      if (!first) s += "+";
      first = false;
      s += std::to_string(p.start) + ":" + std::to_string(p.start + p.length);
    }
  }
  return s + "]";
}

Block blockOf(const RankShard& s) { return Block{s.slices}; }

Block intersect(const Block& a, const Block& b) {
  Block out;
  const size_t n = std::min(a.dims.size(), b.dims.size());
  out.dims.resize(n);
  for (size_t d = 0; d < n; ++d) {
    for (const Interval& p : a.dims[d].parts) {
      for (const Interval& q : b.dims[d].parts) {
        const int64_t lo = std::max(p.start, q.start), hi = std::min(p.start + p.length, q.start + q.length);
        if (lo < hi) out.dims[d].parts.push_back({lo, hi - lo});
      }
    }
    auto& parts = out.dims[d].parts;
    std::sort(parts.begin(), parts.end(), [](const Interval& x, const Interval& y) { return x.start < y.start; });
  }
  return out;
}

std::string rankLabel(const DeviceMesh& mesh, int64_t rank) {
  std::string s = "r" + std::to_string(rank);
  if (mesh.ndim() < 2) return s;
  s += " (";
  const std::vector<int64_t> c = mesh.coordOf(rank);
  for (size_t i = 0; i < c.size(); ++i) s += (i ? "," : "") + std::to_string(c[i]);
  return s + ")";
}

namespace {

// Elements of `b` with the extent of dims `d1` and `d2` (when >= 0) replaced by the padded chunk extents.
int64_t paddedNumel(const Block& b, int d1, int64_t e1, int d2 = -1, int64_t e2 = 0) {
  int64_t n = 1;
  for (int d = 0; d < static_cast<int>(b.dims.size()); ++d) {
    const int64_t ext = d == d1 ? e1 : d == d2 ? e2 : b.dims[static_cast<size_t>(d)].size();
    n = satMul(n, ext);
    if (n == 0) return 0;
  }
  return n;
}

int64_t maxExtent(const std::vector<RankShard>& layout, const std::vector<int64_t>& group, int d) {
  int64_t m = 0;
  for (int64_t r : group) m = std::max(m, layout[static_cast<size_t>(r)].slices[static_cast<size_t>(d)].size());
  return m;
}

// ---- the layouts between steps ----------------------------------------------------------------------------
// The spec after mesh dim m becomes `to`. With default orders (the planner's greedy path) a new split takes its
// mesh-order place, so no order is kept; otherwise it becomes the innermost split of its tensor dim.
ShardingSpec applyStep(const ShardingSpec& before, int m, const Placement& to, bool innermost) {
  ShardingSpec s = before;
  s.placements[static_cast<size_t>(m)] = to;
  if (!innermost) {
    s.order.clear();
    return s;
  }
  if (s.order.size() != s.placements.size()) {
    s.order.assign(s.placements.size(), -1);
    for (int i = 0; i < s.meshDims(); ++i)
      if (before.placements[static_cast<size_t>(i)].isShard()) s.order[static_cast<size_t>(i)] = i;
  }
  if (to.isShard()) {
    int top = -1;
    for (int i = 0; i < s.meshDims(); ++i)
      if (i != m && s.placements[static_cast<size_t>(i)].isShard()) top = std::max(top, s.order[static_cast<size_t>(i)]);
    s.order[static_cast<size_t>(m)] = top + 1;  // above every other split: innermost
  } else {
    s.order[static_cast<size_t>(m)] = -1;
  }
  return s;
}

// DTensor runs the transform of a size-1 mesh dim as a no-op (one chunk, one contributor) and the planner emits
// no step for it: the steps reach the target up to the placements on size-1 mesh dims, which move no data.
// This spec with those placements Replicate (and out of the shard order) compares layouts up to them.
ShardingSpec withoutSize1Dims(const ShardingSpec& s, const DeviceMesh& mesh) {
  ShardingSpec out = s;
  for (int m = 0; m < out.meshDims() && m < mesh.ndim(); ++m) {
    if (mesh.dimSize(m) != 1) continue;
    out.placements[static_cast<size_t>(m)] = Placement::replicate();
    if (static_cast<size_t>(m) < out.order.size()) out.order[static_cast<size_t>(m)] = -1;
  }
  return out;
}

bool sameLayout(const std::vector<RankShard>& a, const std::vector<RankShard>& b) {
  if (a.size() != b.size()) return false;
  for (size_t r = 0; r < a.size(); ++r)
    if (a[r].slices != b[r].slices || a[r].partial != b[r].partial) return false;
  return true;
}

std::vector<std::vector<int64_t>> groupsAlong(const DeviceMesh& mesh, int m) {
  std::vector<std::vector<int64_t>> groups;
  for (int64_t r = 0; r < mesh.size(); ++r)
    if (mesh.coordOf(r)[static_cast<size_t>(m)] == 0) groups.push_back(mesh.groupAlong(r, m));
  return groups;
}

// ---- one expansion per collective kind --------------------------------------------------------------------
struct Expander {
  const std::vector<RankShard>& before;
  const std::vector<RankShard>& after;
  int dtypeBytes;
  TeachStep& out;

  void add(int round, int64_t src, int64_t dst, Block b, int64_t padded, bool reduces = false,
           std::vector<int64_t> contributors = {}) {
    Transfer t;
    t.round = round;
    t.src = src;
    t.dst = dst;
    t.elements = b.empty() ? 0 : b.numel();
    t.block = std::move(b);
    t.paddedElements = std::max(padded, t.elements);
    t.bytes = satMul(t.paddedElements, dtypeBytes);
    t.reduces = reduces;
    t.contributors = std::move(contributors);
    out.transfers.push_back(std::move(t));
  }

  // Ring all_gather: in round r position i forwards what position i-r held.
  void allGather(const std::vector<int64_t>& g, int d) {
    const int64_t k = static_cast<int64_t>(g.size());
    const int64_t chunk = maxExtent(before, g, d);
    for (int64_t r = 0; r + 1 < k; ++r)
      for (int64_t i = 0; i < k; ++i) {
        const Block b = blockOf(before[static_cast<size_t>(g[static_cast<size_t>((i - r + k) % k)])]);
        add(static_cast<int>(r), g[static_cast<size_t>(i)], g[static_cast<size_t>((i + 1) % k)], b,
            paddedNumel(b, d, chunk));
      }
  }

  // Pairwise all_to_all in one round: p sends q the part of its block q holds after.
  void allToAll(const std::vector<int64_t>& g, int dFrom, int dTo) {
    const int64_t cFrom = maxExtent(before, g, dFrom), cTo = maxExtent(after, g, dTo);
    for (int64_t p : g)
      for (int64_t q : g) {
        if (p == q) continue;
        const Block b = intersect(blockOf(before[static_cast<size_t>(p)]), blockOf(after[static_cast<size_t>(q)]));
        add(0, p, q, b, paddedNumel(b, dFrom, cFrom, dTo, cTo));
      }
  }

  // Ring reduce-scatter of `chunks` (one per position; padded along `d` to `chunk`; `real[c]` false: chunk c is
  // padding only, as the k-1 empty chunks of a scalar): in round r position i sends its running sum of chunk i-r-1.
  void reduceScatterRing(const std::vector<int64_t>& g, const std::vector<Block>& chunks, const std::vector<bool>& real,
                         int d, int64_t chunk) {
    const int64_t k = static_cast<int64_t>(g.size());
    for (int64_t r = 0; r + 1 < k; ++r)
      for (int64_t i = 0; i < k; ++i) {
        const int64_t c = ((i - r - 1) % k + k) % k;
        std::vector<int64_t> contributors;
        for (int64_t t = 0; t <= r; ++t) contributors.push_back(g[static_cast<size_t>((c + 1 + t) % k)]);
        std::sort(contributors.begin(), contributors.end());
        const Block& b = chunks[static_cast<size_t>(c)];
        add(static_cast<int>(r), g[static_cast<size_t>(i)], g[static_cast<size_t>((i + 1) % k)], b,
            d >= 0 ? paddedNumel(b, d, chunk) : 1, true, std::move(contributors));
        if (!real[static_cast<size_t>(c)]) out.transfers.back().elements = 0;
      }
  }

  void reduceScatter(const std::vector<int64_t>& g, int d) {
    std::vector<Block> chunks;
    for (int64_t r : g) chunks.push_back(blockOf(after[static_cast<size_t>(r)]));
    reduceScatterRing(g, chunks, std::vector<bool>(g.size(), true), d, maxExtent(after, g, d));
  }

  // Ring all_reduce: reduce-scatter of k chunks of the block, then a ring all_gather of the reduced chunks (in
  // round k-1+r position i forwards reduced chunk i-r).
  void allReduce(const std::vector<int64_t>& g) {
    const int64_t k = static_cast<int64_t>(g.size());
    const Block base = blockOf(before[static_cast<size_t>(g[0])]);
    const int rank = static_cast<int>(base.dims.size());
    int cd = -1;
    for (int d = 0; d < rank && cd < 0; ++d)
      if (base.dims[static_cast<size_t>(d)].size() >= k) cd = d;
    for (int d = 0; d < rank; ++d)  // no dim long enough: the longest one (some chunks are padding only)
      if (cd < 0 || (base.dims[static_cast<size_t>(cd)].size() < k &&
                     base.dims[static_cast<size_t>(d)].size() > base.dims[static_cast<size_t>(cd)].size()))
        cd = d;
    std::vector<Block> chunks(static_cast<size_t>(k), base);
    std::vector<bool> real(static_cast<size_t>(k), true);
    int64_t chunk = 1;
    if (cd >= 0) {
      const DimSlice& s = base.dims[static_cast<size_t>(cd)];
      const std::vector<int64_t> sizes = chunkSizes(s.size(), k);
      chunk = ceilDiv(s.size(), k);
      int64_t at = s.size() > 0 ? s.parts.front().start : 0;  // one interval: strided specs are refused
      for (int64_t j = 0; j < k; ++j) {
        DimSlice piece;
        if (sizes[static_cast<size_t>(j)] > 0) piece.parts.push_back({at, sizes[static_cast<size_t>(j)]});
        at += sizes[static_cast<size_t>(j)];
        chunks[static_cast<size_t>(j)].dims[static_cast<size_t>(cd)] = std::move(piece);
      }
    } else {
      for (int64_t j = 1; j < k; ++j) real[static_cast<size_t>(j)] = false;  // a scalar: one element, in chunk 0
    }
    reduceScatterRing(g, chunks, real, cd, chunk);
    std::vector<int64_t> all(g.begin(), g.end());
    std::sort(all.begin(), all.end());
    for (int64_t r = 0; r + 1 < k; ++r)
      for (int64_t i = 0; i < k; ++i) {
        const int64_t c = ((i - r) % k + k) % k;
        const Block& b = chunks[static_cast<size_t>(c)];
        add(static_cast<int>(k - 1 + r), g[static_cast<size_t>(i)], g[static_cast<size_t>((i + 1) % k)], b,
            cd >= 0 ? paddedNumel(b, cd, chunk) : 1, false, all);
        if (!real[static_cast<size_t>(c)]) out.transfers.back().elements = 0;
      }
  }
};

std::string joinRanks(const std::vector<int64_t>& ranks, const char* sep) {
  std::string s;
  for (size_t i = 0; i < ranks.size(); ++i) s += (i ? sep : "") + ("r" + std::to_string(ranks[i]));
  return s;
}

std::string elementsText(const Transfer& t) {
  std::string s = std::to_string(t.elements) + (t.elements == 1 ? " element" : " elements");
  if (t.paddingElements() > 0) s += " + " + std::to_string(t.paddingElements()) + " padding";
  return s;
}

}  // namespace

// ---- teachRedistribute ------------------------------------------------------------------------------------

int64_t TeachStep::maxBytesSent() const {
  int64_t m = 0;
  for (const RankBytes& b : bytes) m = std::max(m, b.sent);
  return m;
}

std::string TeachStep::headline() const {
  std::string s = std::string(collectiveName(step.kind)) + " on mesh dim " + std::to_string(step.meshDim);
  if (!step.meshDimName.empty()) s += " (" + step.meshDimName + ")";
  return s + ": " + step.from.shortString() + " -> " + step.to.shortString();
}

TeachPlan teachRedistribute(const TensorMeta& meta, const DeviceMesh& mesh, const ShardingSpec& from,
                            const ShardingSpec& to, const CostModel& cost) {
  TeachPlan tp;
  tp.meta = meta;
  tp.mesh = mesh;
  tp.from = from;
  tp.to = to;
  auto refuse = [&](std::string why) {
    tp.possible = false;
    tp.whyNot = std::move(why);
    tp.steps.clear();
    return tp;
  };
  if (!meta.known) return refuse("the tensor's shape is unknown");
  if (mesh.size() > kMaxTeachRanks)
    return refuse("the mesh has " + std::to_string(mesh.size()) + " ranks; teaching pictures show at most " +
                  std::to_string(kMaxTeachRanks));
  for (const ShardingSpec* s : {&from, &to})
    for (const Placement& p : s->placements)
      if (p.kind == PlacementKind::StridedShard)
        return refuse("_StridedShard specs are not pictured step by step yet; write " + s->toMeshString() +
                      " with a shard order instead (e.g. S(0)[1]S(0)[0])");
  tp.plan = planRedistribute(meta, mesh, from, to, cost);
  if (!tp.plan.possible) return refuse(tp.plan.whyNot);
  Result<std::vector<RankShard>> start = layoutAllRanks(meta.shape, mesh, from);
  if (!start) return refuse(start.error().message);
  tp.layoutBefore = std::move(*start);
  const int dtypeBytes = std::max(1, ss::dtypeBytes(meta.dtype));
  const bool innermost = mesh.ndim() > 1 && (!from.defaultOrder() || !to.defaultOrder());

  ShardingSpec cur = from;
  const std::vector<RankShard>* prev = &tp.layoutBefore;
  for (const RedistributeStep& rs : tp.plan.steps) {
    TeachStep ts;
    ts.step = rs;
    ts.before = cur;
    ts.after = applyStep(cur, rs.meshDim, rs.to, innermost);
    Result<std::vector<RankShard>> after = layoutAllRanks(meta.shape, mesh, ts.after);
    if (!after) return refuse("the layout after " + ts.headline() + ": " + after.error().message);
    ts.layoutAfter = std::move(*after);
    ts.groups = groupsAlong(mesh, rs.meshDim);
    const int64_t k = rs.groupSize;
    Expander ex{*prev, ts.layoutAfter, dtypeBytes, ts};
    for (const auto& g : ts.groups) {
      switch (rs.kind) {
        case CollectiveKind::AllGather: ex.allGather(g, rs.from.dim); break;
        case CollectiveKind::AllToAll: ex.allToAll(g, rs.from.dim, rs.to.dim); break;
        case CollectiveKind::ReduceScatter: ex.reduceScatter(g, rs.to.dim); break;
        case CollectiveKind::AllReduce: ex.allReduce(g); break;
        default: break;  // chunk, divide: no communication
      }
    }
    switch (rs.kind) {
      case CollectiveKind::AllGather:
      case CollectiveKind::ReduceScatter: ts.rounds = static_cast<int>(k - 1); break;
      case CollectiveKind::AllReduce: ts.rounds = static_cast<int>(2 * (k - 1)); break;
      case CollectiveKind::AllToAll: ts.rounds = 1; break;
      default: ts.rounds = 0; break;
    }
    std::stable_sort(ts.transfers.begin(), ts.transfers.end(),
                     [](const Transfer& a, const Transfer& b) { return a.round < b.round; });
    ts.bytes.assign(static_cast<size_t>(mesh.size()), RankBytes{});
    for (const Transfer& t : ts.transfers) {
      ts.bytes[static_cast<size_t>(t.src)].sent = satAdd(ts.bytes[static_cast<size_t>(t.src)].sent, t.bytes);
      ts.bytes[static_cast<size_t>(t.dst)].received = satAdd(ts.bytes[static_cast<size_t>(t.dst)].received, t.bytes);
    }
    cur = ts.after;
    tp.steps.push_back(std::move(ts));
    prev = &tp.steps.back().layoutAfter;
  }
  // The last layout must be the target's (up to size-1 mesh dims): otherwise the pictures would lie about where
  // the data ends.
  Result<std::vector<RankShard>> target = layoutAllRanks(meta.shape, mesh, to);
  if (!target) return refuse(target.error().message);
  if (!sameLayout(*prev, *target)) {
    Result<std::vector<RankShard>> reached = layoutAllRanks(meta.shape, mesh, withoutSize1Dims(cur, mesh));
    Result<std::vector<RankShard>> wanted = layoutAllRanks(meta.shape, mesh, withoutSize1Dims(to, mesh));
    if (!reached || !wanted || !sameLayout(*reached, *wanted))
      return refuse("internal error: the steps do not end in the layout of " + to.toMeshString());
  }
  if (!tp.steps.empty()) tp.steps.back().after = to;
  return tp;
}

// ---- the playground -----------------------------------------------------------------------------------------

Plan makePlayground(const TensorMeta& meta, const DeviceMesh& mesh, const ShardingSpec& spec) {
  Plan p;
  p.name = kPlaygroundName;
  p.description = "File > New tensor...: one tensor on the mesh; choose other placements in the Teach view to see "
                  "and play the redistribute from the old layout to the new one.";
  p.mesh = mesh;
  Node t;
  t.name = "t";
  t.op = "placeholder";
  t.kind = NodeKind::Placeholder;
  t.placeholderKind = PlaceholderKind::Input;
  t.phase = Phase::Forward;
  t.outputs = {meta};
  Node r;
  r.name = "relayout";
  r.op = "aten.clone.default";
  r.kind = NodeKind::Call;
  r.phase = Phase::Forward;
  r.args = {Arg::tensor({kPlaygroundTensor, 0})};
  r.outputs = {meta};
  Node out;
  out.name = "output";
  out.op = "output";
  out.kind = NodeKind::Output;
  out.args = {Arg::list({Arg::tensor({kPlaygroundRelayout, 0})})};
  p.graph.nodes = {std::move(t), std::move(r), std::move(out)};
  p.graph.reindex();
  p.normalizeSpecs();
  p.specs[kPlaygroundTensor].outputs[0] = spec;
  p.specs[kPlaygroundRelayout].outputs[0] = spec;
  return p;
}

bool isPlayground(const Plan& plan) {
  return plan.name == kPlaygroundName && plan.graph.size() == 3 &&
         plan.graph.nodes[kPlaygroundTensor].kind == NodeKind::Placeholder &&
         plan.graph.inputs(kPlaygroundRelayout).size() == 1 &&
         plan.graph.inputs(kPlaygroundRelayout)[0] == TensorRef{kPlaygroundTensor, 0};
}

Command choosePlaygroundLayout(const Plan& plan, const ShardingSpec& next) {
  const ShardingSpec cur = plan.consumerSpec(kPlaygroundRelayout, 0).value_or(next);
  Batch b{"Choose layout " + next.toMeshString(), {}};
  b.commands.push_back(SetOutputSpec{kPlaygroundTensor, 0, cur});
  b.commands.push_back(SetInputSpec{kPlaygroundRelayout, 0, next});
  b.commands.push_back(SetOutputSpec{kPlaygroundRelayout, 0, next});
  if (cur != next) b.commands.push_back(InsertRedistribute{Redistribute{kPlaygroundRelayout, 0, cur, next}});
  else if (plan.findRedistribute(kPlaygroundRelayout, 0)) b.commands.push_back(RemoveRedistribute{kPlaygroundRelayout, 0});
  return b;
}

std::optional<EdgeRef> lookAtEdge(const Plan& plan) {
  const std::string& d = plan.description;
  const std::string key = "Look at: ";
  const size_t at = d.find(key);
  if (at == std::string::npos) return std::nullopt;
  const size_t nameEnd = d.find(' ', at + key.size());
  if (nameEnd == std::string::npos || d.compare(nameEnd, 7, " input ") != 0) return std::nullopt;
  const int node = plan.graph.find(std::string_view(d).substr(at + key.size(), nameEnd - at - key.size()));
  int input = 0;
  size_t i = nameEnd + 7;
  if (i >= d.size() || d[i] < '0' || d[i] > '9') return std::nullopt;
  for (; i < d.size() && d[i] >= '0' && d[i] <= '9' && input < 1000000; ++i) input = input * 10 + (d[i] - '0');
  if (node < 0 || input >= static_cast<int>(plan.graph.inputs(node).size())) return std::nullopt;
  return EdgeRef{node, input};
}

// ---- text ---------------------------------------------------------------------------------------------------

std::vector<std::string> TeachStep::lines(const TensorMeta& meta, const DeviceMesh& mesh) const {
  std::vector<std::string> out;
  const std::string op = step.to.isPartial() ? reduceOpName(step.to.reduce) : reduceOpName(step.from.reduce);
  switch (step.kind) {
    case CollectiveKind::AllGather:
      out.push_back("ring all_gather, " + std::to_string(rounds) + " round(s): each rank passes a block to the next");
      break;
    case CollectiveKind::ReduceScatter:
      out.push_back("ring reduce_scatter, " + std::to_string(rounds) + " round(s): running " + op +
                    "s travel around the ring; each receiver adds its own partial values");
      break;
    case CollectiveKind::AllReduce:
      out.push_back("ring all_reduce, " + std::to_string(rounds) + " rounds: a reduce-scatter of " +
                    std::to_string(step.groupSize) + " chunks, then an all_gather of the reduced chunks");
      break;
    case CollectiveKind::AllToAll:
      out.push_back("all_to_all, one round: every rank sends each other rank the part it will hold");
      break;
    case CollectiveKind::LocalChunk: out.push_back("no communication: each rank keeps its chunk of its copy"); break;
    case CollectiveKind::LocalDivide:
      out.push_back(step.to.reduce == ReduceOp::Sum
                        ? "no communication: each rank divides its copy by " + std::to_string(step.groupSize) +
                              ", so the " + std::to_string(step.groupSize) + " partial values sum to it"
                        : "no communication: each rank holds its copy as a partial " + op + " value");
      break;
    default: break;
  }
  int round = -1;
  for (const Transfer& t : transfers) {
    if (t.round != round) {
      round = t.round;
      std::string head = "round " + std::to_string(round + 1) + " of " + std::to_string(rounds);
      if (step.kind == CollectiveKind::AllReduce) head += round < rounds / 2 ? " (reduce-scatter)" : " (all_gather)";
      out.push_back(head + ":");
    }
    std::string l = "  " + rankLabel(mesh, t.src) + " -> " + rankLabel(mesh, t.dst) + ": " + t.block.toString() + ", " +
                    elementsText(t);
    if (t.reduces) l += ", " + op + " of " + joinRanks(t.contributors, "+");
    else if (step.kind == CollectiveKind::AllReduce) l += ", fully reduced";
    out.push_back(l);
  }
  out.push_back("after (" + after.toMeshString() + "):");
  for (const RankShard& s : layoutAfter) {
    std::string l = "  " + rankLabel(mesh, s.rank) + " holds " + blockOf(s).toString() + " local " +
                    shapeToString(s.localShape);
    if (s.partial) l += " (partial)";
    if (s.empty) l += " (empty)";
    const RankBytes& b = bytes[static_cast<size_t>(s.rank)];
    if (b.sent > 0 || b.received > 0) l += ", sent " + formatBytes(b.sent) + ", received " + formatBytes(b.received);
    out.push_back(l);
  }
  (void)meta;
  return out;
}

std::string TeachPlan::text() const {
  if (!possible) return whyNot + "\n";
  std::string s = "tensor " + shapeToString(meta.shape) + " " + dtypeName(meta.dtype) + " on mesh " + mesh.toString() + "\n";
  s += "from " + from.toMeshString() + "  " + from.toLongString() + "  " + from.toTensorString(meta.rank()) + "\n";
  s += "to   " + to.toMeshString() + "  " + to.toLongString() + "  " + to.toTensorString(meta.rank()) + "\n";
  s += "plan: " + plan.summary() + "\n";
  s += "start (" + from.toMeshString() + "):\n";
  for (const RankShard& r : layoutBefore) {
    s += "  " + rankLabel(mesh, r.rank) + " holds " + blockOf(r).toString() + " local " + shapeToString(r.localShape);
    if (r.partial) s += " (partial)";
    if (r.empty) s += " (empty)";
    s += "\n";
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    const TeachStep& st = steps[i];
    s += "step " + std::to_string(i + 1) + " of " + std::to_string(steps.size()) + ": " + st.headline();
    if (st.step.bytesSent > 0) s += ", " + formatBytes(st.step.bytesSent) + " per rank, " + formatTimeUs(st.step.timeUs);
    s += "\n";
    for (const std::string& l : st.lines(meta, mesh)) s += "  " + l + "\n";
  }
  return s;
}

}  // namespace ss
