// Linear algebra, FFT and random-number ops, as DTensor 2.14.1 shards them (_math_ops.py, _tensor_ops.py,
// _random_ops.py):
//   - batched linalg (linalg_batch_dim_strategy): a matrix op works on the trailing matrix dims of each input
//     whole, so only the batch dims before them split; every input and output shards the same batch dim. The ops
//     linear in one argument (cholesky_solve, linalg_solve_triangular, ldl/lu_solve, ormqr, _linalg_solve_ex)
//     keep that argument Partial(sum) (solve_triangular also Partial(avg)) with the others Replicate;
//   - linalg_pinv: batch dims only, its atol/rtol tensors Replicate; linalg_cross: every dim but the cross dim;
//   - _fft_r2c / _fft_c2r / _fft_c2c: the transformed dims are read whole, the others split; the transforms are
//     linear, so a Partial(sum|avg) input stays Partial;
//   - random fills (normal_, uniform_, exponential_, geometric_, log_normal_ and their .out forms): self splits on
//     any dim, never Partial; multinomial splits its batch dims; randint_like follows its input's shards;
//   - replicate-only (linalg_replicate_single_dim_strategy and eye.m_out): QR, SVD, eigh, the diagonal ops,
//     tril/triu and eye.
// Where core's label model accepts inputs DTensor's strategies do not list exactly (a size-1 batch dim that
// broadcasts, a Partial(avg) DTensor keeps only as Partial(sum)), the result says DTensor redistributes first.
// Where DTensor accepts what is wrong (B sharded against a replicated full-batch A in solve_triangular; an FFT of a
// Partial(max|min) input), core refuses: each is a documented "core is stricter" difference.
#include <algorithm>
#include <map>

#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

