// Convolution (+ backward), pooling (+ backward), upsampling (+ backward), batch norm (+ backward), group norm,
// fused RMS norm (+ backward) and grid sampling (+ backward), as DTensor 2.14 propagates them
// (torch/distributed/tensor/_ops/_conv_ops.py and the "Interpolation / upsample / pooling" and "Normalization"
// sections of _math_ops.py). Every one is a single-dim strategy: on each mesh dim the inputs must match one
// listed placement tuple exactly, else DTensor redistributes them first, so core refuses what no tuple lists.
//
//   - convolution shards the batch only (weight and bias Replicate); also the last spatial dim when the windows
//     do not overlap there (stride == kernel width, no padding, dilation 1, not transposed) and the dim splits
//     into whole windows on one mesh dim. Its backward gives Partial(sum) weight and bias gradients.
//   - pooling and upsampling shard batch and channel; only the linear ones (avg pools, upsampling, the max-pool
//     backward in grad_output) carry a Partial(sum|avg). Spatial dims are read whole (windows cross shards).
//   - batch norm shards channels only (its statistics span batch and space); group norm the batch only;
//     RMS norm every dim before the normalised ones; grid sampling the batch only.
// DTensor's strategies without allow_uneven_sharding (all but pooling and the RMS norm forward) keep no input
// with a dim split into more pieces than it has elements (is_tensor_shardable): core refuses those too.
#include <algorithm>

#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

