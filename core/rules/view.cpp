// View family: view/reshape/_unsafe_view/flatten/unflatten, permute/transpose/t, expand, squeeze/unsqueeze,
// slice/narrow/select, split/chunk/unbind, cat/stack.
//
// A reshape is cut into groups of input dims and output dims with equal products. In a group, only the first
// (outermost) input dim may be sharded, and it becomes a shard of the group's first output dim: a chunk of the
// outermost dim is a contiguous block of the flattened group. When the group merges or splits dims, the shard
// count must divide both first sizes evenly (otherwise torch.chunk's blocks and the view's rows disagree).
// A sharded inner dim of a merge becomes DTensor's _StridedShard (and a split can turn one back into a Shard);
// it must split evenly unless it is the last dim merged and the only sharded one of its group (DTensor 2.14).
// Slicing a sharded dim (other than whole), selecting from it, splitting it into pieces, concatenating along it
// and expanding a size-1 dim are refused.
#include <algorithm>
#include <numeric>

#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

namespace {

constexpr int kFresh = 5000;  // labels >= this are fresh (present on one side only)

LabelProblem unary(int rank) {
  LabelProblem p;
  p.partial = PartialPolicy::Preserve;
  p.contraction = std::nullopt;
  LabelInput x;
  x.input = 0;
  x.labels = alignedLabels(rank, rank);
  p.ins = {x};
  return p;
}


// Resolves one -1 in a view size against the input's element count.
std::optional<std::vector<int64_t>> resolveSize(std::vector<int64_t> size, int64_t numel) {
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1) {
      if (infer >= 0) return std::nullopt;
      infer = static_cast<int>(i);
    } else if (size[i] < 0) {
      return std::nullopt;
    } else {
      known *= size[i];
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0) return std::nullopt;
    size[infer] = numel / known;
  } else if (known != numel) {
    return std::nullopt;
  }
  return size;
}

