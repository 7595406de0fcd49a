// Mixture-of-experts routing and the ops it is made of: topk and sort (over a dim), cumsum (a scan), histc (a
// count over all elements) and _grouped_mm (one matmul per expert over row groups).
//
// topk/sort: the dim they order is read whole (a shard of it would rank each rank's slice alone); other dims
// keep their shards, values and indices alike. Not linear: Partial inputs are refused.
// cumsum: the scanned dim is read whole; other dims keep their shards; linear, so Partial(sum|avg) stays.
// histc(x, bins, min, max): every element is counted, so a sharded input gives each rank a partial count:
// Partial(sum) (when min == max the range comes from the data, which differs per rank: then no dim may be
// sharded). _grouped_mm(a, b, offs): as mm per group: N shards the output, K on both gives Partial(sum); the
// grouped dim (rows of a 2-D a, or K of 2-D by 2-D) is split by the global offsets `offs`, so it cannot be
// sharded, and neither can the group dim of a 3-D b against a 2-D a; offs is bookkeeping (Replicate).
#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

namespace {

constexpr int kM = 9000, kK = 9001, kN = 9002, kG = 9003, kBins = 9004, kIdx = 9100;

// The dim argument of topk (position 2), sort (keyword, or position 1 in sort.default), cumsum (position 1).
std::optional<int> orderedDim(const RuleContext& ctx, int rank) {
  const std::string op = ruleKey(ctx.node->op);
  if (op == "topk") return normDim(ctx.intArgOr(2, "dim", -1), rank);
  if (op == "cumsum") return normDim(ctx.intArg(1, "dim"), rank);
  // sort.stable(self, *, stable, dim, descending); sort.default(self, dim, descending)
  if (const Arg* a = ctx.arg(-1, "dim"); a && a->kind == Arg::Kind::Int) return normDim(a->i, rank);
  if (ctx.node->args.size() > 1 && ctx.node->args[1].kind == Arg::Kind::Int) return normDim(ctx.node->args[1].i, rank);
  return ctx.argsComplete ? normDim(-1, rank) : std::nullopt;
}

RuleResult alongDim(const RuleContext& ctx, PartialPolicy policy, const char* why) {
  if (ctx.inputCount() < 1 || ctx.rank(0) < 0) return unknownResult(ctx);
  const int r = ctx.rank(0);
  auto d = orderedDim(ctx, r);
  if (!d) return unknownResult(ctx);
  std::vector<int> l = alignedLabels(r, r);
  LabelProblem p;
  p.partial = policy;
  p.contraction = std::nullopt;
  p.forbidden[*d] = why;
  p.ins = {labelled(0, l)};
  p.outs.assign(std::max(1, ctx.outputCount()), l);
  return solveLabels(ctx, p);
}

RuleResult topkSort(const RuleContext& ctx) {
  return alongDim(ctx, PartialPolicy::Nonlinear, "it ranks the whole dim, and a shard would rank only its own slice");
}

RuleResult cumsum(const RuleContext& ctx) {
  return alongDim(ctx, PartialPolicy::Additive, "the running sum crosses shards, so every rank needs the whole dim");
}

RuleResult histc(const RuleContext& ctx) {
  if (ctx.inputCount() < 1 || ctx.rank(0) < 0) return unknownResult(ctx);
  const int r = ctx.rank(0);
  LabelProblem p;
  p.partial = PartialPolicy::Nonlinear;
  p.contraction = ReduceOp::Sum;
  p.ins = {labelled(0, alignedLabels(r, r))};
  p.outs = {std::vector<int>{kBins}};
  auto lo = ctx.numberArg(2, "min"), hi = ctx.numberArg(3, "max");
  if (lo && hi && *lo == *hi)
    for (int d = 0; d < r; ++d) p.forbidden[d] = "histc takes its range from the data (min == max), which differs per rank";
  return solveLabels(ctx, p);
}

RuleResult groupedMm(const RuleContext& ctx) {
  if (ctx.inputCount() < 2) return unknownResult(ctx);
  const int ra = ctx.rank(0), rb = ctx.rank(1);
  LabelProblem p;
  p.partial = PartialPolicy::Multiplicative;
  const char* grouped = "_grouped_mm splits it into groups at the global offsets (offs), so every rank needs it whole";
  if (ra == 2 && rb == 3) {
    p.ins = {labelled(0, {kM, kK}), labelled(1, {kG, kK, kN})};
    p.outs = {std::vector<int>{kM, kN}};
    p.forbidden[kM] = grouped;
    p.forbidden[kG] = "each group of rows of a multiplies its own expert's matrix, so every rank needs every expert";
  } else if (ra == 3 && rb == 3) {
    p.ins = {labelled(0, {kG, kM, kK}), labelled(1, {kG, kK, kN})};
    p.outs = {std::vector<int>{kG, kM, kN}};
  } else if (ra == 2 && rb == 2) {
    p.ins = {labelled(0, {kM, kK}), labelled(1, {kK, kN})};
    p.outs = {std::vector<int>{kG, kM, kN}};
    p.forbidden[kK] = grouped;
  } else {
    return unknownResult(ctx);
  }
  // offs (and a bias, if any) are bookkeeping: whole on every rank.
  for (int i = 2; i < ctx.inputCount(); ++i) {
    if (ctx.rank(i) < 0) return unknownResult(ctx);
    std::vector<int> l(ctx.rank(i));
    for (int d = 0; d < ctx.rank(i); ++d) {
      l[d] = kIdx + 10 * i + d;
      p.forbidden[l[d]] = "it is bookkeeping";
    }
    p.ins.push_back(labelled(i, l, false));
  }
  return solveLabels(ctx, p);
}

}  // namespace

void registerMoeRules(RuleTable& t) {
  t["topk"] = topkSort;
  t["sort"] = topkSort;
  t["cumsum"] = cumsum;
  t["histc"] = histc;
  t["_grouped_mm"] = groupedMm;
}

}  // namespace ss::rules
