// Internal to the op table's shape facts (core/ops/op_shapes*.cpp): the argument context a shape rule reads, the
// helpers rules share, and the parts of the table. Not part of core's interface: use core/ops/op_shapes.h.
//
// The shape rules are filled by the add*Rules functions in the order op_shapes.cpp calls them (a later entry for
// the same op replaces an earlier one). A new op: its rule in the file of its kind, its facts in core/ops/op_table.cpp.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/ops/op_shapes.h"
#include "core/ops/op_table.h"
#include "core/rules/engine.h"

namespace ss::ops::detail {

using Metas = std::vector<TensorMeta>;
// The most outputs a splitting rule (split, chunk, unbind) infers: a graph names each piece with a getitem, and a
// dim of 2^53 split by 1 must not become a vector of that size (fuzz_applied_graph's timeout).
inline constexpr int64_t kMaxInferredPieces = 4096;
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
  // Input index (core/model/graph.h's numbering) of the tensor argument `a` of this node; -1 when it is none.
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

inline TensorMeta meta(Shape s, DType d) { return TensorMeta{std::move(s), d, true}; }
inline int64_t wrapDim(int64_t d, int64_t rank) { return d < 0 ? d + rank : d; }
inline bool isFloat(DType d) {
  return d == DType::F32 || d == DType::F16 || d == DType::BF16 || d == DType::F64 || d == DType::C64 ||
         d == DType::F8E4M3FN || d == DType::F8E5M2 || d == DType::F8E8M0FNU;
}
// A symbolic scalar (SymInt, SymBool): not a tensor, its value is data. One unknown meta of the scalar's dtype.
inline Metas scalarOut(DType d = DType::I64) { return Metas{TensorMeta{{}, d, false}}; }

std::optional<Shape> broadcast(const Shape& a, const Shape& b);
// Pointwise over every tensor and number argument (positional): broadcast shapes, promote dtypes. Dimensioned
// tensors win over 0-dim ones and numbers within a category; floating beats integer beats bool.
std::optional<Metas> pointwise(const Ctx& c, bool boolResult = false);
std::optional<Metas> same(const Ctx& c, size_t k = 0);
std::optional<Metas> reduce(const Ctx& c, bool allByDefault, std::optional<DType> forced = std::nullopt);
std::optional<Shape> viewShape(const TensorMeta& in, Shape want);
int64_t sliceLen(int64_t size, int64_t start, int64_t end, int64_t step);
std::optional<Metas> splitInto(const TensorMeta& m, int64_t dim, const Shape& sizes);
// mm/bmm (a at position ka, b at kb; addmm and baddbmm carry a bias first): [.., M, K] @ [.., K, N].
std::optional<Metas> matmulOf(const Ctx& c, size_t ka, size_t kb, bool batched);
// Advanced indexing: x[:first] + broadcast(index shapes) + x[first+count:] (adjacent index tensors). `list` is
// the indices argument (None entries are full slices). nullopt when unknown; fail()s when indices do not
// broadcast together.
std::optional<Shape> indexedShape(const Ctx& c, const TensorMeta& m, const Arg* list);

// A shape rule (Rule: core/ops/op_table.h); the table of them, filled by the add*Rules functions.
using RuleTable = std::unordered_map<std::string, Rule>;

// Every shape rule by rule key, in the order below (op_shapes.cpp); the op table joins them with the op's facts.
const RuleTable& shapeRules();
// Elementwise ops, casts and matrix products (op_shapes_tensor.cpp).
void addElementwiseRules(RuleTable& t);
// Views, reductions, slicing, joining and splitting (op_shapes_tensor.cpp).
void addViewRules(RuleTable& t);
// Indexing, factories, losses, attention, norms, dropout and collectives (op_shapes_model.cpp).
void addModelRules(RuleTable& t);
// Complex views, padding, sorting, MoE routing, attention variants, higher-order ops and symbolic scalars (op_shapes_special.cpp).
void addSpecialRules(RuleTable& t);

}  // namespace ss::ops::detail