namespace {

constexpr int kN = 9000, kC = 9001, kLast = 9002;
constexpr int kFreshIn = 9100;   // input slot s, dim d: kFreshIn + 16 s + d; each read whole (forbidden)
constexpr int kFreshOut = 9700;  // output o, dim d: kFreshOut + 16 o + d

const std::string kWindowWhy =
    "its windows read neighbouring positions across the shard boundary, so every rank needs all of that dim";

int tensorInput(const RuleContext& ctx, int pos, const char* kw) { return ctx.inputIndexOf(ctx.arg(pos, kw)); }

// Labels of a rank-`rank` tensor: the dims in `keep` get their label, every other dim a fresh one of `slot`
// (an input's fresh labels are forbidden by addInput; an output's are new dims).
std::vector<int> labelsOf(int rank, int freshBase, int slot, std::initializer_list<std::pair<int, int>> keep) {
  std::vector<int> l(std::max(rank, 0));
  for (int d = 0; d < rank; ++d) l[d] = freshBase + 16 * slot + d;
  for (const auto& [d, label] : keep)
    if (d >= 0 && d < rank) l[d] = label;
  return l;
}
std::vector<int> inLabels(int rank, int slot, std::initializer_list<std::pair<int, int>> keep) {
  return labelsOf(rank, kFreshIn, slot, keep);
}
std::vector<int> outLabels(int rank, int o, std::initializer_list<std::pair<int, int>> keep) {
  return labelsOf(rank, kFreshOut, o, keep);
}

// Adds tensor input `input` with `labels`; its fresh labels are forbidden for `why` (a clause: "cannot split
// dim d of input i: <why>").
void addInput(LabelProblem& p, int input, std::vector<int> labels, const std::string& why, bool data = true) {
  for (int l : labels)
    if (l >= kFreshIn && l < kFreshOut) p.forbidden.emplace(l, why);
  p.ins.push_back(labelled(input, std::move(labels), data));
}

// The rank output o has: its declared meta, else `dflt`.
int outRank(const RuleContext& ctx, int o, int dflt) {
  const TensorMeta* m = ctx.outMeta(o);
  return m && m->known ? m->rank() : dflt;
}

std::optional<std::vector<bool>> boolListArg(const RuleContext& ctx, int pos, const char* kw) {
  const Arg* a = ctx.arg(pos, kw);
  if (!a || !a->isList()) return std::nullopt;
  std::vector<bool> out;
  for (const Arg& x : a->items) {
    if (x.kind != Arg::Kind::Bool) return std::nullopt;
    out.push_back(x.b);
  }
  return out;
}
// Entry i of an output_mask argument; true when the mask is absent or unreadable (the output may exist).
bool maskBit(const std::optional<std::vector<bool>>& mask, size_t i) {
  return !mask || i >= mask->size() || (*mask)[i];
}

// Every participating input Replicate, the rest as they arrive: the one assignment every strategy list holds.
SpecList replicatedInputs(const RuleContext& ctx, const LabelProblem& p) {
  SpecList s = ctx.inSpecs;
  for (const auto& in : p.ins) s[in.input] = ShardingSpec::replicated(ctx.mesh->ndim());
  return s;
}

ShardingSpec withoutPartials(ShardingSpec s) {
  for (Placement& pl : s.placements)
    if (pl.isPartial()) pl = Placement::replicate();
  return s;
}

// DTensor's strategies for the op keep no Partial input (though the op may be linear in it): the first Partial
// participating input is refused, `why` says which strategy lists none. nullopt when there is none.
std::optional<RuleResult> refusePartials(const RuleContext& ctx, const LabelProblem& p, const std::string& why) {
  for (const auto& in : p.ins) {
    const auto& spec = ctx.inSpecs[in.input];
    if (!spec) continue;
    for (int m = 0; m < spec->meshDims(); ++m) {
      if (!(*spec)[m].isPartial()) continue;
      RuleResult r = failResult(Verdict::Incompatible, in.input, withoutPartials(*spec),
                                opTitle(ctx) + " keeps no Partial input, but input " + std::to_string(in.input) +
                                    " arrives as " + spec->toMeshString() + ", a Partial(" +
                                    reduceOpName((*spec)[m].reduce) + ") value on mesh dim " + std::to_string(m) +
                                    " (" + ctx.mesh->dimName(m) + "); reduce it first (all_reduce): " + why);
      r.alternatives = {replicatedInputs(ctx, p)};
      return r;
    }
  }
  return std::nullopt;
}

// As DTensor's is_tensor_shardable for strategies without allow_uneven_sharding: an accepted input whose dim is
// split into more pieces than it has elements (some ranks hold none) is refused; DTensor redistributes it.
void refuseEmptyShards(const RuleContext& ctx, const LabelProblem& p, RuleResult& res) {
  if (!res.ok()) return;
  for (const auto& in : p.ins) {
    const ShardingSpec& spec = *ctx.inSpecs[in.input];
    const auto& shape = ctx.shape(in.input);
    std::vector<int64_t> shards(shape.size(), 1);
    for (int m = 0; m < spec.meshDims(); ++m) {
      const Placement& pl = spec[m];
      if (!pl.isShard() || pl.dim >= static_cast<int>(shape.size())) continue;
      shards[pl.dim] *= ctx.mesh->dimSize(m);
      const int64_t need = pl.kind == PlacementKind::StridedShard ? shards[pl.dim] * pl.splitFactor : shards[pl.dim];
      if (shape[pl.dim] >= need) continue;
      ShardingSpec want = spec;
      for (int k = 0; k < want.meshDims(); ++k)
        if (want[k].isShard(pl.dim)) want.placements[k] = Placement::replicate();
      want.order.clear();
      res = failResult(Verdict::Incompatible, in.input, want,
                       opTitle(ctx) + " cannot take input " + std::to_string(in.input) + " as " + spec.toMeshString() +
                           ": its dim " + std::to_string(pl.dim) + " (size " + std::to_string(shape[pl.dim]) +
                           ") is split into " + std::to_string(need) +
                           " pieces, so some ranks hold none, and DTensor keeps no " + opTitle(ctx) +
                           " strategy with such a shard (is_tensor_shardable, no allow_uneven_sharding)");
      res.alternatives = {replicatedInputs(ctx, p)};
      return;
    }
  }
}

// Solves `p` with Partial inputs refused for `partialWhy` (empty: the policy decides) and, when `even`, inputs
// with empty shards refused.
RuleResult solveStrict(const RuleContext& ctx, const LabelProblem& p, const std::string& partialWhy, bool even) {
  if (!inputsKnown(ctx, p)) return unknownResult(ctx);
  if (!partialWhy.empty())
    if (auto r = refusePartials(ctx, p, partialWhy)) return *r;
  RuleResult res = solveLabels(ctx, p);
  if (even) refuseEmptyShards(ctx, p, res);
  return res;
}

// ---- convolution ----

// The windows along the last spatial dim, as _supports_last_dim_sharding reads them: true when they do not
// overlap (stride == kernel width, no padding, dilation 1, not transposed); nullopt when the arguments are unknown.
std::optional<bool> lastDimWindowsDisjoint(const RuleContext& ctx, int input, int weight, int argBase,
                                           bool hasTransposed) {
  const int r = ctx.rank(input);
  if (r != ctx.rank(weight) || r < 3 || r > 5) return false;
  const bool conv = !hasTransposed;  // conv1d/2d/3d: stride, padding, dilation default to 1, 0, 1
  auto stride = ctx.intListArg(argBase, "stride"), dilation = ctx.intListArg(argBase + 2, "dilation");
  auto padding = ctx.intListArg(argBase + 1, "padding");
  const Arg* pad = ctx.arg(argBase + 1, "padding");
  // conv*d.padding: "valid" pads nothing, "same" pads the last dim unless its kernel width is 1.
  if (pad && pad->kind == Arg::Kind::String) {
    if (pad->s != "valid" && ctx.shape(weight).back() != 1) return false;
    padding = std::vector<int64_t>{0};
  }
  if (conv && ctx.argsComplete) {
    if (!ctx.arg(argBase, "stride")) stride = std::vector<int64_t>{1};
    if (!pad) padding = std::vector<int64_t>{0};
    if (!ctx.arg(argBase + 2, "dilation")) dilation = std::vector<int64_t>{1};
  }
  std::optional<bool> transposed = hasTransposed ? ctx.boolArg(argBase + 3, "transposed") : std::optional<bool>(false);
  if (!stride || !padding || !dilation || stride->empty() || padding->empty() || dilation->empty() || !transposed)
    return std::nullopt;
  return !*transposed && padding->back() == 0 && dilation->back() == 1 && stride->back() == ctx.shape(weight).back();
}

// _convolution_full_mesh_strategy_filter: a last-dim shard of the input must be one plain Shard on one mesh dim
// that cuts the dim into whole windows (size % (stride * mesh dim size) == 0). The refusal, or nullopt.
std::optional<RuleResult> lastDimFilter(const RuleContext& ctx, const LabelProblem& p, int input, int argBase) {
  const ShardingSpec& spec = *ctx.inSpecs[input];
  const int last = ctx.rank(input) - 1;
  std::vector<int> meshDims;
  for (int m = 0; m < spec.meshDims(); ++m)
    if (spec[m].isShard(last)) meshDims.push_back(m);
  if (meshDims.empty()) return std::nullopt;
  const int64_t size = ctx.shape(input).back();
  auto stride = ctx.intListArg(argBase, "stride");
  const int64_t s = stride && !stride->empty() ? stride->back() : 1;
  std::string why;
  if (meshDims.size() > 1)
    why = "it is split on more than one mesh dim";
  else if (spec[meshDims[0]].kind != PlacementKind::Shard)
    why = "it is a strided shard";
  else if (size % (s * ctx.mesh->dimSize(meshDims[0])) != 0)
    why = "its size " + std::to_string(size) + " does not split into whole windows of stride " + std::to_string(s) +
          " over " + std::to_string(ctx.mesh->dimSize(meshDims[0])) + " ranks";
  if (why.empty()) return std::nullopt;
  ShardingSpec want = spec;
  for (int m : meshDims) want.placements[m] = Placement::replicate();
  want.order.clear();
  RuleResult r =
      failResult(Verdict::Incompatible, input, want,
                 opTitle(ctx) + " cannot split the last dim of input " + std::to_string(input) + " (" +
                     spec.toMeshString() + "): " + why + " (DTensor's _convolution_full_mesh_strategy_filter)");
  r.alternatives = {replicatedInputs(ctx, p)};
  return r;
}

const std::string kConvChannelWhy =
    "a convolution sums over every input channel (DTensor's convolution strategies shard the batch only)";
const std::string kConvWeightWhy =
    "every rank applies the whole weight (DTensor's convolution strategies keep it "
    "Replicate)";
const std::string kConvLastWhy =
    kWindowWhy +
    " (DTensor shards the last spatial dim only where stride equals the kernel width, with no padding, "
    "dilation 1 and not transposed)";

// The input's labels: batch, then channel and spatial dims read whole, the last one shared (kLast) when its
// windows are disjoint.
std::vector<int> convInputLabels(int rank, int slot, bool lastShared) {
  return inLabels(rank, slot, {{0, kN}, {rank - 1, lastShared ? kLast : kFreshIn + 16 * slot + rank - 1}});
}
std::vector<int> convOutLabels(int rank, int o, bool lastShared) {
  return outLabels(rank, o, {{0, kN}, {rank - 1, lastShared ? kLast : kFreshOut + 16 * o + rank - 1}});
}
void forbidConvInput(LabelProblem& p, int slot, int rank) {
  p.forbidden[kFreshIn + 16 * slot + 1] = kConvChannelWhy;
  for (int d = 2; d < rank; ++d) p.forbidden[kFreshIn + 16 * slot + d] = d == rank - 1 ? kConvLastWhy : kWindowWhy;
}

// convolution / _convolution(input, weight, bias?, stride, padding, dilation, transposed, ...) and
// conv1d/2d/3d(input, weight, bias?, stride, padding, dilation, groups) -> [N, C_out, *spatial].
RuleResult convolutionRule(const RuleContext& ctx) {
  const std::string key = ruleKey(ctx.node->op);
  const bool hasTransposed = key == "convolution" || key == "_convolution";
  const int input = tensorInput(ctx, 0, "input"), weight = tensorInput(ctx, 1, "weight");
  const int bias = tensorInput(ctx, 2, "bias");
  if (input < 0 || weight < 0 || ctx.rank(input) < 2 || ctx.rank(weight) < 0) return unknownResult(ctx);
  const int r = ctx.rank(input);
  const auto disjoint = lastDimWindowsDisjoint(ctx, input, weight, 3, hasTransposed);
  const bool lastSharded = ctx.inSpecs[input] && ctx.inSpecs[input]->hasShardOn(r - 1);
  if (!disjoint && lastSharded) return unknownResult(ctx);
  const bool lastShared = disjoint.value_or(false);
  LabelProblem p;
  p.contraction = std::nullopt;
  addInput(p, input, convInputLabels(r, 0, lastShared), kWindowWhy);
  forbidConvInput(p, 0, r);
  addInput(p, weight, inLabels(ctx.rank(weight), 1, {}), kConvWeightWhy);
  if (bias >= 0) addInput(p, bias, inLabels(ctx.rank(bias), 2, {}), kConvWeightWhy);
  p.outs = {convOutLabels(r, 0, lastShared)};
  p.outs.resize(std::max(1, ctx.outputCount()), std::nullopt);
  if (!inputsKnown(ctx, p)) return unknownResult(ctx);
  if (auto f = refusePartials(ctx, p, "convolution_single_dim_strategy lists no Partial placement")) return *f;
  RuleResult res = solveLabels(ctx, p);
  if (res.ok() && lastShared)
    if (auto f = lastDimFilter(ctx, p, input, 3)) return *f;
  refuseEmptyShards(ctx, p, res);
  return res;
}

// convolution_backward(grad_output, input, weight, bias_sizes?, stride, padding, dilation, transposed,
// output_padding, groups, output_mask) -> (grad_input, grad_weight, grad_bias): the batch (and a disjoint last
// dim) shard grad_input; grad_weight and grad_bias sum over them: Partial(sum).
RuleResult convolutionBackwardRule(const RuleContext& ctx) {
  const int grad = tensorInput(ctx, 0, "grad_output"), input = tensorInput(ctx, 1, "input");
  const int weight = tensorInput(ctx, 2, "weight");
  if (grad < 0 || input < 0 || weight < 0 || ctx.rank(input) < 2 || ctx.rank(grad) != ctx.rank(input) ||
      ctx.rank(weight) < 0)
    return unknownResult(ctx);
  const int r = ctx.rank(input);
  const auto disjoint = lastDimWindowsDisjoint(ctx, input, weight, 4, true);
  const bool lastSharded = (ctx.inSpecs[input] && ctx.inSpecs[input]->hasShardOn(r - 1)) ||
                           (ctx.inSpecs[grad] && ctx.inSpecs[grad]->hasShardOn(r - 1));
  if (!disjoint && lastSharded) return unknownResult(ctx);
  const bool lastShared = disjoint.value_or(false);
  LabelProblem p;
  p.contraction = ReduceOp::Sum;
  addInput(p, grad, convInputLabels(r, 0, lastShared), kWindowWhy);
  forbidConvInput(p, 0, r);
  p.forbidden[kFreshIn + 1] =
      "it holds the output channels, which DTensor's convolution_backward strategies keep "
      "whole (they shard the batch only)";
  addInput(p, input, convInputLabels(r, 1, lastShared), kWindowWhy);
  forbidConvInput(p, 1, r);
  addInput(p, weight, inLabels(ctx.rank(weight), 2, {}), kConvWeightWhy);
  // grad_bias exists when bias_sizes is given (DTensor ignores output_mask here); unknown sizes: when declared.
  const Arg* biasSizes = ctx.arg(3, "bias_sizes");
  const bool hasBias = biasSizes ? biasSizes->kind != Arg::Kind::None : ctx.outMeta(2) != nullptr;
  p.outs = {convOutLabels(r, 0, lastShared), outLabels(ctx.rank(weight), 1, {})};
  p.outs.push_back(hasBias ? std::optional<std::vector<int>>(outLabels(1, 2, {})) : std::nullopt);
  p.outs.resize(std::max(3, ctx.outputCount()), std::nullopt);
  if (!inputsKnown(ctx, p)) return unknownResult(ctx);
  if (auto f = refusePartials(ctx, p, "convolution_backward_single_dim_strategy lists no Partial input")) return *f;
  RuleResult res = solveLabels(ctx, p);
  if (res.ok() && lastShared)
    if (auto f = lastDimFilter(ctx, p, input, 4)) return *f;
  refuseEmptyShards(ctx, p, res);
  return res;
}

// ---- pooling, unpooling, upsampling ----

// Spatial rank of each pooling op (POOL_SPATIAL_RANK): a batched input has rank spatial + 2, and only then is
// dim 1 the channel dim (unbatched, dim 0 is).
int poolSpatialRank(const std::string& key) {
  if (key.find("3d") != std::string::npos) return 3;
  if (key.find("2d") != std::string::npos) return 2;
  return 1;
}
bool isAvgPool(const std::string& key) { return key.find("avg_pool") != std::string::npos; }

const std::string kUnbatchedWhy = "the input is unbatched, so dim 1 is a spatial dim and " + kWindowWhy;

// Labels of a pooled tensor: dims 0 and 1 (batch and channel) may be split; spatial dims are read whole. An
// unbatched input ([C, *spatial]) has a spatial dim 1: `batched` false forbids it.
std::vector<int> poolInLabels(LabelProblem& p, int rank, int slot, bool batched) {
  if (!batched) p.forbidden[kC] = kUnbatchedWhy;
  return inLabels(rank, slot, {{0, kN}, {1, kC}});
}
std::vector<int> poolOutLabels(int rank, int o) { return outLabels(rank, o, {{0, kN}, {1, kC}}); }

// avg/max/adaptive/fractional pools (pooling_single_dim_strategy, allow_uneven_sharding): every tensor (self,
// fractional's random_samples) and output shares dim 0 and, batched, dim 1; avg pools carry Partial(sum|avg).
RuleResult poolRule(const RuleContext& ctx) {
  const std::string key = ruleKey(ctx.node->op);
  if (ctx.inputCount() < 1 || ctx.rank(0) < 1) return unknownResult(ctx);
  const int r = ctx.rank(0);
  const bool batched = r >= poolSpatialRank(key) + 2;
  LabelProblem p;
  p.contraction = std::nullopt;
  p.partial = isAvgPool(key) ? PartialPolicy::Additive : PartialPolicy::Nonlinear;
  for (int i = 0; i < ctx.inputCount(); ++i) {
    if (ctx.rank(i) < 0) return unknownResult(ctx);
    addInput(p, i, poolInLabels(p, ctx.rank(i), i, batched), kWindowWhy);
  }
  for (int o = 0; o < std::max(1, ctx.outputCount()); ++o) p.outs.push_back(poolOutLabels(outRank(ctx, o, r), o));
  return solveStrict(ctx, p, "", false);
}

// max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices)
// (pool_backward_strategy): batch, and channel when batched, shard all three alike; linear in grad_output, so a
// Partial(sum|avg) grad_output with self and indices Replicate stays Partial.
RuleResult poolBackwardRule(const RuleContext& ctx) {
  const int grad = tensorInput(ctx, 0, "grad_output"), self = tensorInput(ctx, 1, "self");
  const int indices = tensorInput(ctx, 7, "indices");
  if (grad < 0 || self < 0 || indices < 0 || ctx.rank(grad) < 1 || ctx.rank(self) < 0 || ctx.rank(indices) < 0)
    return unknownResult(ctx);
  const bool batched = ctx.rank(grad) >= 4;
  LabelProblem p;
  p.contraction = std::nullopt;
  p.partial = PartialPolicy::Multiplicative;
  addInput(p, grad, poolInLabels(p, ctx.rank(grad), 0, batched), kWindowWhy);
  addInput(p, self, poolInLabels(p, ctx.rank(self), 1, batched), kWindowWhy);
  p.ins.back().mayBePartial = false;
  addInput(p, indices, poolInLabels(p, ctx.rank(indices), 2, batched), kWindowWhy, false);
  p.outs = {poolOutLabels(outRank(ctx, 0, ctx.rank(self)), 0)};
  return solveStrict(ctx, p, "", true);
}

// max_unpool2d/3d(self, indices, output_size) and _adaptive_avg_pool2d_backward(grad_output, self)
// (interp_pool_1out_2in_strategy): batch and channel shard both inputs alike; no Partial. DTensor lists the
// channel strategy (dim 1) for unbatched inputs too, where dim 1 is spatial; core splits dim 1 only when batched.
RuleResult unpoolRule(const RuleContext& ctx) {
  const std::string key = ruleKey(ctx.node->op);
  if (ctx.inputCount() < 2 || ctx.rank(0) < 1 || ctx.rank(1) < 0) return unknownResult(ctx);
  const bool batched = ctx.rank(0) >= poolSpatialRank(key) + 2;
  const bool unpool = key.starts_with("max_unpool");
  LabelProblem p;
  p.contraction = std::nullopt;
  addInput(p, 0, poolInLabels(p, ctx.rank(0), 0, batched), kWindowWhy);
  addInput(p, 1, poolInLabels(p, ctx.rank(1), 1, batched), kWindowWhy, !unpool);
  p.outs = {poolOutLabels(outRank(ctx, 0, ctx.rank(unpool ? 0 : 1)), 0)};
  return solveStrict(ctx, p, "interp_pool_1out_2in_strategy lists no Partial placement", true);
}

// upsample_* and _upsample_* (+ backward) (interp_upsample_1out_1in_strategy): batch and channel shard; linear,
// so Partial(sum|avg) stays Partial.
RuleResult upsampleRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 1 || ctx.rank(0) < 1) return unknownResult(ctx);
  LabelProblem p;
  p.contraction = std::nullopt;
  p.partial = PartialPolicy::Additive;
  addInput(p, 0, poolInLabels(p, ctx.rank(0), 0, true),
           "upsampling interpolates between neighbouring positions, so "
           "every rank needs all of that dim");
  p.outs = {poolOutLabels(outRank(ctx, 0, ctx.rank(0)), 0)};
  return solveStrict(ctx, p, "", true);
}

