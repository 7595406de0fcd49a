// Indexing: index.Tensor, index_put (and _index_put_impl_), index_select, gather, scatter (+ add, reduce),
// slice_scatter, select_scatter.
//
// Indexed dims are read whole (a rank cannot look up global indices in its shard), so they cannot be sharded
// in self. Non-indexed dims keep their shards. index.Tensor may take a sharded index when self is replicated
// along that mesh dim (each rank looks up its own rows). index_put writes `values` into the slots
// self[indices] selects: values broadcast into that slot shape, so on every dim values do not broadcast
// (size > 1) they must be split exactly like self. That is seed 1: self RS(0) with values RS(1) gives local
// values [16, 32, 1, 64] for slots [4, 128, 1, 64], which cannot broadcast.
#include <algorithm>

#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

namespace {

constexpr int kIdx = 7000;    // labels of the broadcast index shape
constexpr int kFresh = 7500;  // labels present on one side only

// The index list of index/index_put: per self dim, the tensor input index of its index tensor or -1.
struct IndexList {
  std::vector<int> inputOfDim;   // size <= self rank
  std::vector<int64_t> idxShape; // broadcast shape of the index tensors
  std::vector<int> indexInputs;
  bool adjacent = true;
  int first = -1;
  bool ok = false;
};

// Broadcasts `acc` with `s` in place (numpy rules); false when they do not broadcast.
bool broadcastInto(std::vector<int64_t>& acc, const std::vector<int64_t>& s) {
  if (s.size() > acc.size()) acc.insert(acc.begin(), s.size() - acc.size(), 1);
  for (size_t k = 0; k < s.size(); ++k) {
    int64_t& o = acc[acc.size() - s.size() + k];
    if (s[k] == o || s[k] == 1) continue;
    if (o != 1) return false;
    o = s[k];
  }
  return true;
}

// An export (argsComplete false: autoparallel's get_json has no op arguments) lists index_put's tensor inputs in
// schema order: self, the non-None indices, then values. Where the Nones stood is lost; the indexed dims are the
// adjacent run whose slot shape values broadcast into, taken only when exactly one position fits.
IndexList readFlattenedIndexPut(const RuleContext& ctx, int selfRank) {
  IndexList L;
  const int n = ctx.inputCount();
  const int values = n - 1;
  if (n < 3 || ctx.rank(values) < 0) return L;
  for (int i = 1; i < values; ++i) {
    if (ctx.rank(i) < 0) return L;
    L.indexInputs.push_back(i);
    if (!broadcastInto(L.idxShape, ctx.shape(i))) return L;
  }
  const int k = static_cast<int>(L.indexInputs.size());
  if (k > selfRank) return L;
  const auto& self = ctx.shape(0);
  const auto& v = ctx.shape(values);
  int fit = -1, fits = 0;
  for (int first = 0; first + k <= selfRank; ++first) {
    std::vector<int64_t> slot(self.begin(), self.begin() + first);
    slot.insert(slot.end(), L.idxShape.begin(), L.idxShape.end());
    slot.insert(slot.end(), self.begin() + first + k, self.end());
    bool ok = v.size() <= slot.size();
    for (size_t j = 0; ok && j < v.size(); ++j) {
      const int64_t vs = v[j], ss = slot[slot.size() - v.size() + j];
      if (vs != ss && vs != 1) ok = false;
    }
    if (ok) {
      fit = first;
      ++fits;
    }
  }
  if (fits != 1) return L;
  L.inputOfDim.assign(selfRank, -1);
  for (int j = 0; j < k; ++j) L.inputOfDim[fit + j] = L.indexInputs[j];
  L.first = fit;
  L.ok = k > 0;
  return L;
}

IndexList readIndexList(const RuleContext& ctx, int selfRank) {
  IndexList L;
  const Arg* list = ctx.arg(1, "indices");
  if (!list || !list->isList() || static_cast<int>(list->items.size()) > selfRank) return L;
  int last = -1;
  for (size_t d = 0; d < list->items.size(); ++d) {
    const Arg& a = list->items[d];
    int i = a.isTensor() ? ctx.inputIndexOf(&a) : -1;
    L.inputOfDim.push_back(i);
    if (i < 0) continue;
    if (ctx.rank(i) < 0) return L;
    if (L.first >= 0 && last != static_cast<int>(d) - 1) L.adjacent = false;
    if (L.first < 0) L.first = static_cast<int>(d);
    last = static_cast<int>(d);
    L.indexInputs.push_back(i);
    if (!broadcastInto(L.idxShape, ctx.shape(i))) return L;
  }
  L.inputOfDim.resize(selfRank, -1);
  L.ok = L.first >= 0;
  return L;
}

// Labels and global shape of self[indices]: self's non-indexed dims keep their labels (their dim numbers);
// the index dims (labels kIdx + k) go where the first indexed dim was, or in front when they are not adjacent.
void indexedResult(const std::vector<int64_t>& self, const IndexList& L, std::vector<int>& labels,
                   std::vector<int64_t>& shape) {
  int r = static_cast<int>(self.size());
  std::vector<int> il;
  for (size_t k = 0; k < L.idxShape.size(); ++k) il.push_back(kIdx + static_cast<int>(k));
  bool placed = false;
  if (!L.adjacent) {
    labels = il;
    shape = L.idxShape;
    placed = true;
  }
  for (int d = 0; d < r; ++d) {
    if (L.inputOfDim[d] >= 0) {
      if (!placed) {
        labels.insert(labels.end(), il.begin(), il.end());
        shape.insert(shape.end(), L.idxShape.begin(), L.idxShape.end());
        placed = true;
      }
      continue;
    }
    labels.push_back(d);
    shape.push_back(self[d]);
  }
}

std::vector<int> selfLabels(int r, const IndexList& L) {
  std::vector<int> l(r);
  for (int d = 0; d < r; ++d) l[d] = L.inputOfDim[d] >= 0 ? -1 : d;
  return l;
}

RuleResult indexRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 2 || ctx.rank(0) < 0) return unknownResult(ctx);
  const auto& self = ctx.shape(0);
  int r = static_cast<int>(self.size());
  IndexList L = readIndexList(ctx, r);
  if (!L.ok) return unknownResult(ctx);
  std::vector<int> lo;
  std::vector<int64_t> shape;
  indexedResult(self, L, lo, shape);
  LabelProblem p;
  p.partial = PartialPolicy::Multiplicative;
  p.contraction = std::nullopt;
  p.ins.push_back(labelled(0, selfLabels(r, L)));
  for (int i : L.indexInputs)
    p.ins.push_back(labelled(i, alignedLabels(ctx.rank(i), static_cast<int>(L.idxShape.size())), false));
  for (auto& in : p.ins)
    if (in.input != 0)
      for (int& l : in.labels) l += kIdx;
  p.outs = {lo};
  RuleResult res = solveLabels(ctx, p);
  return res;
}