namespace {

constexpr int kFreshLabel = 7000;  // output dims no input has (trailing matrix dims): never sharded
constexpr int kFreshPerOutput = 64;

// ---- batched linalg ----

// How one batched linalg op lays out its tensors. Trailing dims are the matrix (or vector) dims the op reads
// whole; the dims before them are batch dims, broadcast across inputs as torch does (aligned from the right).
struct BatchOp {
  std::vector<int> inTrailing;   // per tensor input
  std::vector<int> outTrailing;  // per output; kAsInput1 = as many as input 1 has (_linalg_solve_ex's result)
  int linearIn = -1;             // the input the op is linear in (DTensor keeps it Partial), -1 when none
  bool keepsAvg = false;         // DTensor keeps Partial(avg) there too (not only Partial(sum))
  bool shardsRhsAlone = false;   // DTensor also shards input 1's batch dims with input 0 Replicate
};
constexpr int kAsInput1 = -1;

// DTensor's _LINALG_NUM_PLACEMENTS ops with their tensors (schemas of native_functions.yaml).
const std::map<std::string, BatchOp, std::less<>>& batchOps() {
  static const std::map<std::string, BatchOp, std::less<>> ops = {
      {"cholesky_inverse", {{2}, {2}}},
      {"linalg_matrix_exp", {{2}, {2}}},
      {"cholesky_solve", {{2, 2}, {2}, 0}},                       // (B, A) -> X, linear in B
      {"linalg_householder_product", {{2, 1}, {2}}},              // (A, tau)
      {"linalg_solve_triangular", {{2, 2}, {2}, 1, true, true}},  // (A, B) -> X, linear in B
      {"linalg_ldl_solve", {{2, 1, 2}, {2}, 2}},                  // (LD, pivots, B), linear in B
      {"linalg_lu_solve", {{2, 1, 2}, {2}, 2}},                   // (LU, pivots, B), linear in B
      {"ormqr", {{2, 1, 2}, {2}, 2}},                             // (A, tau, C), linear in C
      {"geqrf", {{2}, {2, 1}}},                                   // -> (a, tau)
      {"linalg_cholesky_ex", {{2}, {2, 0}}},                      // -> (L, info)
      {"linalg_eig", {{2}, {1, 2}}},                              // -> (eigenvalues, eigenvectors)
      {"linalg_inv_ex", {{2}, {2, 0}}},                           // -> (inverse, info)
      {"triangular_solve", {{2, 2}, {2, 2}}},                     // (b, A) -> (solution, cloned_coefficient)
      {"_linalg_det", {{2}, {0, 2, 1}}},                          // -> (result, LU, pivots)
      {"linalg_ldl_factor_ex", {{2}, {2, 1, 0}}},                 // -> (LD, pivots, info)
      {"linalg_lu", {{2}, {2, 2, 2}}},                            // -> (P, L, U)
      {"linalg_lu_factor_ex", {{2}, {2, 1, 0}}},                  // -> (LU, pivots, info)
      {"lu_unpack", {{2, 1}, {2, 2, 2}}},                         // (LU_data, LU_pivots) -> (P, L, U)
      {"_linalg_slogdet", {{2}, {0, 0, 2, 1}}},                   // -> (sign, logabsdet, LU, pivots)
      {"_linalg_solve_ex", {{2, 2}, {kAsInput1, 2, 1, 0}, 1}},    // (A, B) -> (result, LU, pivots, info)
      // _linalg_check_errors(info, api_name, is_matrix): info holds batch dims only, but DTensor shards the dims
      // before its last two, as for a matrix (exactly so here: the op has no output).
      {"_linalg_check_errors", {{2}, {}}},
  };
  return ops;
}

// Tensor input i's batch-dim count, or -1 when its shape is unknown. _linalg_solve_ex's B is a batch of vectors
// when it has A's shape without A's last dim (torch's linalg_solve_is_vector_rhs), or is 1-D.
int batchDims(const RuleContext& ctx, const std::string& key, const BatchOp& op, int i) {
  if (ctx.rank(i) < 0) return -1;
  int trailing = op.inTrailing[i];
  if (key == "_linalg_solve_ex" && i == 1 && ctx.rank(0) >= 0) {
    const auto& a = ctx.shape(0);
    const auto& b = ctx.shape(1);
    const bool vector = b.size() == 1 || (b.size() + 1 == a.size() && std::equal(b.begin(), b.end(), a.begin()));
    if (vector) trailing = 1;
  }
  return std::max(0, ctx.rank(i) - trailing);
}

// Whether DTensor's strategies list the input placements on mesh dim m exactly (its try_propagate): all
// Replicate; every input the same shard of one batch dim of input 0; input 1 alone sharded on its batch dim
// (shardsRhsAlone); or the linear input Partial with the others Replicate.
bool dtensorListsMeshDim(const RuleContext& ctx, const BatchOp& op, int m, int batch0, int batch1) {
  const int n = ctx.inputCount();
  auto at = [&](int i) -> const Placement& { return (*ctx.inSpecs[i])[m]; };
  bool allReplicate = true, sameShard = at(0).isShard() && at(0).dim < batch0;
  for (int i = 0; i < n; ++i) {
    allReplicate = allReplicate && at(i).isReplicate();
    sameShard = sameShard && at(i).isShard() && at(i).dim == at(0).dim && at(i).kind == at(0).kind &&
                at(i).splitFactor == at(0).splitFactor;
  }
  if (allReplicate || sameShard) return true;
  if (op.shardsRhsAlone && n == 2 && at(0).isReplicate() && at(1).isShard() && at(1).dim < batch1) return true;
  if (op.linearIn < 0) return false;
  for (int i = 0; i < n; ++i) {
    const Placement& p = at(i);
    if (i != op.linearIn && !p.isReplicate()) return false;
    if (i == op.linearIn &&
        !(p.isPartial() && (p.reduce == ReduceOp::Sum || (op.keepsAvg && p.reduce == ReduceOp::Avg))))
      return false;
  }
  return true;
}

// After an accepting solve: one sentence when DTensor would still move an input (its strategies do not list the
// placements as they arrive on some mesh dim).
void noteBatchRedistribute(const RuleContext& ctx, const BatchOp& op, int batch0, int batch1, RuleResult& res) {
  if (!res.ok()) return;
  for (int m = 0; m < ctx.mesh->ndim(); ++m) {
    if (dtensorListsMeshDim(ctx, op, m, batch0, batch1)) continue;
    std::string specs;
    for (int i = 0; i < ctx.inputCount(); ++i) specs += (i ? ", " : "") + ctx.inSpecs[i]->toMeshString();
    res.implicitRedistributes.push_back(
        "DTensor redistributes the inputs of " + opTitle(ctx) + " (" + specs + ") first: on mesh dim " +
        std::to_string(m) + " its strategies list only every input sharded on the same batch dim, all Replicate" +
        (op.linearIn >= 0 ? std::string(", or input ") + std::to_string(op.linearIn) + " Partial(sum" +
                                (op.keepsAvg ? "|avg" : "") + ") with the others Replicate"
                          : std::string()));
    return;
  }
}

RuleResult batchLinalgRule(const RuleContext& ctx) {
  const std::string key = ruleKey(ctx.node->op);
  const auto it = batchOps().find(key);
  if (it == batchOps().end()) return unknownResult(ctx);
  const BatchOp& op = it->second;
  const int nIn = static_cast<int>(op.inTrailing.size());
  if (ctx.inputCount() != nIn) return unknownResult(ctx);
  std::vector<int> batch(nIn);
  int outBatch = 0;
  for (int i = 0; i < nIn; ++i) {
    batch[i] = batchDims(ctx, key, op, i);
    if (batch[i] < 0 || !ctx.inSpecs[i]) return unknownResult(ctx);
    outBatch = std::max(outBatch, batch[i]);
  }
  LabelProblem p;
  p.contraction = std::nullopt;
  p.noContractionWhy = "its matrix dims are read whole";
  p.partial = op.linearIn >= 0 ? PartialPolicy::Multiplicative : PartialPolicy::Nonlinear;
  for (int i = 0; i < nIn; ++i) {
    std::vector<int> labels(ctx.rank(i), -1);
    for (int d = 0; d < batch[i]; ++d) labels[d] = outBatch - batch[i] + d;
    LabelInput x = labelled(i, std::move(labels));
    x.mayBePartial = i == op.linearIn;
    p.ins.push_back(std::move(x));
  }
  const int nOut = ctx.outputCount();
  for (int o = 0; o < nOut; ++o) {
    if (o >= static_cast<int>(op.outTrailing.size())) {
      p.outs.push_back(std::nullopt);
      continue;
    }
    const int trailing = op.outTrailing[o] == kAsInput1 ? ctx.rank(1) - batch[1] : op.outTrailing[o];
    std::vector<int> labels;
    for (int d = 0; d < outBatch; ++d) labels.push_back(d);
    for (int d = 0; d < trailing; ++d) labels.push_back(kFreshLabel + o * kFreshPerOutput + d);
    p.outs.push_back(std::move(labels));
  }
  RuleResult res = solveLabels(ctx, p);
  if (!res.ok()) return res;
  // Only the solution is linear in the Partial input: the factorisations and info outputs come from the
  // replicated operand and are Replicate (DTensor's [Partial, Replicate, ...] strategies).
  for (int o = 1; o < static_cast<int>(res.outputs.size()); ++o) {
    if (!res.outputs[o]) continue;
    for (Placement& pl : res.outputs[o]->placements)
      if (pl.isPartial()) pl = Placement::replicate();
  }
  noteBatchRedistribute(ctx, op, batch[0], nIn > 1 ? batch[1] : 0, res);
  return res;
}

// A rule whose inputs DTensor keeps exactly when every tensor input is Replicate, or all share one Shard (same
// tensor dim and kind) on each mesh dim: one sentence when the solver accepted something else.
void noteUnlessSameShard(const RuleContext& ctx, RuleResult& res, const std::string& strategies) {
  if (!res.ok()) return;
  for (int m = 0; m < ctx.mesh->ndim(); ++m) {
    const Placement& first = (*ctx.inSpecs[0])[m];
    bool listed = true;
    for (int i = 0; i < ctx.inputCount(); ++i) {
      const Placement& p = (*ctx.inSpecs[i])[m];
      listed = listed && (first.isReplicate() ? p.isReplicate()
                                              : p.isShard() && p.dim == first.dim && p.kind == first.kind &&
                                                    p.splitFactor == first.splitFactor);
    }
    if (listed) continue;
    res.implicitRedistributes.push_back("DTensor redistributes the inputs of " + opTitle(ctx) + " first: on mesh dim " +
                                        std::to_string(m) + " its strategies list only " + strategies);
    return;
  }
}

// linalg_pinv(self, *, atol=None, rtol=None, hermitian=False) -> [*, n, m]: the batch dims of self split; the
// optional atol/rtol tensors (later inputs) must be Replicate, as DTensor's linalg_pinv_strategy lists them.
RuleResult pinvRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 1 || ctx.rank(0) < 2) return unknownResult(ctx);
  const int r = ctx.rank(0), batch = r - 2;
  LabelProblem p;
  p.contraction = std::nullopt;
  p.noContractionWhy = "its matrix dims are read whole";
  std::vector<int> in(r, -1), out;
  for (int d = 0; d < batch; ++d) in[d] = out.emplace_back(d);
  out.push_back(kFreshLabel);
  out.push_back(kFreshLabel + 1);
  p.ins.push_back(labelled(0, in));
  for (int i = 1; i < ctx.inputCount(); ++i) {
    if (ctx.rank(i) < 0) return unknownResult(ctx);
    p.ins.push_back(labelled(i, std::vector<int>(ctx.rank(i), -1)));
  }
  p.outs.assign(std::max(1, ctx.outputCount()), out);
  // The solver accepts exactly DTensor's list (allow_uneven_sharding: uneven batch shards are kept as they are).
  return solveLabels(ctx, p);
}

