// Reductions over dims, with keepdim: sum, mean, amax, amin, prod, var, std, var_mean, max/min(dim),
// argmax/argmin, logsumexp, any, all, norms.
//
// A reduction over a sharded dim leaves each rank a partial result: sum -> Partial(sum), mean -> Partial(avg),
// amax -> Partial(max), amin -> Partial(min), prod -> Partial(product). Reductions that are not such a fold
// (var, std, argmax, logsumexp, norms) cannot reduce a sharded dim. A dim that is not reduced keeps its shard
// (renumbered when keepdim is false). sum and mean are linear, so a Partial(sum|avg) input stays Partial (DTensor
// keeps only sum's Partial(sum) and mean's Partial(avg), and redistributes the others: implicit-redistribute).
// mean over an unevenly sharded dim is refused (its Partial(avg) would be wrong).
#include <algorithm>

#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

namespace {

constexpr int kFresh = 6000;

struct Reduction {
  std::optional<ReduceOp> fold;  // nullopt: cannot reduce a sharded dim
  PartialPolicy partial;
  int dimArg = 1;                // positional index of the dims argument
  int keepdimArg = 2;
};

Reduction reductionFor(const std::string& op) {
  if (op == "sum" || op == "nansum") return {ReduceOp::Sum, PartialPolicy::Additive};
  if (op == "mean") return {ReduceOp::Avg, PartialPolicy::Additive};
  if (op == "amax") return {ReduceOp::Max, PartialPolicy::Nonlinear};
  if (op == "amin") return {ReduceOp::Min, PartialPolicy::Nonlinear};
  if (op == "prod") return {ReduceOp::Product, PartialPolicy::Nonlinear};
  if (op == "linalg_vector_norm") return {std::nullopt, PartialPolicy::Nonlinear, 2, 3};
  return {std::nullopt, PartialPolicy::Nonlinear};
}

RuleResult reduction(const RuleContext& ctx) {
  if (ctx.inputCount() < 1 || ctx.rank(0) < 0) return unknownResult(ctx);
  std::string op = ruleKey(ctx.node->op);
  Reduction red = reductionFor(op);
  const auto& in = ctx.shape(0);
  int r = static_cast<int>(in.size());
  std::vector<bool> reduced(r, false);
  std::optional<std::vector<int64_t>> dims = ctx.intListArg(red.dimArg, "dim");
  bool keepdim = ctx.boolArg(red.keepdimArg, "keepdim").value_or(false);
  // var(x, dims, unbiased) / var.correction(x, dims, correction=, keepdim=): keepdim is a keyword there.
  if (op == "var" || op == "std" || op == "var_mean" || op == "std_mean") {
    keepdim = false;
    for (const auto& [k, v] : ctx.node->kwargs)
      if (k == "keepdim" && v.kind == Arg::Kind::Bool) keepdim = v.b;
    if (ctx.node->args.size() > 3 && ctx.node->args[3].kind == Arg::Kind::Bool) keepdim = ctx.node->args[3].b;
  }
  if (!dims && !ctx.argsComplete) {
    // No arguments in the file: read the reduced dims off the declared output shape.
    const TensorMeta* om = ctx.outMeta(0);
    if (!om) return unknownResult(ctx);
    if (om->rank() == 0) {
      reduced.assign(r, true);
      keepdim = false;
    } else if (om->rank() == r) {
      for (int d = 0; d < r; ++d) reduced[d] = om->shape[d] == 1 && in[d] != 1;
      keepdim = true;
    } else {
      return unknownResult(ctx);
    }
  } else if (!dims || dims->empty()) {
    reduced.assign(r, true);  // no dims (or []) reduces everything
  } else {
    for (int64_t d : *dims) {
      auto nd = normDim(d, r);
      if (!nd) return unknownResult(ctx);
      reduced[*nd] = true;
    }
  }
  // max() / min() over the whole tensor (one output, no dim) fold like amax / amin: DTensor gives P(max) / P(min).
  // With a dim they also return indices, which no Partial can carry: the dim is read whole.
  if ((op == "max" || op == "min") && ctx.outputCount() <= 1 && !dims && ctx.argsComplete)
    red.fold = op == "max" ? ReduceOp::Max : ReduceOp::Min;
  LabelProblem p;
  p.partial = red.partial;
  p.contraction = red.fold;
  p.noContractionWhy = op + " over that dim is not a sum of per-rank parts: it needs the whole dim";
  LabelInput x;
  x.input = 0;
  x.labels = alignedLabels(r, r);
  p.ins = {x};
  std::vector<int> lo;
  std::vector<int64_t> shape;
  for (int d = 0; d < r; ++d) {
    if (!reduced[d]) { lo.push_back(d); shape.push_back(in[d]); }
    else if (keepdim) { lo.push_back(kFresh + d); shape.push_back(1); }
  }
  int nOut = std::max(1, ctx.outputCount());
  p.outs.assign(nOut, lo);
  RuleResult res = solveLabels(ctx, p);
  if (res.ok() && red.fold == ReduceOp::Avg && ctx.inSpecs[0]) {
    // mean over a sharded dim gives Partial(avg): right only when every rank holds as many elements of it (the
    // mean of uneven per-rank means weights them equally). DTensor's _mean_full_mesh_strategy_filter agrees.
    const ShardingSpec& spec = *ctx.inSpecs[0];
    for (int d = 0; d < r; ++d) {
      if (!reduced[d]) continue;
      int64_t count = 1;
      for (int m = 0; m < spec.meshDims(); ++m)
        if (spec[m].isShard(d)) count *= ctx.mesh->dimSize(m) * (spec[m].kind == PlacementKind::StridedShard ? spec[m].splitFactor : 1);
      if (count > 1 && in[d] % count != 0) {
        ShardingSpec want = spec;
        for (int m = 0; m < want.meshDims(); ++m)
          if (want[m].isShard(d)) want.placements[m] = Placement::replicate();
        return failResult(Verdict::Incompatible, 0, want,
                          "mean over dim " + std::to_string(d) + " (size " + std::to_string(in[d]) + "), which " +
                              spec.toMeshString() + " splits unevenly into " + std::to_string(count) +
                              " pieces: the average of the per-rank means would weight unequal shards equally");
      }
    }
  }
  // DTensor keeps a Partial input only of the reduction's own op (sum: Partial(sum), mean: Partial(avg)).
  if (op == "sum" || op == "nansum") notePartialInput(ctx, res, 0, ReduceOp::Sum, "reduced tensor");
  if (op == "mean") notePartialInput(ctx, res, 0, ReduceOp::Avg, "reduced tensor");
  return res;
}

}  // namespace

RuleResult reductionRule(const RuleContext& ctx) { return reduction(ctx); }

void registerReductionRules(RuleTable& t) {
  for (const char* op : {"sum", "nansum", "mean", "amax", "amin", "prod", "var", "std", "var_mean", "std_mean", "max",
                         "min", "argmax", "argmin", "logsumexp", "any", "all", "linalg_vector_norm"})
    t[op] = reduction;
}

}  // namespace ss::rules