// ---- batch norm, group norm, RMS norm ----

const std::string kBatchNormWhy =
    "batch norm takes each channel's statistics over the batch and spatial dims, so "
    "every rank needs all of them (DTensor's batch norm strategies shard channels only)";

// The output index of cuDNN's reserve workspace (opaque, Replicate in every strategy); -1 when the op has none.
int batchNormReserve(const std::string& key) { return key.starts_with("_batch_norm_with_update") ? 3 : -1; }

// native_batch_norm, _native_batch_norm_legit(_no_training, _functional), _batch_norm_with_update(_functional)
// (input, weight?, bias?, running_mean?, running_var?, ...) -> (out, save_mean, save_invstd[, reserve]
// [, running_mean, running_var]) (batch_norm_strategy): input and out shard dim 1, every [C] tensor dim 0.
RuleResult batchNormRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 1 || ctx.rank(0) < 2) return unknownResult(ctx);
  const int r = ctx.rank(0);
  LabelProblem p;
  p.contraction = std::nullopt;
  addInput(p, 0, inLabels(r, 0, {{1, kC}}), kBatchNormWhy);
  for (int i = 1; i < ctx.inputCount(); ++i) {
    if (ctx.rank(i) != 1) return unknownResult(ctx);
    addInput(p, i, {kC}, kBatchNormWhy);
  }
  const int reserve = batchNormReserve(ruleKey(ctx.node->op));
  const int nOut = std::max(3, ctx.outputCount());
  for (int o = 0; o < nOut; ++o) {
    if (o == 0)
      p.outs.push_back(outLabels(outRank(ctx, 0, r), 0, {{1, kC}}));
    else if (o == reserve)
      p.outs.push_back(std::nullopt);  // not a contraction: set below
    else
      p.outs.push_back(std::vector<int>{kC});
  }
  RuleResult res = solveStrict(ctx, p, "", true);
  // No Partial input gets this far, so the reserve is Replicate on every mesh dim.
  if (res.ok() && reserve >= 0 && reserve < static_cast<int>(res.outputs.size()) && inputsKnown(ctx, p))
    res.outputs[reserve] = ShardingSpec::replicated(ctx.mesh->ndim());
  return res;
}

