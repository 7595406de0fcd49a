// float8 matmul: _scaled_mm(self[M, K], mat2[K, N], scale_a, scale_b, bias?, scale_result?, out_dtype?, ...)
// computes (scale_a * self) @ (scale_b * mat2). DTensor 2.14's strategy (scaled_mm_single_dim_strategy) is mm's
// per-mesh-dim list (K on both -> Partial(sum), M on self, N on mat2, one Partial(sum|avg) factor times a Replicate
// one, all Replicate) with each scale's placement derived from its operand's:
//   - tensor-wise scale (one element): Replicate;
//   - any scale of rank >= 2 (row-wise scale_a [M, 1] / scale_b [1, N], 2-D blockwise): its operand's placement,
//     copied as it is (Shard(d) stays Shard(d), Partial stays Partial);
//   - 1-D blockwise scale (MX, swizzled): Shard(0) where its operand shards its non-contracted dim, no strategy
//     where it shards K, Replicate where it is Replicate or Partial.
// An input set must match one row exactly on every mesh dim, and every input must then be shardable as DTensor's
// is_tensor_shardable says (no dim split into more pieces than it has elements: a row-wise scale's size-1 dim
// cannot follow a split of K); otherwise DTensor redistributes and core refuses. The answers were measured on
// tests/dtensor/cases.json (case family tests/dtensor/case_ops/scaled_mm.py).
//
// Where core departs from DTensor: a row whose derived scale is Partial (a Partial operand with a scale that is
// not tensor-wise) is refused. The scale multiplies its operand, so with operand = sum_r x_r and scale = sum_r s_r
// the ranks' sum of s_r * x_r is not scale * operand; DTensor accepts such inputs, and turns a Replicate scale
// into that Partial (rank 0 keeps it, the others get zeros), both giving wrong values
// (known_differences.json: strict-scaled-mm-partial-scale). A bias or scale_result has no DTensor strategy (it
// raises): refused too. Inputs with a non-default shard order are left unknown (no DTensor case asks them).
#include <algorithm>
#include <functional>

#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

namespace {

constexpr int kSelf = 0, kMat2 = 1, kScaleA = 2, kScaleB = 3;
const char* const kInputNames[] = {"self", "mat2", "scale_a", "scale_b"};

enum class ScaleLayout : uint8_t { TensorWise, Copied, Blockwise1d };

ScaleLayout layoutOf(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  if (n == 1) return ScaleLayout::TensorWise;
  return shape.size() == 1 ? ScaleLayout::Blockwise1d : ScaleLayout::Copied;
}

// One mesh dim's strategy: output, self, mat2 (scales derived). `why` is set when core drops the row.
struct Row {
  Placement out, self, mat2, scaleA, scaleB;
  bool dropped = false;
  bool partialScale = false;  // dropped because a derived scale is Partial (core's strictness)
  std::string why;
};

struct Problem {
  const RuleContext& ctx;
  ScaleLayout layoutA, layoutB;

  const std::vector<int64_t>& shape(int i) const { return ctx.shape(i); }
  const ShardingSpec& spec(int i) const { return *ctx.inSpecs[i]; }

  // DTensor's _scaled_mm_scale_placement; nullopt = no strategy (a 1-D blockwise scale cannot follow K).
  static std::optional<Placement> derive(ScaleLayout l, const Placement& data, int contracting) {
    switch (l) {
      case ScaleLayout::TensorWise: return Placement::replicate();
      case ScaleLayout::Copied: return data;
      case ScaleLayout::Blockwise1d:
        if (data.isShard()) return data.dim == contracting ? std::nullopt : std::optional(shardLike(data, 0));
        return Placement::replicate();
    }
    return Placement::replicate();
  }

  std::string scaleText(int i) const { return std::string(kInputNames[i]) + " " + shapeToString(shape(i)); }