// The reshape from `in` to `out` as labels (see the file comment).
RuleResult reshapeTo(const RuleContext& ctx, const std::vector<int64_t>& out) {
  const auto& in = ctx.shape(0);
  int r = static_cast<int>(in.size()), ro = static_cast<int>(out.size());
  LabelProblem p = unary(r);
  p.noContractionWhy = "the view merges it into the dim before it, so its shards are not contiguous blocks";
  std::vector<int> li(r, -1), lo(ro, -1);
  std::vector<std::pair<std::vector<int>, std::vector<int>>> groups;
  std::vector<int> groupOf(r, -1);
  int fresh = kFresh;
  int i = 0, j = 0;
  while (i < r || j < ro) {
    if (i < r && in[i] == 1 && !(j < ro && out[j] == 1)) { li[i++] = fresh++; continue; }
    if (j < ro && out[j] == 1 && !(i < r && in[i] == 1)) { lo[j++] = fresh++; continue; }
    if (i >= r || j >= ro) break;
    int L = i;
    std::vector<int> gi{i}, gj{j};
    int64_t pi = in[i++], pj = out[j++];
    while (pi != pj) {
      if (pi < pj && i < r) { pi *= in[i]; gi.push_back(i++); }
      else if (pj < pi && j < ro) { pj *= out[j]; gj.push_back(j++); }
      else break;
    }
    if (pi != pj) return unknownResult(ctx);
    li[gi[0]] = L;
    lo[gj[0]] = L;
    for (size_t k = 1; k < gi.size(); ++k) li[gi[k]] = fresh++;
    for (size_t k = 1; k < gj.size(); ++k) lo[gj[k]] = fresh++;
    if (gi.size() > 1 || gj.size() > 1) p.evenSizes[L] = {in[gi[0]], out[gj[0]]};
    for (int d : gi) groupOf[d] = static_cast<int>(groups.size());
    groups.push_back({gi, gj});
  }
  p.ins[0].labels = li;
  p.outs = {lo};
  if (!ctx.inSpecs[0] || ctx.inSpecs[0]->meshDims() != ctx.mesh->ndim()) return solveLabels(ctx, p);

  // DTensor's strided shards: merging dims whose inner one is sharded gives _StridedShard(o, sf) with sf the
  // product of the merged dims before it (rank i holds piece i of each of the sf blocks); splitting such a dim
  // back where the outer pieces multiply to sf gives a plain Shard again. The shard must divide evenly, except
  // on the merge's last dim (as DTensor 2.14's view propagation).
  RuleContext c2 = ctx;
  ShardingSpec tmp = *ctx.inSpecs[0];
  std::vector<std::pair<int, Placement>> rewrites;
  // Local sizes as DTensor's view propagation divides them, mesh dim by mesh dim: a split factor counts the
  // pieces of the merged dims before the sharded one as they are on each rank then.
  std::vector<int64_t> local = in;
  for (int m = 0; m < tmp.meshDims(); ++m) {
    const Placement pl = tmp[m];
    if (!pl.isShard() || pl.dim >= r) continue;
    const int64_t k = ctx.mesh->dimSize(m);
    if (groupOf[pl.dim] >= 0) {
      const auto& [gi, gj] = groups[groupOf[pl.dim]];
      // Uneven is fine on the group's last dim when no later mesh dim shards a dim of the group at or after it
      // (DTensor 2.14's _is_last_shard_in_flatten_range: only the pieces' sizes vary, not their count).
      bool lastShard = true;
      for (int o = m + 1; o < tmp.meshDims(); ++o) {
        const Placement& q = ctx.inSpecs[0]->placements[o];
        if (q.isShard() && q.dim >= pl.dim && q.dim <= gi.back() && q.dim >= gi.front()) lastShard = false;
      }
      const bool evenOrLast = local[pl.dim] % k == 0 || (pl.dim == gi.back() && lastShard);
      if (pl.kind == PlacementKind::Shard && gj.size() == 1 && pl.dim != gi[0] && evenOrLast) {
        int64_t sf = 1;
        for (int d : gi) {
          if (d == pl.dim) break;
          sf *= local[d];
        }
        rewrites.push_back({m, Placement::strided(gj[0], static_cast<int>(sf))});
        tmp.placements[m] = Placement::replicate();
      } else if (pl.kind == PlacementKind::StridedShard && gi.size() == 1 && gj.size() > 1) {
        int64_t prod = 1;
        for (int o : gj) {
          if (prod == pl.splitFactor && out[o] % k == 0) {
            rewrites.push_back({m, Placement::shard(o)});
            tmp.placements[m] = Placement::replicate();
            break;
          }
          prod *= out[o];
        }
      }
    }
    local[pl.dim] /= k;
  }
  if (rewrites.empty()) return solveLabels(ctx, p);
  c2.inSpecs[0] = tmp;
  RuleResult res = solveLabels(c2, p);
  if (!res.ok()) return solveLabels(ctx, p);  // report against the spec as it arrives
  for (const auto& [m, pl] : rewrites) res.outputs[0]->placements[m] = pl;
  return res;
}

bool known0(const RuleContext& ctx) { return ctx.inputCount() >= 1 && ctx.rank(0) >= 0; }

int64_t numel(const std::vector<int64_t>& s) {
  return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<int64_t>());
}

RuleResult viewRule(const RuleContext& ctx) {
  if (!known0(ctx)) return unknownResult(ctx);
  auto size = ctx.intListArg(1, "size");
  if (!size) size = ctx.intListArg(1, "shape");
  if (!size && ctx.outMeta(0)) size = ctx.outMeta(0)->shape;  // no arguments in the file
  if (!size) return unknownResult(ctx);
  auto resolved = resolveSize(*size, numel(ctx.shape(0)));
  if (!resolved)
    return failResult(Verdict::BadShapes, 0, std::nullopt,
                      opTitle(ctx) + ": size " + shapeToString(*size) + " does not fit an input of shape " +
                          shapeToString(ctx.shape(0)));
  return reshapeTo(ctx, *resolved);
}