// native_batch_norm_backward(grad_out, input, weight?, running_mean?, running_var?, save_mean?, save_invstd?,
// train, eps, output_mask) -> (grad_input, grad_weight, grad_bias) (batch_norm_backward_strategy).
RuleResult batchNormBackwardRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 2 || ctx.rank(0) < 2 || ctx.rank(1) != ctx.rank(0)) return unknownResult(ctx);
  const int r = ctx.rank(0);
  LabelProblem p;
  p.contraction = std::nullopt;
  addInput(p, 0, inLabels(r, 0, {{1, kC}}), kBatchNormWhy);
  addInput(p, 1, inLabels(r, 1, {{1, kC}}), kBatchNormWhy);
  for (int i = 2; i < ctx.inputCount(); ++i) {
    if (ctx.rank(i) != 1) return unknownResult(ctx);
    addInput(p, i, {kC}, kBatchNormWhy);
  }
  const auto mask = boolListArg(ctx, 9, "output_mask");
  p.outs.push_back(maskBit(mask, 0) ? std::optional(outLabels(r, 0, {{1, kC}})) : std::nullopt);
  for (size_t o = 1; o < 3; ++o)
    p.outs.push_back(maskBit(mask, o) ? std::optional(std::vector<int>{kC}) : std::nullopt);
  p.outs.resize(std::max(3, ctx.outputCount()), std::nullopt);
  return solveStrict(ctx, p, "", true);
}

