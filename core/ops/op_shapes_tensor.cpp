// The op table's shape rules, part: elementwise ops, casts, matrix products, views, reductions, slicing,
// joining and splitting. See op_shapes_detail.h.
#include <algorithm>
#include <numeric>

#include "core/model/layout.h"
#include "core/ops/op_shapes_detail.h"

namespace ss::ops::detail {

// Elementwise ops, casts and matrix products.
void addElementwiseRules(RuleTable& t) {
  auto sameRule = [](const Ctx& c) { return same(c); };
  for (const char* op :
       {"abs", "neg", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "relu", "silu", "gelu", "sigmoid", "tanh",
        "sin", "cos", "erf", "reciprocal", "scatter_add", "clone", "contiguous", "alias", "detach", "zeros_like", "ones_like",
        "empty_like", "rand_like", "randn_like", "bitwise_not", "logical_not", "_softmax", "_log_softmax", "softmax",
        "log_softmax", "wait_tensor", "all_reduce", "all_reduce_", "broadcast", "copy", "copy_", "lift_fresh_copy", "fill",
        "gelu_backward", "silu_backward", "threshold_backward", "tanh_backward", "sigmoid_backward",
        "native_dropout_backward", "masked_fill", "_conj", "conj", "device_put", "_assert_tensor_metadata", "clamp", "clamp_min", "clamp_max", "hardtanh", "leaky_relu",
        "elu", "sign", "floor", "ceil", "round", "trunc", "frac", "square", "scatter",
        "scatter_reduce", "slice_scatter", "select_scatter", "tril", "triu",
        "_unsafe_index_put", "index_add", "index_copy", "relu_", "dropout", "resize_", "set_", "detach_"})
    t[op] = sameRule;
  for (const char* op : {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "rsub", "floor_divide", "remainder",
                         "atan2", "where", "lerp", "fma", "floordiv", "truediv", "mod", "addcmul", "addcdiv", "fmod", "bitwise_and", "bitwise_or",
                         "bitwise_xor", "logical_and", "logical_or", "logical_xor", "copysign", "hypot", "xlogy"})
    t[op] = [](const Ctx& c) { return pointwise(c); };
  for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf"})
    t[op] = [](const Ctx& c) { return pointwise(c, true); };
  // DTensor's other generic pointwise ops (core/rules/pointwise.cpp lists them): the broadcast of their tensor
  // inputs; in-place forms keep self; the tests for a property give bool.
  for (const char* op : {
        "acos", "acosh", "asin", "atanh", "bitwise_left_shift", "bitwise_right_shift", "celu", "clip", "cosh",
        "digamma", "erfinv", "gcd", "hardsigmoid", "heaviside", "i0", "igamma", "igammac", "lcm", "lgamma", "log10",
        "logit", "logit_backward", "nextafter", "relu6", "selu", "sinc", "softshrink", "special_airy_ai",
        "special_bessel_j0", "special_bessel_j1", "special_bessel_y0", "special_bessel_y1",
        "special_chebyshev_polynomial_t", "special_chebyshev_polynomial_u", "special_chebyshev_polynomial_v",
        "special_chebyshev_polynomial_w", "special_entr", "special_hermite_polynomial_h",
        "special_hermite_polynomial_he", "special_i0e", "special_i1", "special_i1e",
        "special_laguerre_polynomial_l", "special_legendre_polynomial_p", "special_log_ndtr",
        "special_modified_bessel_i0", "special_modified_bessel_k0", "special_modified_bessel_k1", "special_ndtri",
        "special_scaled_modified_bessel_k0", "special_scaled_modified_bessel_k1",
        "special_shifted_chebyshev_polynomial_t", "special_shifted_chebyshev_polynomial_u",
        "special_shifted_chebyshev_polynomial_v", "special_shifted_chebyshev_polynomial_w",
        "special_spherical_bessel_j0", "special_xlog1py", "special_zeta", "tan"})
    t[op] = [](const Ctx& c) { return pointwise(c); };
  for (const char* op : {
        "isfinite", "isneginf", "isposinf", "signbit"})
    t[op] = [](const Ctx& c) { return pointwise(c, true); };
  for (const char* op : {
        "abs_", "acos_", "acosh_", "addcdiv_", "addcmul_", "asin_", "atan2_", "atanh_", "bitwise_and_",
        "bitwise_left_shift_", "bitwise_not_", "bitwise_or_", "bitwise_right_shift_", "bitwise_xor_", "celu_",
        "clamp_", "clamp_max_", "clamp_min_", "clip_", "copysign_", "cos_", "cosh_", "digamma_", "elu_", "erfinv_",
        "fmod_", "frac_", "hardsigmoid_", "hardtanh_", "hypot_", "i0_", "igamma_", "igammac_", "leaky_relu_",
        "lerp_", "lgamma_", "log10_", "log1p_", "log2_", "log_", "logical_and_", "logical_not_", "logical_or_",
        "logical_xor_", "logit_", "nextafter_", "pow_", "reciprocal_", "remainder_", "rsqrt_", "selu_", "silu_",
        "sin_", "sinc_", "sqrt_", "square_", "tan_", "xlogy_"})
    t[op] = sameRule;
  for (const char* op : {"_to_copy", "to", "convert_element_type", "_to_dtype", "dtype_cast"})
    t[op] = [](const Ctx& c) -> std::optional<Metas> {
      const TensorMeta* m = c.tensor(0);
      if (!m) return std::nullopt;
      TensorMeta r = *m;
      if (auto d = c.dtype(1, "dtype")) r.dtype = *d;
      return Metas{r};
    };
  for (const char* op : {"_softmax_backward_data", "_log_softmax_backward_data"})
    t[op] = [](const Ctx& c) -> std::optional<Metas> {
      const TensorMeta* m = c.tensor(0);
      if (!m) return std::nullopt;
      TensorMeta r = *m;
      if (auto d = c.dtype(3, "input_dtype")) r.dtype = *d;
      return Metas{r};
    };
  t["mm"] = [](const Ctx& c) { return matmulOf(c, 0, 1, false); };
  t["bmm"] = [](const Ctx& c) { return matmulOf(c, 0, 1, true); };
  t["addmm"] = [](const Ctx& c) { return matmulOf(c, 1, 2, false); };
  t["baddbmm"] = [](const Ctx& c) { return matmulOf(c, 1, 2, true); };
  t["linear"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta *x = c.tensor(0), *w = c.tensor(1);
    if (!x || !w || x->rank() < 1 || w->rank() != 2) return std::nullopt;
    Shape s = x->shape;
    s.back() = w->shape[0];
    return Metas{meta(s, x->dtype)};
  };
  // _scaled_mm(self, mat2, scale_a, scale_b, bias=None, scale_result=None, out_dtype=None, use_fast_accum=False):
  // an mm of float8 data; the result is out_dtype when given, else self's dtype.
  t["_scaled_mm"] = [](const Ctx& c) -> std::optional<Metas> {
    auto r = matmulOf(c, 0, 1, false);
    if (!r) return r;
    if (const Arg* od = c.arg(6, "out_dtype"); od && od->kind == Arg::Kind::DType) (*r)[0].dtype = od->dt;
    return r;
  };
  t["matmul"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta *a = c.tensor(0), *b = c.tensor(1);
    if (!a || !b || a->rank() < 2 || b->rank() < 2) return std::nullopt;
    Shape ba(a->shape.begin(), a->shape.end() - 2), bb(b->shape.begin(), b->shape.end() - 2);
    auto batch = broadcast(ba, bb);
    if (!batch) return std::nullopt;
    batch->push_back(a->shape[a->rank() - 2]);
    batch->push_back(b->shape.back());
    return Metas{meta(*batch, a->dtype)};
  };
}

// Views, reductions, slicing, joining and splitting.
void addViewRules(RuleTable& t) {
  for (const char* op : {"view", "reshape", "_unsafe_view", "_reshape_alias"})
    t[op] = [](const Ctx& c) -> std::optional<Metas> {
      const TensorMeta* m = c.tensor(0);
      auto s = c.ints(1, "size");
      if (!m || !s) return std::nullopt;
      auto v = viewShape(*m, *s);
      if (!v) return std::nullopt;
      TensorMeta out = meta(*v, m->dtype);
      if (shapeWithinLimits(*v) && out.numel() != m->numel())
        return c.fail(0, c.title() + ": input shape " + shapeToString(m->shape) + " (" + std::to_string(m->numel()) +
                             " elements) cannot be viewed as " + shapeToString(*s));
      return Metas{out};
    };
  t["expand"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    auto s = c.ints(1, "size");
    if (!m || !s || s->size() < m->shape.size()) return std::nullopt;
    size_t off = s->size() - m->shape.size();
    const Shape want = *s;
    for (size_t i = 0; i < s->size(); ++i) {
      if ((*s)[i] == -1) {
        if (i < off) return std::nullopt;
        (*s)[i] = m->shape[i - off];
      }
      const bool fits = (*s)[i] >= 0 && (i < off || m->shape[i - off] == (*s)[i] || m->shape[i - off] == 1);
      if (!fits)
        return c.fail(0, c.title() + ": input shape " + shapeToString(m->shape) + " cannot expand to " + shapeToString(want));
    }
    return Metas{meta(*s, m->dtype)};
  };
  t["t"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    if (!m || m->rank() > 2) return std::nullopt;
    TensorMeta r = *m;
    if (r.rank() == 2) std::swap(r.shape[0], r.shape[1]);
    return Metas{r};
  };
  t["transpose"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    auto a = c.integer(1), b = c.integer(2);
    if (!m || !a || !b) return std::nullopt;
    int64_t x = wrapDim(*a, m->rank()), y = wrapDim(*b, m->rank());
    if (x < 0 || y < 0 || x >= m->rank() || y >= m->rank()) return std::nullopt;
    TensorMeta r = *m;
    std::swap(r.shape[x], r.shape[y]);
    return Metas{r};
  };
  t["permute"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    auto p = c.ints(1, "dims");
    if (!m || !p || static_cast<int>(p->size()) != m->rank()) return std::nullopt;
    TensorMeta r = *m;
    for (size_t i = 0; i < p->size(); ++i) {
      int64_t d = wrapDim((*p)[i], m->rank());
      if (d < 0 || d >= m->rank()) return std::nullopt;
      r.shape[i] = m->shape[d];
    }
    return Metas{r};
  };
  t["unsqueeze"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    auto d = c.integer(1, "dim");
    if (!m || !d) return std::nullopt;
    int64_t x = wrapDim(*d, m->rank() + 1);
    if (x < 0 || x > m->rank()) return std::nullopt;
    TensorMeta r = *m;
    r.shape.insert(r.shape.begin() + x, 1);
    return Metas{r};
  };
  t["squeeze"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    if (!m) return std::nullopt;
    auto dims = c.ints(1, "dim");
    TensorMeta r = *m;
    r.shape.clear();
    for (int i = 0; i < m->rank(); ++i) {
      bool listed = !dims;
      if (dims)
        for (auto d : *dims) listed |= wrapDim(d, m->rank()) == i;
      if (!(listed && m->shape[i] == 1)) r.shape.push_back(m->shape[i]);
    }
    return Metas{r};
  };
  for (const char* op : {"sum", "mean", "amax", "amin", "prod", "logsumexp", "norm", "any", "all"})
    t[op] = [](const Ctx& c) { return reduce(c, true); };
  for (const char* op : {"var", "std"})
    t[op] = [](const Ctx& c) { return reduce(c, true); };
  t["var_mean"] = [](const Ctx& c) -> std::optional<Metas> {
    auto r = reduce(c, true);
    if (!r) return std::nullopt;
    return Metas{(*r)[0], (*r)[0]};
  };
  for (const char* op : {"max", "min"})
    t[op] = [](const Ctx& c) -> std::optional<Metas> {
      if (c.arg(1) && c.arg(1)->isTensor()) return pointwise(c);
      auto r = reduce(c, true);
      if (!r) return std::nullopt;
      if (!c.arg(1)) return r;  // max.default: a scalar
      TensorMeta idx = (*r)[0];
      idx.dtype = DType::I64;
      return Metas{(*r)[0], idx};
    };
  for (const char* op : {"argmax", "argmin"})
    t[op] = [](const Ctx& c) { return reduce(c, true, DType::I64); };
  t["slice"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    if (!m) return std::nullopt;
    int64_t dim = wrapDim(c.integer(1, "dim").value_or(0), m->rank());
    if (dim < 0 || dim >= m->rank()) return std::nullopt;
    int64_t start = c.integer(2, "start").value_or(0), end = c.integer(3, "end").value_or(INT64_MAX);
    TensorMeta r = *m;
    r.shape[dim] = sliceLen(m->shape[dim], start, end, c.integer(4, "step").value_or(1));
    return Metas{r};
  };
  t["select"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    auto d = c.integer(1, "dim");
    if (!m || !d) return std::nullopt;
    int64_t x = wrapDim(*d, m->rank());
    if (x < 0 || x >= m->rank()) return std::nullopt;
    TensorMeta r = *m;
    r.shape.erase(r.shape.begin() + x);
    return Metas{r};
  };
  t["narrow"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    auto d = c.integer(1), len = c.integer(3);
    if (!m || !d || !len) return std::nullopt;
    int64_t x = wrapDim(*d, m->rank());
    if (x < 0 || x >= m->rank()) return std::nullopt;
    TensorMeta r = *m;
    r.shape[x] = *len;
    return Metas{r};
  };
  t["slice_backward"] = t["select_backward"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    auto s = c.ints(1, "input_sizes");
    if (!m || !s) return std::nullopt;
    return Metas{meta(*s, m->dtype)};
  };
  for (const char* op : {"cat", "stack"}) {
    bool stack = std::string_view(op) == "stack";
    t[op] = [stack](const Ctx& c) -> std::optional<Metas> {
      const Arg* list = c.arg(0);
      if (!list || !list->isList() || list->items.empty()) return std::nullopt;
      std::optional<TensorMeta> out;
      int64_t dim = c.integer(1, "dim").value_or(0), total = 0;
      for (auto& a : list->items) {
        if (!a.isTensor()) return std::nullopt;
        const TensorMeta* m = c.meta(a.t);
        if (!m) return std::nullopt;
        if (!stack && m->rank() == 1 && m->shape[0] == 0) continue;  // legacy empty tensors are skipped
        int64_t d = wrapDim(dim, m->rank() + (stack ? 1 : 0));
        if (d < 0 || d > m->rank() || (!stack && d == m->rank())) return std::nullopt;
        if (!out) {
          out = *m;
          dim = d;
        } else {
          bool fits = m->rank() == out->rank() + (stack ? 0 : 0);
          for (int k = 0; fits && k < m->rank(); ++k) fits = (k == dim && !stack) || m->shape[k] == out->shape[k];
          if (!fits)
            return c.failArg(&a, c.title() + ": input " + std::to_string(&a - list->items.data()) + " has shape " +
                                  shapeToString(m->shape) + ", which does not go with " + shapeToString(out->shape) +
                                  " outside dim " + std::to_string(dim));
        }
        total += stack ? 1 : m->shape[d];
      }
      if (!out) return std::nullopt;
      if (stack) out->shape.insert(out->shape.begin() + dim, total);
      else out->shape[dim] = total;
      return Metas{*out};
    };
  }
  t["split"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    auto sz = c.integer(1, "split_size");
    if (!m || !sz || *sz <= 0) return std::nullopt;
    int64_t dim = wrapDim(c.integer(2, "dim").value_or(0), m->rank());
    if (dim < 0 || dim >= m->rank()) return std::nullopt;
    // More pieces than a graph gives getitems for (a dim of 2^53 split by 1) are not inferred: never a vector of
    // a tensor dim's size.
    if (m->shape[dim] < 0 || m->shape[dim] / *sz > kMaxInferredPieces) return std::nullopt;
    Shape sizes;
    for (int64_t left = m->shape[dim]; left > 0; left -= *sz) sizes.push_back(std::min(left, *sz));
    return splitInto(*m, dim, sizes);
  };
  t["split_with_sizes"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    auto sizes = c.ints(1, "split_sizes");
    if (!m || !sizes) return std::nullopt;
    int64_t dim = wrapDim(c.integer(2, "dim").value_or(0), m->rank());
    if (dim < 0 || dim >= m->rank()) return std::nullopt;
    return splitInto(*m, dim, *sizes);
  };
  t["chunk"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    auto n = c.integer(1, "chunks");
    if (!m || !n || *n <= 0) return std::nullopt;
    int64_t dim = wrapDim(c.integer(2, "dim").value_or(0), m->rank());
    if (dim < 0 || dim >= m->rank()) return std::nullopt;
    if (m->shape[dim] < 0 || *n > kMaxInferredPieces) return std::nullopt;
    const int64_t each = m->shape[dim] / *n + (m->shape[dim] % *n != 0);  // ceil, without overflow
    Shape sizes;
    for (int64_t left = m->shape[dim]; left > 0; left -= each) sizes.push_back(std::min(left, each));
    return splitInto(*m, dim, sizes);
  };
  t["unbind"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    if (!m || m->rank() == 0) return std::nullopt;
    int64_t dim = wrapDim(c.integer(1, "dim").value_or(0), m->rank());
    if (dim < 0 || dim >= m->rank()) return std::nullopt;
    TensorMeta one = *m;
    one.shape.erase(one.shape.begin() + dim);
    if (m->shape[dim] < 0 || m->shape[dim] > kMaxInferredPieces) return std::nullopt;  // symbolic, or not a real unbind
    return Metas(m->shape[dim], one);
  };
}

}  // namespace ss::ops::detail
