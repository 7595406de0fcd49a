// Pointwise ops with broadcasting and scalar arguments, type conversions, and operator.getitem.
//
// Every tensor input is aligned to the output from the right (NumPy broadcasting); a dim an input broadcasts
// (absent or size 1) must be Replicate wherever another input shards it. Partial handling by linearity:
// conversions and copies keep any Partial; add/sub/neg need all data inputs Partial(sum|avg) alike, and an
// added non-zero scalar makes them affine (not linear); mul needs exactly one Partial factor; div only a
// Partial numerator; everything else is non-linear.
#include <algorithm>
#include <set>

#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

namespace {

// Broadcast shape of the tensor inputs; nullopt when some pair cannot broadcast or a shape is unknown.
std::optional<std::vector<int64_t>> broadcastShape(const RuleContext& ctx, const std::vector<int>& inputs) {
  std::vector<int64_t> out;
  for (int i : inputs) {
    if (!ctx.inMetas[i] || !ctx.inMetas[i]->known) return std::nullopt;
    const auto& s = ctx.inMetas[i]->shape;
    if (s.size() > out.size()) out.insert(out.begin(), s.size() - out.size(), 1);
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t& o = out[out.size() - s.size() + k];
      if (s[k] == o || s[k] == 1) continue;
      if (o == 1) o = s[k];
      else return std::nullopt;
    }
  }
  return out;
}

// True when the node has a numeric (non-tensor) argument among its first `n` positional args that is not 0.
bool hasNonZeroScalar(const RuleContext& ctx, int n) {
  for (int i = 0; i < std::min<int>(n, ctx.node->args.size()); ++i) {
    const Arg& a = ctx.node->args[i];
    if ((a.kind == Arg::Kind::Int && a.i != 0) || (a.kind == Arg::Kind::Float && a.f != 0.0)) return true;
  }
  return false;
}

RuleResult pointwiseWith(const RuleContext& ctx, PartialPolicy policy, const std::set<int>& nonData = {},
                         int onlyPartialInput = -1) {
  std::vector<int> inputs;
  for (int i = 0; i < ctx.inputCount(); ++i) inputs.push_back(i);
  auto bshape = broadcastShape(ctx, inputs);
  if (!bshape) {
    if (!inputs.empty() && std::all_of(inputs.begin(), inputs.end(),
                                       [&](int i) { return ctx.inMetas[i] && ctx.inMetas[i]->known; })) {
      std::string shapes;
      for (int i : inputs) shapes += (shapes.empty() ? "" : " and ") + shapeToString(ctx.shape(i));
      return failResult(Verdict::BadShapes, inputs.back(), std::nullopt,
                        opTitle(ctx) + ": global shapes " + shapes + " do not broadcast");
    }
    return unknownResult(ctx);
  }
  int R = static_cast<int>(bshape->size());
  LabelProblem p;
  p.partial = policy;
  p.contraction = std::nullopt;
  for (int i : inputs) {
    LabelInput in;
    in.input = i;
    in.labels = alignedLabels(ctx.rank(i), R);
    in.data = !nonData.count(i);
    in.mayBePartial = onlyPartialInput < 0 || onlyPartialInput == i;
    p.ins.push_back(in);
  }
  std::vector<int> outLabels(R);
  for (int d = 0; d < R; ++d) outLabels[d] = d;
  int nOut = std::max(1, ctx.outputCount());
  p.outs.assign(nOut, outLabels);
  if (inputs.empty()) return unknownResult(ctx);
  RuleResult r = solveLabels(ctx, p);
  return r;
}

RuleResult nonlinear(const RuleContext& ctx) { return pointwiseWith(ctx, PartialPolicy::Nonlinear); }
RuleResult preserve(const RuleContext& ctx) { return pointwiseWith(ctx, PartialPolicy::Preserve); }

RuleResult additive(const RuleContext& ctx) {
  // add(x, 1.0) is affine: a Partial x would get the scalar added once per rank.
  if (hasNonZeroScalar(ctx, 2)) return pointwiseWith(ctx, PartialPolicy::Nonlinear);
  return pointwiseWith(ctx, PartialPolicy::Additive);
}

RuleResult negate(const RuleContext& ctx) { return pointwiseWith(ctx, PartialPolicy::Additive); }

RuleResult multiply(const RuleContext& ctx) { return pointwiseWith(ctx, PartialPolicy::Multiplicative); }

RuleResult divide(const RuleContext& ctx) {
  if (ctx.arg(2, "rounding_mode") && ctx.arg(2, "rounding_mode")->kind == Arg::Kind::String)
    return pointwiseWith(ctx, PartialPolicy::Nonlinear);
  return pointwiseWith(ctx, PartialPolicy::Multiplicative, {}, 0);
}

RuleResult whereRule(const RuleContext& ctx) {
  // where(cond, a, b): the condition is a mask, never a Partial value.
  return pointwiseWith(ctx, PartialPolicy::Nonlinear, {0});
}

RuleResult maskedFill(const RuleContext& ctx) { return pointwiseWith(ctx, PartialPolicy::Nonlinear, {1}); }

// operator.getitem selects one output of a tuple: the spec is the selected output's (its input already is).
RuleResult getitem(const RuleContext& ctx) {
  if (ctx.inputCount() < 1 || !ctx.inSpecs[0]) return unknownResult(ctx);
  RuleResult r = okResult({ctx.inSpecs[0]});
  return r;
}

// copy_(self, src): self's storage is overwritten with src, so self carries no value (never Partial) and src
// keeps its placement's meaning.
RuleResult copyInto(const RuleContext& ctx) { return pointwiseWith(ctx, PartialPolicy::Preserve, {0}); }

}  // namespace