RuleResult flattenRule(const RuleContext& ctx) {
  if (!known0(ctx)) return unknownResult(ctx);
  const auto& in = ctx.shape(0);
  int r = static_cast<int>(in.size());
  auto s = normDim(ctx.intArgOr(1, "start_dim", 0), r), e = normDim(ctx.intArgOr(2, "end_dim", -1), r);
  if ((!s || !e) && ctx.outMeta(0) && ctx.outMeta(0)->numel() == numel(in)) return reshapeTo(ctx, ctx.outMeta(0)->shape);
  if (!s || !e || *s > *e) return unknownResult(ctx);
  std::vector<int64_t> out(in.begin(), in.begin() + *s);
  int64_t prod = 1;
  for (int d = *s; d <= *e; ++d) prod *= in[d];
  out.push_back(prod);
  out.insert(out.end(), in.begin() + *e + 1, in.end());
  return reshapeTo(ctx, out);
}

RuleResult unflattenRule(const RuleContext& ctx) {
  if (!known0(ctx)) return unknownResult(ctx);
  const auto& in = ctx.shape(0);
  auto d = normDim(ctx.intArgOr(1, "dim", 0), static_cast<int>(in.size()));
  auto sizes = ctx.intListArg(2, "sizes");
  if ((!d || !sizes) && ctx.outMeta(0) && ctx.outMeta(0)->numel() == numel(in)) return reshapeTo(ctx, ctx.outMeta(0)->shape);
  if (!d || !sizes) return unknownResult(ctx);
  auto piece = resolveSize(*sizes, in[*d]);
  if (!piece) return unknownResult(ctx);
  std::vector<int64_t> out(in.begin(), in.begin() + *d);
  out.insert(out.end(), piece->begin(), piece->end());
  out.insert(out.end(), in.begin() + *d + 1, in.end());
  return reshapeTo(ctx, out);
}

RuleResult permuteRule(const RuleContext& ctx) {
  if (!known0(ctx)) return unknownResult(ctx);
  int r = ctx.rank(0);
  auto dims = ctx.intListArg(1, "dims");
  if (!dims || static_cast<int>(dims->size()) != r) return unknownResult(ctx);
  LabelProblem p = unary(r);
  std::vector<int> lo;
  std::vector<int64_t> shape;
  for (int64_t d : *dims) {
    auto nd = normDim(d, r);
    if (!nd) return unknownResult(ctx);
    lo.push_back(*nd);
    shape.push_back(ctx.shape(0)[*nd]);
  }
  p.outs = {lo};
  return solveLabels(ctx, p);
}

RuleResult transposeRule(const RuleContext& ctx) {
  if (!known0(ctx)) return unknownResult(ctx);
  int r = ctx.rank(0);
  int a = 0, b = r >= 2 ? 1 : 0;
  if (ruleKey(ctx.node->op) != "t") {
    auto da = normDim(ctx.intArgOr(1, "dim0", 0), r), db = normDim(ctx.intArgOr(2, "dim1", 0), r);
    if (!da || !db) return unknownResult(ctx);
    a = *da;
    b = *db;
  }
  LabelProblem p = unary(r);
  std::vector<int> lo = alignedLabels(r, r);
  std::swap(lo[a], lo[b]);
  std::vector<int64_t> shape = ctx.shape(0);
  std::swap(shape[a], shape[b]);
  p.outs = {lo};
  return solveLabels(ctx, p);
}

RuleResult expandRule(const RuleContext& ctx) {
  if (!known0(ctx)) return unknownResult(ctx);
  auto size = ctx.intListArg(1, "size");
  if (!size && ctx.outMeta(0)) size = ctx.outMeta(0)->shape;  // no arguments in the file
  const auto& in = ctx.shape(0);
  int r = static_cast<int>(in.size());
  if (!size || static_cast<int>(size->size()) < r) return unknownResult(ctx);
  int R = static_cast<int>(size->size());
  LabelProblem p = unary(r);
  p.ins[0].labels = alignedLabels(r, R);
  std::vector<int64_t> shape = *size;
  for (int d = 0; d < R; ++d) {
    int id = d - (R - r);
    if (shape[d] == -1) shape[d] = id >= 0 ? in[id] : 1;
    if (id >= 0 && in[id] == 1 && shape[d] != 1) p.forbidden[d] = "expand broadcasts it from size 1";
    if (id >= 0 && in[id] != 1 && in[id] != shape[d])
      return failResult(Verdict::BadShapes, 0, std::nullopt,
                        "expand: input shape " + shapeToString(in) + " cannot expand to " + shapeToString(*size));
  }
  p.outs = {alignedLabels(R, R)};
  return solveLabels(ctx, p);
}

