// Shape rules for FX graphs without annotations. Sections: helpers (args, broadcasting, dtype promotion),
// the rule table by op name, the driver.
#include "core/io/fx_infer.h"

#include <algorithm>

#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_map>

namespace ss::fx {
namespace {

using Metas = std::vector<TensorMeta>;
using Shape = std::vector<int64_t>;

struct Ctx {
  const Graph& g;
  const Node& n;
  // Positional arg k, or keyword `kw` when given by name.
  const Arg* arg(size_t k, std::string_view kw = {}) const {
    if (!kw.empty())
      for (auto& [name, v] : n.kwargs)
        if (name == kw) return &v;
    return k < n.args.size() ? &n.args[k] : nullptr;
  }
  const TensorMeta* tensor(size_t k) const {
    const Arg* a = arg(k);
    if (!a || !a->isTensor()) return nullptr;
    const TensorMeta* m = g.meta(a->t);
    return m && m->known ? m : nullptr;
  }
  std::optional<int64_t> integer(size_t k, std::string_view kw = {}) const {
    const Arg* a = arg(k, kw);
    if (a && a->isInt()) return a->i;
    return std::nullopt;
  }
  std::optional<Shape> ints(size_t k, std::string_view kw = {}) const {
    const Arg* a = arg(k, kw);
    if (!a) return std::nullopt;
    if (a->isInt()) return Shape{a->i};
    if (!a->isList()) return std::nullopt;
    Shape s;
    for (auto& x : a->items) {
      if (!x.isInt()) return std::nullopt;
      s.push_back(x.i);
    }
    return s;
  }
  bool flag(size_t k, std::string_view kw, bool dflt) const {
    const Arg* a = arg(k, kw);
    return a && a->kind == Arg::Kind::Bool ? a->b : dflt;
  }
  std::optional<DType> dtype(size_t k, std::string_view kw) const {
    const Arg* a = arg(k, kw);
    if (a && a->kind == Arg::Kind::DType) return a->dt;
    // keyword-only dtype
    for (auto& [name, v] : n.kwargs)
      if (name == kw && v.kind == Arg::Kind::DType) return v.dt;
    return std::nullopt;
  }
};

TensorMeta meta(Shape s, DType d) { return TensorMeta{std::move(s), d, true}; }
int64_t wrapDim(int64_t d, int64_t rank) { return d < 0 ? d + rank : d; }
bool isFloat(DType d) { return d == DType::F32 || d == DType::F16 || d == DType::BF16 || d == DType::F64 || d == DType::C64; }

std::optional<Shape> broadcast(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[out.size() - 1 - i] = x == 1 ? y : x;
  }
  return out;
}

// Pointwise over every tensor and number argument (positional): broadcast shapes, promote dtypes. Dimensioned
// tensors win over 0-dim ones and numbers within a category; floating beats integer beats bool.
std::optional<Metas> pointwise(const Ctx& c, bool boolResult = false) {
  Shape s;
  DType best = DType::Unknown;
  int bestRank = -1, bestCat = -1;
  bool sawTensor = false, sawFloatScalar = false;
  for (const auto& a : c.n.args) {
    if (a.isTensor()) {
      const TensorMeta* m = c.g.meta(a.t);
      if (!m || !m->known) return std::nullopt;
      auto b = broadcast(s, m->shape);
      if (!b) return std::nullopt;
      s = *b;
      sawTensor = true;
      int cat = isFloat(m->dtype) ? 2 : m->dtype == DType::Bool ? 0 : 1;
      int rank = m->rank() > 0 ? 1 : 0;
      if (cat > bestCat || (cat == bestCat && rank > bestRank)) {
        best = m->dtype;
        bestCat = cat;
        bestRank = rank;
      }
    } else if (a.kind == Arg::Kind::Float) {
      sawFloatScalar = true;
    }
  }
  if (!sawTensor) return std::nullopt;
  if (sawFloatScalar && bestCat < 2) best = DType::F32;
  return Metas{meta(s, boolResult ? DType::Bool : best)};
}

std::optional<Metas> same(const Ctx& c, size_t k = 0) {
  const TensorMeta* m = c.tensor(k);
  if (!m) return std::nullopt;
  return Metas{*m};
}

std::optional<Metas> reduce(const Ctx& c, bool allByDefault, std::optional<DType> forced = std::nullopt) {
  const TensorMeta* m = c.tensor(0);
  if (!m) return std::nullopt;
  auto dims = c.ints(1, "dim");
  bool keep = c.flag(2, "keepdim", false);
  DType dt = forced ? *forced : c.dtype(3, "dtype").value_or(m->dtype);
  if (!dims || dims->empty()) {
    if (!allByDefault && dims) return std::nullopt;
    return Metas{meta(keep ? Shape(m->rank(), 1) : Shape{}, dt)};
  }
  std::vector<bool> red(m->rank(), false);
  for (auto d : *dims) {
    d = wrapDim(d, m->rank());
    if (d < 0 || d >= m->rank()) return std::nullopt;
    red[d] = true;
  }
  Shape s;
  for (int i = 0; i < m->rank(); ++i) {
    if (!red[i]) s.push_back(m->shape[i]);
    else if (keep) s.push_back(1);
  }
  return Metas{meta(s, dt)};
}

std::optional<Shape> viewShape(const TensorMeta& in, Shape want) {
  int64_t numel = in.numel(), known = 1;
  int infer = -1;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] == -1) {
      if (infer >= 0) return std::nullopt;
      infer = static_cast<int>(i);
    } else {
      known *= want[i];
    }
  }
  if (infer >= 0) {
    if (known == 0) return std::nullopt;
    want[infer] = numel / known;
  }
  return want;
}

