// Scans, dim reductions with indices, norms, the index ops index_fill / index_reduce / _index_put_impl, bucketize,
// diagonal_scatter, flip, roll, repeat, equal / is_same_size, zero, and the *_copy forms of other families' ops
// (DTensor 2.14.1: _math_ops.py, _tensor_ops.py, _view_ops.py).
//
// The dim an op reads whole (a scan's dim, the reduced dim of kthvalue / median / mode, flip's and roll's dims,
// the filled or reduced dim of index_fill / index_reduce, diagonal_scatter's two dims) cannot be sharded; the
// other dims keep their shards, renumbered when a dim is dropped. None of these is linear in a Partial input
// except where DTensor lists a Partial rule (a PartialRow below): flip / roll permute elements (every Partial but
// product passes), index_fill writes a value every reduce op maps to itself, bucketize is monotone in its input
// (P(max) / P(min)) and counts boundaries (sharded boundaries give Partial(sum)). Norms over a sharded dim are
// Partial: p = 0 counts (sum), p = +-inf is a max / min, linalg__powsum a sum; any other p needs DTensor's
// _NormPartial(p) (reduce x^p, sum, take the p-th root), which core cannot express, so it is refused.
// zero(x) is all zeros: shards stay, a Partial becomes Replicate; zero_ keeps its self's Partial (DTensor's
// propagate_single_input). _index_put_impl (functional) has no DTensor strategy (only _index_put_impl_ and .out).
#include <algorithm>
#include <cmath>

#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

RuleResult pointwiseNonlinearRule(const RuleContext& ctx);  // pointwise.cpp