// native_group_norm(input, weight?, bias?, N, C, HxW, group, eps) -> (out, mean[N, G], rstd[N, G])
// (group_norm_strategy): the batch only; weight and bias Replicate.
RuleResult groupNormRule(const RuleContext& ctx) {
  const int input = tensorInput(ctx, 0, "input");
  if (input < 0 || ctx.rank(input) < 2) return unknownResult(ctx);
  const int r = ctx.rank(input);
  LabelProblem p;
  p.contraction = std::nullopt;
  addInput(p, input, inLabels(r, 0, {{0, kN}}),
           "group norm normalises each sample over its channel groups and spatial dims, so every rank needs all of "
           "them (DTensor's group_norm_strategy shards the batch only)");
  for (int i = 0; i < ctx.inputCount(); ++i) {
    if (i == input) continue;
    if (ctx.rank(i) < 0) return unknownResult(ctx);
    addInput(p, i, inLabels(ctx.rank(i), i, {}),
             "every rank applies the whole affine weight and bias (DTensor's "
             "group_norm_strategy keeps them Replicate)");
  }
  p.outs = {outLabels(outRank(ctx, 0, r), 0, {{0, kN}}), outLabels(outRank(ctx, 1, 2), 1, {{0, kN}}),
            outLabels(outRank(ctx, 2, 2), 2, {{0, kN}})};
  p.outs.resize(std::max(3, ctx.outputCount()), std::nullopt);
  return solveStrict(ctx, p, "", true);
}

