// The replicate-only rule: ops DTensor runs on whole tensors only (its strategy lists no shard and no Partial),
// or that core checks that way on purpose, each with its reason (core/rules/families.h, replicateOnlyOps()).
// Every tensor input must arrive Replicate on every mesh dim; every output is Replicate.
#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

RuleResult replicateOnlyRule(const RuleContext& ctx) {
  const int meshDims = ctx.mesh ? ctx.mesh->ndim() : 0;
  const auto& table = replicateOnlyOps();
  const auto it = table.find(ruleKeyView(ctx.node->op));
  const std::string why = it == table.end() ? std::string() : " (" + std::string(it->second) + ")";
  SpecList replicated(ctx.inputCount(), ShardingSpec::replicated(meshDims));
  for (int i = 0; i < ctx.inputCount(); ++i) {
    if (!ctx.inSpecs[i]) continue;
    const ShardingSpec& spec = *ctx.inSpecs[i];
    for (int m = 0; m < spec.meshDims(); ++m) {
      const Placement& p = spec[m];
      if (p.kind == PlacementKind::Replicate) continue;
      RuleResult r = failResult(p.isPartial() ? Verdict::PartialIntoNonlinear : Verdict::Incompatible, i,
                                ShardingSpec::replicated(meshDims),
                                opTitle(ctx) + " runs on whole tensors only" + why + ", but input " +
                                    std::to_string(i) + " arrives as " + spec.toMeshString() +
                                    "; replicate it first");
      r.alternatives.push_back(replicated);
      return r;
    }
  }
  SpecList outs;
  for (size_t o = 0; o < ctx.node->outputs.size(); ++o) outs.push_back(ShardingSpec::replicated(meshDims));
  if (outs.empty()) outs.push_back(ShardingSpec::replicated(meshDims));
  return okResult(std::move(outs));
}

}  // namespace ss::rules