namespace {

constexpr int kFresh = 9500;     // keepdim's size-1 dims and repeat's new leading dims (one side only)
constexpr int kIndex = 9600;     // an index tensor's dim (index_fill, index_reduce)
constexpr int kSource = 9601;    // index_reduce's source along the reduced dim
constexpr int kBoundary = 9602;  // bucketize's boundaries
constexpr int kDiag = 9603;      // diagonal_scatter's src along the diagonal
constexpr int kPairA = 9604, kPairB = 9605;  // diagonal_scatter's dim1 / dim2 of self
constexpr int kLeftover = 9610;  // equal's dims beyond the shorter rank (+ dim)

// One Partial row of a DTensor strategy on one mesh dim: the placement of each tensor input (nullopt: Replicate)
// and the output placement (nullopt: Replicate).
struct PartialRow {
  std::optional<ReduceOp> out;
  std::vector<std::optional<ReduceOp>> ins;
};
using PartialRows = std::vector<PartialRow>;

bool rowMatches(const RuleContext& ctx, const PartialRow& row, int m) {
  if (static_cast<int>(row.ins.size()) != ctx.inputCount()) return false;
  for (int i = 0; i < ctx.inputCount(); ++i) {
    if (!ctx.inSpecs[i] || m >= ctx.inSpecs[i]->meshDims()) return false;
    const Placement& p = (*ctx.inSpecs[i])[m];
    const bool ok = row.ins[i] ? p.isPartial() && p.reduce == *row.ins[i] : p.isReplicate();
    if (!ok) return false;
  }
  return true;
}

// Solves `p` (whose policy refuses Partial inputs) with DTensor's Partial rows: on a mesh dim where some input is
// Partial and the inputs match a row exactly, the op runs on the Partial values and the outputs take the row's
// placement; a Partial no row matches is refused by the solver as usual.
RuleResult solveWithRows(const RuleContext& ctx, const LabelProblem& p, const PartialRows& rows) {
  if (!ctx.mesh || rows.empty()) return solveLabels(ctx, p);
  std::vector<std::pair<int, const PartialRow*>> matched;
  for (int m = 0; m < ctx.mesh->ndim(); ++m) {
    bool anyPartial = false;
    for (int i = 0; i < ctx.inputCount(); ++i)
      if (ctx.inSpecs[i] && m < ctx.inSpecs[i]->meshDims() && (*ctx.inSpecs[i])[m].isPartial()) anyPartial = true;
    if (!anyPartial) continue;
    for (const PartialRow& row : rows)
      if (rowMatches(ctx, row, m)) {
        matched.emplace_back(m, &row);
        break;
      }
  }
  if (matched.empty()) return solveLabels(ctx, p);
  RuleContext sub = ctx;
  for (auto& s : sub.inSpecs)
    if (s)
      for (const auto& [m, row] : matched) s->placements[m] = Placement::replicate();
  RuleResult res = solveLabels(sub, p);
  if (!res.ok()) {
    // The input the failure names keeps its matched Partials: only the other mesh dims need to change.
    if (res.want && res.input >= 0 && ctx.inSpecs[res.input])
      for (const auto& [m, row] : matched) res.want->placements[m] = (*ctx.inSpecs[res.input])[m];
    return res;
  }
  for (auto& out : res.outputs)
    if (out)
      for (const auto& [m, row] : matched)
        out->placements[m] = row->out ? Placement::partial(*row->out) : Placement::replicate();
  return res;
}

// Rows where every input is Partial(op) alike and so is the output, one per op.
PartialRows passThrough(int nInputs, std::initializer_list<ReduceOp> ops) {
  PartialRows rows;
  for (ReduceOp op : ops) rows.push_back({op, std::vector<std::optional<ReduceOp>>(nInputs, op)});
  return rows;
}

const std::initializer_list<ReduceOp> kPassThroughOps = {ReduceOp::Sum, ReduceOp::Avg, ReduceOp::Max, ReduceOp::Min};

// "aten.median.dim" -> "dim"; "" when the name has no overload.
std::string_view overloadOf(std::string_view op) {
  if (op.starts_with("torch.ops.")) op.remove_prefix(10);
  const size_t a = op.find('.');
  if (a == std::string_view::npos) return {};
  const size_t b = op.find('.', a + 1);
  return b == std::string_view::npos ? std::string_view() : op.substr(b + 1);
}

// One input x, its dims labelled 0..r-1, `whole` forbidden (why), every output x's labels; no Partial.
LabelProblem alongDims(const RuleContext& ctx, int r, const std::vector<int>& whole, const std::string& why) {
  LabelProblem p;
  p.partial = PartialPolicy::Nonlinear;
  p.contraction = std::nullopt;
  p.ins = {labelled(0, alignedLabels(r, r))};
  for (int d : whole) p.forbidden[d] = why;
  p.outs.assign(std::max(1, ctx.outputCount()), alignedLabels(r, r));
  return p;
}

// cumprod / logcumsumexp / cummax / cummin (self, dim): DTensor's scan_single_dim_strategy and
// cummax_cummin_single_dim_strategy (cumsum, the linear one, is moe.cpp's).
RuleResult scanRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 1 || ctx.rank(0) < 0) return unknownResult(ctx);
  const int r = ctx.rank(0);
  auto d = normDim(ctx.intArg(1, "dim"), std::max(r, 1));
  if (!d) return unknownResult(ctx);
  if (r == 0) return solveLabels(ctx, alongDims(ctx, r, {}, ""));
  return solveLabels(ctx, alongDims(ctx, r, {*d}, "the scan runs along the whole dim, so every rank needs all of it"));
}

// kthvalue(self, k, dim=-1, keepdim), median.dim / nanmedian.dim(self, dim, keepdim), mode(self, dim=-1,
// keepdim) -> (values, indices): the reduced dim is read whole (indices are global positions);
// median() / nanmedian() of every element run on whole tensors only.
RuleResult dimWithIndicesRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 1 || ctx.rank(0) < 0) return unknownResult(ctx);
  const std::string op = ruleKey(ctx.node->op);
  const bool kth = op == "kthvalue";
  const int dimPos = kth ? 2 : 1;
  const bool global = (op == "median" || op == "nanmedian") && !ctx.arg(dimPos, "dim") && ctx.outputCount() < 2;
  if (global) return replicateOnlyRule(ctx);
  const bool needsDim = op == "median" || op == "nanmedian";
  const int r = ctx.rank(0);
  auto d = normDim(needsDim ? ctx.intArg(dimPos, "dim") : ctx.intArgOr(dimPos, "dim", -1), std::max(r, 1));
  std::optional<bool> keepdim = ctx.boolArg(dimPos + 1, "keepdim");
  if (!keepdim && ctx.argsComplete) keepdim = false;
  if (!d || !keepdim) return unknownResult(ctx);
  if (r == 0) return solveLabels(ctx, alongDims(ctx, r, {}, ""));
  LabelProblem p = alongDims(ctx, r, {*d}, op + " picks its values from the whole dim, so every rank needs all of it");
  std::vector<int> lo = alignedLabels(r, r);
  if (*keepdim) lo[*d] = kFresh;
  else lo.erase(lo.begin() + *d);
  p.outs.assign(std::max(1, ctx.outputCount()), lo);
  return solveLabels(ctx, p);
}