RuleResult squeezeRule(const RuleContext& ctx) {
  if (!known0(ctx)) return unknownResult(ctx);
  const auto& in = ctx.shape(0);
  int r = static_cast<int>(in.size());
  std::vector<bool> drop(r, false);
  auto dims = ctx.intListArg(1, "dim");
  for (int d = 0; d < r; ++d) drop[d] = !dims && in[d] == 1;
  if (dims)
    for (int64_t d : *dims)
      if (auto nd = normDim(d, r); nd && in[*nd] == 1) drop[*nd] = true;
  LabelProblem p = unary(r);
  p.noContractionWhy = "squeeze removes that size-1 dim";
  std::vector<int> lo;
  std::vector<int64_t> shape;
  for (int d = 0; d < r; ++d)
    if (!drop[d]) { lo.push_back(d); shape.push_back(in[d]); }
  p.outs = {lo};
  return solveLabels(ctx, p);
}

RuleResult unsqueezeRule(const RuleContext& ctx) {
  if (!known0(ctx)) return unknownResult(ctx);
  const auto& in = ctx.shape(0);
  int r = static_cast<int>(in.size());
  auto d = normDim(ctx.intArgOr(1, "dim", 0), r + 1);
  if (!d) return unknownResult(ctx);
  LabelProblem p = unary(r);
  std::vector<int> lo = alignedLabels(r, r);
  lo.insert(lo.begin() + *d, kFresh);
  std::vector<int64_t> shape = in;
  shape.insert(shape.begin() + *d, 1);
  p.outs = {lo};
  return solveLabels(ctx, p);
}

// slice.Tensor(x, dim, start, end, step) and narrow(x, dim, start, length).
RuleResult sliceRule(const RuleContext& ctx) {
  if (!known0(ctx)) return unknownResult(ctx);
  const auto& in = ctx.shape(0);
  int r = static_cast<int>(in.size());
  if (!ctx.argsComplete && !ctx.intArg(1, "dim")) {
    // No arguments in the file: the sliced dim is the one whose size changes.
    const TensorMeta* om = ctx.outMeta(0);
    if (!om || om->rank() != r) return unknownResult(ctx);
    LabelProblem p = unary(r);
    int changed = 0;
    for (int k = 0; k < r; ++k)
      if (om->shape[k] != in[k]) {
        p.forbidden[k] = "it takes part of the global dim, which no rank's local shard lines up with";
        ++changed;
      }
    if (changed > 1) return unknownResult(ctx);
    p.outs = {alignedLabels(r, r)};
    return solveLabels(ctx, p);
  }
  auto d = normDim(ctx.intArgOr(1, "dim", 0), r);
  if (!d) return unknownResult(ctx);
  int64_t n = in[*d], start, end, step = 1;
  if (ruleKey(ctx.node->op) == "narrow") {
    start = ctx.intArg(2, "start").value_or(0);
    end = start + ctx.intArg(3, "length").value_or(n);
  } else {
    start = ctx.intArg(2, "start").value_or(0);
    end = ctx.intArg(3, "end").value_or(n);
    step = ctx.intArg(4, "step").value_or(1);
  }
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = std::clamp<int64_t>(start, 0, n);
  end = std::clamp<int64_t>(end, start, n);
  if (step < 1) step = 1;
  LabelProblem p = unary(r);
  bool whole = start == 0 && end == n && step == 1;
  if (!whole)
    p.forbidden[*d] = "it takes elements [" + std::to_string(start) + ":" + std::to_string(end) + "] of the global dim, "
                      "which no rank's local shard lines up with";
  p.outs = {alignedLabels(r, r)};
  std::vector<int64_t> shape = in;
  shape[*d] = (end - start + step - 1) / step;
  return solveLabels(ctx, p);
}