// ---- linalg_cross ----

// linalg_cross(self, other, *, dim=-1): pointwise (with broadcasting) on every dim but the cross-product dim.
// DTensor reads dim against self's rank (linalg_cross_strategy).
RuleResult crossRule(const RuleContext& ctx) {
  if (ctx.inputCount() != 2 || ctx.rank(0) < 1 || ctx.rank(1) < 0) return unknownResult(ctx);
  const auto dim = ctx.intArgOr(-1, "dim", -1);
  if (!dim) return unknownResult(ctx);
  const auto cd = normDim(*dim, ctx.rank(0));
  if (!cd) return unknownResult(ctx);
  const int outRank = std::max(ctx.rank(0), ctx.rank(1));
  LabelProblem p;
  p.ins = {labelled(0, alignedLabels(ctx.rank(0), outRank)), labelled(1, alignedLabels(ctx.rank(1), outRank))};
  p.outs.assign(std::max(1, ctx.outputCount()), alignedLabels(outRank, outRank));
  p.forbidden[*cd + outRank - ctx.rank(0)] = "it is the cross-product dim (size 3), read whole";
  p.contraction = std::nullopt;
  RuleResult res = solveLabels(ctx, p);
  noteUnlessSameShard(ctx, res, "both inputs sharded on the same non-cross dim, or both Replicate");
  return res;
}

