// Factories: full, zeros, ones, empty, scalar_tensor, arange, new_* and *_like, random fills.
//
// A constant fill can be created in any Shard/Replicate layout: each rank makes its local shape. So the output
// spec is the plan's declared one (Replicate when none). Partial is accepted only for a zero fill (the sum of
// zeros is zero) or uninitialised memory. arange's values depend on the global position, so a rank cannot make
// its shard from its local shape alone: it must be Replicate. *_like factories take their input's local shape,
// so their output keeps the input's shards. A Partial input, as DTensor 2.14 (measured: tests/dtensor/case_ops/
// factory_like.py): empty_like passes it through (uninitialised memory, propagate_single_input_single_dim_strategy),
// the filled ones give Replicate (create_like_single_dim_strategy: generated values are no pending reduction),
// whatever the plan declares.
#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

namespace {

// The fill value when the op has one; nullopt for empty.
std::optional<double> fillOf(const RuleContext& ctx, const std::string& op) {
  if (op == "zeros" || op == "new_zeros" || op == "zeros_like") return 0.0;
  if (op == "ones" || op == "new_ones" || op == "ones_like") return 1.0;
  if (op == "full") return ctx.numberArg(1, "fill_value");
  if (op == "new_full") return ctx.numberArg(2, "fill_value");
  if (op == "full_like") return ctx.numberArg(1, "fill_value");
  if (op == "scalar_tensor") return ctx.numberArg(0, "s");
  return std::nullopt;
}

RuleResult factoryRule(const RuleContext& ctx) {
  std::string op = ruleKey(ctx.node->op);
  ShardingSpec out = ctx.declaredOut.empty() || !ctx.declaredOut[0] ? ShardingSpec::replicated(ctx.mesh->ndim())
                                                                    : *ctx.declaredOut[0];
  std::optional<double> fill = fillOf(ctx, op);
  bool uninit = op.find("empty") != std::string::npos;
  for (int m = 0; m < out.meshDims(); ++m) {
    const Placement& p = out[m];
    if (p.isPartial() && !uninit && !(fill && *fill == 0.0))
      return failResult(Verdict::Incompatible, -1, std::nullopt,
                        op + " is declared " + out.toMeshString() + ", but a Partial(" + reduceOpName(p.reduce) +
                            ") fill of " + (fill ? std::to_string(*fill) : std::string("values")) +
                            " would reduce to a different value; make it Replicate");
    if (p.isShard() && op == "arange")
      return failResult(Verdict::Incompatible, -1, std::nullopt,
                        "arange is declared " + out.toMeshString() +
                            ", but its values depend on the global position, so a rank cannot make its shard from "
                            "its local shape; make it Replicate");
  }
  RuleResult r = okResult({out});
  r.outputs.resize(std::max(1, ctx.outputCount()), std::nullopt);
  return r;
}

RuleResult likeRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 1 || !ctx.inSpecs[0]) return unknownResult(ctx);
  ShardingSpec out = *ctx.inSpecs[0];
  if (ruleKeyView(ctx.node->op) != "empty_like")
    for (Placement& p : out.placements)
      if (p.isPartial()) p = Placement::replicate();
  RuleResult r = okResult({out});
  return r;
}

}  // namespace

void registerFactoryRules(RuleTable& t) {
  for (const char* op : {"full", "zeros", "ones", "empty", "empty_strided", "scalar_tensor", "arange", "new_zeros",
                         "new_ones", "new_full", "new_empty", "new_empty_strided", "rand", "randn", "randint"})
    t[op] = factoryRule;
  for (const char* op : {"zeros_like", "ones_like", "full_like", "empty_like", "rand_like", "randn_like"})
    t[op] = likeRule;
}

}  // namespace ss::rules