RuleResult selectRule(const RuleContext& ctx) {
  if (!known0(ctx)) return unknownResult(ctx);
  const auto& in = ctx.shape(0);
  int r = static_cast<int>(in.size());
  auto d = normDim(ctx.intArgOr(1, "dim", 0), r);
  if (!d) return unknownResult(ctx);
  LabelProblem p = unary(r);
  p.noContractionWhy = "select picks one global index of that dim";
  std::vector<int> lo;
  std::vector<int64_t> shape;
  for (int k = 0; k < r; ++k)
    if (k != *d) { lo.push_back(k); shape.push_back(in[k]); }
  p.outs = {lo};
  return solveLabels(ctx, p);
}

// split.Tensor, split_with_sizes, chunk, unbind: tuple outputs, the split dim must stay whole.
RuleResult splitRule(const RuleContext& ctx) {
  if (!known0(ctx)) return unknownResult(ctx);
  const auto& in = ctx.shape(0);
  int r = static_cast<int>(in.size());
  std::string op = ruleKey(ctx.node->op);
  bool unbind = op == "unbind";
  auto d = normDim(ctx.intArgOr(unbind ? 1 : 2, "dim", 0), r);
  if (!d) return unknownResult(ctx);
  LabelProblem p = unary(r);
  p.forbidden[*d] = "it is cut into pieces along the global dim";
  p.noContractionWhy = "unbind removes that dim";
  std::vector<int> lo = alignedLabels(r, r);
  if (unbind) lo.erase(lo.begin() + *d);
  int nOut = std::max(1, ctx.outputCount());
  p.outs.assign(nOut, lo);
  RuleResult res = solveLabels(ctx, p);
  return res;
}

// cat(tensors, dim) and stack(tensors, dim).
RuleResult catRule(const RuleContext& ctx) {
  bool stack = ruleKey(ctx.node->op) == "stack";
  const Arg* list = ctx.arg(0, "tensors");
  if (!list || !list->isList()) return unknownResult(ctx);
  LabelProblem p;
  p.partial = PartialPolicy::Additive;
  p.contraction = std::nullopt;
  int r = -1;
  std::vector<int64_t> shape;
  // The list's tensors are consecutive inputs: the first one's index is looked up once (a walk over the node's
  // arguments), the others follow, so a cat of 10^6 tensors is checked in linear time.
  const int first = list->items.empty() ? -1 : ctx.inputIndexOf(&list->items[0]);
  for (size_t k = 0; k < list->items.size(); ++k) {
    const Arg& a = list->items[k];
    int i = a.isTensor() && first >= 0 ? first + static_cast<int>(k) : -1;
    if (i < 0 || i >= ctx.inputCount() || ctx.rank(i) < 0) return unknownResult(ctx);
    // Legacy cat skips 1-D empty tensors.
    if (!stack && ctx.rank(i) == 1 && ctx.shape(i)[0] == 0) continue;
    if (r < 0) { r = ctx.rank(i); shape = ctx.shape(i); }
    else if (ctx.rank(i) != r) return unknownResult(ctx);
    LabelInput x;
    x.input = i;
    x.labels = alignedLabels(r, r);
    p.ins.push_back(x);
  }
  if (r < 0) return unknownResult(ctx);
  auto d = normDim(ctx.intArgOr(1, "dim", 0), stack ? r + 1 : r);
  if (!d) return unknownResult(ctx);
  std::vector<int> lo = alignedLabels(r, r);
  if (stack) {
    lo.insert(lo.begin() + *d, kFresh);
    shape.insert(shape.begin() + *d, static_cast<int64_t>(p.ins.size()));
  } else {
    if (p.ins.size() > 1) p.forbidden[*d] = "the inputs are joined end to end along the global dim";
    int64_t total = 0;
    for (const auto& x : p.ins) total += ctx.shape(x.input)[*d];
    shape[*d] = total;
  }
  p.outs = {lo};
  return solveLabels(ctx, p);
}