const std::string kRmsWhy = "RMS norm normalises over it, so every rank needs all of it";

// Labels of an RMS-norm statistic (rrms, rstd): the input's dims before the normalised ones, fresh after.
std::vector<int> rmsStatLabels(int r, int k, int freshBase, int slot) {
  std::vector<int> l = alignedLabels(r, r);
  for (int d = r - k; d < r; ++d) l[d] = freshBase + 16 * slot + d;
  return l;
}

// _fused_rms_norm(input, normalized_shape, weight?, eps?) -> (out, rrms) (rms_norm_single_dim_strategy,
// allow_uneven_sharding): any dim before the normalised ones; weight Replicate.
RuleResult rmsNormRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 1 || ctx.rank(0) < 0) return unknownResult(ctx);
  const int r = ctx.rank(0);
  const auto norm = ctx.intListArg(1, "normalized_shape");
  if (!norm || static_cast<int>(norm->size()) > r) return unknownResult(ctx);
  const int k = static_cast<int>(norm->size());
  LabelProblem p;
  p.contraction = std::nullopt;
  for (int d = r - k; d < r; ++d) p.forbidden[d] = kRmsWhy;
  p.ins = {labelled(0, alignedLabels(r, r))};
  for (int i = 1; i < ctx.inputCount(); ++i) {
    if (ctx.rank(i) < 0 || ctx.rank(i) > k) return unknownResult(ctx);
    p.ins.push_back(labelled(i, alignedLabels(ctx.rank(i), r)));
  }
  p.outs = {alignedLabels(r, r), rmsStatLabels(r, k, kFreshOut, 1)};
  p.outs.resize(std::max(2, ctx.outputCount()), std::nullopt);
  return solveStrict(ctx, p, "", false);
}

