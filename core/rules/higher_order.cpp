// Higher-order ops (torch.ops.higher_order.*): flex_attention and its backward, and user Triton kernels.
//
// flex_attention(q, k, v, score_mod, block_mask, scale, kernel_options, score_mod_other_buffers,
// mask_mod_other_buffers) computes attention with a user score_mod and a block-sparse mask. As SDPA: batch and
// heads keep their shards, the sequences and head_dim are read whole (softmax mixes every key of a query; the
// block mask is indexed by global block positions), and it is not linear. The callables (score_mod, mask_mod, fw
// and joint graphs) are opaque get_attr references without metas: they take no part. The block mask's tensors
// and the other buffers are bookkeeping: whole on every rank (Replicate). The backward(q, k, v, out, lse,
// grad_out, grad_lse, fw_graph, joint_graph, block_mask, ...) follows the same labels: grads take q/k/v's.
//
// triton_kernel_wrapper_functional(kernel_idx, constant_args_idx, grid, tma_descriptor_metadata, kwargs,
// tensors_to_clone) runs a user kernel on the raw local tensors. Nothing says how it indexes them, so it is
// checked as whole-tensor code: every tensor input must be Replicate (no shard, no Partial) and its outputs are.
#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

namespace {

constexpr int kB = 9500, kH = 9501, kSq = 9502, kSk = 9503, kD = 9504, kDv = 9505, kFresh = 9600;

// Labels of q-like ([B, H, Sq, D]), k-like and lse-like ([B, H, Sq]) tensors; every other input is bookkeeping.
RuleResult flexAttention(const RuleContext& ctx, bool backward) {
  LabelProblem p;
  p.partial = PartialPolicy::Nonlinear;
  p.contraction = std::nullopt;
  p.noContractionWhy = "attention needs it whole";
  const std::string seq = "flex_attention mixes every position of the sequence and indexes its block mask by global "
                          "block; shard batch or heads";
  p.forbidden[kSq] = seq;
  p.forbidden[kSk] = seq;
  p.forbidden[kD] = "head_dim is contracted inside the softmax";
  p.forbidden[kDv] = "head_dim is read whole by the kernel";
  // Positional roles: forward q, k, v; backward q, k, v, out, logsumexp, grad_out, grad_logsumexp.
  auto role = [&](const Arg* a) { return ctx.inputIndexOf(a); };
  std::vector<std::pair<int, std::vector<int>>> data;
  data.push_back({role(ctx.arg(0)), {kB, kH, kSq, kD}});
  data.push_back({role(ctx.arg(1)), {kB, kH, kSk, kD}});
  data.push_back({role(ctx.arg(2)), {kB, kH, kSk, kDv}});
  if (backward) {
    data.push_back({role(ctx.arg(3)), {kB, kH, kSq, kDv}});
    data.push_back({role(ctx.arg(4)), {kB, kH, kSq}});
    data.push_back({role(ctx.arg(5)), {kB, kH, kSq, kDv}});
    data.push_back({role(ctx.arg(6)), {kB, kH, kSq}});
  }
  std::vector<bool> isData(ctx.inputCount(), false);
  for (auto& [i, labels] : data) {
    if (i < 0) continue;
    if (ctx.rank(i) != static_cast<int>(labels.size())) return unknownResult(ctx);
    p.ins.push_back(labelled(i, labels));
    isData[i] = true;
  }
  if (p.ins.size() < 3) return unknownResult(ctx);
  for (int i = 0; i < ctx.inputCount(); ++i) {
    if (isData[i] || ctx.rank(i) < 0) continue;  // opaque callables have no meta: not part of the problem
    std::vector<int> l(ctx.rank(i));
    for (int d = 0; d < ctx.rank(i); ++d) {
      l[d] = kFresh + 10 * i + d;
      p.forbidden[l[d]] = "it is bookkeeping (the block mask or a buffer the score/mask function reads)";
    }
    p.ins.push_back(labelled(i, l, false));
  }
  const int nOut = std::max(1, ctx.outputCount());
  for (int o = 0; o < nOut; ++o) {
    if (backward) {
      if (o < 3) p.outs.push_back(data[o].second);
      else p.outs.push_back(std::nullopt);
    } else {
      if (o == 0) p.outs.push_back(std::vector<int>{kB, kH, kSq, kDv});
      else p.outs.push_back(std::vector<int>{kB, kH, kSq});
    }
  }
  return solveLabels(ctx, p);
}

RuleResult flexForward(const RuleContext& ctx) { return flexAttention(ctx, false); }
RuleResult flexBackward(const RuleContext& ctx) { return flexAttention(ctx, true); }

RuleResult tritonKernel(const RuleContext& ctx) {
  for (int i = 0; i < ctx.inputCount(); ++i) {
    if (!ctx.inSpecs[i]) continue;
    const ShardingSpec& s = *ctx.inSpecs[i];
    for (int m = 0; m < s.meshDims(); ++m) {
      if (s[m].isReplicate()) continue;
      ShardingSpec want = ShardingSpec::replicated(s.meshDims());
      const std::string what = s[m].isPartial() ? "a Partial value" : "a shard";
      return failResult(s[m].isPartial() ? Verdict::PartialIntoNonlinear : Verdict::Incompatible, i, want,
                        "triton_kernel_wrapper_functional runs an opaque Triton kernel on whole tensors, but input " +
                            std::to_string(i) + " arrives as " + s.toMeshString() + ", " + what + " on mesh dim " +
                            std::to_string(m) + "; make it Replicate");
    }
  }
  if (ctx.mesh && ctx.inputCount() > 0) {
    RuleResult r;
    r.outputs.assign(std::max(1, ctx.outputCount()), ShardingSpec::replicated(ctx.mesh->ndim()));
    // Unknown input specs leave the outputs unknown.
    for (int i = 0; i < ctx.inputCount(); ++i)
      if (!ctx.inSpecs[i] && ctx.rank(i) >= 0) return unknownResult(ctx);
    return r;
  }
  return unknownResult(ctx);
}

}  // namespace

void registerHigherOrderRules(RuleTable& t) {
  t["higher_order.flex_attention"] = flexForward;
  t["higher_order.flex_attention_backward"] = flexBackward;
  t["higher_order.triton_kernel_wrapper_functional"] = tritonKernel;
  t["higher_order.triton_kernel_wrapper_mutation"] = tritonKernel;
}

}  // namespace ss::rules