// Seed 1's message: the first rank whose local values cannot broadcast into its local slots.
std::string indexPutCollision(const RuleContext& ctx, const IndexList& L, int values) {
  const DeviceMesh& mesh = *ctx.mesh;
  const ShardingSpec& ss = *ctx.inSpecs[0];
  const ShardingSpec& vs = *ctx.inSpecs[values];
  int64_t n = std::min<int64_t>(mesh.size(), 4096);
  for (int64_t r = 0; r < n; ++r) {
    auto sl = localShapeOf(ctx.shape(0), mesh, ss, r), vl = localShapeOf(ctx.shape(values), mesh, vs, r);
    if (!sl || !vl) break;
    std::vector<int> labels;
    std::vector<int64_t> slot;
    indexedResult(*sl, L, labels, slot);
    bool fits = vl->size() <= slot.size();
    for (size_t j = 0; fits && j < vl->size(); ++j) {
      int64_t v = (*vl)[j], s = slot[slot.size() - vl->size() + j];
      if (v != s && v != 1) fits = false;
    }
    if (!fits)
      return "on rank " + std::to_string(r) + " values have local shape " + shapeToString(*vl) +
             " but the slots they fill in self have " + shapeToString(slot) + ", which cannot broadcast";
  }
  return "the local shapes broadcast, but values and self hold different slices of the same dims, so each rank "
         "would write values into the wrong rows";
}