int64_t sliceLen(int64_t size, int64_t start, int64_t end, int64_t step) {
  auto clamp = [&](int64_t v) {
    if (v < 0) v += size;
    return std::max<int64_t>(0, std::min(v, size));
  };
  int64_t s = clamp(start), e = clamp(end);
  if (e <= s || step <= 0) return 0;
  return (e - s + step - 1) / step;
}

std::optional<Metas> splitInto(const TensorMeta& m, int64_t dim, const Shape& sizes) {
  Metas out;
  for (auto sz : sizes) {
    TensorMeta t = m;
    t.shape[dim] = sz;
    out.push_back(t);
  }
  return out;
}

using Rule = std::function<std::optional<Metas>(const Ctx&)>;

const std::unordered_map<std::string, Rule>& rules() {
  static const std::unordered_map<std::string, Rule> table = [] {
    std::unordered_map<std::string, Rule> t;
    auto sameRule = [](const Ctx& c) { return same(c); };
    for (const char* op :
         {"abs", "neg", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "relu", "silu", "gelu", "sigmoid", "tanh",
          "sin", "cos", "erf", "reciprocal", "clone", "contiguous", "alias", "detach", "zeros_like", "ones_like",
          "empty_like", "rand_like", "randn_like", "bitwise_not", "logical_not", "_softmax", "_log_softmax", "softmax",
          "log_softmax", "wait_tensor", "all_reduce", "broadcast", "copy", "copy_", "lift_fresh_copy", "fill",
          "gelu_backward", "silu_backward", "threshold_backward", "tanh_backward", "sigmoid_backward",
          "native_dropout_backward", "masked_fill", "clamp", "clamp_min", "clamp_max", "hardtanh", "leaky_relu",
          "elu", "sign", "floor", "ceil", "round", "trunc", "frac", "square", "index_put", "index_put_", "scatter",
          "scatter_add", "scatter_reduce", "nll_loss_backward", "slice_scatter", "select_scatter", "tril", "triu",
          "cumsum", "_unsafe_index_put", "index_add", "index_copy", "relu_", "dropout", "resize_", "set_", "detach_"})
      t[op] = sameRule;
    for (const char* op : {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "rsub", "floor_divide", "remainder",
                           "atan2", "where", "lerp", "addcmul", "addcdiv", "fmod", "bitwise_and", "bitwise_or",
                           "bitwise_xor", "logical_and", "logical_or", "logical_xor", "copysign", "hypot", "xlogy"})
      t[op] = [](const Ctx& c) { return pointwise(c); };
    for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf"})
      t[op] = [](const Ctx& c) { return pointwise(c, true); };
    for (const char* op : {"_to_copy", "to", "convert_element_type", "_to_dtype"})
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
    t["mm"] = [](const Ctx& c) -> std::optional<Metas> {
      const TensorMeta *a = c.tensor(0), *b = c.tensor(1);
      if (!a || !b || a->rank() != 2 || b->rank() != 2) return std::nullopt;
      return Metas{meta({a->shape[0], b->shape[1]}, a->dtype)};
    };
    t["bmm"] = [](const Ctx& c) -> std::optional<Metas> {
      const TensorMeta *a = c.tensor(0), *b = c.tensor(1);
      if (!a || !b || a->rank() != 3 || b->rank() != 3) return std::nullopt;
      return Metas{meta({a->shape[0], a->shape[1], b->shape[2]}, a->dtype)};
    };
    t["addmm"] = [](const Ctx& c) -> std::optional<Metas> {
      const TensorMeta *a = c.tensor(1), *b = c.tensor(2);
      if (!a || !b || a->rank() != 2 || b->rank() != 2) return std::nullopt;
      return Metas{meta({a->shape[0], b->shape[1]}, a->dtype)};
    };
    t["baddbmm"] = [](const Ctx& c) -> std::optional<Metas> {
      const TensorMeta *a = c.tensor(1), *b = c.tensor(2);
      if (!a || !b || a->rank() != 3 || b->rank() != 3) return std::nullopt;
      return Metas{meta({a->shape[0], a->shape[1], b->shape[2]}, a->dtype)};
    };
    t["linear"] = [](const Ctx& c) -> std::optional<Metas> {
      const TensorMeta *x = c.tensor(0), *w = c.tensor(1);
      if (!x || !w || x->rank() < 1 || w->rank() != 2) return std::nullopt;
      Shape s = x->shape;
      s.back() = w->shape[0];
      return Metas{meta(s, x->dtype)};
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
    for (const char* op : {"view", "reshape", "_unsafe_view", "_reshape_alias"})
      t[op] = [](const Ctx& c) -> std::optional<Metas> {
        const TensorMeta* m = c.tensor(0);
        auto s = c.ints(1, "size");
        if (!m || !s) return std::nullopt;
        auto v = viewShape(*m, *s);
        if (!v) return std::nullopt;
        return Metas{meta(*v, m->dtype)};
      };
    t["expand"] = [](const Ctx& c) -> std::optional<Metas> {
      const TensorMeta* m = c.tensor(0);
      auto s = c.ints(1, "size");
      if (!m || !s || s->size() < m->shape.size()) return std::nullopt;
      size_t off = s->size() - m->shape.size();
      for (size_t i = 0; i < s->size(); ++i)
        if ((*s)[i] == -1) {
          if (i < off) return std::nullopt;
          (*s)[i] = m->shape[i - off];
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
          const TensorMeta* m = c.g.meta(a.t);
          if (!m || !m->known) return std::nullopt;
          if (!stack && m->rank() == 1 && m->shape[0] == 0) continue;  // legacy empty tensors are skipped
          int64_t d = wrapDim(dim, m->rank() + (stack ? 1 : 0));
          if (d < 0 || d > m->rank() || (!stack && d == m->rank())) return std::nullopt;
          if (!out) {
            out = *m;
            dim = d;
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
      int64_t each = (m->shape[dim] + *n - 1) / *n;
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
      return Metas(m->shape[dim], one);
    };
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
      // advanced indexing with adjacent index tensors: x[:k] + broadcast(index shapes) + x[k+n:]
      const TensorMeta* m = c.tensor(0);
      const Arg* list = c.arg(1, "indices");
      if (!m || !list || !list->isList()) return std::nullopt;
      int first = -1, count = 0;
      Shape idxShape;
      for (size_t i = 0; i < list->items.size(); ++i) {
        const Arg& a = list->items[i];
        if (a.kind == Arg::Kind::None) continue;
        if (!a.isTensor()) return std::nullopt;
        const TensorMeta* im = c.g.meta(a.t);
        if (!im || !im->known) return std::nullopt;
        if (first >= 0 && static_cast<int>(i) != first + count) return std::nullopt;  // non-adjacent: rare
        if (first < 0) first = static_cast<int>(i);
        ++count;
        Shape s = im->shape;
        if (im->dtype == DType::Bool) return std::nullopt;  // data-dependent size
        auto b = broadcast(idxShape, s);
        if (!b) return std::nullopt;
        idxShape = *b;
      }
      if (first < 0 || first + count > m->rank()) return std::nullopt;
      Shape s(m->shape.begin(), m->shape.begin() + first);
      s.insert(s.end(), idxShape.begin(), idxShape.end());
      s.insert(s.end(), m->shape.begin() + first + count, m->shape.end());
      return Metas{meta(s, m->dtype)};
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
    t["native_layer_norm_backward"] = [](const Ctx& c) -> std::optional<Metas> {
      const TensorMeta* x = c.tensor(1);
      auto ns = c.ints(2, "normalized_shape");
      if (!x || !ns) return std::nullopt;
      return Metas{*x, meta(*ns, x->dtype), meta(*ns, x->dtype)};
    };
    t["native_dropout"] = [](const Ctx& c) -> std::optional<Metas> {
      const TensorMeta* x = c.tensor(0);
      if (!x) return std::nullopt;
      return Metas{*x, meta(x->shape, DType::Bool)};
    };
    t["all_gather_into_tensor"] = [](const Ctx& c) -> std::optional<Metas> {
      const TensorMeta* x = c.tensor(0);
      auto gs = c.integer(1, "group_size");
      if (!x || !gs || x->rank() == 0) return std::nullopt;
      TensorMeta r = *x;
      r.shape[0] *= *gs;
      return Metas{r};
    };
    t["reduce_scatter_tensor"] = [](const Ctx& c) -> std::optional<Metas> {
      const TensorMeta* x = c.tensor(0);
      auto gs = c.integer(2, "group_size");
      if (!x || !gs || *gs <= 0 || x->rank() == 0) return std::nullopt;
      TensorMeta r = *x;
      r.shape[0] /= *gs;
      return Metas{r};
    };
    t["all_to_all_single"] = [](const Ctx& c) -> std::optional<Metas> {
      const TensorMeta* x = c.tensor(0);
      if (!x) return std::nullopt;
      TensorMeta r = *x;
      if (auto out = c.ints(1, "output_split_sizes"); out && !out->empty() && r.rank() > 0)
        r.shape[0] = std::accumulate(out->begin(), out->end(), int64_t{0});
      return Metas{r};
    };
    return t;
  }();
  return table;
}

}  // namespace

int inferShapes(Graph& g, std::vector<std::string>& unresolved, const std::vector<bool>* annotated) {
  struct Miss {
    int count = 0;
    std::string first;
  };
  std::map<std::string, Miss> misses;
  int inferred = 0;
  for (int i = 0; i < g.size(); ++i) {
    Node& n = g.nodes[i];
    if (n.kind != NodeKind::Call) continue;
    bool anyUnknown = n.outputs.empty();
    for (auto& m : n.outputs) anyUnknown |= !m.known;
    bool rederive = annotated && i < static_cast<int>(annotated->size()) && !(*annotated)[i];
    if (!anyUnknown && !rederive) continue;
    std::optional<Metas> r;
    if (n.op == "operator.getitem") {
      if (!n.args.empty() && n.args[0].isTensor()) {
        const TensorMeta* m = g.meta(n.args[0].t);
        if (m && m->known) r = Metas{*m};
      }
    } else {
      auto it = rules().find(n.opName());
      if (it != rules().end()) r = it->second(Ctx{g, n});
    }
    // A rule computes from literal sizes as written: a shape no tensor can have (expand to -14) is not inferred.
    if (r)
      for (TensorMeta& m : *r)
        if (m.known && !shapeWithinLimits(m.shape)) m = TensorMeta{{}, DType::Unknown, false};
    if (r && std::none_of(r->begin(), r->end(), [](const TensorMeta& m) { return m.known; })) r.reset();
    if (!r || r->empty()) {
      if (!anyUnknown) continue;
      Miss& m = misses[n.op];
      if (m.count++ == 0) m.first = n.name;
      continue;
    }
    // Keep what was known (a getitem annotation may have filled one output of a tuple already).
    if (r->size() < n.outputs.size()) r->resize(n.outputs.size(), TensorMeta{{}, DType::Unknown, false});
    for (size_t k = 0; k < n.outputs.size(); ++k)
      if (n.outputs[k].known) (*r)[k] = n.outputs[k];
    if (*r == n.outputs) continue;
    n.outputs = std::move(*r);
    ++inferred;
  }
  for (auto& [op, m] : misses)
    unresolved.push_back(op + ": " + std::to_string(m.count) + (m.count == 1 ? " node" : " nodes") + " (first " +
                         m.first + ")");
  return inferred;
}

}  // namespace ss::fx
