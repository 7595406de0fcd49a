// Softmax and log-softmax (+ backward), scaled-dot-product attention (every ATen variant, + backward),
// nll_loss / cross_entropy (+ backward), native_layer_norm (+ backward).
//
// Softmax normalises over its dim: that dim must be whole. Attention mixes every position of the sequence
// and contracts head_dim inside a softmax: only batch and heads may be sharded (sequence parallelism needs an
// all-to-all that turns the sequence shard into a heads shard around attention, as Ulysses does). nll_loss
// picks each target's class: the class dim must be whole; a sharded batch gives Partial(avg) (mean) or
// Partial(sum) (sum). Layer norm normalises over its trailing dims: those must be whole.
#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

namespace {

constexpr int kB = 8000, kH = 8001, kS = 8002, kD = 8003, kC = 8004, kFresh = 8100;

// _softmax(x, dim, half_to_float), softmax.int(x, dim, dtype), and the backward ops (grad, output, dim, dtype).
RuleResult softmaxRule(const RuleContext& ctx) {
  std::string op = ruleKey(ctx.node->op);
  bool backward = op.find("backward") != std::string::npos;
  int n = backward ? 2 : 1;
  if (ctx.inputCount() < n || ctx.rank(0) < 0) return unknownResult(ctx);
  int r = ctx.rank(0);
  auto d = normDim(ctx.intArgOr(backward ? 2 : 1, "dim", -1), r);
  if (!d) return unknownResult(ctx);
  LabelProblem p;
  p.partial = PartialPolicy::Nonlinear;
  p.contraction = std::nullopt;
  for (int i = 0; i < n; ++i) {
    if (ctx.rank(i) != r) return unknownResult(ctx);
    p.ins.push_back(labelled(i, alignedLabels(r, r)));
  }
  p.forbidden[*d] = op + " normalises over that dim, so every rank needs all of it";
  p.outs = {alignedLabels(r, r)};
  RuleResult res = solveLabels(ctx, p);
  return res;
}

// Every SDPA variant: tensors of rank 4 are [B, H, S, D]; rank 3 (logsumexp) [B, H, S]; rank 2 (a mask) [S, S];
// smaller ones (seeds, offsets) are bookkeeping.
RuleResult sdpaRule(const RuleContext& ctx) {
  LabelProblem p;
  p.partial = PartialPolicy::Nonlinear;
  p.contraction = std::nullopt;
  p.noContractionWhy = "attention needs it whole";
  const std::string seq = "attention mixes every position of the sequence; shard batch or heads, or all-to-all the "
                          "sequence shard into a heads shard around attention (Ulysses)";
  p.forbidden[kS] = seq;
  p.forbidden[kS + 100] = seq;
  p.forbidden[kD] = "head_dim is contracted inside the softmax";
  for (int i = 0; i < ctx.inputCount(); ++i) {
    int r = ctx.rank(i);
    if (r < 0) continue;
    if (r == 4) p.ins.push_back(labelled(i, {kB, kH, kS, kD}));
    else if (r == 3) p.ins.push_back(labelled(i, {kB, kH, kS}));
    else if (r == 2) p.ins.push_back(labelled(i, {kS, kS + 100}));
    else p.ins.push_back(labelled(i, alignedLabels(r, r), false));
  }
  for (auto& in : p.ins)
    if (!in.data)
      for (int& l : in.labels) { p.forbidden[kFresh + l] = "it is bookkeeping"; l += kFresh; }
  int nOut = std::max(1, ctx.outputCount());
  for (int o = 0; o < nOut; ++o) {
    const TensorMeta* m = ctx.outMeta(o);
    int r = m ? m->rank() : (o == 0 ? 4 : -1);
    if (r == 4) p.outs.push_back(std::vector<int>{kB, kH, kS, kD});
    else if (r == 3) p.outs.push_back(std::vector<int>{kB, kH, kS});
    else p.outs.push_back(std::nullopt);
  }
  return solveLabels(ctx, p);
}

int tensorInput(const RuleContext& ctx, int pos, const char* kw) { return ctx.inputIndexOf(ctx.arg(pos, kw)); }

constexpr int64_t kReductionMean = 1;  // at::Reduction: 0 none, 1 mean, 2 sum

// A mean loss (reduction=mean) over a sharded batch or sequence dim of `self` (its dims but the class dim):
//   - split unevenly, the average of per-rank means weights unequal shards equally: refused, as mean is;
//   - split evenly, right only when every rank counts as many targets: the mean divides by the targets not equal
//     to ignore_index (and sums their class weights), which the data decides: a data-dependent-mean warning;
//   - DTensor 2.14 keeps no sharded strategy for a mean nll_loss (nll_loss_forward_single_dim_strategy lists
//     none/sum only): it replicates self and target first (implicit-redistribute).
void meanLossOverShards(const RuleContext& ctx, int self, bool weighted, RuleResult& res) {
  if (!res.ok() || !ctx.inSpecs[self] || ctx.rank(self) < 1) return;
  const ShardingSpec& spec = *ctx.inSpecs[self];
  const auto& shape = ctx.shape(self);
  const int classDim = ctx.rank(self) >= 2 ? 1 : 0;
  for (int d = 0; d < ctx.rank(self); ++d) {
    if (d == classDim) continue;
    int64_t count = 1;
    std::string meshDims;
    for (int m = 0; m < spec.meshDims(); ++m)
      if (spec[m].isShard(d)) {
        count *= ctx.mesh->dimSize(m);
        meshDims += (meshDims.empty() ? "" : " and ") + ("mesh dim " + std::to_string(m) + " (" + ctx.mesh->dimName(m) + ")");
      }
    if (count == 1) continue;
    const std::string dimText = "dim " + std::to_string(d) + " (size " + std::to_string(shape[d]) + ")";
    if (shape[d] % count != 0) {
      ShardingSpec want = spec;
      for (int m = 0; m < want.meshDims(); ++m)
        if (want[m].isShard(d)) want.placements[m] = Placement::replicate();
      res = failResult(Verdict::Incompatible, self, want,
                       opTitle(ctx) + " with reduction=mean over " + dimText + ", which " + spec.toMeshString() +
                           " splits unevenly into " + std::to_string(count) +
                           " pieces: the average of the per-rank means would weight unequal shards equally");
      return;
    }
    const auto ignore = ctx.intArg(4, "ignore_index");
    res.dataDependentMeans.push_back(
        opTitle(ctx) + " with reduction=mean over " + dimText + ", sharded on " + meshDims +
        ": each rank divides its loss by its own count of targets not equal to ignore_index (" +
        (ignore ? std::to_string(*ignore) : std::string("-100")) + ")" +
        (weighted ? ", weighted by their class weights" : "") +
        ", so the average of the per-rank losses is the global mean only when every rank counts alike; use "
        "reduction=sum and divide by the all-reduced count, or replicate " + dimText);
    res.implicitRedistributes.push_back(
        "DTensor replicates the input (" + spec.toMeshString() + ") and target before " + opTitle(ctx) +
        ": its strategies for reduction=mean keep no shard (nll_loss_forward_single_dim_strategy)");
    return;
  }
}

// nll_loss_forward(self, target, weight, reduction, ignore_index) -> (output, total_weight); also nll_loss,
// nll_loss2d_forward and cross_entropy_loss (single output).
RuleResult nllLossRule(const RuleContext& ctx) {
  int self = tensorInput(ctx, 0, "self"), target = tensorInput(ctx, 1, "target");
  int weight = tensorInput(ctx, 2, "weight");
  if (self < 0 || target < 0 || ctx.rank(self) < 1 || ctx.rank(target) < 0) return unknownResult(ctx);
  int r = ctx.rank(self);
  auto red = ctx.intArgOr(3, "reduction", 1);
  if (!red) return unknownResult(ctx);
  int64_t reduction = *red;
  LabelProblem p;
  p.partial = PartialPolicy::Multiplicative;
  p.contraction = reduction == 2 ? ReduceOp::Sum : ReduceOp::Avg;
  p.noContractionWhy = "the loss needs the whole batch";
  p.forbidden[kC] = "the loss picks each target's class, so every rank needs all classes";
  std::vector<int> ls, lt;
  if (r == 1) {
    ls = {kC};
  } else {
    ls = {kB, kC};
    lt = {kB};
    for (int d = 2; d < r; ++d) { ls.push_back(kFresh + d); lt.push_back(kFresh + d); }
  }
  if (ctx.rank(target) != static_cast<int>(lt.size())) return unknownResult(ctx);
  p.ins = {labelled(self, ls), labelled(target, lt, false)};
  if (weight >= 0 && ctx.rank(weight) == 1) {
    p.ins.push_back(labelled(weight, {kC}));
    p.ins.back().mayBePartial = false;
  }
  std::vector<int> lo = reduction == 0 ? lt : std::vector<int>{};
  p.outs = {lo};
  if (ctx.outputCount() > 1) p.outs.resize(ctx.outputCount(), std::nullopt);
  RuleResult res = solveLabels(ctx, p);
  if (reduction == kReductionMean) meanLossOverShards(ctx, self, weight >= 0, res);
  return res;
}

// nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight) -> grad_self.
RuleResult nllLossBackwardRule(const RuleContext& ctx) {
  int grad = tensorInput(ctx, 0, "grad_output"), self = tensorInput(ctx, 1, "self");
  int target = tensorInput(ctx, 2, "target"), weight = tensorInput(ctx, 3, "weight");
  int total = tensorInput(ctx, 6, "total_weight");
  if (grad < 0 || self < 0 || target < 0 || ctx.rank(self) < 1 || ctx.rank(grad) < 0 || ctx.rank(target) < 0)
    return unknownResult(ctx);
  int r = ctx.rank(self);
  LabelProblem p;
  p.partial = PartialPolicy::Multiplicative;
  p.contraction = std::nullopt;
  p.forbidden[kC] = "the loss picks each target's class, so every rank needs all classes";
  std::vector<int> ls = r == 1 ? std::vector<int>{kC} : std::vector<int>{kB, kC}, lt;
  if (r > 1) lt = {kB};
  for (int d = 2; d < r; ++d) { ls.push_back(kFresh + d); lt.push_back(kFresh + d); }
  if (ctx.rank(target) != static_cast<int>(lt.size())) return unknownResult(ctx);
  std::vector<int> lg = ctx.rank(grad) == 0 ? std::vector<int>{} : lt;
  if (ctx.rank(grad) != static_cast<int>(lg.size())) return unknownResult(ctx);
  p.ins = {labelled(grad, lg), labelled(self, ls), labelled(target, lt, false)};
  p.ins[1].mayBePartial = false;
  if (weight >= 0 && ctx.rank(weight) == 1) {
    p.ins.push_back(labelled(weight, {kC}));
    p.ins.back().mayBePartial = false;
  }
  if (total >= 0 && ctx.rank(total) == 0) p.ins.push_back(labelled(total, {}, false));
  p.outs = {ls};
  RuleResult res = solveLabels(ctx, p);
  return res;
}

// native_layer_norm(input, normalized_shape, weight, bias, eps) -> (out, mean, rstd).
RuleResult layerNormRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 1 || ctx.rank(0) < 0) return unknownResult(ctx);
  int r = ctx.rank(0);
  auto norm = ctx.intListArg(1, "normalized_shape");
  if (!norm || static_cast<int>(norm->size()) > r) return unknownResult(ctx);
  int k = static_cast<int>(norm->size());
  LabelProblem p;
  p.partial = PartialPolicy::Nonlinear;
  p.contraction = std::nullopt;
  for (int d = r - k; d < r; ++d) p.forbidden[d] = "layer norm normalises over it, so every rank needs all of it";
  p.ins = {labelled(0, alignedLabels(r, r))};
  for (int i = 1; i < ctx.inputCount(); ++i) {
    if (ctx.rank(i) < 0 || ctx.rank(i) > r) return unknownResult(ctx);
    p.ins.push_back(labelled(i, alignedLabels(ctx.rank(i), r)));
  }
  std::vector<int> stats;
  for (int d = 0; d < r; ++d) stats.push_back(d < r - k ? d : kFresh + d);
  p.outs = {alignedLabels(r, r), stats, stats};
  p.outs.resize(std::max(1, ctx.outputCount()), std::nullopt);
  return solveLabels(ctx, p);
}

