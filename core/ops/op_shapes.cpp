// The op table's shape facts (core/ops/op_shapes.h). Sections: the argument context, helpers (broadcasting,
// dtype promotion, views, indexing), the table by op key (rules::ruleKey spelling), the entry point.
#include "core/ops/op_shapes.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/layout.h"
#include "core/rules/engine.h"

namespace ss::ops {
namespace {


using Metas = std::vector<TensorMeta>;
using Shape = std::vector<int64_t>;

struct Ctx {
  const Node& n;
  const MetaLookup& lookup;
  ShapeResult* mismatch = nullptr;  // where fail() records why the inputs do not fit

  // A known meta, or one whose rank is known and some sizes symbolic (-1: data, as load_args writes them): rules
  // compute with -1 as one more size, and what comes out with a -1 is symbolic too (see inferOutputs).
  const TensorMeta* meta(TensorRef r) const {
    const TensorMeta* m = lookup(r);
    if (m && !m->known && allowSymbolic && symbolicRank(*m)) {
      if (sawSymbolic) *sawSymbolic = true;
      return m;
    }
    return m && m->known ? m : nullptr;
  }
  bool* sawSymbolic = nullptr;
  bool allowSymbolic = false;  // the op's rule does no arithmetic on sizes (kSymbolicSafe)
  // Rank known, sizes partly symbolic: sizes >= 0 and -1s, rank 2 or more (a bare {-1} is a tensor whose rank is
  // not known either).
  static bool symbolicRank(const TensorMeta& m) {
    if (m.shape.size() < 2) return false;
    bool any = false;
    for (int64_t x : m.shape) {
      if (x < -1) return false;
      any |= x == -1;
    }
    return any;
  }
  // Positional arg k, or keyword `kw` when given by name.
  const Arg* arg(size_t k, std::string_view kw = {}) const {
    if (!kw.empty())
      for (auto& [name, v] : n.kwargs)
        if (name == kw) return &v;
    return k < n.args.size() ? &n.args[k] : nullptr;
  }
  const TensorMeta* tensor(size_t k, std::string_view kw = {}) const {
    const Arg* a = arg(k, kw);
    if (!a || !a->isTensor()) return nullptr;
    return meta(a->t);
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
      if (x.isTensor()) {
        // A SymInt in a size list (`full([sym_size_int, 2048])`): a symbolic size, -1.
        const TensorMeta* m = lookup(x.t);
        if (!allowSymbolic || !m || m->known || !m->shape.empty() || (m->dtype != DType::I64 && m->dtype != DType::I32))
          return std::nullopt;
        if (sawSymbolic) *sawSymbolic = true;
        s.push_back(-1);
        continue;
      }
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
  // Input index (core/graph.h's numbering) of the tensor argument `a` of this node; -1 when it is none.
  int inputIndex(const Arg* a) const {
    int counter = 0, found = -1;
    std::function<bool(const Arg&)> walk = [&](const Arg& x) {
      if (&x == a) {
        found = x.isTensor() ? counter : -1;
        return true;
      }
      if (x.isTensor()) ++counter;
      if (x.isList())
        for (const Arg& y : x.items)
          if (walk(y)) return true;
      return false;
    };
    for (const Arg& x : n.args)
      if (walk(x)) return found;
    for (const auto& kv : n.kwargs)
      if (walk(kv.second)) return found;
    return -1;
  }
  // Records that the inputs do not fit (input: the tensor argument `a`, or none) and gives "no result".
  std::nullopt_t failArg(const Arg* a, std::string message) const {
    if (mismatch) {
      mismatch->verdict = ShapeVerdict::Mismatch;
      mismatch->input = a ? inputIndex(a) : -1;
      mismatch->message = std::move(message);
    }
    return std::nullopt;
  }
  // The same, naming the positional argument k (-1: the op as a whole).
  std::nullopt_t fail(int k, std::string message) const {
    return failArg(k >= 0 ? arg(static_cast<size_t>(k)) : nullptr, std::move(message));
  }
  std::string title() const { return std::string(rules::ruleKey(n.op)); }
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
      const TensorMeta* m = c.meta(a.t);
      if (!m) return std::nullopt;
      auto b = broadcast(s, m->shape);
      if (!b)
        return c.fail(static_cast<int>(&a - c.n.args.data()),
                      c.title() + ": shapes " + shapeToString(s) + " and " + shapeToString(m->shape) + " do not broadcast");
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


// mm/bmm (a at position ka, b at kb; addmm and baddbmm carry a bias first): [.., M, K] @ [.., K, N].
std::optional<Metas> matmulOf(const Ctx& c, size_t ka, size_t kb, bool batched) {
  const TensorMeta *a = c.tensor(ka), *b = c.tensor(kb);
  const int r = batched ? 3 : 2;
  if (!a || !b || a->rank() != r || b->rank() != r) return std::nullopt;
  const int64_t k1 = a->shape[r - 1], k2 = b->shape[r - 2];
  if (k1 != k2 || (batched && a->shape[0] != b->shape[0]))
    return c.fail(static_cast<int>(kb), c.title() + ": " + shapeToString(a->shape) + " @ " + shapeToString(b->shape) +
                                            (k1 != k2 ? ": the contracted dims differ (" + std::to_string(k1) + " and " +
                                                            std::to_string(k2) + ")"
                                                      : ": the batch dims differ"));
  Shape s = batched ? Shape{a->shape[0], a->shape[1], b->shape[2]} : Shape{a->shape[0], b->shape[1]};
  return Metas{meta(s, a->dtype)};
}

// A symbolic scalar (SymInt, SymBool): not a tensor, its value is data. One unknown meta of the scalar's dtype.
Metas scalarOut(DType d = DType::I64) { return Metas{TensorMeta{{}, d, false}}; }

// Advanced indexing: x[:first] + broadcast(index shapes) + x[first+count:] (adjacent index tensors). `list` is
// the indices argument (None entries are full slices). nullopt when unknown; fail()s when indices do not
// broadcast together.
std::optional<Shape> indexedShape(const Ctx& c, const TensorMeta& m, const Arg* list) {
  if (!list || !list->isList()) return std::nullopt;
  int first = -1, count = 0;
  Shape idxShape;
  for (size_t i = 0; i < list->items.size(); ++i) {
    const Arg& a = list->items[i];
    if (a.kind == Arg::Kind::None) continue;
    if (!a.isTensor()) return std::nullopt;
    const TensorMeta* im = c.meta(a.t);
    if (!im) return std::nullopt;
    if (first >= 0 && static_cast<int>(i) != first + count) return std::nullopt;  // non-adjacent: rare
    if (first < 0) first = static_cast<int>(i);
    ++count;
    if (im->dtype == DType::Bool) return std::nullopt;  // data-dependent size
    auto b = broadcast(idxShape, im->shape);
    if (!b)
      return c.failArg(&a, c.title() + ": index shapes " + shapeToString(idxShape) + " and " + shapeToString(im->shape) +
                                " do not broadcast");
    idxShape = *b;
  }
  if (first < 0 || first + count > m.rank()) return std::nullopt;
  Shape s(m.shape.begin(), m.shape.begin() + first);
  s.insert(s.end(), idxShape.begin(), idxShape.end());
  s.insert(s.end(), m.shape.begin() + first + count, m.shape.end());
  return s;
}

using Rule = std::function<std::optional<Metas>(const Ctx&)>;

const std::unordered_map<std::string, Rule>& rules() {
  static const std::unordered_map<std::string, Rule> table = [] {
    std::unordered_map<std::string, Rule> t;
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
      if (m->shape[dim] < 0 || m->shape[dim] > 4096) return std::nullopt;  // symbolic, or not a real unbind
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
      if (x->shape[0] % *gs != 0)
        return c.fail(0, c.title() + ": dim 0 of " + shapeToString(x->shape) + " does not split into " + std::to_string(*gs) +
                             " equal parts (the group size)");
      TensorMeta r = *x;
      r.shape[0] /= *gs;
      return Metas{r};
    };
    // all_to_all_single(input, output_split_sizes, input_split_sizes, group_name): dim 0 is re-cut by the splits.
    // Splits that are symbolic (token counts read at run time) leave the output size to the data.
    t["all_to_all_single"] = [](const Ctx& c) -> std::optional<Metas> {
      const TensorMeta* x = c.tensor(0);
      if (!x) return std::nullopt;
      TensorMeta r = *x;
      const Arg* out = c.arg(1, "output_split_sizes");
      if (auto ins = c.ints(2, "input_split_sizes"); ins && !ins->empty() && x->rank() > 0) {
        const int64_t total = std::accumulate(ins->begin(), ins->end(), int64_t{0});
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
        r.shape[0] = std::accumulate(outs->begin(), outs->end(), int64_t{0});
      }
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
    return t;
  }();
  return table;
}


struct Entry {
  Rule fn;
  bool tensorOnly = false;  // reads nothing but tensor inputs (runs on autoparallel exports too)
};

const std::unordered_map<std::string, Entry, rules::RuleKeyHash, std::equal_to<>>& table() {
  static const auto t = [] {
    std::unordered_map<std::string, Entry, rules::RuleKeyHash, std::equal_to<>> out;
    for (auto& [k, fn] : rules()) out.emplace(k, Entry{fn, false});
    // Ops whose shapes follow from their tensor inputs alone (numbers omitted do not change them).
    for (const char* k : {"mm", "bmm", "addmm", "baddbmm", "matmul", "wait_tensor", "clone", "neg", "exp", "rsqrt",
                          "sigmoid", "reciprocal", "silu", "gelu", "relu", "tanh", "abs", "sqrt", "log", "add", "sub",
                          "mul", "div", "pow", "where", "fma", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
                          "bitwise_or", "bitwise_and", "bitwise_not", "logical_not", "view_as_complex", "view_as_real",
                          "_conj", "detach", "alias", "contiguous", "copy_", "copy", "_grouped_mm", "getitem"})
      if (auto it = out.find(k); it != out.end()) it->second.tensorOnly = true;
    return out;
  }();
  return t;
}

// A symbolic scalar: a SymInt/SymBool/SymFloat value (unknown meta of rank 0 and a scalar dtype). Unknown
// tensors are told apart by their shape: a symbolic size is -1 (load_args, and this table's results).
bool isSymbolic(const TensorMeta* m) {
  return m && !m->known && m->shape.empty() &&
         (m->dtype == DType::I64 || m->dtype == DType::Bool || m->dtype == DType::F64);
}

// A tensor whose sizes are symbolic (some -1): its shape is data, not a gap in what the text says.
bool hasSymbolicSize(const TensorMeta* m) {
  return m && !m->known && std::find(m->shape.begin(), m->shape.end(), -1) != m->shape.end();
}

// True when the node's sizes depend on data: a size-like argument (a list, at any depth) holds a symbolic
// scalar, or a tensor input has symbolic sizes.
bool readsSymbolicScalar(const Ctx& c) {
  std::function<bool(const Arg&, bool)> walk = [&](const Arg& a, bool inList) {
    if (a.isTensor()) return (inList && isSymbolic(c.lookup(a.t))) || hasSymbolicSize(c.lookup(a.t));
    if (a.isList())
      for (const Arg& x : a.items)
        if (walk(x, true)) return true;
    return false;
  };
  for (const Arg& a : c.n.args)
    if (walk(a, false)) return true;
  for (const auto& kv : c.n.kwargs)
    if (walk(kv.second, false)) return true;
  return false;
}

// Ops whose shape rules only copy, reorder, compare or broadcast sizes (never add or multiply them): they run on
// inputs with symbolic sizes (-1) and pass the -1s on. Any other op with such an input is data-shaped (unknown).
const std::unordered_set<std::string_view>& symbolicSafe() {
  static const std::unordered_set<std::string_view> s = {
      "mm", "bmm", "_grouped_mm", "permute", "transpose", "t", "unsqueeze", "squeeze", "getitem", "wait_tensor",
      "all_reduce", "clone", "convert_element_type", "_to_copy", "to", "alias", "detach", "contiguous", "copy_",
      "add", "sub", "mul", "div", "neg", "exp", "reciprocal", "sigmoid", "silu", "rsqrt", "pow", "where", "fma",
      "clamp_min", "clamp", "eq", "ne", "lt", "le", "gt", "ge", "full", "zeros", "ones", "empty", "new_zeros",
      "new_ones", "new_empty", "new_full", "zeros_like", "ones_like", "empty_like", "index_put", "scatter_add",
      "slice_scatter", "device_put", "index", "gather"};
  return s;
}

bool isComparison(std::string_view name) {
  return name == "ge" || name == "gt" || name == "le" || name == "lt" || name == "eq" || name == "ne";
}

}  // namespace

ShapeResult inferOutputs(const Node& n, const MetaLookup& meta, bool argsComplete) {
  ShapeResult res;
  if (n.kind != NodeKind::Call) return res;
  bool symbolic = false;  // a rule read an input with symbolic sizes
  Ctx c{n, meta, &res};
  c.sawSymbolic = &symbolic;
  c.allowSymbolic = symbolicSafe().count(rules::ruleKeyView(n.op)) > 0;
  std::optional<Metas> r;
  const std::string_view op = n.op;
  if (op.starts_with("operator.") && op != "operator.getitem") {
    // Python operators: on symbolic scalars (FX prints them infix) a scalar; on tensors the aten op's shape.
    bool tensorOperand = false;
    for (const Arg& a : n.args)
      if (a.isTensor())
        if (const TensorMeta* m = c.meta(a.t)) tensorOperand |= m->rank() > 0 || m->dtype == DType::F32;
    if (!tensorOperand) {
      res.verdict = ShapeVerdict::Known;
      res.outputs = scalarOut(isComparison(op.substr(9)) ? DType::Bool : DType::I64);
      return res;
    }
  }
  const auto& t = table();
  auto it = t.find(rules::ruleKeyView(op));
  if (it == t.end() || (!argsComplete && !it->second.tensorOnly)) return res;
  r = it->second.fn(c);
  if (res.verdict == ShapeVerdict::Mismatch && symbolic) {
    // Sizes compared against a -1 say nothing: the data decides. Not a mismatch, and nothing is known.
    res = ShapeResult{};
    r.reset();
  }
  if (res.verdict == ShapeVerdict::Mismatch) {
    res.outputs.clear();
    return res;
  }
  if ((!r || r->empty()) && readsSymbolicScalar(c)) {
    // Sizes given by symbolic scalars (`full([sym_size_int, 2048])`, `view(x, [u0, -1])`) or inputs whose sizes
    // are (the all_to_all_single a MoE layer feeds its experts with): the rule could not run on literals because
    // the sizes are data. Known to be unknown, not a gap in the table.
    res.verdict = ShapeVerdict::Known;
    DType d = DType::Unknown;  // the first tensor input's (lists included), as most ops keep it
    std::function<bool(const Arg&)> firstDtype = [&](const Arg& a) {
      if (a.isTensor())
        if (const TensorMeta* m = meta(a.t); m && m->dtype != DType::Unknown && !isSymbolic(m)) {
          d = m->dtype;
          return true;
        }
      for (const Arg& x : a.items)
        if (firstDtype(x)) return true;
      return false;
    };
    for (const Arg& a : n.args)
      if (firstDtype(a)) break;
    if (auto dt = c.dtype(99, "dtype")) d = *dt;
    // {-1}: a tensor whose shape is data (as load_args writes symbolic sizes), not a rank-0 symbolic scalar.
    res.outputs.assign(std::max<size_t>(1, n.outputs.size()), TensorMeta{{-1}, d, false});
    return res;
  }
  if (!r || r->empty()) return res;
  // A rule computes from literal sizes as written: a shape no tensor can have is not a result. A result from
  // symbolic sizes keeps its literal sizes and its -1s, and is not known (rules may also derive other sizes
  // from a -1: those are -1 too).
  for (TensorMeta& m : *r) {
    if (symbolic && m.known && std::any_of(m.shape.begin(), m.shape.end(), [](int64_t x) { return x < 0; })) {
      for (int64_t& x : m.shape) x = x < 0 ? -1 : x;
      m.known = false;
      continue;
    }
    if (m.known && !shapeWithinLimits(m.shape)) m = TensorMeta{{}, DType::Unknown, false};
  }
  res.verdict = ShapeVerdict::Known;
  res.outputs = std::move(*r);
  return res;
}

bool hasShapeRule(std::string_view op) {
  if (op.starts_with("operator.")) return true;
  return table().count(rules::ruleKeyView(op)) > 0;
}

std::vector<std::string> shapeRuledOps() {
  std::vector<std::string> out;
  for (const auto& kv : table()) out.push_back(kv.first);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ss::ops