// The reduce op a p-norm over a sharded dim leaves on each rank, as DTensor's _get_norm_reduction_op: p = 0 counts
// (sum), p = 1 is DTensor's _NormPartial(1), a plain sum; nullopt for the other p (_NormPartial(p)).
std::optional<ReduceOp> normFold(double p) {
  if (p == 0 || p == 1) return ReduceOp::Sum;
  if (std::isinf(p)) return p > 0 ? ReduceOp::Max : ReduceOp::Min;
  return std::nullopt;
}

// norm.Scalar(self, p=2), norm.ScalarOpt_dim(self, p, dim, keepdim), linalg__powsum(self, ord=2, dim=None,
// keepdim=False): vector_norm_single_dim_strategy / powsum_single_dim_strategy. A Partial input passes only as the
// reduction's own op (p = +-inf: max / min; powsum: sum); DTensor keeps no Partial for the other norms.
RuleResult normRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 1 || ctx.rank(0) < 0) return unknownResult(ctx);
  const bool powsum = ruleKey(ctx.node->op) == "linalg__powsum";
  const int r = ctx.rank(0);
  const Arg* pa = ctx.arg(1, powsum ? "ord" : "p");
  std::optional<double> ord = ctx.numberArg(1, powsum ? "ord" : "p");
  if (!ord && (pa ? pa->kind == Arg::Kind::None : ctx.argsComplete)) ord = 2.0;  // p=None is the 2-norm
  const Arg* da = ctx.arg(2, "dim");
  std::optional<std::vector<int64_t>> dims = ctx.intListArg(2, "dim");
  std::optional<bool> keepdim = ctx.boolArg(3, "keepdim");
  if (!keepdim && ctx.argsComplete) keepdim = false;
  if (!ord || !keepdim || (!dims && !(da ? da->kind == Arg::Kind::None : ctx.argsComplete))) return unknownResult(ctx);
  std::vector<bool> reduced(r, !dims || dims->empty());
  if (dims)
    for (int64_t x : *dims) {
      auto nd = normDim(x, r);
      if (!nd) return unknownResult(ctx);
      reduced[*nd] = true;
    }
  const std::optional<ReduceOp> fold = powsum ? std::optional<ReduceOp>(ReduceOp::Sum) : normFold(*ord);
  LabelProblem p;
  p.partial = PartialPolicy::Nonlinear;
  p.contraction = fold;
  p.noContractionWhy = "the per-rank p-norms combine only as DTensor's _NormPartial (x^p summed, then the p-th root), "
                       "a placement core does not have";
  p.ins = {labelled(0, alignedLabels(r, r))};
  std::vector<int> lo;
  for (int d = 0; d < r; ++d)
    if (!reduced[d]) lo.push_back(d);
    else if (*keepdim) lo.push_back(kFresh + d);
  p.outs = {lo};
  PartialRows rows;
  if (fold && (powsum || std::isinf(*ord))) rows.push_back({*fold, {*fold}});  // DTensor: not for NormReduction
  return solveWithRows(ctx, p, rows);
}

// index_fill.int_Scalar(self, dim, index, value) and index_fill.int_Tensor(self, dim, index, value): the filled
// dim is read whole; the index is Replicate. Partial rows: a scalar value is the same on every rank, so only
// idempotent ops (avg, max, min) keep it; a tensor value Partial alike with self passes any of sum/avg/max/min.
RuleResult indexFillRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 2 || ctx.rank(0) < 0) return unknownResult(ctx);
  const int r = ctx.rank(0);
  const int index = ctx.inputIndexOf(ctx.arg(2, "index"));
  const int value = ctx.inputIndexOf(ctx.arg(3, "value"));
  auto d = normDim(ctx.intArg(1, "dim"), std::max(r, 1));
  if (!d || index < 0 || ctx.rank(index) < 0 || (value >= 0 && ctx.rank(value) < 0)) return unknownResult(ctx);
  LabelProblem p = alongDims(ctx, r, {*d}, "index_fill writes at global positions along it");
  if (r == 0) p.forbidden.clear();
  p.outs = {alignedLabels(r, r)};
  std::vector<int> il(ctx.rank(index), kIndex);
  p.ins.push_back(labelled(index, il, false));
  p.forbidden[kIndex] = "every rank needs all the positions it fills";
  PartialRows rows;
  if (value >= 0) {
    p.ins.push_back(labelled(value, std::vector<int>(ctx.rank(value), kFresh)));
    p.forbidden[kFresh] = "the fill value is one element";
    for (ReduceOp op : kPassThroughOps) rows.push_back({op, {op, std::nullopt, op}});
  } else {
    for (ReduceOp op : {ReduceOp::Avg, ReduceOp::Max, ReduceOp::Min}) rows.push_back({op, {op, std::nullopt}});
  }
  RuleResult res = solveWithRows(ctx, p, rows);
  noteUnshardableInputs(ctx, res);
  return res;
}

