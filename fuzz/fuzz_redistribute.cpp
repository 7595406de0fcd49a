// Fuzz target: ss::planRedistribute on structured random inputs (mesh shape, tensor shape, two specs built
// from the bytes). Properties: never crash; refused plans say why; a possible plan's steps, applied one after
// another from the source, end at the target placements; each step changes one mesh dim of size > 1 from its
// current placement; bytes are >= 0 and zero exactly for local steps.
#include <algorithm>
#include <cstdint>

#include "core/redistribute/redistribute.h"
#include "fuzz/fuzz_common.h"

namespace {

struct Bytes {
  const uint8_t* p;
  size_t n;
  uint8_t next() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
};

ss::Placement placementFrom(Bytes& b, int rank) {
  const uint8_t kind = b.next() % 5;
  const int dim = rank > 0 ? b.next() % (rank + 1) : 0;  // one past the end on purpose: must be refused
  switch (kind) {
    case 0: return ss::Placement::replicate();
    case 1: case 2: return ss::Placement::shard(dim);
    case 3: return ss::Placement::strided(dim, 1 + b.next() % 8);
    default: return ss::Placement::partial(static_cast<ss::ReduceOp>(b.next() % 5));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes b{data, size};
  const int ndim = 1 + b.next() % 4;
  std::vector<int64_t> meshShape(ndim);
  for (auto& s : meshShape) s = 1 + b.next() % 8;
  const ss::DeviceMesh mesh(meshShape);
  const int rank = b.next() % 5;
  std::vector<int64_t> shape(rank);
  for (auto& s : shape) {
    const uint8_t v = b.next();
    // Sizes up to 2^62 per dim: products overflow int64 and must saturate, not wrap.
    s = v < 200 ? v : (int64_t{1} << std::min(62, v - 200 + 10));
  }
  ss::TensorMeta meta{shape, static_cast<ss::DType>(b.next() % 12), b.next() % 8 != 0};
  std::vector<ss::Placement> a(ndim), c(ndim);
  for (auto& p : a) p = placementFrom(b, rank);
  for (auto& p : c) p = placementFrom(b, rank);
  std::vector<int> orderA;
  if (b.next() % 4 == 0) {
    for (int m = 0; m < ndim; ++m) orderA.push_back(a[m].isShard() ? b.next() % ndim : -1);
  }
  const ss::ShardingSpec from(a, orderA), to(c);
  ss::CostModel cost;
  cost.interNodeDims = {bool(b.next() & 1), bool(b.next() & 1)};
  auto plan = ss::planRedistribute(meta, mesh, from, to, cost);
  if (!plan.possible) {
    FUZZ_CHECK(!plan.whyNot.empty(), "refused without a reason");
    FUZZ_CHECK(plan.steps.empty(), "refused plan has steps");
    FUZZ_CHECK(plan.whyNot.find("internal error") == std::string::npos, "planner found no plan");
    return 0;
  }
  // Replay: the steps turn `from` into `to` (placements compared as DTensor does; strided shown as given).
  std::vector<ss::Placement> cur = a;
  const auto norm = [](ss::Placement p) {  // _S(d, sf) is an ordered Shard(d): compare as DTensor normalises
    return p.kind == ss::PlacementKind::StridedShard ? ss::Placement::shard(p.dim) : p;
  };
  for (const auto& s : plan.steps) {
    FUZZ_CHECK(s.meshDim >= 0 && s.meshDim < ndim, "step on a mesh dim out of range");
    FUZZ_CHECK(mesh.dimSize(s.meshDim) > 1, "step on a size-1 mesh dim");
    FUZZ_CHECK(s.bytesSent >= 0 && s.bytesReceived >= 0 && s.timeUs >= 0, "negative cost");
    const bool local = s.kind == ss::CollectiveKind::LocalChunk || s.kind == ss::CollectiveKind::LocalDivide ||
                       s.kind == ss::CollectiveKind::LocalEmbed;
    if (local) FUZZ_CHECK(s.bytesSent == 0, "a local step sends bytes");
    FUZZ_CHECK(norm(cur[s.meshDim]) == norm(s.from), "a step starts from a placement the mesh dim does not have");
    // A _StridedShard that is no shard order is acted on as such (fromSplit/toSplit > 1): _S(0, 3) -> S(0)
    // changes the layout although both normalise to Shard(0).
    FUZZ_CHECK(!(norm(s.from) == norm(s.to)) || s.fromSplit != s.toSplit, "a step that changes nothing");
    // A decoded _StridedShard is a Shard to the planner (fromSplit 1) even where the step shows it as given.
    FUZZ_CHECK(!(s.from.isShard() && s.to.isPartial()) ||
                   (s.fromSplit == 1 && s.to.reduce == ss::ReduceOp::Sum && s.kind == ss::CollectiveKind::LocalEmbed),
               "a planned S->P other than Shard -> Partial(sum) (DTensor's local embed)");
    FUZZ_CHECK(!(s.from.isReplicate() && s.to.isPartial() && s.to.reduce == ss::ReduceOp::Product),
               "a planned R -> P(product)");
    cur[s.meshDim] = s.to;
    (void)s.toString();
  }
  for (int m = 0; m < ndim; ++m) {
    if (mesh.dimSize(m) == 1) continue;
    FUZZ_CHECK(norm(cur[m]) == norm(c[m]), "the steps do not reach the target");
  }
  (void)plan.summary();
  return 0;
}