// native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask)
//   -> (grad_input, grad_weight, grad_bias); grad_weight and grad_bias sum over the batch dims.
RuleResult layerNormBackwardRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 4 || ctx.rank(0) < 0) return unknownResult(ctx);
  int r = ctx.rank(0);
  auto norm = ctx.intListArg(2, "normalized_shape");
  if (!norm || static_cast<int>(norm->size()) > r) return unknownResult(ctx);
  int k = static_cast<int>(norm->size());
  LabelProblem p;
  p.partial = PartialPolicy::Nonlinear;
  p.contraction = ReduceOp::Sum;
  for (int d = r - k; d < r; ++d) p.forbidden[d] = "layer norm normalises over it, so every rank needs all of it";
  std::vector<int> stats;
  for (int d = 0; d < r; ++d) stats.push_back(d < r - k ? d : kFresh + d);
  for (int i = 0; i < ctx.inputCount(); ++i) {
    int ri = ctx.rank(i);
    if (ri < 0) return unknownResult(ctx);
    if (i <= 1) p.ins.push_back(labelled(i, alignedLabels(r, r)));
    else if (ri == r && i <= 3) p.ins.push_back(labelled(i, stats));
    else if (ri <= k) p.ins.push_back(labelled(i, alignedLabels(ri, r)));
    else return unknownResult(ctx);
  }
  std::vector<int> wl;
  for (int d = r - k; d < r; ++d) wl.push_back(d);
  p.outs = {alignedLabels(r, r), wl, wl};
  p.outs.resize(std::max(1, ctx.outputCount()), std::nullopt);
  return solveLabels(ctx, p);
}

}  // namespace

void registerAttentionRules(RuleTable& t) {
  for (const char* op : {"_softmax", "softmax", "_log_softmax", "log_softmax", "_softmax_backward_data",
                         "_log_softmax_backward_data"})
    t[op] = softmaxRule;
  for (const char* op : {"scaled_dot_product_attention", "_scaled_dot_product_attention",
                         "_scaled_dot_product_flash_attention", "_scaled_dot_product_efficient_attention",
                         "_scaled_dot_product_cudnn_attention", "_scaled_dot_product_flash_attention_for_cpu",
                         "_scaled_dot_product_flash_attention_backward",
                         "_scaled_dot_product_efficient_attention_backward",
                         "_scaled_dot_product_cudnn_attention_backward",
                         "_scaled_dot_product_flash_attention_for_cpu_backward"})
    t[op] = sdpaRule;
  for (const char* op : {"nll_loss_forward", "nll_loss", "nll_loss2d_forward", "cross_entropy_loss"}) t[op] = nllLossRule;
  for (const char* op : {"nll_loss_backward", "nll_loss2d_backward"}) t[op] = nllLossBackwardRule;
  t["native_layer_norm"] = layerNormRule;
  t["native_layer_norm_backward"] = layerNormBackwardRule;
}

}  // namespace ss::rules
