// Matmul family (mm, bmm, addmm, baddbmm, matmul, linear, mv, dot) and embedding (+ dense backward); float8's
// _scaled_mm is in scaled_mm.cpp (its scales' placements follow DTensor's own derivation).
//
// Each is an einsum: sharding a free dim (M, N, batch) shards the output there; sharding the contracted dim K
// on both factors gives Partial(sum); one Partial factor times Replicate stays Partial. A bias (addmm, linear)
// is then added to that product under the pointwise-add rule: with a Partial product the bias must be Partial
// too (a replicated bias would be added once per rank). Embedding treats the vocabulary as the contraction:
// row-sharded weights give Partial(sum) (DTensor's masked lookup), column-sharded weights shard the output.
#include <algorithm>
#include <cctype>

#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

RuleResult scaledMm(const RuleContext& ctx);  // scaled_mm.cpp

namespace {

constexpr int kK = 1000, kM = 1001, kN = 1002, kV = 1003, kD = 1004;

int64_t dimOr(const RuleContext& ctx, int input, int d, int64_t dflt = -1) {
  if (!ctx.inMetas[input] || !ctx.inMetas[input]->known) return dflt;
  const auto& s = ctx.shape(input);
  if (d < 0) d += static_cast<int>(s.size());
  return d >= 0 && d < static_cast<int>(s.size()) ? s[d] : dflt;
}

// Adds `bias` (tensor input index) to a product whose spec and shape are known, under the pointwise-add rule.
RuleResult addBias(const RuleContext& ctx, const RuleResult& product, const std::vector<int64_t>& productShape,
                   int bias) {
  if (!product.ok() || bias < 0 || !product.outputs[0]) return product;
  if (!ctx.inMetas[bias] || !ctx.inSpecs[bias]) return unknownResult(ctx);
  RuleContext c2 = ctx;
  TensorMeta pm;
  pm.shape = productShape;
  pm.dtype = ctx.inMetas[bias]->dtype;
  c2.inMetas.push_back(&pm);
  c2.inSpecs.push_back(product.outputs[0]);
  int virt = c2.inputCount() - 1;
  int R = static_cast<int>(productShape.size());
  if (ctx.rank(bias) > R) return unknownResult(ctx);
  LabelProblem p;
  p.partial = PartialPolicy::Additive;
  p.contraction = std::nullopt;
  p.ins = {labelled(virt, alignedLabels(R, R)), labelled(bias, alignedLabels(ctx.rank(bias), R))};
  p.outs = {alignedLabels(R, R)};
  RuleResult r = solveLabels(c2, p, false);
  if (!r.ok()) {
    // Point at the bias: the product's spec comes from the factors, which the message names.
    r.input = bias;
    if (r.want && r.input == virt) r.want.reset();
    r.message += " (the product of the factors arrives as " + product.outputs[0]->toMeshString() + ")";
    r.alternatives.clear();
    return r;
  }
  r.outputs.resize(std::max<size_t>(1, ctx.node->outputs.size()));
  return r;
}

RuleResult mm(const RuleContext& ctx) {
  if (ctx.inputCount() < 2) return unknownResult(ctx);
  LabelProblem p;
  p.partial = PartialPolicy::Multiplicative;
  p.ins = {labelled(0, {kM, kK}), labelled(1, {kK, kN})};
  p.outs = {std::vector<int>{kM, kN}};
  RuleResult r = solveLabels(ctx, p);
  noteUnshardableInputs(ctx, r);
  return r;
}

RuleResult bmm(const RuleContext& ctx) {
  if (ctx.inputCount() < 2) return unknownResult(ctx);
  LabelProblem p;
  p.partial = PartialPolicy::Multiplicative;
  p.ins = {labelled(0, {0, kM, kK}), labelled(1, {0, kK, kN})};
  p.outs = {std::vector<int>{0, kM, kN}};
  RuleResult r = solveLabels(ctx, p);
  noteUnshardableInputs(ctx, r);
  return r;
}

// addmm(bias, a, b) / baddbmm(bias, a, b): the product, then the bias added.
RuleResult addmmLike(const RuleContext& ctx, bool batched) {
  if (ctx.inputCount() < 3) return unknownResult(ctx);
  LabelProblem p;
  p.partial = PartialPolicy::Multiplicative;
  if (batched) {
    p.ins = {labelled(1, {0, kM, kK}), labelled(2, {0, kK, kN})};
    p.outs = {std::vector<int>{0, kM, kN}};
  } else {
    p.ins = {labelled(1, {kM, kK}), labelled(2, {kK, kN})};
    p.outs = {std::vector<int>{kM, kN}};
  }
  RuleResult prod = solveLabels(ctx, p);
  if (!prod.ok()) return prod;
  std::vector<int64_t> shape = batched ? std::vector<int64_t>{dimOr(ctx, 1, 0), dimOr(ctx, 1, 1), dimOr(ctx, 2, 2)}
                                       : std::vector<int64_t>{dimOr(ctx, 1, 0), dimOr(ctx, 2, 1)};
  RuleResult res = addBias(ctx, prod, shape, 0);
  noteUnshardableInputs(ctx, res);
  return res;
}
RuleResult addmm(const RuleContext& ctx) { return addmmLike(ctx, false); }
RuleResult baddbmm(const RuleContext& ctx) { return addmmLike(ctx, true); }

// torch.matmul semantics for any ranks; batch dims broadcast from the right.
RuleResult matmul(const RuleContext& ctx) {
  if (ctx.inputCount() < 2 || ctx.rank(0) < 1 || ctx.rank(1) < 1) return unknownResult(ctx);
  int ra = ctx.rank(0), rb = ctx.rank(1);
  int batch = std::max({ra - 2, rb - 2, 0});
  auto batchLabels = [&](int r) { return alignedLabels(std::max(r - 2, 0), batch); };
  std::vector<int> la, lb, lo;
  if (ra >= 2) { la = batchLabels(ra); la.push_back(kM); }
  la.push_back(kK);
  if (rb >= 2) { lb = batchLabels(rb); lb.push_back(kK); lb.push_back(kN); } else { lb = {kK}; }
  for (int d = 0; d < batch; ++d) lo.push_back(d);
  if (ra >= 2) lo.push_back(kM);
  if (rb >= 2) lo.push_back(kN);
  LabelProblem p;
  p.partial = PartialPolicy::Multiplicative;
  p.ins = {labelled(0, la), labelled(1, lb)};
  p.outs = {lo};
  RuleResult r = solveLabels(ctx, p);
  return r;
}

// linear(x[..., K], w[N, K], bias[N]?)
RuleResult linear(const RuleContext& ctx) {
  if (ctx.inputCount() < 2 || ctx.rank(0) < 1 || ctx.rank(1) != 2) return unknownResult(ctx);
  int r = ctx.rank(0);
  std::vector<int> lx = alignedLabels(r - 1, r - 1), lo = lx;
  lx.push_back(kK);
  lo.push_back(kN);
  LabelProblem p;
  p.partial = PartialPolicy::Multiplicative;
  p.ins = {labelled(0, lx), labelled(1, {kN, kK})};
  p.outs = {lo};
  RuleResult prod = solveLabels(ctx, p);
  std::vector<int64_t> shape;
  if (ctx.inMetas[0] && ctx.inMetas[0]->known) {
    shape = ctx.shape(0);
    shape.back() = dimOr(ctx, 1, 0);
  }
  if (ctx.inputCount() >= 3 && prod.ok()) return addBias(ctx, prod, shape, 2);
  return prod;
}

RuleResult mv(const RuleContext& ctx) {
  if (ctx.inputCount() < 2) return unknownResult(ctx);
  LabelProblem p;
  p.partial = PartialPolicy::Multiplicative;
  p.ins = {labelled(0, {kM, kK}), labelled(1, {kK})};
  p.outs = {std::vector<int>{kM}};
  RuleResult r = solveLabels(ctx, p);
  return r;
}

RuleResult dot(const RuleContext& ctx) {
  if (ctx.inputCount() < 2) return unknownResult(ctx);
  LabelProblem p;
  p.partial = PartialPolicy::Multiplicative;
  p.ins = {labelled(0, {kK}), labelled(1, {kK})};
  p.outs = {std::vector<int>{}};
  RuleResult r = solveLabels(ctx, p);
  return r;
}

// embedding(weight[V, D], indices[...]) -> [..., D]
RuleResult embedding(const RuleContext& ctx) {
  if (ctx.inputCount() < 2 || ctx.rank(0) != 2 || ctx.rank(1) < 0) return unknownResult(ctx);
  int r = ctx.rank(1);
  std::vector<int> li = alignedLabels(r, r), lo = li;
  lo.push_back(kD);
  LabelProblem p;
  p.partial = PartialPolicy::Multiplicative;
  p.ins = {labelled(0, {kV, kD}), labelled(1, li, false)};
  p.outs = {lo};
  RuleResult res = solveLabels(ctx, p);
  noteUnshardableInputs(ctx, res);
  notePartialInput(ctx, res, 0, std::nullopt, "weight");
  return res;
}

// embedding_dense_backward(grad[..., D], indices[...], num_weights, padding_idx, scale_grad) -> [V, D]
RuleResult embeddingBackward(const RuleContext& ctx) {
  if (ctx.inputCount() < 2 || ctx.rank(0) < 1 || ctx.rank(1) < 0) return unknownResult(ctx);
  int r = ctx.rank(1);
  std::vector<int> lg = alignedLabels(r, r);
  lg.push_back(kD);
  LabelProblem p;
  p.partial = PartialPolicy::Multiplicative;
  p.ins = {labelled(0, lg), labelled(1, alignedLabels(r, r), false)};
  p.outs = {std::vector<int>{kV, kD}};
  RuleResult res = solveLabels(ctx, p);
  return res;
}

}  // namespace

