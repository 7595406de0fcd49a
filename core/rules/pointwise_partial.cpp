// Pointwise ops that carry a Partial through other than linearly, as DTensor 2.14's _pointwise_ops registers them
// ("partial_extra_rules"): monotone ops turn Partial(max) / Partial(min) into the same (non-decreasing: exp,
// relu, tanh, ...) or the other (non-increasing: erfc), binary max / min ops keep theirs, conversions keep every
// Partial. Each rule is one mesh dim's placements [output, input 0, input 1, ...]; a mesh dim on which an input
// is Partial must match one of the op's rules exactly (a Replicate in the rule: that input is Replicate there),
// and the output takes the rule's placement on that mesh dim. Every other mesh dim is solved as any pointwise
// op (pointwise.cpp). A Partial no rule matches is the usual partial-into-nonlinear refusal.
//
// Keys are op names or name.overload where DTensor lists only some overloads (clamp_min.Tensor keeps P(max),
// clamp_min with a scalar bound does not). In-place forms (`exp_`) read their op's entry.
#include <array>
#include <unordered_map>

#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

RuleResult pointwiseNonlinearRule(const RuleContext& ctx);  // pointwise.cpp
RuleResult pointwiseAdditiveRule(const RuleContext& ctx);   // pointwise.cpp: add / sub
RuleResult reductionRule(const RuleContext& ctx);           // reduction.cpp