RuleResult pointwiseNonlinearRule(const RuleContext& ctx) { return nonlinear(ctx); }
RuleResult pointwiseAdditiveRule(const RuleContext& ctx) { return additive(ctx); }
RuleResult pointwiseDivideRule(const RuleContext& ctx) { return divide(ctx); }

void registerPointwiseRules(RuleTable& t) {
  for (const char* op : {"add", "sub", "add_", "sub_"}) t[op] = additive;
  for (const char* op : {"neg", "neg_"}) t[op] = negate;
  for (const char* op : {"mul", "mul_"}) t[op] = multiply;
  for (const char* op : {"div", "div_", "true_divide"}) t[op] = divide;
  for (const char* op : {"clone", "_to_copy", "convert_element_type", "detach", "alias", "contiguous",
                         "lift_fresh_copy", "_assert_tensor_metadata", "to", "type_as", "_conj", "positive", "device_put",
                         "dtype_cast"})
    t[op] = preserve;
  for (const char* op :
       {"pow", "rsqrt", "sqrt", "exp", "exp2", "log", "log2", "log1p", "expm1", "tanh", "sigmoid", "relu", "gelu",
        "silu", "erf", "sin", "cos", "abs", "reciprocal", "maximum", "minimum", "clamp", "clamp_min", "clamp_max",
        "eq", "ne", "lt", "le", "gt", "ge", "logical_not", "logical_and", "logical_or", "bitwise_not",
        "bitwise_and", "bitwise_or", "isnan", "isinf", "floor", "ceil", "round", "trunc", "sign", "rsub",
        "gelu_backward", "silu_backward", "threshold_backward", "tanh_backward", "sigmoid_backward", "fill",
        "lerp", "addcmul", "addcdiv", "native_dropout", "native_dropout_backward", "leaky_relu", "elu", "hardtanh",
        "softplus", "mish", "square", "remainder", "fmod", "bernoulli", "copy", "fma"})
    t[op] = nonlinear;
  // The rest of DTensor 2.14's generic pointwise ops (its `pointwise_ops`: no Partial carried through) and their
  // in-place forms; the ones DTensor gives special Partial rules (linear, monotone) are not among them.
  for (const char* op : {
       "abs_", "acos", "acos_", "acosh", "acosh_", "addcdiv_", "addcmul_", "angle", "asin", "asin_", "atan2",
       "atan2_", "atanh", "atanh_", "bitwise_and_", "bitwise_left_shift", "bitwise_left_shift_", "bitwise_not_",
       "bitwise_or_", "bitwise_right_shift", "bitwise_right_shift_", "bitwise_xor", "bitwise_xor_", "celu", "celu_",
       "clamp_", "clamp_max_", "clamp_min_", "clip", "clip_", "conj_physical", "conj_physical_", "copysign",
       "copysign_", "cos_", "cosh", "cosh_", "digamma", "digamma_", "elu_", "erfinv", "erfinv_", "float_power",
       "float_power_", "fmod_", "frac", "frac_", "gcd", "hardsigmoid", "hardsigmoid_", "hardtanh_", "heaviside",
       "hypot", "hypot_", "i0", "i0_", "igamma", "igamma_", "igammac", "igammac_", "isfinite", "isneginf",
       "isposinf", "lcm", "ldexp", "ldexp_", "leaky_relu_", "lerp_", "lgamma", "lgamma_", "log10", "log10_",
       "log1p_", "log2_", "log_", "logical_and_", "logical_not_", "logical_or_", "logical_xor", "logical_xor_",
       "logit", "logit_", "logit_backward", "mvlgamma", "mvlgamma_", "nextafter", "nextafter_", "polygamma",
       "polygamma_", "pow_", "reciprocal_", "relu6", "remainder_", "rsqrt_", "selu", "selu_", "signbit", "silu_",
       "sin_", "sinc", "sinc_", "softshrink", "special_airy_ai", "special_bessel_j0", "special_bessel_j1",
       "special_bessel_y0", "special_bessel_y1", "special_chebyshev_polynomial_t", "special_chebyshev_polynomial_u",
       "special_chebyshev_polynomial_v", "special_chebyshev_polynomial_w", "special_entr",
       "special_hermite_polynomial_h", "special_hermite_polynomial_he", "special_i0e", "special_i1", "special_i1e",
       "special_laguerre_polynomial_l", "special_legendre_polynomial_p", "special_log_ndtr",
       "special_modified_bessel_i0", "special_modified_bessel_k0", "special_modified_bessel_k1", "special_ndtri",
       "special_scaled_modified_bessel_k0", "special_scaled_modified_bessel_k1",
       "special_shifted_chebyshev_polynomial_t", "special_shifted_chebyshev_polynomial_u",
       "special_shifted_chebyshev_polynomial_v", "special_shifted_chebyshev_polynomial_w",
       "special_spherical_bessel_j0", "special_xlog1py", "special_zeta", "sqrt_", "square_", "tan", "tan_", "xlogy",
       "xlogy_",
       // the operator spellings of the shifts and xor, prims' special functions, rrelu's noisy forms
       "__lshift__", "__rshift__", "__xor__", "__ilshift__", "__irshift__", "__ixor__", "bessel_i0e", "bessel_i1",
       "bessel_i1e", "bessel_j0", "bessel_j1", "erfcx", "ndtri", "spherical_bessel_j0", "zeta", "rrelu_with_noise",
       "rrelu_with_noise_functional"})
    t[op] = nonlinear;
  t["copy_to"] = copyInto;  // prims.copy_to(dst, src): as copy_, every Partial of src kept
  t["where"] = whereRule;
  t["masked_fill"] = maskedFill;
  t["masked_fill_"] = maskedFill;
  t["getitem"] = getitem;
  t["copy_"] = copyInto;
}

}  // namespace ss::rules