  // The rows of mesh dim m, in DTensor's order after the all-Replicate one. Placeholders take the kind of the
  // input they stand for (a _StridedShard input keeps its split factor).
  std::vector<Row> rows(int m) const {
    const Placement& a = spec(kSelf)[m];
    const Placement& b = spec(kMat2)[m];
    auto like = [](const Placement& in, int d) { return in.isShard(d) ? in : Placement::shard(d); };
    const Placement R = Placement::replicate();
    std::vector<Row> out;
    auto add = [&](Placement o, Placement s, Placement t) {
      Row r;
      r.out = o;
      r.self = s;
      r.mat2 = t;
      const auto sa = derive(layoutA, s, 1), sb = derive(layoutB, t, 0);
      if (!sa || !sb) {
        r.dropped = true;
        r.why = "a 1-D blockwise " + std::string(!sa ? "scale_a" : "scale_b") +
                " cannot follow a split of the contracted dim K (DTensor's _scaled_mm strategy has none)";
      } else {
        r.scaleA = *sa;
        r.scaleB = *sb;
        if (sa->isPartial() || sb->isPartial()) {
          const int i = sa->isPartial() ? kScaleA : kScaleB;
          r.dropped = r.partialScale = true;
          r.why = "_scaled_mm multiplies " + std::string(kInputNames[i - 2]) + " by " + scaleText(i) +
                  " (not tensor-wise), so a Partial " + kInputNames[i - 2] +
                  " would need a Partial scale too (DTensor's strategy copies the placement onto it), and a sum of "
                  "per-rank products is not the product of the sums";
        }
        for (int i : {kScaleA, kScaleB}) {  // a scale dim the shard cannot split (row-wise scales' size-1 dims)
          const Placement& p = i == kScaleA ? r.scaleA : r.scaleB;
          if (r.dropped || !p.isShard() || p.dim >= static_cast<int>(shape(i).size())) continue;
          if (shape(i)[p.dim] < ctx.mesh->dimSize(m)) {
            r.dropped = true;
            r.why = "DTensor's strategy would split " + scaleText(i) + " as " + p.shortString() +
                    ", and its dim " + std::to_string(p.dim) + " (size " + std::to_string(shape(i)[p.dim]) +
                    ") does not split over " + std::to_string(ctx.mesh->dimSize(m)) + " ranks";
          }
        }
      }
      out.push_back(std::move(r));
    };
    add(R, R, R);
    add(Placement::partial(ReduceOp::Sum), like(a, 1), like(b, 0));
    add(like(a, 0), like(a, 0), R);  // the output [M, N] shards M (its dim 0) or N (its dim 1)
    add(like(b, 1), R, like(b, 1));
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Avg}) {
      add(Placement::partial(op), Placement::partial(op), R);
      add(Placement::partial(op), R, Placement::partial(op));
    }
    return out;
  }

  static bool dataMatches(const Row& r, const Placement& a, const Placement& b) { return r.self == a && r.mat2 == b; }

  // DTensor's is_tensor_shardable: the first input (of the four) with a dim split into more pieces than it has
  // elements, with the sentence why; -1 when none.
  int unshardable(const std::function<const ShardingSpec&(int)>& specOf, std::string& why) const {
    for (int i = 0; i < 4; ++i) {
      const ShardingSpec& s = specOf(i);
      std::vector<int64_t> pieces(shape(i).size(), 1);
      for (int m = 0; m < s.meshDims(); ++m) {
        const Placement& p = s[m];
        if (!p.isShard() || p.dim < 0 || p.dim >= static_cast<int>(pieces.size())) continue;
        pieces[p.dim] *= ctx.mesh->dimSize(m);
        const int64_t need = p.kind == PlacementKind::StridedShard ? pieces[p.dim] * p.splitFactor : pieces[p.dim];
        if (shape(i)[p.dim] < need) {
          why = std::string(kInputNames[i]) + " (" + s.toMeshString() + ") splits its dim " + std::to_string(p.dim) +
                " (size " + std::to_string(shape(i)[p.dim]) + ") into " + std::to_string(need) +
                " pieces, so some ranks hold none, and DTensor keeps no _scaled_mm strategy with such a shard "
                "(is_tensor_shardable)";
          return i;
        }
      }
    }
    return -1;
  }

  // Every assignment of the four inputs DTensor runs as given (one kept row per mesh dim, shardable), the
  // others as they arrive: what the fix planner chooses from. Meshes of more than 3 dims get the all-Replicate
  // assignment only (at most 8^3 products otherwise).
  std::vector<SpecList> alternatives(const std::vector<std::vector<Row>>& perDim) const {
    const int nd = ctx.mesh->ndim();
    std::vector<SpecList> out;
    SpecList base = ctx.inSpecs;
    if (nd > 3) {
      for (int i = 0; i < 4; ++i) base[i] = ShardingSpec::replicated(nd);
      out.push_back(base);
      return out;
    }
    std::vector<std::vector<const Row*>> kept(nd);
    for (int m = 0; m < nd; ++m)
      for (const Row& r : perDim[m])
        if (!r.dropped) kept[m].push_back(&r);
    std::vector<size_t> idx(nd, 0);
    while (true) {
      SpecList s = base;
      for (int i = 0; i < 4; ++i) s[i] = ShardingSpec::replicated(nd);
      for (int m = 0; m < nd; ++m) {
        const Row& r = *kept[m][idx[m]];
        s[kSelf]->placements[m] = r.self;
        s[kMat2]->placements[m] = r.mat2;
        s[kScaleA]->placements[m] = r.scaleA;
        s[kScaleB]->placements[m] = r.scaleB;
      }
      std::string why;
      if (unshardable([&](int i) -> const ShardingSpec& { return *s[i]; }, why) < 0) out.push_back(std::move(s));
      int m = nd - 1;
      while (m >= 0 && ++idx[m] == kept[m].size()) idx[m--] = 0;
      if (m < 0) break;
    }
    return out;
  }

  RuleResult fail(Verdict v, int input, int m, const Placement& want, std::string msg,
                  const std::vector<std::vector<Row>>& perDim) const {
    ShardingSpec w = spec(input);
    w.placements[m] = want;
    RuleResult r = failResult(v, input, w, std::move(msg));
    r.alternatives = alternatives(perDim);
    return r;
  }

  std::string onDim(int m) const { return "mesh dim " + std::to_string(m) + " (" + ctx.mesh->dimName(m) + ")"; }
};

}  // namespace

