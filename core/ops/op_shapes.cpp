// The op table's shape facts (core/ops/op_shapes.h): the shared helpers (broadcasting, dtype promotion, views,
// indexing), the table by op key (rules::ruleKey spelling; its entries are in op_shapes_{tensor,model,special}.cpp),
// symbolic sizes and the entry point.
#include "core/ops/op_shapes.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/model/layout.h"
#include "core/ops/op_shapes_detail.h"
#include "core/rules/engine.h"

namespace ss::ops {
namespace detail {

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
std::optional<Metas> pointwise(const Ctx& c, bool boolResult) {
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

std::optional<Metas> same(const Ctx& c, size_t k) {
  const TensorMeta* m = c.tensor(k);
  if (!m) return std::nullopt;
  return Metas{*m};
}

std::optional<Metas> reduce(const Ctx& c, bool allByDefault, std::optional<DType> forced) {
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

const RuleTable& shapeRules() {
  static const RuleTable table = [] {
    RuleTable t;
    addElementwiseRules(t);
    addViewRules(t);
    addModelRules(t);
    addSpecialRules(t);
    return t;
  }();
  return table;
}

}  // namespace detail
namespace {

using namespace detail;

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
  const OpEntry* entry = findOp(n.op);
  c.allowSymbolic = entry && entry->symbolicSafe;
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
  if (!entry || !entry->shape || (!argsComplete && !entry->tensorOnly)) return res;
  r = (*entry->shape)(c);
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
  const OpEntry* e = findOp(op);
  return e && e->shape;
}

}  // namespace ss::ops