// index_reduce(self, dim, index, source, reduce, include_self): self and source shard alike on the other dims;
// the reduced dim is read whole, the index is Replicate; no Partial (the reduce ops match no Partial op).
RuleResult indexReduceRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 3 || ctx.rank(0) < 0) return unknownResult(ctx);
  const int r = ctx.rank(0);
  const int index = ctx.inputIndexOf(ctx.arg(2, "index"));
  const int source = ctx.inputIndexOf(ctx.arg(3, "source"));
  auto d = normDim(ctx.intArg(1, "dim"), std::max(r, 1));
  if (!d || index < 0 || source < 0 || ctx.rank(index) < 0 || ctx.rank(source) != r) return unknownResult(ctx);
  LabelProblem p = alongDims(ctx, r, {*d}, "index_reduce reduces into global positions along it");
  p.outs = {alignedLabels(r, r)};
  p.ins.push_back(labelled(index, std::vector<int>(ctx.rank(index), kIndex), false));
  p.forbidden[kIndex] = "every rank needs all the positions it reduces into";
  std::vector<int> sl = alignedLabels(r, r);
  sl[*d] = kSource;
  p.ins.push_back(labelled(source, sl));
  p.forbidden[kSource] = "source's rows go to global positions of self";
  RuleResult res = solveLabels(ctx, p);
  noteUnshardableInputs(ctx, res);
  return res;
}

// _index_put_impl(self, indices, values, accumulate, unsafe): DTensor 2.14 has a strategy for _index_put_impl_
// and _index_put_impl.out (index_put's) but none for the functional form, on which it raises for every input.
RuleResult indexPutImplRule(const RuleContext& ctx) {
  if (overloadOf(ctx.node->op) == "out") {
    const RuleFn indexPut = findRule("index_put");
    return indexPut ? indexPut(ctx) : unknownResult(ctx);
  }
  return failResult(Verdict::Incompatible, 0, std::nullopt,
                    "_index_put_impl has no DTensor sharding strategy (DTensor 2.14 has one for _index_put_impl_ and "
                    "index_put, and raises here for every input placement); write it as index_put");
}

// bucketize.Tensor(self, boundaries, out_int32, right): self shards freely with boundaries Replicate; boundaries
// sharded (dim 0) with self Replicate count per rank: Partial(sum); bucketize is non-decreasing in self, so a
// P(max) / P(min) self with Replicate boundaries stays so. bucketize.Scalar has no DTensor strategy: unknown.
RuleResult bucketizeRule(const RuleContext& ctx) {
  const Arg* self = ctx.arg(0, "self");
  if (ctx.inputCount() < 2 || !self || !self->isTensor() || ctx.rank(0) < 0 || ctx.rank(1) != 1)
    return unknownResult(ctx);
  const int r = ctx.rank(0);
  LabelProblem p;
  p.partial = PartialPolicy::Nonlinear;
  p.contraction = ReduceOp::Sum;
  p.ins = {labelled(0, alignedLabels(r, r)), labelled(1, {kBoundary})};
  p.outs = {alignedLabels(r, r)};
  const PartialRows rows = {{ReduceOp::Max, {ReduceOp::Max, std::nullopt}},
                            {ReduceOp::Min, {ReduceOp::Min, std::nullopt}}};
  RuleResult res = solveWithRows(ctx, p, rows);
  noteUnshardableInputs(ctx, res);
  return res;
}