// slice_backward(grad, input_sizes, dim, start, end, step) and select_backward(grad, input_sizes, dim, index):
// the gradient is written into zeros of the input's size; the sliced dim must be whole in the gradient.
RuleResult sliceBackwardRule(const RuleContext& ctx) {
  if (!known0(ctx)) return unknownResult(ctx);
  bool select = ruleKey(ctx.node->op) == "select_backward";
  auto sizes = ctx.intListArg(1, "input_sizes");
  if (!sizes) return unknownResult(ctx);
  int r = static_cast<int>(sizes->size());
  auto d = normDim(ctx.intArgOr(2, "dim", 0), r);
  if (!d || ctx.rank(0) != (select ? r - 1 : r)) return unknownResult(ctx);
  LabelProblem p;
  p.partial = PartialPolicy::Additive;
  p.contraction = std::nullopt;
  std::vector<int> lg, lo(r);
  for (int k = 0; k < r; ++k) {
    lo[k] = k;
    if (k != *d || !select) lg.push_back(k);
  }
  if (select) lo[*d] = kFresh;
  else if (ctx.shape(0)[*d] != (*sizes)[*d])
    p.forbidden[*d] = "the gradient covers only part of that dim of the input";
  LabelInput g;
  g.input = 0;
  g.labels = lg;
  p.ins = {g};
  p.outs = {lo};
  return solveLabels(ctx, p);
}

// view_as_complex(x[..., 2]) -> [...] and view_as_real(x[...]) -> [..., 2]: the (real, imaginary) pair is one
// element, never split; every other dim keeps its shard. Linear views: any Partial passes through.
RuleResult complexViewRule(const RuleContext& ctx) {
  if (!known0(ctx)) return unknownResult(ctx);
  const int r = ctx.rank(0);
  LabelProblem p = unary(r);
  p.partial = PartialPolicy::Preserve;
  constexpr int kPair = 7900;
  if (ruleKey(ctx.node->op) == "view_as_complex") {
    if (r < 1) return unknownResult(ctx);
    p.ins[0].labels.back() = kPair;
    p.forbidden[kPair] = "it holds the real and imaginary parts of one complex element";
    p.outs = {alignedLabels(r - 1, r - 1)};
  } else {
    std::vector<int> lo = alignedLabels(r, r);
    lo.push_back(kPair);
    p.outs = {lo};
  }
  return solveLabels(ctx, p);
}

// constant_pad_nd(x, pad, value): a padded dim is read whole (a shard would be padded at its own edges); other
// dims keep their shards. Padding with 0 is linear (Partial(sum|avg) passes), with any other value it is not.
RuleResult padRule(const RuleContext& ctx) {
  if (!known0(ctx)) return unknownResult(ctx);
  const int r = ctx.rank(0);
  auto pad = ctx.intListArg(1, "pad");
  if (!pad || pad->size() % 2 || static_cast<int>(pad->size() / 2) > r) return unknownResult(ctx);
  LabelProblem p = unary(r);
  const double value = ctx.numberArg(2, "value").value_or(0.0);
  p.partial = value == 0.0 ? PartialPolicy::Additive : PartialPolicy::Nonlinear;
  for (size_t i = 0; i < pad->size() / 2; ++i)
    if ((*pad)[2 * i] != 0 || (*pad)[2 * i + 1] != 0)
      p.forbidden[r - 1 - static_cast<int>(i)] = "it is padded, and a shard would be padded at its own edges";
  p.outs = {alignedLabels(r, r)};
  return solveLabels(ctx, p);
}

}  // namespace

void registerViewRules(RuleTable& t) {
  t["slice_backward"] = sliceBackwardRule;
  t["select_backward"] = sliceBackwardRule;
  for (const char* op : {"view", "reshape", "_unsafe_view", "_reshape_alias"}) t[op] = viewRule;
  t["flatten"] = flattenRule;
  t["unflatten"] = unflattenRule;
  t["permute"] = permuteRule;
  t["transpose"] = transposeRule;
  t["t"] = transposeRule;
  t["expand"] = expandRule;
  t["squeeze"] = squeezeRule;
  t["unsqueeze"] = unsqueezeRule;
  t["slice"] = sliceRule;
  t["narrow"] = sliceRule;
  t["select"] = selectRule;
  for (const char* op : {"split", "split_with_sizes", "chunk", "unbind"}) t[op] = splitRule;
  t["cat"] = catRule;
  t["stack"] = catRule;
  t["view_as_complex"] = complexViewRule;
  t["view_as_real"] = complexViewRule;
  t["constant_pad_nd"] = padRule;
}

}  // namespace ss::rules
