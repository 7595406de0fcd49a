// The per-mesh-dim label solver (see engine.h for the model). Sections: helpers, failure messages, repair and
// alignment (what the fix planner may redistribute into), solve.
#include "core/rules/engine.h"

#include <algorithm>
#include <set>

#include "core/model/layout.h"

namespace ss::rules {

// ---- helpers ----

std::optional<int> normDim(int64_t d, int rank) {
  if (rank <= 0) return d == 0 || d == -1 ? std::optional<int>(0) : std::nullopt;
  if (d < 0) d += rank;
  if (d < 0 || d >= rank) return std::nullopt;
  return static_cast<int>(d);
}

Placement shardLike(const Placement& like, int dim) {
  Placement p = like;
  p.dim = dim;
  if (p.kind != PlacementKind::StridedShard) p.kind = PlacementKind::Shard;
  return p;
}

std::vector<int> alignedLabels(int rank, int outRank) {
  if (rank < 0) return {};
  std::vector<int> l(rank);
  for (int d = 0; d < rank; ++d) l[d] = d + (outRank - rank);
  return l;
}

std::string opTitle(const RuleContext& ctx) { return ctx.node ? ruleKey(ctx.node->op) : std::string("op"); }

std::optional<std::vector<int64_t>> localShapeOf(const std::vector<int64_t>& shape, const DeviceMesh& mesh,
                                                 const ShardingSpec& spec, int64_t rank) {
  auto r = localShape(shape, mesh, spec, rank);
  if (!r.ok()) return std::nullopt;
  return r.value();
}

std::string localShapeString(const std::vector<int64_t>& shape, const DeviceMesh& mesh, const ShardingSpec& spec,
                             int64_t rank) {
  auto s = localShapeOf(shape, mesh, spec, rank);
  return s ? shapeToString(*s) : std::string("?");
}

RuleResult okResult(SpecList outs) {
  RuleResult r;
  r.outputs = std::move(outs);
  return r;
}

RuleResult failResult(Verdict v, int input, std::optional<ShardingSpec> want, std::string message) {
  RuleResult r;
  r.verdict = v;
  r.input = input;
  r.want = std::move(want);
  r.message = std::move(message);
  return r;
}

void noteUnshardableInputs(const RuleContext& ctx, RuleResult& res) {
  if (!res.ok() || !ctx.mesh) return;
  for (int i = 0; i < ctx.inputCount(); ++i) {
    if (!ctx.inSpecs[i] || ctx.rank(i) < 0 || ctx.inSpecs[i]->meshDims() != ctx.mesh->ndim()) continue;
    const ShardingSpec& spec = *ctx.inSpecs[i];
    const auto& shape = ctx.shape(i);
    std::vector<int64_t> shards(shape.size(), 1);
    // As is_tensor_shardable: mesh dims in order, each multiplying its dim's shard count (a _StridedShard also
    // needs split_factor times as many elements).
    for (int m = 0; m < spec.meshDims(); ++m) {
      const Placement& p = spec[m];
      if (!p.isShard() || p.dim < 0 || p.dim >= static_cast<int>(shape.size())) continue;
      shards[p.dim] *= ctx.mesh->dimSize(m);
      const int64_t need = p.kind == PlacementKind::StridedShard ? shards[p.dim] * p.splitFactor : shards[p.dim];
      if (shape[p.dim] < need) {
        res.implicitRedistributes.push_back(
            "DTensor redistributes input " + std::to_string(i) + " (" + spec.toMeshString() + ") before " +
            opTitle(ctx) + ": its dim " + std::to_string(p.dim) + " (size " + std::to_string(shape[p.dim]) +
            ") is split into " + std::to_string(need) + " pieces, so some ranks hold none, and DTensor keeps no " +
            opTitle(ctx) + " strategy with such a shard (is_tensor_shardable)");
        break;
      }
    }
  }
}

void notePartialInput(const RuleContext& ctx, RuleResult& res, int input, std::optional<ReduceOp> kept,
                      const std::string& what) {
  if (!res.ok() || input < 0 || input >= ctx.inputCount() || !ctx.inSpecs[input]) return;
  const ShardingSpec& spec = *ctx.inSpecs[input];
  for (const Placement& p : spec.placements) {
    if (!p.isPartial() || (kept && p.reduce == *kept)) continue;
    res.implicitRedistributes.push_back(
        "DTensor reduces input " + std::to_string(input) + " (the " + what + ", " + spec.toMeshString() + ") before " +
        opTitle(ctx) + ": its " + opTitle(ctx) + " strategies keep " +
        (kept ? "only Partial(" + std::string(reduceOpName(*kept)) + ") inputs" : "no Partial " + what) +
        " (core computes the Partial result directly)");
    return;
  }
}

RuleResult unknownResult(const RuleContext& ctx) {
  RuleResult r;
  r.outputs.assign(ctx.node ? ctx.node->outputs.size() : 1, std::nullopt);
  return r;
}

bool inputsKnown(const RuleContext& ctx, const LabelProblem& p) {
  for (const auto& in : p.ins) {
    if (in.input < 0 || in.input >= ctx.inputCount()) return false;
    const TensorMeta* m = ctx.inMetas[in.input];
    if (!m || !m->known || !ctx.inSpecs[in.input]) return false;
    if (static_cast<int>(in.labels.size()) != m->rank()) return false;
    if (ctx.inSpecs[in.input]->meshDims() != ctx.mesh->ndim()) return false;
  }
  return true;
}

namespace {

struct Solver {
  const RuleContext& ctx;
  const LabelProblem& p;
  std::map<int, int64_t> labelSize;

