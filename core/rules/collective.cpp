// Collectives already in a graph: _c10d_functional.* (all_reduce, all_gather_into_tensor, reduce_scatter_tensor,
// all_to_all_single, broadcast, ...), _dtensor.shard_dim_alltoall and wait_tensor.
//
// These run on the raw local tensors, so their meaning in specs is what the surrounding plan says: the output
// spec is the declared one, checked only where the collective's kind fixes it. all_reduce may turn Partial
// mesh dims into Replicate and must leave the others alone; all_gather_into_tensor turns a Shard(0) into
// Replicate; reduce_scatter_tensor turns a Partial into Shard(0). all_to_all_single (whose sharding meaning
// depends on the views around it) and the rest take the declared spec as given. wait_tensor is the identity.
#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

namespace {

// Mesh dims where `to` differs from `from` must all be allowed by `allowed(from, to)`.
template <class F>
RuleResult checkedCollective(const RuleContext& ctx, const char* what, F allowed) {
  if (ctx.inputCount() < 1 || !ctx.inSpecs[0]) return unknownResult(ctx);
  const ShardingSpec& in = *ctx.inSpecs[0];
  if (ctx.declaredOut.empty() || !ctx.declaredOut[0]) return okResult({in});
  const ShardingSpec& out = *ctx.declaredOut[0];
  if (out.meshDims() != in.meshDims()) return okResult({in});
  for (int m = 0; m < in.meshDims(); ++m)
    if (!(in[m] == out[m]) && !allowed(in[m], out[m]))
      return failResult(Verdict::Incompatible, 0, std::nullopt,
                        opTitle(ctx) + " is declared to turn " + in.toMeshString() + " into " + out.toMeshString() +
                            ", but on mesh dim " + std::to_string(m) + " a " + what + " cannot turn " +
                            in[m].shortString() + " into " + out[m].shortString());
  RuleResult r = okResult({out});
  r.outputs.resize(std::max(1, ctx.outputCount()), std::nullopt);
  return r;
}

RuleResult allReduce(const RuleContext& ctx) {
  return checkedCollective(ctx, "all_reduce",
                           [](const Placement& a, const Placement& b) { return a.isPartial() && b.isReplicate(); });
}
RuleResult allGather(const RuleContext& ctx) {
  return checkedCollective(ctx, "all_gather",
                           [](const Placement& a, const Placement& b) { return a.isShard(0) && b.isReplicate(); });
}
RuleResult reduceScatter(const RuleContext& ctx) {
  return checkedCollective(ctx, "reduce_scatter",
                           [](const Placement& a, const Placement& b) { return a.isPartial() && b.isShard(0); });
}

// The declared output, else the input's spec.
RuleResult trusted(const RuleContext& ctx) {
  if (!ctx.declaredOut.empty() && ctx.declaredOut[0]) {
    RuleResult r = okResult(ctx.declaredOut);
    return r;
  }
  if (ctx.inputCount() >= 1 && ctx.inSpecs[0]) {
    RuleResult r = okResult({ctx.inSpecs[0]});
    r.outputs.resize(std::max(1, ctx.outputCount()), ctx.inSpecs[0]);
    return r;
  }
  return unknownResult(ctx);
}

RuleResult waitTensor(const RuleContext& ctx) {
  if (ctx.inputCount() < 1 || !ctx.inSpecs[0]) return unknownResult(ctx);
  RuleResult r = okResult({ctx.inSpecs[0]});
  return r;
}

}  // namespace

void registerCollectiveRules(RuleTable& t) {
  t["all_reduce"] = allReduce;
  t["all_reduce_"] = allReduce;
  t["all_gather_into_tensor"] = allGather;
  t["all_gather_into_tensor_out"] = allGather;
  t["reduce_scatter_tensor"] = reduceScatter;
  for (const char* op : {"all_to_all_single", "broadcast", "broadcast_", "all_gather_into_tensor_coalesced",
                         "reduce_scatter_tensor_coalesced", "all_reduce_coalesced", "permute_tensor",
                         "shard_dim_alltoall"})
    t[op] = trusted;
  t["wait_tensor"] = waitTensor;
}

}  // namespace ss::rules