// _fused_rms_norm_backward(grad_out, input, normalized_shape, rstd, weight?, output_mask) -> (d_input, d_weight)
// (rms_norm_bwd_single_dim_strategy): d_weight sums over the split dims: Partial(sum).
RuleResult rmsNormBackwardRule(const RuleContext& ctx) {
  const int grad = tensorInput(ctx, 0, "grad_out"), input = tensorInput(ctx, 1, "input");
  const int rstd = tensorInput(ctx, 3, "rstd"), weight = tensorInput(ctx, 4, "weight");
  if (grad < 0 || input < 0 || rstd < 0 || ctx.rank(input) < 0) return unknownResult(ctx);
  const int r = ctx.rank(input);
  const auto norm = ctx.intListArg(2, "normalized_shape");
  if (!norm || static_cast<int>(norm->size()) > r || ctx.rank(grad) != r || ctx.rank(rstd) != r)
    return unknownResult(ctx);
  const int k = static_cast<int>(norm->size());
  LabelProblem p;
  p.contraction = ReduceOp::Sum;
  for (int d = r - k; d < r; ++d) p.forbidden[d] = kRmsWhy;
  p.ins = {labelled(grad, alignedLabels(r, r)), labelled(input, alignedLabels(r, r))};
  addInput(p, rstd, rmsStatLabels(r, k, kFreshIn, 2), "it is a statistic of size 1 there");
  if (weight >= 0) {
    if (ctx.rank(weight) < 0 || ctx.rank(weight) > k) return unknownResult(ctx);
    p.ins.push_back(labelled(weight, alignedLabels(ctx.rank(weight), r)));
  }
  const auto mask = boolListArg(ctx, 5, "output_mask");
  std::vector<int> wl;
  for (int d = r - k; d < r; ++d) wl.push_back(d);
  p.outs.push_back(maskBit(mask, 0) ? std::optional(alignedLabels(r, r)) : std::nullopt);
  p.outs.push_back(weight >= 0 && maskBit(mask, 1) ? std::optional(wl) : std::nullopt);
  p.outs.resize(std::max(2, ctx.outputCount()), std::nullopt);
  return solveStrict(ctx, p, "", true);
}

// ---- grid sampling ----

const std::string kGridWhy = "DTensor's grid sampler strategies shard the batch only (the grid has no channel dim)";