  Solver(const RuleContext& c, const LabelProblem& pr) : ctx(c), p(pr) {
    for (const auto& in : p.ins) {
      const auto& sh = ctx.shape(in.input);
      for (size_t d = 0; d < in.labels.size(); ++d) {
        if (in.labels[d] < 0) continue;
        auto& s = labelSize[in.labels[d]];
        s = std::max(s, sh[d]);
      }
    }
  }

  const ShardingSpec& spec(int k) const { return *ctx.inSpecs[p.ins[k].input]; }
  const std::vector<int64_t>& shape(int k) const { return ctx.shape(p.ins[k].input); }

  bool broadcastDim(int k, int d) const {
    int L = p.ins[k].labels[d];
    return L >= 0 && shape(k)[d] == 1 && labelSize.at(L) > 1;
  }
  // Position of label L in input k (not a broadcast dim), -1 when absent.
  int findLabel(int k, int L) const {
    const auto& ls = p.ins[k].labels;
    for (size_t d = 0; d < ls.size(); ++d)
      if (ls[d] == L && !broadcastDim(k, static_cast<int>(d))) return static_cast<int>(d);
    return -1;
  }
  bool inSomeOutput(int L) const {
    for (const auto& o : p.outs)
      if (o && std::find(o->begin(), o->end(), L) != o->end()) return true;
    return false;
  }
  bool labelShardable(int k, int d) const {
    if (d < 0 || d >= static_cast<int>(p.ins[k].labels.size())) return false;
    int L = p.ins[k].labels[d];
    if (L < 0 || broadcastDim(k, d) || p.forbidden.count(L)) return false;
    if (!p.contraction && !inSomeOutput(L)) return false;
    return true;
  }

  // ---- repair and alignment ----

  // The spec input k would need on its own: unshardable shards and disallowed Partials become Replicate.
  ShardingSpec repaired(int k) const {
    ShardingSpec s = spec(k);
    for (int m = 0; m < s.meshDims(); ++m) {
      Placement& pl = s.placements[m];
      if (pl.isShard() && !labelShardable(k, pl.dim)) pl = Placement::replicate();
      if (pl.isPartial() && (!p.ins[k].data || p.partial == PartialPolicy::Nonlinear ||
                             (p.partial != PartialPolicy::Preserve && pl.reduce != ReduceOp::Sum &&
                              pl.reduce != ReduceOp::Avg)))
        pl = Placement::replicate();
    }
    // Uneven splits that a view cannot take: drop those shards too.
    for (const auto& [L, sizes] : p.evenSizes) {
      int64_t count = 1;
      for (int m = 0; m < s.meshDims(); ++m)
        if (s[m].isShard() && s[m].dim < static_cast<int>(p.ins[k].labels.size()) && p.ins[k].labels[s[m].dim] == L)
          count *= ctx.mesh->dimSize(m);
      bool even = std::all_of(sizes.begin(), sizes.end(), [&](int64_t n) { return n % count == 0; });
      if (!even)
        for (int m = 0; m < s.meshDims(); ++m)
          if (s[m].isShard() && p.ins[k].labels[s[m].dim] == L) s.placements[m] = Placement::replicate();
    }
    return fixOrder(s);
  }