// diagonal_scatter(self, src, offset=0, dim1=0, dim2=1): src is self's diagonal (dim1 and dim2 removed, the
// diagonal last); the other dims shard alike, dim1 / dim2 and the diagonal are read whole; no Partial.
RuleResult diagonalScatterRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 2 || ctx.rank(0) < 2 || ctx.rank(1) != ctx.rank(0) - 1) return unknownResult(ctx);
  const int r = ctx.rank(0);
  auto d1 = normDim(ctx.intArgOr(3, "dim1", 0), r), d2 = normDim(ctx.intArgOr(4, "dim2", 1), r);
  if (!d1 || !d2 || *d1 == *d2) return unknownResult(ctx);
  LabelProblem p = alongDims(ctx, r, {}, "");
  std::vector<int> sl = alignedLabels(r, r), src;
  sl[*d1] = kPairA;
  sl[*d2] = kPairB;
  for (int d = 0; d < r; ++d)
    if (d != *d1 && d != *d2) src.push_back(d);
  src.push_back(kDiag);
  p.ins = {labelled(0, sl), labelled(1, src)};
  const std::string why = "the diagonal crosses it at global positions";
  for (int l : {kPairA, kPairB, kDiag}) p.forbidden[l] = why;
  p.outs = {alignedLabels(r, r)};
  RuleResult res = solveLabels(ctx, p);
  noteUnshardableInputs(ctx, res);
  return res;
}

// flip(self, dims) and roll(self, shifts, dims=[]) (no dims: the flattened tensor rolls, so every dim is moved):
// the moved dims are read whole; a permutation of elements keeps Partial sum / avg / max / min.
RuleResult flipRollRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 1 || ctx.rank(0) < 0) return unknownResult(ctx);
  const bool roll = ruleKey(ctx.node->op) == "roll";
  const int r = ctx.rank(0);
  std::optional<std::vector<int64_t>> dims = ctx.intListArg(roll ? 2 : 1, "dims");
  if (!dims && roll && !ctx.arg(2, "dims") && ctx.argsComplete) dims = std::vector<int64_t>{};
  if (!dims) return unknownResult(ctx);
  std::vector<int> moved;
  for (int64_t x : *dims) {
    auto nd = normDim(x, std::max(r, 1));
    if (!nd) return unknownResult(ctx);
    moved.push_back(*nd);
  }
  if (roll && dims->empty())
    for (int d = 0; d < r; ++d) moved.push_back(d);
  const std::string why = roll ? "roll moves elements across the whole dim" : "flip reverses the whole dim";
  LabelProblem p = alongDims(ctx, r, r == 0 ? std::vector<int>{} : moved, why);
  RuleResult res = solveWithRows(ctx, p, passThrough(1, kPassThroughOps));
  noteUnshardableInputs(ctx, res);
  return res;
}

// repeat(self, repeats): DTensor's view rule (dim_repeat): a dim repeated more than once is read whole (each copy
// is the global dim), new leading dims are never sharded, a Partial passes (a repeat is linear).
RuleResult repeatRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 1 || ctx.rank(0) < 0) return unknownResult(ctx);
  const int r = ctx.rank(0);
  auto repeats = ctx.intListArg(1, "repeats");
  if (!repeats || static_cast<int>(repeats->size()) < r) return unknownResult(ctx);
  const int pad = static_cast<int>(repeats->size()) - r;
  LabelProblem p;
  p.partial = PartialPolicy::Preserve;
  p.contraction = std::nullopt;
  p.ins = {labelled(0, alignedLabels(r, r))};
  std::vector<int> lo;
  for (int k = 0; k < pad; ++k) lo.push_back(kFresh + k);
  for (int d = 0; d < r; ++d) {
    lo.push_back(d);
    if ((*repeats)[pad + d] != 1) p.forbidden[d] = "repeat tiles the whole dim, and a shard would tile only its slice";
  }
  p.outs = {lo};
  return solveLabels(ctx, p);
}