RuleResult indexPutRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 3 || ctx.rank(0) < 0) return unknownResult(ctx);
  const auto& self = ctx.shape(0);
  int r = static_cast<int>(self.size());
  IndexList L = ctx.argsComplete ? readIndexList(ctx, r) : readFlattenedIndexPut(ctx, r);
  int values = ctx.argsComplete ? ctx.inputIndexOf(ctx.arg(2, "values")) : ctx.inputCount() - 1;
  if (!L.ok || values < 0 || ctx.rank(values) < 0) return unknownResult(ctx);
  std::vector<int> slotLabels;
  std::vector<int64_t> slotShape;
  indexedResult(self, L, slotLabels, slotShape);
  int rv = ctx.rank(values);
  if (rv > static_cast<int>(slotLabels.size()))
    return failResult(Verdict::BadShapes, values, std::nullopt,
                      "index_put: values of shape " + shapeToString(ctx.shape(values)) +
                          " have more dims than the slots " + shapeToString(slotShape));
  LabelProblem p;
  p.partial = PartialPolicy::Additive;
  p.contraction = std::nullopt;
  p.ins.push_back(labelled(0, selfLabels(r, L)));
  std::vector<int> vl(slotLabels.end() - rv, slotLabels.end());
  p.ins.push_back(labelled(values, vl));
  for (int i : L.indexInputs) {
    auto il = alignedLabels(ctx.rank(i), static_cast<int>(L.idxShape.size()));
    for (int& l : il) l += kIdx;
    p.ins.push_back(labelled(i, il, false));
  }
  for (size_t k = 0; k < L.idxShape.size(); ++k)
    p.forbidden[kIdx + static_cast<int>(k)] = "index_put writes through the index, so every rank needs all of it";
  std::vector<int> lo(r);
  for (int d = 0; d < r; ++d) lo[d] = L.inputOfDim[d] >= 0 ? kFresh + d : d;
  p.outs = {lo};
  RuleResult res = solveLabels(ctx, p);
  if (res.verdict == Verdict::Incompatible && (res.input == values || res.input == 0) && ctx.inSpecs[values] &&
      ctx.inSpecs[0]) {
    res.message = "index_put cannot write values into self as they arrive: values are " +
                  ctx.inSpecs[values]->toMeshString() + " and self is " + ctx.inSpecs[0]->toMeshString() + "; " +
                  indexPutCollision(ctx, L, values);
  }
  return res;
}

RuleResult indexSelectRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 2 || ctx.rank(0) < 0 || ctx.rank(1) != 1) return unknownResult(ctx);
  int r = ctx.rank(0);
  auto d = normDim(ctx.intArgOr(1, "dim", 0), r);
  if (!d) return unknownResult(ctx);
  LabelProblem p;
  p.partial = PartialPolicy::Multiplicative;
  p.contraction = std::nullopt;
  std::vector<int> ls = alignedLabels(r, r), lo = ls;
  ls[*d] = -1;
  lo[*d] = kIdx;
  p.ins = {labelled(0, ls), labelled(1, {kIdx}, false)};
  p.outs = {lo};
  RuleResult res = solveLabels(ctx, p);
  noteUnshardableInputs(ctx, res);
  return res;
}

// gather(self, dim, index): out[i][j] = self[index[i][j]][j] for dim 0.
RuleResult gatherRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 2 || ctx.rank(0) < 0 || ctx.rank(1) != ctx.rank(0)) return unknownResult(ctx);
  int r = ctx.rank(0);
  auto d = normDim(ctx.intArgOr(1, "dim", 0), r);
  if (!d) return unknownResult(ctx);
  std::vector<int> ls(r), li(r);
  for (int k = 0; k < r; ++k) {
    bool same = ctx.shape(0)[k] == ctx.shape(1)[k];
    ls[k] = k == *d ? -1 : k;
    li[k] = k == *d ? kIdx : (same ? k : kFresh + k);
  }
  LabelProblem p;
  p.partial = PartialPolicy::Multiplicative;
  p.contraction = std::nullopt;
  p.noContractionWhy = "the index covers only part of that dim";
  p.ins = {labelled(0, ls), labelled(1, li, false)};
  p.outs = {li};
  RuleResult res = solveLabels(ctx, p);
  noteUnshardableInputs(ctx, res);
  notePartialInput(ctx, res, 0, std::nullopt, "gathered tensor");
  return res;
}