  static ShardingSpec fixOrder(ShardingSpec s) {
    if (s.order.empty()) return s;
    for (int m = 0; m < s.meshDims(); ++m)
      if (!s[m].isShard()) s.order[m] = -1;
    return s;
  }

  // The spec input t needs to run together with input a in spec `A`.
  ShardingSpec alignTo(int t, int a, const ShardingSpec& A) const {
    ShardingSpec s = ShardingSpec::replicated(A.meshDims());
    s.order = A.order;
    for (int m = 0; m < A.meshDims(); ++m) {
      const Placement& pa = A[m];
      if (pa.isShard()) {
        int L = p.ins[a].labels[pa.dim];
        int pos = findLabel(t, L);
        if (pos >= 0) s.placements[m] = shardLike(pa, pos);
      } else if (pa.isPartial() && p.partial == PartialPolicy::Additive && p.ins[t].data) {
        s.placements[m] = pa;
      }
    }
    return fixOrder(s);
  }

  // ---- failure messages ----

  std::string name(int k) const { return "input " + std::to_string(p.ins[k].input); }

  // Where inputs a and b collide: the first rank on which some shared label gets different local sizes.
  std::string collision(int a, int b) const {
    const DeviceMesh& mesh = *ctx.mesh;
    int64_t n = std::min<int64_t>(mesh.size(), 4096);
    int64_t pick = -1;
    for (int64_t r = 0; r < n; ++r) {
      auto la = localShapeOf(shape(a), mesh, spec(a), r), lb = localShapeOf(shape(b), mesh, spec(b), r);
      if (!la || !lb) break;
      bool differ = false;
      for (size_t d = 0; d < p.ins[a].labels.size() && !differ; ++d) {
        if (p.ins[a].labels[d] < 0) continue;
        int pos = findLabel(b, p.ins[a].labels[d]);
        if (pos >= 0 && !broadcastDim(a, static_cast<int>(d)) && (*la)[d] != (*lb)[pos]) differ = true;
      }
      if (differ) { pick = r; break; }
    }
    if (pick < 0)
      return "every rank holds blocks of the same local shape of both, but not the same elements (on rank 0 " +
             name(b) + " is " + localShapeString(shape(b), mesh, spec(b), 0) + ")";
    return "on rank " + std::to_string(pick) + " " + name(b) + " is " + localShapeString(shape(b), mesh, spec(b), pick) +
           " against " + localShapeString(shape(a), mesh, spec(a), pick) + " for " + name(a);
  }

  std::string meshDimName(int m) const { return "mesh dim " + std::to_string(m) + " (" + ctx.mesh->dimName(m) + ")"; }

  RuleResult fail(Verdict v, int k, ShardingSpec want, std::string msg, bool alternatives) const {
    RuleResult r = failResult(v, p.ins[k].input, std::move(want), std::move(msg));
    if (alternatives) r.alternatives = makeAlternatives();
    return r;
  }

  RuleResult conflict(int a, int b, int m, bool alts) const {
    std::string msg = opTitle(ctx) + " cannot combine its inputs as they arrive: " + name(b) + " is " +
                      spec(b).toMeshString() + " but " + name(a) + " is " + spec(a).toMeshString() +
                      ", which split them differently on " + meshDimName(m) + "; " + collision(a, b);
    return fail(Verdict::Incompatible, b, alignTo(b, a, repaired(a)), msg, alts);
  }

  // ---- alternatives: align everything to each input's repaired spec, and all-Replicate ----