// equal / is_same_size(self, other) -> bool: both compare local shards, so each dim d below the smaller rank must
// be sharded alike in both (dims aligned from the left, as DTensor's equal_single_dim_strategy); the other dims
// and any Partial are replicated first.
RuleResult equalRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 2 || ctx.rank(0) < 0 || ctx.rank(1) < 0) return unknownResult(ctx);
  const int r0 = ctx.rank(0), r1 = ctx.rank(1), common = std::min(r0, r1);
  LabelProblem p;
  p.partial = PartialPolicy::Nonlinear;
  p.contraction = std::nullopt;
  for (int i = 0; i < 2; ++i) {
    std::vector<int> l;
    for (int d = 0; d < ctx.rank(i); ++d) l.push_back(d < common ? d : kLeftover + 10 * i + d);
    for (int d = common; d < ctx.rank(i); ++d)
      p.forbidden[kLeftover + 10 * i + d] = "the other tensor has no such dim to shard alike";
    p.ins.push_back(labelled(i, l));
  }
  p.outs.assign(ctx.outputCount(), std::nullopt);
  return solveLabels(ctx, p);
}

// view_copy(self, size): view's rule, except that DTensor 2.14 redistributes a merge whose inner dim is sharded
// instead of giving the _StridedShard that view gives (it answered so for [8, 8] -> [64] from S(1) on [4]).
RuleResult viewCopyRule(const RuleContext& ctx) {
  const RuleFn view = findRule("view");
  if (!view) return unknownResult(ctx);
  RuleResult res = view(ctx);
  if (!res.ok() || !ctx.inSpecs[0]) return res;
  for (const auto& out : res.outputs) {
    if (!out) continue;
    for (int m = 0; m < out->meshDims(); ++m) {
      if ((*out)[m].kind != PlacementKind::StridedShard || (*ctx.inSpecs[0])[m].kind == PlacementKind::StridedShard)
        continue;
      ShardingSpec want = *ctx.inSpecs[0];
      want.placements[m] = Placement::replicate();
      return failResult(Verdict::Incompatible, 0, want,
                        "view_copy merges dim " + std::to_string((*ctx.inSpecs[0])[m].dim) + " of input 0 (" +
                            ctx.inSpecs[0]->toMeshString() + ") into the dim before it: view gives a _StridedShard " +
                            "there, but DTensor redistributes a view_copy instead");
    }
  }
  return res;
}

// zero(self): zeros in self's layout; a Partial self gives Replicate zeros (DTensor 2.14 answers so).
RuleResult zeroRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 1 || ctx.rank(0) < 0 || !ctx.inSpecs[0]) return unknownResult(ctx);
  ShardingSpec out = *ctx.inSpecs[0];
  for (auto& pl : out.placements)
    if (pl.isPartial()) pl = Placement::replicate();
  RuleResult res = okResult({out});
  res.outputs.resize(std::max(1, ctx.outputCount()), out);
  return res;
}

// Registers `key` with the rule another family registered for `same` (families before this one in
// registry.cpp's order: pointwise, view, index, attention); nothing when that family has no such rule.
void sameAs(RuleTable& t, const char* key, const char* same) {
  if (auto it = t.find(same); it != t.end()) t[key] = it->second;
}

}  // namespace

void registerTensorOpRules(RuleTable& t, ReplicateOnlyTable& replicateOnly) {
  (void)replicateOnly;  // median() runs replicated, but its key is shared with median.dim: a hand rule
  for (const char* op : {"cumprod", "logcumsumexp", "cummax", "cummin"}) t[op] = scanRule;
  for (const char* op : {"kthvalue", "median", "nanmedian", "mode"}) t[op] = dimWithIndicesRule;
  for (const char* op : {"norm", "linalg__powsum"}) t[op] = normRule;
  t["index_fill"] = indexFillRule;
  t["index_reduce"] = indexReduceRule;
  t["_index_put_impl"] = indexPutImplRule;
  t["bucketize"] = bucketizeRule;
  t["diagonal_scatter"] = diagonalScatterRule;
  t["flip"] = flipRollRule;
  t["roll"] = flipRollRule;
  t["repeat"] = repeatRule;
  t["equal"] = equalRule;
  t["is_same_size"] = equalRule;
  t["frexp"] = pointwiseNonlinearRule;
  t["zero"] = zeroRule;
  t["view_copy"] = viewCopyRule;
  // The same DTensor strategy as another family's op, so the same rule.
  sameAs(t, "zero_", "detach");  // propagate_single_input: shards and Partials stay
  sameAs(t, "view_of", "detach");
  sameAs(t, "expand_copy", "expand");
  sameAs(t, "split_with_sizes_copy", "split_with_sizes");
  sameAs(t, "_safe_softmax", "_softmax");
}

}  // namespace ss::rules
