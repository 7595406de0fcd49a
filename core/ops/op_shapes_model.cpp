// The op table's shape rules, part: indexing, factories, losses, attention, norms, dropout and collectives.
// See op_shapes_detail.h.
#include <algorithm>
#include <numeric>

#include "core/model/layout.h"
#include "core/model/limits.h"
#include "core/model/saturate.h"
#include "core/ops/op_shapes_detail.h"

namespace ss::ops::detail {

// Indexing, factories, losses, attention, norms, dropout and collectives.
void addModelRules(RuleTable& t) {
  t["embedding"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta *w = c.tensor(0), *idx = c.tensor(1);
    if (!w || !idx || w->rank() != 2) return std::nullopt;
    Shape s = idx->shape;
    s.push_back(w->shape[1]);
    return Metas{meta(s, w->dtype)};
  };
  t["embedding_dense_backward"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* g = c.tensor(0);
    auto n = c.integer(2, "num_weights");
    if (!g || !n || g->rank() == 0) return std::nullopt;
    return Metas{meta({*n, g->shape.back()}, g->dtype)};
  };
  t["index_select"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta *m = c.tensor(0), *idx = c.tensor(2);
    auto d = c.integer(1, "dim");
    if (!m || !idx || !d) return std::nullopt;
    int64_t x = wrapDim(*d, m->rank());
    if (x < 0 || x >= m->rank()) return std::nullopt;
    TensorMeta r = *m;
    r.shape[x] = idx->numel();
    return Metas{r};
  };
  t["gather"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta *m = c.tensor(0), *idx = c.tensor(2);
    if (!m || !idx) return std::nullopt;
    return Metas{meta(idx->shape, m->dtype)};
  };
  t["index"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    if (!m) return std::nullopt;
    auto s = indexedShape(c, *m, c.arg(1, "indices"));
    if (!s) return std::nullopt;
    return Metas{meta(*s, m->dtype)};
  };
  // index_put(self, indices, values, accumulate): values broadcast to the slots the indices select.
  for (const char* op : {"index_put", "index_put_", "_unsafe_index_put"})
    t[op] = [](const Ctx& c) -> std::optional<Metas> {
      const TensorMeta* self = c.tensor(0);
      if (!self) return std::nullopt;
      const Arg* values = c.arg(2, "values");
      const TensorMeta* v = values && values->isTensor() ? c.meta(values->t) : nullptr;
      auto slot = indexedShape(c, *self, c.arg(1, "indices"));
      if (v && slot) {
        bool fits = v->rank() <= static_cast<int>(slot->size());
        for (int j = 0; fits && j < v->rank(); ++j) {
          int64_t x = v->shape[v->rank() - 1 - j], y = (*slot)[slot->size() - 1 - j];
          fits = x == y || x == 1;
        }
        if (!fits)
          return c.failArg(values, c.title() + ": values of shape " + shapeToString(v->shape) +
                                       " do not broadcast to the slots they fill in self, " + shapeToString(*slot));
      }
      return Metas{*self};
    };
  for (const char* op : {"full", "zeros", "ones", "empty", "rand", "randn", "empty_strided"})
    t[op] = [](const Ctx& c) -> std::optional<Metas> {
      auto s = c.ints(0, "size");
      if (!s) return std::nullopt;
      DType d = c.dtype(99, "dtype").value_or(DType::F32);
      return Metas{meta(*s, d)};
    };
  for (const char* op : {"new_zeros", "new_ones", "new_empty", "new_full"})
    t[op] = [](const Ctx& c) -> std::optional<Metas> {
      const TensorMeta* m = c.tensor(0);
      auto s = c.ints(1, "size");
      if (!m || !s) return std::nullopt;
      return Metas{meta(*s, c.dtype(99, "dtype").value_or(m->dtype))};
    };
  t["scalar_tensor"] = [](const Ctx& c) -> std::optional<Metas> {
    return Metas{meta({}, c.dtype(99, "dtype").value_or(DType::F32))};
  };
  t["arange"] = [](const Ctx& c) -> std::optional<Metas> {
    auto a = c.integer(0), b = c.integer(1);
    if (!a) return std::nullopt;
    int64_t n = b && c.n.args.size() >= 2 ? *b - *a : *a;
    int64_t step = c.integer(2, "step").value_or(1);
    if (step <= 0) return std::nullopt;
    return Metas{meta({std::max<int64_t>(0, (n + step - 1) / step)}, c.dtype(99, "dtype").value_or(DType::I64))};
  };
  t["iota"] = [](const Ctx& c) -> std::optional<Metas> {
    auto n = c.integer(0);
    if (!n) return std::nullopt;
    return Metas{meta({*n}, c.dtype(99, "dtype").value_or(DType::I64))};
  };
  t["nll_loss_forward"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* x = c.tensor(0);
    if (!x) return std::nullopt;
    int64_t red = c.integer(3, "reduction").value_or(1);
    Shape s = red == 0 && x->rank() > 1 ? Shape{x->shape[0]} : Shape{};
    return Metas{meta(s, x->dtype), meta({}, x->dtype)};
  };
  t["_scaled_dot_product_efficient_attention"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta *q = c.tensor(0), *v = c.tensor(2);
    if (!q || !v || q->rank() != 4 || v->rank() != 4) return std::nullopt;
    Shape out = q->shape;
    out[3] = v->shape[3];
    bool lse = c.flag(4, "compute_log_sumexp", false);
    int64_t L = lse ? (q->shape[2] + 31) / 32 * 32 : 0;
    return Metas{meta(out, q->dtype), meta({q->shape[0], q->shape[1], L}, DType::F32), meta({}, DType::I64),
                 meta({}, DType::I64)};
  };
  t["_scaled_dot_product_flash_attention"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta *q = c.tensor(0), *v = c.tensor(2);
    if (!q || !v || q->rank() != 4 || v->rank() != 4) return std::nullopt;
    Shape out = q->shape;
    out[3] = v->shape[3];
    TensorMeta unknown{{}, DType::Unknown, false};
    return Metas{meta(out, q->dtype), meta({q->shape[0], q->shape[1], q->shape[2]}, DType::F32), unknown, unknown,
                 unknown, unknown, meta({}, DType::I64), meta({}, DType::I64), unknown};
  };
  for (const char* op : {"_scaled_dot_product_efficient_attention_backward",
                         "_scaled_dot_product_flash_attention_backward"})
    t[op] = [](const Ctx& c) -> std::optional<Metas> {
      const TensorMeta *q = c.tensor(1), *k = c.tensor(2), *v = c.tensor(3);
      if (!q || !k || !v) return std::nullopt;
      return Metas{*q, *k, *v, meta({0}, q->dtype)};  // grad of the (absent) bias: an empty tensor
    };
  t["native_layer_norm"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* x = c.tensor(0);
    auto ns = c.ints(1, "normalized_shape");
    if (!x || !ns || ns->size() > x->shape.size()) return std::nullopt;
    Shape stat(x->shape.begin(), x->shape.end() - ns->size());
    stat.resize(x->shape.size(), 1);
    DType sd = x->dtype == DType::BF16 || x->dtype == DType::F16 ? DType::F32 : x->dtype;
    return Metas{*x, meta(stat, sd), meta(stat, sd)};
  };
  // native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask): the
  // kernel reads one mean and rstd per row and one weight and bias per normalised element, trusting their sizes.
  t["native_layer_norm_backward"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* x = c.tensor(1);
    auto ns = c.ints(2, "normalized_shape");
    if (!x || !ns) return std::nullopt;
    if (ns->size() > x->shape.size() || !std::equal(ns->begin(), ns->end(), x->shape.end() - ns->size()))
      return c.fail(1, c.title() + ": input " + shapeToString(x->shape) + " does not end in normalized_shape " +
                           shapeToString(*ns));
    if (const TensorMeta* g = c.tensor(0); g && g->shape != x->shape)
      return c.fail(0, c.title() + ": grad_out " + shapeToString(g->shape) + " is not the input's shape " +
                           shapeToString(x->shape));
    const Shape rowShape(x->shape.begin(), x->shape.end() - ns->size());
    const int64_t rows = meta(rowShape, x->dtype).numel(), cols = meta(*ns, x->dtype).numel();
    const char* names[] = {"mean", "rstd", "weight", "bias"};
    for (int k = 3; k <= 6; ++k) {
      const TensorMeta* m = c.tensor(k);
      const int64_t want = k <= 4 ? rows : cols;
      if (m && m->numel() != want)
        return c.fail(k, c.title() + ": " + names[k - 3] + " of shape " + shapeToString(m->shape) + " holds " +
                             std::to_string(m->numel()) + " values, but input " + shapeToString(x->shape) +
                             " normalised over " + shapeToString(*ns) + " needs " + std::to_string(want) +
                             (k <= 4 ? " (one per row)" : " (one per normalised element)"));
    }
    return Metas{*x, meta(*ns, x->dtype), meta(*ns, x->dtype)};
  };
  t["native_dropout"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* x = c.tensor(0);
    if (!x) return std::nullopt;
    return Metas{*x, meta(x->shape, DType::Bool)};
  };
  // A group size the graph gives must be a number of ranks; a gathered dim 0 must stay inside a tensor's limits
  // (the graph is input: 2^20 ranks times a large dim, or INT64_MAX, is an error, never a wrapped size).
  auto badGroupSize = [](const Ctx& c, const Arg* at, int64_t gs) -> bool {
    if (gs >= 1 && gs <= limits::kMaxRanks) return false;
    c.failArg(at, c.title() + ": group_size " + std::to_string(gs) + " is not a number of ranks (1 to " +
                      std::to_string(limits::kMaxRanks) + ")");
    return true;
  };
  auto gathered = [](const Ctx& c, const Arg* at, const TensorMeta& x, int64_t gs) -> std::optional<TensorMeta> {
    TensorMeta r = x;
    const __int128 d0 = static_cast<__int128>(x.shape[0]) * gs;
    r.shape[0] = d0 <= limits::kMaxTensorDimSize ? static_cast<int64_t>(d0) : -1;
    if (r.shape[0] < 0 || !shapeWithinLimits(r.shape)) {
      c.failArg(at, c.title() + ": dim 0 of " + shapeToString(x.shape) + " gathered over " + std::to_string(gs) +
                        " ranks is past the limits of a tensor");
      return std::nullopt;
    }
    return r;
  };
  t["all_gather_into_tensor"] = [badGroupSize, gathered](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* x = c.tensor(0);
    auto gs = c.integer(1, "group_size");
    if (!x || !gs || x->rank() == 0) return std::nullopt;
    if (badGroupSize(c, c.arg(1, "group_size"), *gs)) return std::nullopt;
    auto r = gathered(c, c.arg(0), *x, *gs);
    if (!r) return std::nullopt;
    return Metas{*r};
  };
  t["reduce_scatter_tensor"] = [badGroupSize](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* x = c.tensor(0);
    auto gs = c.integer(2, "group_size");
    if (!x || !gs || x->rank() == 0) return std::nullopt;
    if (badGroupSize(c, c.arg(2, "group_size"), *gs)) return std::nullopt;
    if (x->shape[0] % *gs != 0)
      return c.fail(0, c.title() + ": dim 0 of " + shapeToString(x->shape) + " does not split into " + std::to_string(*gs) +
                           " equal parts (the group size)");
    TensorMeta r = *x;
    r.shape[0] /= *gs;
    return Metas{r};
  };
  // The coalesced forms take a list of tensors and return one output per tensor, each as the single form makes
  // it: all_gather_into_tensor_coalesced(inputs, group_size, group_name) multiplies dim 0 by the group size,
  // reduce_scatter_tensor_coalesced(inputs, reduce_op, group_size, group_name) divides it (evenly),
  // all_reduce_coalesced(inputs, reduce_op, group_name) keeps every shape.
  enum class Coalesced { Gather, Scatter, Reduce };
  auto coalesced = [badGroupSize, gathered](const Ctx& c, Coalesced kind) -> std::optional<Metas> {
    const Arg* list = c.arg(0, "inputs");
    if (!list || !list->isList() || list->items.empty()) return std::nullopt;
    std::optional<int64_t> gs;
    if (kind != Coalesced::Reduce) {
      const size_t k = kind == Coalesced::Gather ? 1 : 2;
      gs = c.integer(k, "group_size");
      if (!gs || badGroupSize(c, c.arg(k, "group_size"), *gs)) return std::nullopt;
    }
    Metas out;
    for (const Arg& x : list->items) {
      const TensorMeta* m = x.isTensor() ? c.meta(x.t) : nullptr;
      if (!m) return std::nullopt;
      TensorMeta r = *m;
      if (kind != Coalesced::Reduce && r.rank() == 0) return std::nullopt;
      if (kind == Coalesced::Gather) {
        auto g = gathered(c, &x, r, *gs);
        if (!g) return std::nullopt;
        r = *g;
      }
      if (kind == Coalesced::Scatter) {
        if (r.shape[0] % *gs != 0)
          return c.failArg(&x, c.title() + ": dim 0 of " + shapeToString(r.shape) + " does not split into " +
                                              std::to_string(*gs) + " equal parts (the group size)");
        r.shape[0] /= *gs;
      }
      out.push_back(std::move(r));
    }
    return out;
  };
  t["all_gather_into_tensor_coalesced"] = [coalesced](const Ctx& c) { return coalesced(c, Coalesced::Gather); };
  t["reduce_scatter_tensor_coalesced"] = [coalesced](const Ctx& c) { return coalesced(c, Coalesced::Scatter); };
  t["all_reduce_coalesced"] = [coalesced](const Ctx& c) { return coalesced(c, Coalesced::Reduce); };
  // all_to_all_single(input, output_split_sizes, input_split_sizes, group_name): dim 0 is re-cut by the splits.
  // Splits that are symbolic (token counts read at run time) leave the output size to the data.
  t["all_to_all_single"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* x = c.tensor(0);
    if (!x) return std::nullopt;
    TensorMeta r = *x;
    const Arg* out = c.arg(1, "output_split_sizes");
    // Split sizes the graph gives: not negative, and a sum inside a tensor dim's limit (never a wrapped sum).
    auto splitTotal = [&](const Shape& sizes, int k, const char* what) -> std::optional<int64_t> {
      int64_t total = 0;
      for (int64_t v : sizes) {
        if (v < 0) {
          c.fail(k, c.title() + ": " + what + " " + shapeToString(sizes) + " hold the negative size " + std::to_string(v));
          return std::nullopt;
        }
        total = satAdd(total, v);
      }
      if (total > limits::kMaxTensorDimSize) {
        c.fail(k, c.title() + ": " + what + " " + shapeToString(sizes) + " add up to more than a tensor dim may hold");
        return std::nullopt;
      }
      return total;
    };
    if (auto ins = c.ints(2, "input_split_sizes"); ins && !ins->empty() && x->rank() > 0) {
      const std::optional<int64_t> sum = splitTotal(*ins, 2, "the input splits");
      if (!sum) return std::nullopt;
      const int64_t total = *sum;
      if (total != x->shape[0])
        return c.fail(0, c.title() + ": the input splits " + shapeToString(*ins) + " add up to " + std::to_string(total) +
                             ", but dim 0 of the input " + shapeToString(x->shape) + " is " + std::to_string(x->shape[0]));
    }
    if (out && out->isList() && !out->items.empty() && r.rank() > 0) {
      auto outs = c.ints(1, "output_split_sizes");
      if (!outs) {
        r.shape[0] = -1;  // as load_args writes a symbolic size
        r.known = false;
        return Metas{r};
      }
      const std::optional<int64_t> sum = splitTotal(*outs, 1, "the output splits");
      if (!sum) return std::nullopt;
      r.shape[0] = *sum;
    }
    return Metas{r};
  };
  // _dtensor.shard_dim_alltoall(input, gather_dim, shard_dim, group_name): dim gather_dim grows by the group size
  // and dim shard_dim is cut by it. The group size is no argument (only the group's name), so it is read off the
  // declared output's gather dim, and the rule checks the rest of the output against it: the shard dim cut evenly,
  // every other dim kept. Without a declared output (or with gather_dim == shard_dim, where the shape is kept
  // whatever the size) nothing is computed that the text does not already say.
  t["shard_dim_alltoall"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* x = c.tensor(0);
    auto gd = c.integer(1, "gather_dim");
    auto sd = c.integer(2, "shard_dim");
    if (!x || !gd || !sd || x->rank() == 0) return std::nullopt;
    auto g = rules::normDim(*gd, x->rank()), s = rules::normDim(*sd, x->rank());
    if (!g || !s) return std::nullopt;
    if (*g == *s) return Metas{*x};
    const TensorMeta* declared = c.n.outputs.size() == 1 && c.n.outputs[0].known ? &c.n.outputs[0] : nullptr;
    if (!declared || declared->rank() != x->rank() || x->shape[*g] <= 0) return std::nullopt;
    const int64_t in = x->shape[*g], out = declared->shape[*g];
    if (out % in != 0 || out < in)
      return c.fail(0, c.title() + ": the output's dim " + std::to_string(*g) + " (" + std::to_string(out) +
                           ") is no whole multiple of the input's " + std::to_string(in) + " (input " +
                           shapeToString(x->shape) + " gathered on dim " + std::to_string(*g) + ")");
    const int64_t groupSize = out / in;
    if (x->shape[*s] % groupSize != 0)
      return c.fail(0, c.title() + ": dim " + std::to_string(*s) + " of " + shapeToString(x->shape) +
                           " does not split into " + std::to_string(groupSize) + " equal parts (the group size its " +
                           "output's dim " + std::to_string(*g) + " shows)");
    TensorMeta r = *x;
    r.shape[*g] *= groupSize;
    r.shape[*s] /= groupSize;
    return Metas{r};
  };
  // nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight): self's shape.
  for (const char* op : {"nll_loss_backward", "nll_loss2d_backward"})
    t[op] = [](const Ctx& c) { return same(c, 1); };
  t["flatten"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    if (!m) return std::nullopt;
    if (m->rank() == 0) return Metas{meta({1}, m->dtype)};
    auto a = rules::normDim(c.integer(1, "start_dim").value_or(0), m->rank());
    auto b = rules::normDim(c.integer(2, "end_dim").value_or(-1), m->rank());
    if (!a || !b || *a > *b) return std::nullopt;
    Shape s(m->shape.begin(), m->shape.begin() + *a);
    int64_t merged = 1;
    for (int d = *a; d <= *b; ++d) merged *= m->shape[d];
    s.push_back(merged);
    s.insert(s.end(), m->shape.begin() + *b + 1, m->shape.end());
    return Metas{meta(s, m->dtype)};
  };
  t["unflatten"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    auto d = c.integer(1, "dim");
    auto sizes = c.ints(2, "sizes");
    if (!m || !d || !sizes) return std::nullopt;
    auto dim = rules::normDim(*d, m->rank());
    if (!dim) return std::nullopt;
    TensorMeta one = meta({m->shape[*dim]}, m->dtype);
    auto inner = viewShape(one, *sizes);
    if (!inner) return std::nullopt;
    int64_t prod = 1;
    for (int64_t x : *inner) prod *= x;
    if (prod != m->shape[*dim])
      return c.fail(0, c.title() + ": dim " + std::to_string(*dim) + " of " + shapeToString(m->shape) +
                           " cannot unflatten into " + shapeToString(*sizes));
    Shape s(m->shape.begin(), m->shape.begin() + *dim);
    s.insert(s.end(), inner->begin(), inner->end());
    s.insert(s.end(), m->shape.begin() + *dim + 1, m->shape.end());
    return Metas{meta(s, m->dtype)};
  };
}

}  // namespace ss::ops::detail