  std::vector<SpecList> makeAlternatives() const {
    std::vector<SpecList> out;
    std::set<std::string> seen;
    auto add = [&](SpecList s) {
      std::string key;
      for (const auto& x : s) key += (x ? x->toMeshString() : std::string("-")) + "|";
      if (!seen.insert(key).second) return;
      RuleContext c2 = ctx;
      c2.inSpecs = s;
      if (solveLabels(c2, p, false).ok()) out.push_back(std::move(s));
    };
    // Aligning to each input is one candidate per input, each solved over every input: on a node of many inputs
    // (a cat of 10^5 tensors) only the first kAlignedCandidates are tried, so a failing rule stays linear.
    constexpr size_t kAlignedCandidates = 8;
    size_t tried = 0;
    for (size_t a = 0; a < p.ins.size() && tried < kAlignedCandidates; ++a) {
      if (!p.ins[a].data) continue;
      ++tried;
      ShardingSpec A = repaired(static_cast<int>(a));
      SpecList s = ctx.inSpecs;
      for (size_t t = 0; t < p.ins.size(); ++t)
        s[p.ins[t].input] = t == a ? A : alignTo(static_cast<int>(t), static_cast<int>(a), A);
      add(std::move(s));
    }
    SpecList allR = ctx.inSpecs;
    for (const auto& in : p.ins) allR[in.input] = ShardingSpec::replicated(ctx.mesh->ndim());
    add(std::move(allR));
    return out;
  }

  // ---- solve ----

