// The op table's shape rules, part: complex views, padding, sorting, MoE routing, attention variants,
// higher-order ops, symbolic scalars. See op_shapes_detail.h.
#include <algorithm>
#include <numeric>

#include "core/model/layout.h"
#include "core/ops/op_shapes_detail.h"

namespace ss::ops::detail {

// Complex views, padding, sorting, MoE routing, attention variants, higher-order ops and symbolic scalars.
void addSpecialRules(RuleTable& t) {
  // ---- complex views, padding, sorting, MoE routing ----
  t["view_as_complex"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    if (!m) return std::nullopt;
    if (m->rank() == 0 || m->shape.back() != 2)
      return c.fail(0, c.title() + ": the last dim of " + shapeToString(m->shape) + " must be 2 (real, imaginary)");
    return Metas{meta(Shape(m->shape.begin(), m->shape.end() - 1), DType::C64)};
  };
  t["view_as_real"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    if (!m) return std::nullopt;
    Shape s = m->shape;
    s.push_back(2);
    return Metas{meta(s, DType::F32)};
  };
  t["constant_pad_nd"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    auto pad = c.ints(1, "pad");
    if (!m || !pad || pad->size() % 2 || static_cast<int>(pad->size() / 2) > m->rank()) return std::nullopt;
    Shape s = m->shape;
    for (size_t i = 0; i < pad->size() / 2; ++i) s[s.size() - 1 - i] += (*pad)[2 * i] + (*pad)[2 * i + 1];
    if (std::any_of(s.begin(), s.end(), [](int64_t x) { return x < 0; }))
      return c.fail(0, c.title() + ": padding " + shapeToString(*pad) + " leaves a negative size of " + shapeToString(m->shape));
    return Metas{meta(s, m->dtype)};
  };
  t["cumsum"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    if (!m) return std::nullopt;
    TensorMeta r = *m;
    if (auto d = c.dtype(2, "dtype")) r.dtype = *d;
    else if (!isFloat(m->dtype)) r.dtype = DType::I64;  // integer and bool inputs accumulate in int64
    return Metas{r};
  };
  // sort(self, dim=-1, descending) / sort.stable(self, *, stable, dim, descending): values and int64 indices.
  t["sort"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    if (!m) return std::nullopt;
    TensorMeta idx = *m;
    idx.dtype = DType::I64;
    return Metas{*m, idx};
  };
  t["topk"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    auto k = c.integer(1, "k");
    if (!m || !k) return std::nullopt;
    auto d = rules::normDim(c.integer(2, "dim").value_or(-1), m->rank());
    if (!d) return std::nullopt;
    if (*k < 0 || (m->rank() > 0 && *k > m->shape[*d]))
      return c.fail(0, c.title() + ": k = " + std::to_string(*k) + " is more than dim " + std::to_string(*d) + " of " +
                           shapeToString(m->shape) + " holds");
    TensorMeta v = *m;
    if (v.rank() > 0) v.shape[*d] = *k;
    TensorMeta idx = v;
    idx.dtype = DType::I64;
    return Metas{v, idx};
  };
  t["histc"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    if (!m) return std::nullopt;
    return Metas{meta({c.integer(1, "bins").value_or(100)}, m->dtype)};
  };
  // _grouped_mm(a, b, offs, bias, out_dtype): MoE expert matmuls, as PyTorch's meta function shapes them.
  t["_grouped_mm"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta *a = c.tensor(0), *b = c.tensor(1);
    if (!a || !b || a->rank() < 2 || a->rank() > 3 || b->rank() < 2 || b->rank() > 3) return std::nullopt;
    const int64_t ka = a->shape.back(), kb = b->shape[b->rank() - 2];
    if (ka != kb)
      return c.fail(1, c.title() + ": " + shapeToString(a->shape) + " @ " + shapeToString(b->shape) +
                           ": the contracted dims differ (" + std::to_string(ka) + " and " + std::to_string(kb) + ")");
    Shape s;
    if (a->rank() == 2 && b->rank() == 2) {
      const TensorMeta* offs = c.tensor(2, "offs");
      if (!offs || offs->rank() != 1) return std::nullopt;
      s = {offs->shape[0], a->shape[0], b->shape[1]};
    } else if (a->rank() == 2) {
      s = {a->shape[0], b->shape[2]};
    } else if (b->rank() == 2) {
      s = {a->shape[1], b->shape[1]};
    } else {
      if (a->shape[0] != b->shape[0])
        return c.fail(1, c.title() + ": " + shapeToString(a->shape) + " @ " + shapeToString(b->shape) + ": the group dims differ");
      s = {a->shape[0], a->shape[1], b->shape[2]};
    }
    return Metas{meta(s, c.dtype(4, "out_dtype").value_or(a->dtype))};
  };
  // ---- attention ----
  // _scaled_dot_product_cudnn_attention(q, k, v, attn_bias, compute_log_sumexp, dropout_p, is_causal, ...):
  // (out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, philox_seed, philox_offset, debug_attn_mask).
  t["_scaled_dot_product_cudnn_attention"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta *q = c.tensor(0), *k = c.tensor(1), *v = c.tensor(2);
    if (!q || !k || !v || q->rank() != 4 || k->rank() != 4 || v->rank() != 4) return std::nullopt;
    if (q->shape[3] != k->shape[3] || k->shape[2] != v->shape[2])
      return c.fail(1, c.title() + ": query " + shapeToString(q->shape) + ", key " + shapeToString(k->shape) +
                           " and value " + shapeToString(v->shape) + " do not go together");
    Shape out = q->shape;
    out[3] = v->shape[3];
    const TensorMeta unknown{{}, DType::Unknown, false};
    return Metas{meta(out, q->dtype), meta({q->shape[0], q->shape[1], q->shape[2]}, DType::F32), unknown, unknown,
                 scalarOut()[0], scalarOut()[0], meta({}, DType::I64), meta({}, DType::I64), unknown};
  };
  t["_scaled_dot_product_cudnn_attention_backward"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta *q = c.tensor(1), *k = c.tensor(2), *v = c.tensor(3);
    if (!q || !k || !v) return std::nullopt;
    return Metas{*q, *k, *v};
  };
  // flex_attention(q, k, v, score_mod, block_mask, scale, kernel_options, ...): (out, logsumexp[, max]).
  t["higher_order.flex_attention"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta *q = c.tensor(0), *v = c.tensor(2);
    if (!q || !v || q->rank() != 4 || v->rank() != 4) return std::nullopt;
    Shape out = q->shape;
    out[3] = v->shape[3];
    const TensorMeta stat = meta({q->shape[0], q->shape[1], q->shape[2]}, DType::F32);
    return Metas{meta(out, q->dtype), stat, stat};
  };
  // flex_attention_backward(q, k, v, out, logsumexp, grad_out, grad_logsumexp, fw_graph, joint_graph, ...):
  // (grad_q, grad_k, grad_v, grads of the score_mod buffers).
  t["higher_order.flex_attention_backward"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta *q = c.tensor(0), *k = c.tensor(1), *v = c.tensor(2);
    if (!q || !k || !v) return std::nullopt;
    return Metas{*q, *k, *v, TensorMeta{{}, DType::Unknown, false}};
  };
  // triton_kernel_wrapper_functional(kernel_idx, constant_args_idx, grid, tma_descriptor_metadata, kwargs,
  // tensors_to_clone): a dict of the cloned kwargs, output k = tensors_to_clone[k] (the FX reader numbers
  // `proxy['name']` so).
  t["higher_order.triton_kernel_wrapper_functional"] = [](const Ctx& c) -> std::optional<Metas> {
    const Arg *kw = c.arg(4, "kwargs"), *clone = c.arg(5, "tensors_to_clone");
    if (!kw || !clone || !kw->isList() || !clone->isList()) return std::nullopt;
    Metas out;
    for (const Arg& name : clone->items) {
      TensorMeta m{{}, DType::Unknown, false};
      for (const Arg& pair : kw->items)
        if (pair.isList() && pair.items.size() == 2 && pair.items[0].kind == Arg::Kind::String &&
            pair.items[0].s == name.s && pair.items[1].isTensor())
          if (const TensorMeta* x = c.lookup(pair.items[1].t)) m = *x;  // a symbolic or unknown meta too
      out.push_back(m);
    }
    if (out.empty()) return std::nullopt;
    return out;
  };
  // ---- symbolic scalars: sizes and values read at run time (MoE token counts) ----
  t["_local_scalar_dense"] = [](const Ctx& c) -> std::optional<Metas> {
    const TensorMeta* m = c.tensor(0);
    if (!m) return std::nullopt;
    if (m->numel() != 1)
      return c.fail(0, c.title() + " reads one element, but its input has shape " + shapeToString(m->shape));
    return scalarOut(isFloat(m->dtype) ? DType::F64 : m->dtype == DType::Bool ? DType::Bool : DType::I64);
  };
  for (const char* op : {"sym_size", "sym_numel", "sym_stride", "sym_storage_offset", "torch.sym_sum",
                         "torch.sym_max", "torch.sym_min", "torch.sym_int", "torch.sym_not", "torch.sym_ite"})
    t[op] = [](const Ctx& c) -> std::optional<Metas> {
      if (c.n.opName() == "sym_size") {
        const TensorMeta* m = c.tensor(0);
        auto d = c.integer(1, "dim");
        if (m && d && !rules::normDim(*d, m->rank()))
          return c.fail(0, c.title() + ": dim " + std::to_string(*d) + " is out of range for " + shapeToString(m->shape));
      }
      return scalarOut();
    };
  t["_assert_scalar"] = [](const Ctx&) -> std::optional<Metas> { return scalarOut(DType::Bool); };
  t["getitem"] = [](const Ctx& c) -> std::optional<Metas> {
    const Arg* a = c.arg(0);
    if (!a || !a->isTensor()) return std::nullopt;
    const TensorMeta* m = c.meta(a->t);
    if (!m) return std::nullopt;
    return Metas{*m};
  };
}

}  // namespace ss::ops::detail