// ---- FFT ----

// _fft_r2c(self, dim, normalization, onesided), _fft_c2r(self, dim, normalization, last_dim_size),
// _fft_c2c(self, dim, normalization, forward): the dims in `dim` are transformed (read whole, and r2c/c2r resize
// the last of them); the other dims split. The transforms are linear, so Partial(sum|avg) passes through.
// DTensor's fft_single_dim_strategy also passes Partial(max|min) through, which is wrong (an FFT of the max is no
// max of FFTs): core refuses those. It has no allow_uneven_sharding: a dim split into more pieces than it has
// elements is redistributed first.
RuleResult fftRule(const RuleContext& ctx) {
  if (ctx.inputCount() != 1 || ctx.rank(0) < 0) return unknownResult(ctx);
  const int r = ctx.rank(0);
  const auto dims = ctx.intListArg(1, "dim");
  if (!dims) return unknownResult(ctx);
  LabelProblem p;
  p.ins = {labelled(0, alignedLabels(r, r))};
  p.outs.assign(std::max(1, ctx.outputCount()), alignedLabels(r, r));
  for (int64_t d : *dims) {
    const auto nd = normDim(d, r);
    if (!nd) return unknownResult(ctx);
    p.forbidden[*nd] = "it is a transformed dim, and a Fourier transform reads it whole";
  }
  p.contraction = std::nullopt;
  p.partial = PartialPolicy::Additive;  // one data input: linear in it (Partial(sum|avg) only)
  RuleResult res = solveLabels(ctx, p);
  noteUnshardableInputs(ctx, res);
  return res;
}

// ---- random numbers ----

// The in-place fills normal_, uniform_, exponential_, geometric_, log_normal_ (rule key without the underscore:
// the in-place form is derived, and their .out overloads take self the same way). Each rank fills its own shard,
// so self may split on any dim (DTensor's _random_inplace_single_dim_strategy, allow_uneven_sharding); the values
// differ per rank, and DTensor's RNG tracker offsets each shard's generator so that together they equal a
// single-device draw. Core accepts exactly those placements: output = self's spec, Shard or Replicate. A Partial
// self is refused (filling it would make each rank's random values summands of one value; DTensor refuses the
// in-place op outright). normal's overloads with tensor mean/std (normal.Tensor_float, float_Tensor,
// Tensor_Tensor) have no DTensor strategy at all: core cannot tell (unknown), rather than inventing one.
RuleResult randomFillRule(const RuleContext& ctx) {
  const std::string_view overload = [&] {
    std::string_view op = ctx.node->op;
    const size_t dot = op.rfind('.');
    return dot == std::string_view::npos ? std::string_view() : op.substr(dot + 1);
  }();
  if (overload.starts_with("Tensor_") || overload.starts_with("float_")) return unknownResult(ctx);
  if (ctx.inputCount() < 1 || ctx.rank(0) < 0) return unknownResult(ctx);
  const int r = ctx.rank(0);
  LabelProblem p;
  p.ins = {labelled(0, alignedLabels(r, r))};
  p.outs.assign(std::max(1, ctx.outputCount()), alignedLabels(r, r));
  p.contraction = std::nullopt;
  p.partial = PartialPolicy::Nonlinear;
  return solveLabels(ctx, p);
}