// scatter(self, dim, index, src|value[, reduce]), scatter_add, scatter_reduce: the output is self's layout.
RuleResult scatterRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 2 || ctx.rank(0) < 0) return unknownResult(ctx);
  int r = ctx.rank(0);
  auto d = normDim(ctx.intArgOr(1, "dim", 0), r);
  if (!d) return unknownResult(ctx);
  std::string op = ruleKey(ctx.node->op);
  LabelProblem p;
  p.partial = op == "scatter_reduce" ? PartialPolicy::Nonlinear : PartialPolicy::Additive;
  p.contraction = std::nullopt;
  std::vector<int> ls = alignedLabels(r, r);
  ls[*d] = -1;
  p.ins = {labelled(0, ls)};
  p.forbidden[kIdx] = "each rank would scatter only part of the index";
  for (int i = 1; i < ctx.inputCount(); ++i) {
    if (ctx.rank(i) != r) return unknownResult(ctx);
    std::vector<int> l(r);
    for (int k = 0; k < r; ++k)
      l[k] = k == *d ? kIdx : (ctx.shape(i)[k] == ctx.shape(0)[k] ? k : kFresh + k);
    p.ins.push_back(labelled(i, l, i != 1));  // input 1 is the index
  }
  p.outs = {alignedLabels(r, r)};
  RuleResult res = solveLabels(ctx, p);
  return res;
}

// slice_scatter(self, src, dim, start, end, step) and select_scatter(self, src, dim, index).
RuleResult sliceScatterRule(const RuleContext& ctx) {
  if (ctx.inputCount() < 2 || ctx.rank(0) < 0 || ctx.rank(1) < 0) return unknownResult(ctx);
  int r = ctx.rank(0);
  bool select = ruleKey(ctx.node->op) == "select_scatter";
  auto d = normDim(ctx.intArgOr(2, "dim", 0), r);
  if (!d || ctx.rank(1) != (select ? r - 1 : r)) return unknownResult(ctx);
  std::vector<int> ls = alignedLabels(r, r), lsrc;
  bool whole = !select && ctx.shape(1)[*d] == ctx.shape(0)[*d] && ctx.intArg(5, "step").value_or(1) == 1;
  if (!whole) ls[*d] = -1;
  for (int k = 0; k < r; ++k) {
    if (k == *d) {
      if (!select) lsrc.push_back(whole ? k : -1);
      continue;
    }
    lsrc.push_back(ctx.shape(1)[lsrc.size()] == ctx.shape(0)[k] ? k : kFresh + k);
  }
  LabelProblem p;
  p.partial = PartialPolicy::Additive;
  p.contraction = std::nullopt;
  p.noContractionWhy = "src covers only part of self there";
  p.ins = {labelled(0, ls), labelled(1, lsrc)};
  p.outs = {alignedLabels(r, r)};
  RuleResult res = solveLabels(ctx, p);
  return res;
}

}  // namespace

void registerIndexRules(RuleTable& t) {
  t["index"] = indexRule;
  t["_unsafe_index"] = indexRule;
  t["index_put"] = indexPutRule;
  t["index_put_"] = indexPutRule;
  t["_index_put_impl_"] = indexPutRule;
  t["_unsafe_index_put"] = indexPutRule;
  t["index_select"] = indexSelectRule;
  t["gather"] = gatherRule;
  for (const char* op : {"scatter", "scatter_", "scatter_add", "scatter_add_", "scatter_reduce"}) t[op] = scatterRule;
  t["slice_scatter"] = sliceScatterRule;
  t["select_scatter"] = sliceScatterRule;
}

}  // namespace ss::rules