// grid_sampler_2d/3d(input[N, C, *], grid[N, *, 2|3], ...) -> [N, C, *] (grid_sampler_strategy): batch; linear
// in input, so a Partial(sum|avg) input with a Replicate grid stays Partial.
RuleResult gridSamplerRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 2 || ctx.rank(0) < 1 || ctx.rank(1) < 1) return unknownResult(ctx);
  LabelProblem p;
  p.contraction = std::nullopt;
  p.partial = PartialPolicy::Multiplicative;
  addInput(p, 0, inLabels(ctx.rank(0), 0, {{0, kN}}), kGridWhy);
  addInput(p, 1, inLabels(ctx.rank(1), 1, {{0, kN}}), kGridWhy);
  p.ins.back().mayBePartial = false;
  p.outs = {outLabels(outRank(ctx, 0, ctx.rank(0)), 0, {{0, kN}})};
  return solveStrict(ctx, p, "", true);
}

// grid_sampler_2d/3d_backward(grad_output, input, grid, interpolation_mode, padding_mode, align_corners,
// output_mask) -> (grad_input, grad_grid) (grid_sampler_backward_strategy): batch only, no Partial.
RuleResult gridSamplerBackwardRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 3) return unknownResult(ctx);
  LabelProblem p;
  p.contraction = std::nullopt;
  for (int i = 0; i < 3; ++i) {
    if (ctx.rank(i) < 1) return unknownResult(ctx);
    addInput(p, i, inLabels(ctx.rank(i), i, {{0, kN}}), kGridWhy);
  }
  const auto mask = boolListArg(ctx, 6, "output_mask");
  p.outs.push_back(maskBit(mask, 0) ? std::optional(outLabels(outRank(ctx, 0, ctx.rank(1)), 0, {{0, kN}}))
                                    : std::nullopt);
  p.outs.push_back(outLabels(outRank(ctx, 1, ctx.rank(2)), 1, {{0, kN}}));
  p.outs.resize(std::max(2, ctx.outputCount()), std::nullopt);
  return solveStrict(ctx, p, "grid_sampler_backward_strategy lists no Partial placement", true);
}

}  // namespace

void registerConvRules(RuleTable& t) {
  for (const char* op : {"convolution", "_convolution", "conv1d", "conv2d", "conv3d"}) t[op] = convolutionRule;
  t["convolution_backward"] = convolutionBackwardRule;
  for (const char* op :
       {"avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d", "_adaptive_avg_pool2d", "_adaptive_avg_pool3d",
        "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "fractional_max_pool2d",
        "fractional_max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices"})
    t[op] = poolRule;
  t["max_pool2d_with_indices_backward"] = poolBackwardRule;
  for (const char* op : {"max_unpool2d", "max_unpool3d", "_adaptive_avg_pool2d_backward"}) t[op] = unpoolRule;
  for (const char* op : {"upsample_nearest1d",
                         "upsample_nearest2d",
                         "upsample_nearest3d",
                         "_upsample_nearest_exact1d",
                         "_upsample_nearest_exact2d",
                         "_upsample_nearest_exact3d",
                         "_upsample_bilinear2d_aa",
                         "_upsample_bicubic2d_aa",
                         "_upsample_lanczos2d_aa",
                         "upsample_bicubic2d",
                         "upsample_bilinear2d",
                         "upsample_linear1d",
                         "upsample_trilinear3d",
                         "upsample_nearest1d_backward",
                         "upsample_nearest2d_backward",
                         "upsample_nearest3d_backward",
                         "_upsample_nearest_exact1d_backward",
                         "_upsample_nearest_exact2d_backward",
                         "_upsample_nearest_exact3d_backward",
                         "_upsample_bilinear2d_aa_backward",
                         "_upsample_bicubic2d_aa_backward",
                         "_upsample_lanczos2d_aa_backward",
                         "upsample_bicubic2d_backward",
                         "upsample_bilinear2d_backward",
                         "upsample_linear1d_backward",
                         "upsample_trilinear3d_backward"})
    t[op] = upsampleRule;
  for (const char* op :
       {"native_batch_norm", "_native_batch_norm_legit", "_native_batch_norm_legit_no_training",
        "_native_batch_norm_legit_functional", "_batch_norm_with_update", "_batch_norm_with_update_functional"})
    t[op] = batchNormRule;
  t["native_batch_norm_backward"] = batchNormBackwardRule;
  t["native_group_norm"] = groupNormRule;
  t["_fused_rms_norm"] = rmsNormRule;
  t["_fused_rms_norm_backward"] = rmsNormBackwardRule;
  for (const char* op : {"grid_sampler_2d", "grid_sampler_3d"}) t[op] = gridSamplerRule;
  for (const char* op : {"grid_sampler_2d_backward", "grid_sampler_3d_backward"}) t[op] = gridSamplerBackwardRule;
}

}  // namespace ss::rules