  RuleResult solve(bool alts) const {
    const int M = ctx.mesh->ndim();
    const int nIn = static_cast<int>(p.ins.size());
    std::vector<ShardingSpec> outs(p.outs.size(), ShardingSpec::replicated(M));
    for (int m = 0; m < M; ++m) {
      int anchor = -1, label = -1;
      for (int k = 0; k < nIn; ++k) {
        const Placement& pl = spec(k)[m];
        if (!pl.isShard()) continue;
        int d = pl.dim;
        int rank = static_cast<int>(p.ins[k].labels.size());
        if (d >= rank)
          return fail(Verdict::Incompatible, k, repaired(k),
                      opTitle(ctx) + ": " + name(k) + " (" + spec(k).toMeshString() + ") shards dim " +
                          std::to_string(d) + " of a rank-" + std::to_string(rank) + " tensor", alts);
        int L = p.ins[k].labels[d];
        if (L < 0)
          return fail(Verdict::Incompatible, k, repaired(k),
                      opTitle(ctx) + " reads dim " + std::to_string(d) + " of " + name(k) + " whole, but it arrives as " +
                          spec(k).toMeshString() + ", split on " + meshDimName(m), alts);
        if (broadcastDim(k, d))
          return fail(Verdict::Incompatible, k, repaired(k),
                      opTitle(ctx) + ": " + name(k) + " (" + spec(k).toMeshString() + ") is sharded on dim " +
                          std::to_string(d) + ", which has size 1 and broadcasts", alts);
        if (anchor < 0) {
          anchor = k;
          label = L;
        } else if (L != label || pl.kind != spec(anchor)[m].kind || pl.splitFactor != spec(anchor)[m].splitFactor) {
          return conflict(anchor, k, m, alts);
        }
      }
      if (anchor >= 0) {
        int d = spec(anchor)[m].dim;
        if (auto f = p.forbidden.find(label); f != p.forbidden.end())
          return fail(Verdict::Incompatible, anchor, repaired(anchor),
                      opTitle(ctx) + " cannot split dim " + std::to_string(d) + " of " + name(anchor) + " (" +
                          spec(anchor).toMeshString() + "): " + f->second, alts);
        for (int k = 0; k < nIn; ++k) {
          const Placement& pl = spec(k)[m];
          int pos = findLabel(k, label);
          bool fine = pos >= 0 ? (pl.isShard(pos) && pl.kind == spec(anchor)[m].kind &&
                                  pl.splitFactor == spec(anchor)[m].splitFactor)
                               : pl.isReplicate();
          if (!fine) return conflict(anchor, k, m, alts);
        }
        for (size_t o = 0; o < p.outs.size(); ++o) {
          if (!p.outs[o]) continue;
          auto it = std::find(p.outs[o]->begin(), p.outs[o]->end(), label);
          if (it != p.outs[o]->end()) {
            outs[o].placements[m] = shardLike(spec(anchor)[m], static_cast<int>(it - p.outs[o]->begin()));
          } else if (p.contraction) {
            outs[o].placements[m] = Placement::partial(*p.contraction);
          } else {
            return fail(Verdict::Incompatible, anchor, repaired(anchor),
                        opTitle(ctx) + " cannot run on " + name(anchor) + " (" + spec(anchor).toMeshString() +
                            ") sharded on dim " + std::to_string(d) + ": " + p.noContractionWhy, alts);
          }
        }
        continue;
      }
      // No shard on this mesh dim: Partial or Replicate.
      std::vector<int> partials;
      for (int k = 0; k < nIn; ++k)
        if (spec(k)[m].isPartial()) partials.push_back(k);
      if (partials.empty()) continue;
      int k0 = partials.front();
      const Placement& p0 = spec(k0)[m];
      for (int k : partials)
        if (!p.ins[k].data)
          return fail(Verdict::Incompatible, k, repaired(k),
                      opTitle(ctx) + ": " + name(k) + " is an index, but arrives as " + spec(k).toMeshString() +
                          ", a Partial value", alts);
      auto nonlinear = [&](int k, const std::string& what) {
        return fail(Verdict::PartialIntoNonlinear, k, repaired(k),
                    opTitle(ctx) + " " + what + ", but " + name(k) + " arrives as " + spec(k).toMeshString() +
                        ", a Partial(" + reduceOpName(spec(k)[m].reduce) + ") value on " + meshDimName(m) +
                        "; reduce it first (all_reduce)", alts);
      };
      bool linearOp = p0.reduce == ReduceOp::Sum || p0.reduce == ReduceOp::Avg;
      switch (p.partial) {
        case PartialPolicy::Nonlinear:
          return nonlinear(k0, "is not linear");
        case PartialPolicy::Preserve:
          break;
        case PartialPolicy::Additive: {
          if (!linearOp) return nonlinear(k0, "does not commute with a " + std::string(reduceOpName(p0.reduce)));
          for (int k = 0; k < nIn; ++k) {
            if (!p.ins[k].data) continue;
            const Placement& pl = spec(k)[m];
            if (!(pl.isPartial() && pl.reduce == p0.reduce)) {
              RuleResult r = fail(Verdict::Incompatible, k, alignTo(k, k0, repaired(k0)),
                                  opTitle(ctx) + " adds " + name(k) + " (" + spec(k).toMeshString() + ") to " + name(k0) +
                                      " (" + spec(k0).toMeshString() + "), a Partial value on " + meshDimName(m) +
                                      ": the " + (pl.isPartial() ? "other Partial" : "replicated") +
                                      " value would be counted " + std::to_string(ctx.mesh->dimSize(m)) + " times",
                                  alts);
              return r;
            }
          }
          break;
        }
        case PartialPolicy::Multiplicative: {
          if (!linearOp) return nonlinear(k0, "does not commute with a " + std::string(reduceOpName(p0.reduce)));
          if (partials.size() > 1) return nonlinear(partials[1], "multiplies two Partial values");
          if (!p.ins[k0].mayBePartial) return nonlinear(k0, "is not linear in " + name(k0));
          break;
        }
      }
      for (size_t o = 0; o < p.outs.size(); ++o)
        if (p.outs[o]) outs[o].placements[m] = p0;
    }
    // Views: the shard count must divide the sizes the label requires.
    for (const auto& [L, sizes] : p.evenSizes) {
      for (int k = 0; k < nIn; ++k) {
        int64_t count = 1;
        int d = -1;
        for (int m = 0; m < M; ++m)
          if (spec(k)[m].isShard() && p.ins[k].labels[spec(k)[m].dim] == L) {
            count *= ctx.mesh->dimSize(m);
            d = spec(k)[m].dim;
          }
        for (int64_t n : sizes)
          if (count > 1 && n % count != 0)
            return fail(Verdict::Incompatible, k, repaired(k),
                        opTitle(ctx) + " reshapes dim " + std::to_string(d) + " of " + name(k) + " (" +
                            spec(k).toMeshString() + "), but a size of " + std::to_string(n) + " does not split evenly over " +
                            std::to_string(count) + " ranks, so rows would cross ranks", alts);
      }
    }
    RuleResult r;
    ShardingSpec firstOrder = nIn > 0 ? spec(0) : ShardingSpec();
    for (size_t o = 0; o < p.outs.size(); ++o) {
      if (!p.outs[o]) {
        r.outputs.push_back(std::nullopt);
        continue;
      }
      if (!firstOrder.order.empty()) outs[o].order = firstOrder.order;
      r.outputs.push_back(fixOrder(outs[o]));
    }
    return r;
  }
};

}  // namespace

RuleResult solveLabels(const RuleContext& ctx, const LabelProblem& p, bool withAlternatives) {
  if (!inputsKnown(ctx, p)) return unknownResult(ctx);
  Solver s(ctx, p);
  return s.solve(withAlternatives);
}

}  // namespace ss::rules