namespace {

using Slot = PartialSlot;
using PartialRule = std::vector<Slot>;  // [output, input 0, input 1, ...]



using S = Slot;
const std::vector<PartialRule> kNonDecreasing = {{S::PMax, S::PMax}, {S::PMin, S::PMin}};
const std::vector<PartialRule> kNonIncreasing = {{S::PMin, S::PMax}, {S::PMax, S::PMin}};
// Bessel K: decreasing for x > 0 only; a P(min) input keeps every rank's addend positive.
const std::vector<PartialRule> kPositiveNonIncreasing = {{S::PMax, S::PMin}};
const std::vector<PartialRule> kNeg = {{S::PSum, S::PSum}, {S::PAvg, S::PAvg}, {S::PMin, S::PMax}, {S::PMax, S::PMin}};
// add / sub (_BINARY_ADDITIVE_RULES beyond P(x) + P(x)): a replicated term keeps a P(avg) (the mean of r + p_i is
// r + mean(p_i)) on either side, and a P(max) / P(min) first operand (a constant shift keeps the order; not as the
// second: a negative alpha would flip it). DTensor 2.14 runs R + P(avg), P(avg) + R, P(max) + R without
// redistributing (measured: propagate_op_sharding on a fake mesh of 4). Its sum with R stays refused (the
// replicated value would be counted once per rank).
const std::vector<PartialRule> kAdditiveReplicate = {
    {S::PAvg, S::PAvg, S::R}, {S::PAvg, S::R, S::PAvg}, {S::PMax, S::PMax, S::R}, {S::PMin, S::PMin, S::R}};
const std::vector<PartialRule> kXlog1py = {{S::PSum, S::PSum, S::R}, {S::PAvg, S::PAvg, S::R}};
const std::vector<PartialRule> kAllPartial = {{S::PSum, S::PSum}, {S::PAvg, S::PAvg}, {S::PMax, S::PMax},
                                              {S::PMin, S::PMin}};
const std::vector<PartialRule> kAllPartialBinary = {
    {S::PSum, S::PSum, S::PSum}, {S::PAvg, S::PAvg, S::PAvg}, {S::PMax, S::PMax, S::PMax}, {S::PMin, S::PMin, S::PMin}};
const std::vector<PartialRule> kMonotoneBinary = {
    {S::PMax, S::PMax, S::R}, {S::PMax, S::R, S::PMax}, {S::PMin, S::PMin, S::R}, {S::PMin, S::R, S::PMin}};
const std::vector<PartialRule> kMaxPreserving = {{S::PMax, S::PMax, S::R}, {S::PMax, S::R, S::PMax},
                                                 {S::PMin, S::PMin, S::R}, {S::PMin, S::R, S::PMin},
                                                 {S::PMax, S::PMax, S::PMax}};
const std::vector<PartialRule> kMinPreserving = {{S::PMax, S::PMax, S::R}, {S::PMax, S::R, S::PMax},
                                                 {S::PMin, S::PMin, S::R}, {S::PMin, S::R, S::PMin},
                                                 {S::PMin, S::PMin, S::PMin}};

// op name or name.overload -> its extra Partial rules (DTensor 2.14, _pointwise_ops.py).
const std::unordered_map<std::string_view, const std::vector<PartialRule>*>& partialRules() {
  static const auto t = [] {
    std::unordered_map<std::string_view, const std::vector<PartialRule>*> m;
    for (const char* op : {"asinh", "atan", "ceil", "deg2rad", "erf", "exp", "exp2", "expm1", "floor", "rad2deg",
                           "relu", "round", "sgn", "sigmoid", "sign", "sinh", "tanh", "trunc", "nan_to_num",
                           "hardshrink", "special_modified_bessel_i1", "threshold"})
      m[op] = &kNonDecreasing;
    for (const char* op : {"erfc", "special_erfcx"}) m[op] = &kNonIncreasing;
    for (const char* op : {"special_modified_bessel_k0", "special_modified_bessel_k1",
                           "special_scaled_modified_bessel_k0", "special_scaled_modified_bessel_k1"})
      m[op] = &kPositiveNonIncreasing;
    m["neg"] = &kNeg;
    for (const char* op : {"add", "sub"}) m[op] = &kAdditiveReplicate;
    m["special_xlog1py"] = &kXlog1py;
    m["to.dtype"] = &kAllPartial;
    m["positive"] = &kAllPartial;
    m["copy_"] = &kAllPartialBinary;
    m["copy_to"] = &kAllPartialBinary;
    for (const char* op : {"logaddexp", "logaddexp2"}) m[op] = &kMonotoneBinary;
    for (const char* op : {"clamp_min.Tensor", "fmax", "maximum", "max.other"}) m[op] = &kMaxPreserving;
    for (const char* op : {"clamp_max.Tensor", "fmin", "minimum", "min.other"}) m[op] = &kMinPreserving;
    return m;
  }();
  return t;
}

// The rules of the node's op: name.overload first, then the name; an in-place form reads its op's.
const std::vector<PartialRule>* rulesFor(std::string_view op) {
  if (op.starts_with("torch.ops.")) op.remove_prefix(10);
  std::string_view name = ruleKeyView(op);
  std::string_view overload;
  if (const size_t dot = op.find('.'); dot != std::string_view::npos) {
    const std::string_view rest = op.substr(dot + 1);
    if (const size_t d2 = rest.find('.'); d2 != std::string_view::npos) overload = rest.substr(d2 + 1);
  }
  const auto& t = partialRules();
  for (int pass = 0; pass < 2; ++pass) {
    if (!overload.empty())
      if (auto it = t.find(std::string(name) + "." + std::string(overload)); it != t.end()) return it->second;
    if (auto it = t.find(name); it != t.end()) return it->second;
    if (!name.ends_with('_') || name == "copy_") break;
    name.remove_suffix(1);
  }
  return nullptr;
}

RuleResult withPartialRules(const RuleContext& ctx, RuleResult (*base)(const RuleContext&)) {
  const std::vector<PartialRule>* rules = rulesFor(ctx.node->op);
  const int n = ctx.inputCount();
  if (!rules || !ctx.mesh) return base(ctx);
  // Mesh dims on which some input is Partial, and the rule each matches.
  std::vector<std::pair<int, const PartialRule*>> matched;
  for (int m = 0; m < ctx.mesh->ndim(); ++m) {
    bool anyPartial = false;
    for (int i = 0; i < n; ++i)
      if (ctx.inSpecs[i] && m < ctx.inSpecs[i]->meshDims() && (*ctx.inSpecs[i])[m].isPartial()) anyPartial = true;
    if (!anyPartial) continue;
    const PartialRule* hit = nullptr;
    for (const PartialRule& r : *rules) {
      if (static_cast<int>(r.size()) != n + 1) continue;
      bool ok = true;
      for (int i = 0; i < n && ok; ++i)
        ok = ctx.inSpecs[i] && m < ctx.inSpecs[i]->meshDims() && slotMatches(r[i + 1], (*ctx.inSpecs[i])[m]);
      if (ok) { hit = &r; break; }
    }
    if (!hit) return base(ctx);  // the usual verdict on that Partial
    matched.emplace_back(m, hit);
  }
  if (matched.empty()) return base(ctx);
  // Solve the rest with the matched mesh dims replicated, then give them the rule's output placement.
  RuleContext sub = ctx;
  for (int i = 0; i < n; ++i)
    if (sub.inSpecs[i])
      for (const auto& [m, r] : matched) sub.inSpecs[i]->placements[m] = Placement::replicate();
  RuleResult res = base(sub);
  if (!res.ok()) return res;
  // Two mesh dims giving Partials of different reduce ops (but sum with avg) would be no valid placement list:
  // DTensor takes another strategy, which reduces the later one's input first.
  const Placement first = slotPlacement(matched.front().second->front());
  for (const auto& [m, r] : matched) {
    const Placement p = slotPlacement(r->front());
    const bool sumAvg = (first.reduce == ReduceOp::Sum || first.reduce == ReduceOp::Avg) &&
                        (p.reduce == ReduceOp::Sum || p.reduce == ReduceOp::Avg);
    if (p.reduce == first.reduce || sumAvg) continue;
    int input = 0;
    while (input < n && !(ctx.inSpecs[input] && m < ctx.inSpecs[input]->meshDims() &&
                          (*ctx.inSpecs[input])[m].isPartial()))
      ++input;
    if (input == n) return base(ctx);  // (a matched mesh dim always has a Partial input)
    ShardingSpec want = *ctx.inSpecs[input];
    want.placements[m] = Placement::replicate();
    return failResult(Verdict::PartialIntoNonlinear, input, want,
                      opTitle(ctx) + " would give " + first.shortString() + " on mesh dim " +
                          std::to_string(matched.front().first) + " and " + p.shortString() + " on mesh dim " +
                          std::to_string(m) + " (input " + std::to_string(input) + " arrives as " +
                          ctx.inSpecs[input]->toMeshString() +
                          "), but one placement list holds one Partial reduce op; reduce it first (all_reduce)");
  }
  for (auto& out : res.outputs)
    if (out)
      for (const auto& [m, r] : matched)
        if (m < out->meshDims()) out->placements[m] = slotPlacement(r->front());
  return res;
}

// add / sub: every other case (P(x) + P(x), the affine add of a scalar) is the additive rule's.
RuleResult additivePointwise(const RuleContext& ctx) { return withPartialRules(ctx, pointwiseAdditiveRule); }

// neg's linear rules are among its table rows, so the generic solver serves it too.
RuleResult monotonePointwise(const RuleContext& ctx) { return withPartialRules(ctx, pointwiseNonlinearRule); }

// max / min: with two tensors (max.other) the elementwise maximum, every other overload a reduction.
RuleResult maxOrMin(const RuleContext& ctx) {
  return ctx.inputCount() == 2 ? withPartialRules(ctx, pointwiseNonlinearRule) : reductionRule(ctx);
}

}  // namespace

void registerPartialPointwiseRules(RuleTable& t) {
  for (const auto& [key, rules] : partialRules()) {
    const std::string_view name = key.substr(0, key.find('.'));
    // Conversions and copies keep every Partial already (pointwise.cpp's preserve / copyInto); prims.copy_to
    // is not an op core knows.
    if (name == "to" || name == "positive" || name == "copy_" || name == "copy_to") continue;
    t[std::string(name)] = name == "max" || name == "min" ? maxOrMin
                           : name == "add" || name == "sub" ? additivePointwise
                                                            : monotonePointwise;
  }
  t["neg_"] = monotonePointwise;  // listed with its own rule in pointwise.cpp, so not derived
}

}  // namespace ss::rules