RuleResult scaledMm(const RuleContext& ctx) {
  // bias (position 4) and scale_result (position 5): DTensor's strategy raises for either.
  for (auto [pos, kw] : {std::pair{4, "bias"}, std::pair{5, "scale_result"}}) {
    const int i = ctx.inputIndexOf(ctx.arg(pos, kw));
    if (i >= 0)
      return failResult(Verdict::Incompatible, i, std::nullopt,
                        std::string("DTensor has no _scaled_mm strategy with a ") + kw +
                            " (its strategy raises): apply it after the matmul");
  }
  if (ctx.inputCount() < 4 || (!ctx.argsComplete && ctx.inputCount() != 4) || !ctx.mesh) return unknownResult(ctx);
  for (int i = 0; i < 4; ++i)
    if (!ctx.inSpecs[i] || ctx.rank(i) < 0 || ctx.inSpecs[i]->meshDims() != ctx.mesh->ndim() ||
        !ctx.inSpecs[i]->defaultOrder())
      return unknownResult(ctx);
  if (ctx.rank(kSelf) != 2 || ctx.rank(kMat2) != 2) return unknownResult(ctx);
  Problem p{ctx, layoutOf(ctx.shape(kScaleA)), layoutOf(ctx.shape(kScaleB))};
  const int nd = ctx.mesh->ndim();
  std::vector<std::vector<Row>> perDim(nd);
  for (int m = 0; m < nd; ++m) perDim[m] = p.rows(m);
  ShardingSpec out = ShardingSpec::replicated(nd);
  for (int m = 0; m < nd; ++m) {
    const Placement& a = p.spec(kSelf)[m];
    const Placement& b = p.spec(kMat2)[m];
    const Placement& sa = p.spec(kScaleA)[m];
    const Placement& sb = p.spec(kScaleB)[m];
    const Row* data = nullptr;     // the first kept row the operands match
    const Row* dropped = nullptr;  // ... else the first dropped one
    for (const Row& r : perDim[m]) {
      if (!Problem::dataMatches(r, a, b)) continue;
      if (!r.dropped && !data) data = &r;
      if (r.dropped && !dropped) dropped = &r;
    }
    if (data && data->scaleA == sa && data->scaleB == sb) {
      out.placements[m] = data->out;
      continue;
    }
    if (data) {  // the operands fit; a scale does not arrive as DTensor derives it
      const int i = data->scaleA == sa ? kScaleB : kScaleA;
      const Placement& want = i == kScaleA ? data->scaleA : data->scaleB;
      const Placement& has = i == kScaleA ? sa : sb;
      const char* rule = p.layoutA == ScaleLayout::TensorWise && i == kScaleA   ? "a tensor-wise scale is Replicate"
                         : p.layoutB == ScaleLayout::TensorWise && i == kScaleB ? "a tensor-wise scale is Replicate"
                         : (i == kScaleA ? p.layoutA : p.layoutB) == ScaleLayout::Blockwise1d
                             ? "a 1-D blockwise scale is Shard(0) where its operand is sharded, else Replicate"
                             : "a scale of rank >= 2 is placed as its operand";
      return p.fail(Verdict::Incompatible, i, m, want,
                    "on " + p.onDim(m) + ", " + kInputNames[i - 2] + " arrives as " +
                        (i == kScaleA ? a : b).shortString() + ", so " + p.scaleText(i) + " must be " +
                        want.shortString() + " there (" + rule + "), but it arrives as " + has.shortString(),
                    perDim);
    }
    if (dropped) {  // a row DTensor has (or would use), which core refuses: say why
      const int i = dropped->partialScale ? (a.isPartial() ? kSelf : kMat2) : (a.isShard() ? kSelf : kMat2);
      return p.fail(dropped->partialScale ? Verdict::PartialIntoNonlinear : Verdict::Incompatible, i, m,
                    Placement::replicate(),
                    "on " + p.onDim(m) + ", " + kInputNames[i] + " arrives as " + (i == kSelf ? a : b).shortString() +
                        ": " + dropped->why + "; " +
                        (dropped->partialScale ? "reduce it first (all_reduce)" : "replicate it, or shard M or N"),
                    perDim);
    }
    // The operands fit no row: keep the one that fits a row with Replicate scales where possible.
    const Row* withSelf = nullptr;
    for (const Row& r : perDim[m])
      if (!r.dropped && r.self == a && !withSelf) withSelf = &r;
    const int i = withSelf ? kMat2 : kSelf;
    const Placement want = withSelf ? withSelf->mat2 : Placement::replicate();
    return p.fail(Verdict::Incompatible, i, m, want,
                  "on " + p.onDim(m) + ", self " + a.shortString() + " with mat2 " + b.shortString() +
                      " fits no _scaled_mm strategy: it shards M (self dim 0), N (mat2 dim 1) or K on both, or "
                      "takes one Partial factor times a Replicate one",
                  perDim);
  }
  std::string why;
  const int bad = p.unshardable([&](int i) -> const ShardingSpec& { return p.spec(i); }, why);
  if (bad >= 0) {
    RuleResult r = failResult(Verdict::Incompatible, bad, std::nullopt, why);
    r.alternatives = p.alternatives(perDim);
    return r;
  }
  RuleResult r = okResult({out});
  r.outputs.resize(std::max(1, ctx.outputCount()));
  return r;
}

}  // namespace ss::rules