// multinomial(self [*, categories], num_samples, replacement, generator) -> [*, num_samples]: the categories are
// sampled whole, the batch dims split (multinomial_single_dim_strategy, no allow_uneven_sharding).
RuleResult multinomialRule(const RuleContext& ctx) {
  if (ctx.inputCount() != 1 || ctx.rank(0) < 1) return unknownResult(ctx);
  const int r = ctx.rank(0);
  std::vector<int> labels = alignedLabels(r, r);
  labels.back() = -1;
  LabelProblem p;
  p.ins = {labelled(0, labels)};
  labels.back() = kFreshLabel;
  p.outs.assign(std::max(1, ctx.outputCount()), labels);
  p.contraction = std::nullopt;
  p.noContractionWhy = "it samples from the whole categories dim";
  RuleResult res = solveLabels(ctx, p);
  noteUnshardableInputs(ctx, res);
  return res;
}

// randint_like(self, [low,] high, ...): values independent of self, in self's shape; the output keeps self's
// shards (each rank draws its own shard, DTensor's RNG tracker offsets it), and a Partial self gives a Replicate
// output: random values are no summands (create_like_single_dim_strategy, allow_uneven_sharding).
RuleResult randintLikeRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 1 || !ctx.inSpecs[0]) return unknownResult(ctx);
  ShardingSpec out = *ctx.inSpecs[0];
  for (Placement& pl : out.placements)
    if (pl.isPartial()) pl = Placement::replicate();
  if (!out.order.empty())
    for (int m = 0; m < out.meshDims(); ++m)
      if (!out[m].isShard()) out.order[m] = -1;
  RuleResult res = okResult({out});
  res.outputs.resize(std::max(1, ctx.outputCount()), std::nullopt);
  return res;
}

}  // namespace

void registerLinalgRules(RuleTable& t, ReplicateOnlyTable& replicateOnly) {
  for (const auto& [key, op] : batchOps()) t[key] = batchLinalgRule;
  t["linalg_pinv"] = pinvRule;
  t["linalg_cross"] = crossRule;
  for (const char* op : {"_fft_r2c", "_fft_c2r", "_fft_c2c"}) t[op] = fftRule;
  for (const char* op : {"normal", "uniform", "exponential", "geometric", "log_normal"}) t[op] = randomFillRule;
  // normal_'s functional form (DTensor: _make_functional_variant_strategy_fn of normal_'s strategy): the same.
  t["normal_functional"] = randomFillRule;
  t["multinomial"] = multinomialRule;
  t["randint_like"] = randintLikeRule;

  // DTensor's linalg_replicate_single_dim_strategy lists no strategy but all-Replicate for these.
  constexpr std::string_view kFactorisation =
      "DTensor 2.14 lists only the all-Replicate strategy for this factorisation, not even a split of its batch "
      "dims";
  constexpr std::string_view kDiagonal =
      "DTensor 2.14 lists only the all-Replicate strategy for the diagonal ops: a shard's local diagonal is not "
      "its part of the global one";
  replicateOnly["_linalg_eigh"] = kFactorisation;
  replicateOnly["_linalg_svd"] = kFactorisation;
  replicateOnly["linalg_qr"] = kFactorisation;
  for (const char* op : {"diag", "diag_embed", "diagonal", "diagonal_copy"}) replicateOnly[op] = kDiagonal;
  for (const char* op : {"tril", "triu"})
    replicateOnly[op] =
        "DTensor 2.14 lists only the all-Replicate strategy for tril/triu: which elements a shard keeps depends on "
        "its global offset";
  // eye.m_out (eye_out_single_dim_strategy): only the all-Replicate strategy.
  replicateOnly["eye"] =
      "the diagonal's place depends on the global row and column, so a rank cannot make its shard from its local "
      "shape (DTensor's eye.out strategy is all-Replicate)";
}

}  // namespace ss::rules