// einsum(equation, [a, b, ...]) (autoparallel writes its linears as `einsum('abk,kn->abn', [x, w])`): each letter
// is a label, letters missing from the output are contracted. Ellipses and repeated letters in one operand
// (diagonals) are not read: their specs stay unknown.
RuleResult einsum(const RuleContext& ctx) {
  const Node& n = *ctx.node;
  if (n.args.empty() || n.args[0].kind != Arg::Kind::String) return unknownResult(ctx);
  const std::string& eq = n.args[0].s;
  const size_t arrow = eq.find("->");
  if (arrow == std::string::npos || eq.find('.') != std::string::npos) return unknownResult(ctx);
  auto labelsOf = [](std::string_view t, std::vector<int>& out) {
    out.clear();
    for (char c : t) {
      if (c == ' ') continue;
      if (!std::isalpha(static_cast<unsigned char>(c))) return false;
      const int l = static_cast<unsigned char>(c);
      if (std::find(out.begin(), out.end(), l) != out.end()) return false;  // a diagonal
      out.push_back(l);
    }
    return true;
  };
  std::vector<int> outLabels;
  if (!labelsOf(std::string_view(eq).substr(arrow + 2), outLabels)) return unknownResult(ctx);
  LabelProblem p;
  p.partial = PartialPolicy::Multiplicative;
  std::string_view ins = std::string_view(eq).substr(0, arrow);
  int input = 0;
  for (size_t from = 0; from <= ins.size(); ++input) {
    size_t comma = ins.find(',', from);
    if (comma == std::string_view::npos) comma = ins.size();
    std::vector<int> labels;
    if (!labelsOf(ins.substr(from, comma - from), labels) || input >= ctx.inputCount()) return unknownResult(ctx);
    if (ctx.inMetas[input] && ctx.inMetas[input]->known && ctx.rank(input) != static_cast<int>(labels.size()))
      return unknownResult(ctx);
    p.ins.push_back(labelled(input, std::move(labels)));
    from = comma + 1;
  }
  if (input != ctx.inputCount()) return unknownResult(ctx);
  p.outs = {std::move(outLabels)};
  return solveLabels(ctx, p);
}

void registerMatmulRules(RuleTable& t) {
  t["einsum"] = einsum;
  t["mm"] = mm;
  t["bmm"] = bmm;
  t["addmm"] = addmm;
  t["baddbmm"] = baddbmm;
  t["matmul"] = matmul;
  t["linear"] = linear;
  t["mv"] = mv;
  t["dot"] = dot;
  t["embedding"] = embedding;
  t["embedding_dense_backward"] = embeddingBackward;
  t["_scaled_mm"] = scaledMm;
}

}  // namespace ss::rules
