// Symbolic scalars: values and sizes a graph reads at run time (MoE token counts), and the arithmetic on them.
//
// _local_scalar_dense(x) reads x's one element into a SymInt: every rank must read the same value, so x must be
// Replicate (a Partial x holds a different addend per rank; a shard, a different element). sym_size/sym_numel/
// sym_stride read the global metadata (DTensor answers with global sizes): any spec. _assert_scalar, operator.*
// on scalars (ge, add, floordiv, ...; FX prints them infix) and torch.sym_sum/sym_max/... compute on SymInts,
// which are no tensors: nothing to shard, no output spec. Python operators on real tensors (rare in aten graphs)
// follow the aten op of the same name (core/rules/pointwise.cpp); floordiv, truediv and mod are registered here
// for both.
#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

RuleResult pointwiseNonlinearRule(const RuleContext& ctx);  // pointwise.cpp
RuleResult pointwiseDivideRule(const RuleContext& ctx);     // pointwise.cpp

namespace {

RuleResult scalarOnly(const RuleContext& ctx) {
  RuleResult r;
  r.outputs.assign(std::max(1, ctx.outputCount()), std::nullopt);
  return r;
}

RuleResult localScalarDense(const RuleContext& ctx) {
  if (ctx.inputCount() < 1 || !ctx.inSpecs[0]) return scalarOnly(ctx);
  const ShardingSpec& s = *ctx.inSpecs[0];
  for (int m = 0; m < s.meshDims(); ++m) {
    if (s[m].isReplicate()) continue;
    const bool partial = s[m].isPartial();
    return failResult(partial ? Verdict::PartialIntoNonlinear : Verdict::Incompatible, 0,
                      ShardingSpec::replicated(s.meshDims()),
                      "_local_scalar_dense reads one value that every rank must agree on, but its input arrives as " +
                          s.toMeshString() + (partial ? ", a Partial value" : ", a shard") + " on mesh dim " +
                          std::to_string(m) + "; make it Replicate");
  }
  return scalarOnly(ctx);
}

bool tensorOperand(const RuleContext& ctx) {
  for (int i = 0; i < ctx.inputCount(); ++i)
    if (ctx.inSpecs[i] && ctx.rank(i) > 0) return true;
  return false;
}

RuleResult floorDivide(const RuleContext& ctx) { return tensorOperand(ctx) ? pointwiseNonlinearRule(ctx) : scalarOnly(ctx); }
RuleResult trueDivide(const RuleContext& ctx) { return tensorOperand(ctx) ? pointwiseDivideRule(ctx) : scalarOnly(ctx); }

}  // namespace

void registerSymbolicRules(RuleTable& t) {
  t["_local_scalar_dense"] = localScalarDense;
  for (const char* op : {"sym_size", "sym_numel", "sym_stride", "sym_storage_offset", "_assert_scalar",
                         "_assert_async", "sym_constrain_range_for_size", "torch.sym_sum", "torch.sym_max",
                         "torch.sym_min", "torch.sym_int", "torch.sym_float", "torch.sym_not", "torch.sym_ite"})
    t[op] = scalarOnly;
  t["floordiv"] = floorDivide;
  t["mod"] = floorDivide;
  t["truediv"] = trueDivide;
}

}  // namespace ss::rules
