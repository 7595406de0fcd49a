// Redistribute planning: which collective runs on which mesh dim, in which order, and the exact wire bytes.
// Every expected number is a worked example of docs/cost-model.md (the doc shows the arithmetic).
#include <catch2/catch.hpp>

#include "core/redistribute/redistribute.h"

using namespace ss;

namespace {

const Placement R = Placement::replicate();
Placement S(int d) { return Placement::shard(d); }
Placement P(ReduceOp op = ReduceOp::Sum) { return Placement::partial(op); }
ShardingSpec spec(std::vector<Placement> p, std::vector<int> order = {}) { return ShardingSpec(std::move(p), std::move(order)); }
TensorMeta meta(std::vector<int64_t> shape, DType dt = DType::F32) { return TensorMeta{std::move(shape), dt, true}; }

const DeviceMesh mesh2x4({2, 4}, {"dim0", "dim1"});
const DeviceMesh mesh4({4});

}  // namespace

TEST_CASE("seed 1: RS(1) -> RS(0) on the 2x4 mesh is one all_to_all on mesh dim 1", "[redistribute]") {
  // index_put values [16, 128, 1, 64] bf16: local [16, 32, 1, 64] -> [4, 128, 1, 64].
  auto plan = planRedistribute(meta({16, 128, 1, 64}, DType::BF16), mesh2x4, spec({R, S(1)}), spec({R, S(0)}));
  REQUIRE(plan.possible);
  REQUIRE(plan.steps.size() == 1);
  const auto& s = plan.steps[0];
  CHECK(s.meshDim == 1);
  CHECK(s.meshDimName == "dim1");
  CHECK(s.kind == CollectiveKind::AllToAll);
  CHECK(s.from == S(1));
  CHECK(s.to == S(0));
  CHECK(s.groupSize == 4);
  // (k-1) * ceil(128/4) * ceil(16/4) * 1 * 64 elements * 2 bytes = 3 * 32 * 4 * 64 * 2
  CHECK(s.bytesSent == 49152);
  CHECK(s.bytesReceived == 49152);
  CHECK(plan.totalBytes() == 49152);
  CHECK(s.timeUs == Approx(9.32768));
}

TEST_CASE("all_gather S(0) -> R with uneven shards counts DTensor's padded chunks", "[redistribute]") {
  // 10 rows on 4 ranks: chunks 3, 3, 3, 1; DTensor pads each to 3 rows before all_gather.
  auto plan = planRedistribute(meta({10, 3}), mesh4, spec({S(0)}), spec({R}));
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == CollectiveKind::AllGather);
  CHECK(plan.steps[0].bytesSent == 3 * 3 * 3 * 4);  // (k-1) * ceil(10/4) * 3 cols * f32 = 108
  CHECK(plan.steps[0].timeUs == Approx(3 * 3.0 + 108 / 150e3));
}

TEST_CASE("all_reduce P(sum) -> R sends 2(k-1) chunks of ceil(E/k)", "[redistribute]") {
  auto plan = planRedistribute(meta({1024, 1024}), mesh4, spec({P()}), spec({R}));
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == CollectiveKind::AllReduce);
  CHECK(plan.steps[0].bytesSent == 6291456);  // 2 * 3 * 262144 * 4 = 6.0 MiB
  CHECK(plan.steps[0].timeUs == Approx(59.94304));
  // Uneven element count: E = 10, k = 4 -> 2 * 3 * ceil(10/4) = 18 elements.
  auto uneven = planRedistribute(meta({10}), mesh4, spec({P(ReduceOp::Max)}), spec({R}));
  CHECK(uneven.steps.at(0).bytesSent == 18 * 4);
}

TEST_CASE("reduce_scatter P -> S(d), even and uneven", "[redistribute]") {
  auto even = planRedistribute(meta({1024, 1024}), mesh4, spec({P()}), spec({S(0)}));
  REQUIRE(even.steps.size() == 1);
  CHECK(even.steps[0].kind == CollectiveKind::ReduceScatter);
  CHECK(even.steps[0].bytesSent == 3145728);  // 3 * 256 * 1024 * 4 = 3.0 MiB
  CHECK(even.steps[0].timeUs == Approx(29.97152));
  auto uneven = planRedistribute(meta({10, 3}), mesh4, spec({P(ReduceOp::Avg)}), spec({S(0)}));
  CHECK(uneven.steps.at(0).bytesSent == 108);  // padded like all_gather: 3 * 3 * 3 * 4
}

TEST_CASE("all_to_all with uneven dims on both sides", "[redistribute]") {
  // [10, 6] S(0) -> S(1) on 4 ranks: local [3, 6] split into 4 column chunks of ceil(6/4) = 2; 3 leave.
  auto plan = planRedistribute(meta({10, 6}), mesh4, spec({S(0)}), spec({S(1)}));
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == CollectiveKind::AllToAll);
  CHECK(plan.steps[0].bytesSent == 3 * 3 * 2 * 4);  // 72
}

TEST_CASE("local transforms move no bytes and take no time", "[redistribute]") {
  auto chunk = planRedistribute(meta({8, 8}), mesh4, spec({R}), spec({S(1)}));
  REQUIRE(chunk.steps.size() == 1);
  CHECK(chunk.steps[0].kind == CollectiveKind::LocalChunk);
  CHECK(chunk.steps[0].bytesSent == 0);
  CHECK(chunk.steps[0].timeUs == 0);
  auto divide = planRedistribute(meta({8, 8}), mesh4, spec({R}), spec({P()}));
  REQUIRE(divide.steps.size() == 1);
  CHECK(divide.steps[0].kind == CollectiveKind::LocalDivide);
  CHECK(divide.totalBytes() == 0);
  CHECK(divide.summary() == "divide on mesh dim 0 (dim0), no communication");
  auto same = planRedistribute(meta({8, 8}), mesh2x4, spec({S(0), R}), spec({S(0), R}));
  CHECK(same.possible);
  CHECK(same.steps.empty());
  CHECK(same.summary() == "no communication");
}

TEST_CASE("nested shards are unwound inner first, as DTensor's greedy planner does", "[redistribute]") {
  // (S(0), S(0)) -> (R, S(0)) on 2x4, [64, 16] f32: mesh dim 1's split nests inside mesh dim 0's, so it must
  // be gathered before mesh dim 0 can be, then re-chunked as the first split.
  auto plan = planRedistribute(meta({64, 16}), mesh2x4, spec({S(0), S(0)}), spec({R, S(0)}));
  REQUIRE(plan.possible);
  REQUIRE(plan.steps.size() == 3);
  CHECK(plan.steps[0].meshDim == 1);
  CHECK(plan.steps[0].kind == CollectiveKind::AllGather);
  CHECK(plan.steps[0].bytesSent == 3 * 8 * 16 * 4);  // logical rows 64/2 = 32, chunk 8: 1536
  CHECK(plan.steps[1].meshDim == 0);
  CHECK(plan.steps[1].kind == CollectiveKind::AllGather);
  CHECK(plan.steps[1].bytesSent == 1 * 32 * 16 * 4);  // 2048
  CHECK(plan.steps[2].meshDim == 1);
  CHECK(plan.steps[2].kind == CollectiveKind::LocalChunk);
  CHECK(plan.totalBytes() == 3584);
}

TEST_CASE("S(0)S(1) -> S(1)S(0): gather, all_to_all, chunk", "[redistribute]") {
  auto plan = planRedistribute(meta({8, 8}), mesh2x4, spec({S(0), S(1)}), spec({S(1), S(0)}));
  REQUIRE(plan.steps.size() == 3);
  CHECK(plan.steps[0].meshDim == 1);
  CHECK(plan.steps[0].kind == CollectiveKind::AllGather);
  CHECK(plan.steps[0].from == S(1));
  CHECK(plan.steps[0].bytesSent == 3 * 2 * 4 * 4);  // chunk ceil(8/4) = 2 cols x 4 local rows: 96
  CHECK(plan.steps[1].meshDim == 0);
  CHECK(plan.steps[1].kind == CollectiveKind::AllToAll);
  CHECK(plan.steps[1].bytesSent == 1 * 4 * 4 * 4);  // 64
  CHECK(plan.steps[2].meshDim == 1);
  CHECK(plan.steps[2].kind == CollectiveKind::LocalChunk);
  CHECK(plan.steps[2].to == S(0));
}

TEST_CASE("replicated source: only the forward pass, outer mesh dim first", "[redistribute]") {
  auto plan = planRedistribute(meta({8, 8}), mesh2x4, spec({P(), R}), spec({R, S(1)}));
  REQUIRE(plan.steps.size() == 2);
  CHECK(plan.steps[0].meshDim == 0);
  CHECK(plan.steps[0].kind == CollectiveKind::AllReduce);
  CHECK(plan.steps[0].bytesSent == 2 * 1 * 32 * 4);  // E = 64, k = 2: 2 * 1 * ceil(64/2)
  CHECK(plan.steps[1].meshDim == 1);
  CHECK(plan.steps[1].kind == CollectiveKind::LocalChunk);
}

TEST_CASE("sharded source: reverse pass runs every change, inner mesh dim first", "[redistribute]") {
  // (R, S(0)) -> (S(0), R): DTensor gathers on mesh dim 1, then chunks on mesh dim 0.
  auto plan = planRedistribute(meta({8, 4}), mesh2x4, spec({R, S(0)}), spec({S(0), R}));
  REQUIRE(plan.steps.size() == 2);
  CHECK(plan.steps[0].meshDim == 1);
  CHECK(plan.steps[0].kind == CollectiveKind::AllGather);
  CHECK(plan.steps[0].bytesSent == 3 * 2 * 4 * 4);  // 96
  CHECK(plan.steps[1].meshDim == 0);
  CHECK(plan.steps[1].kind == CollectiveKind::LocalChunk);
}

TEST_CASE("Partial with a sharded other mesh dim: reduce_scatter counts the local shard", "[redistribute]") {
  // (S(0), P) -> (S(0), S(1)) on 2x4, [8, 16] f32: local [4, 16] partial; reduce_scatter along cols.
  auto plan = planRedistribute(meta({8, 16}), mesh2x4, spec({S(0), P()}), spec({S(0), S(1)}));
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == CollectiveKind::ReduceScatter);
  CHECK(plan.steps[0].bytesSent == 3 * 4 * 4 * 4);  // (k-1) * ceil(16/4) * 4 rows * 4 B = 192
}

TEST_CASE("size-1 mesh dims need no collective and refuse nothing", "[redistribute]") {
  DeviceMesh mesh1x4({1, 4});
  auto plan = planRedistribute(meta({8}), mesh1x4, spec({S(0), R}), spec({P(), R}));
  CHECK(plan.possible);
  CHECK(plan.steps.empty());
}

TEST_CASE("S -> P(sum) is a local embed (DTensor 2.14: Shard._to_partial_tensor)", "[redistribute]") {
  // Each rank writes its shard into zeros of the unsharded size: summing over the mesh dim gives the tensor.
  auto sp = planRedistribute(meta({8}), mesh4, spec({S(0)}), spec({P()}));
  REQUIRE(sp.possible);
  REQUIRE(sp.steps.size() == 1);
  CHECK(sp.steps[0].kind == CollectiveKind::LocalEmbed);
  CHECK(sp.steps[0].bytesSent == 0);
  CHECK(sp.summary() == "embed on mesh dim 0 (dim0), no communication");
  // On a 2-D mesh it is one step of the greedy plan: S(0)S(1) -> P(sum)S(1) embeds on mesh dim 0.
  auto two = planRedistribute(meta({8, 16}), mesh2x4, spec({S(0), S(1)}), spec({P(), S(1)}));
  REQUIRE(two.possible);
  REQUIRE(two.steps.size() == 1);
  CHECK(two.steps[0].meshDim == 0);
  CHECK(two.steps[0].kind == CollectiveKind::LocalEmbed);
}

TEST_CASE("refused: what DTensor's redistribute raises on", "[redistribute]") {
  // S -> P of another op than sum ("redistribute from Shard(dim=0) to Partial(max) not supported yet").
  auto sp = planRedistribute(meta({8}), mesh4, spec({S(0)}), spec({P(ReduceOp::Max)}));
  CHECK_FALSE(sp.possible);
  CHECK(sp.steps.empty());
  CHECK(sp.whyNot == "mesh dim 0 (dim0): S(0) -> P(max): DTensor turns only a Shard into Partial(sum) (the shard "
                     "written into zeros); a shard cannot become a Partial(max) value");
  CHECK(sp.summary() == sp.whyNot);
  // _StridedShard -> Partial (not a Shard).
  auto strided = planRedistribute(meta({8}), mesh4, spec({Placement::strided(0, 2)}), spec({P()}));
  CHECK_FALSE(strided.possible);
  // R -> P(product) ("Replicate to Partial(product) conversion is not supported").
  auto product = planRedistribute(meta({8}), mesh4, spec({R}), spec({P(ReduceOp::Product)}));
  CHECK_FALSE(product.possible);
  CHECK(product.whyNot == "mesh dim 0 (dim0): R -> P(product): DTensor cannot turn a replicated value into "
                          "Partial(product) (that would take an n-th root)");
  auto op = planRedistribute(meta({8}), mesh2x4, spec({R, P(ReduceOp::Sum)}), spec({R, P(ReduceOp::Max)}));
  CHECK_FALSE(op.possible);
  CHECK(op.whyNot == "mesh dim 1 (dim1): P(sum) -> P(max): a redistribute cannot change a Partial's reduce op");
}

TEST_CASE("refused: specs that do not fit the mesh or the tensor", "[redistribute]") {
  auto count = planRedistribute(meta({8, 8}), mesh2x4, spec({S(0)}), spec({R, R}));
  CHECK_FALSE(count.possible);
  CHECK(count.whyNot == "source spec S(0) has 1 placements but the mesh has 2 dims");
  auto dim = planRedistribute(meta({8, 8}), mesh2x4, spec({R, R}), spec({R, S(5)}));
  CHECK_FALSE(dim.possible);
  CHECK(dim.whyNot == "target spec RS(5) shards dim 5 of a rank-2 tensor");
  auto negative = planRedistribute(meta({8, 8}), mesh4, spec({S(-1)}), spec({R}));
  CHECK_FALSE(negative.possible);
  auto order = planRedistribute(meta({8, 8}), mesh2x4, spec({S(0), S(0)}, {0}), spec({R, R}));
  CHECK_FALSE(order.possible);
}

TEST_CASE("shard order: S(0)[1]S(0)[0] unwinds mesh dim 0 first", "[redistribute]") {
  // Tensor dim 0 split by mesh dim 1 first, then mesh dim 0 (non-default order): mesh dim 0's split is the
  // innermost, so it is gathered first. [16] f32 on 2x4.
  auto plan = planRedistribute(meta({16}), mesh2x4, spec({S(0), S(0)}, {1, 0}), spec({S(0), R}));
  REQUIRE(plan.possible);
  REQUIRE(plan.steps.size() == 3);
  CHECK(plan.steps[0].meshDim == 0);
  CHECK(plan.steps[0].kind == CollectiveKind::AllGather);
  CHECK(plan.steps[0].bytesSent == 1 * 2 * 4);  // logical 16/4 = 4, chunk 2
  CHECK(plan.steps[1].meshDim == 1);
  CHECK(plan.steps[1].kind == CollectiveKind::AllGather);
  CHECK(plan.steps[1].bytesSent == 3 * 4 * 4);  // 48
  CHECK(plan.steps[2].meshDim == 0);
  CHECK(plan.steps[2].kind == CollectiveKind::LocalChunk);
}

TEST_CASE("_StridedShard is planned as its ordered-Shard equivalent and printed as given", "[redistribute]") {
  // (_S(0, 4), S(0)) on 2x4 == S(0)[1]S(0)[0]: mesh dim 1 (size 4) splits first.
  auto strided = planRedistribute(meta({16}), mesh2x4, spec({Placement::strided(0, 4), S(0)}), spec({S(0), R}));
  auto ordered = planRedistribute(meta({16}), mesh2x4, spec({S(0), S(0)}, {1, 0}), spec({S(0), R}));
  REQUIRE(strided.possible);
  REQUIRE(strided.steps.size() == ordered.steps.size());
  for (size_t i = 0; i < strided.steps.size(); ++i) {
    CHECK(strided.steps[i].meshDim == ordered.steps[i].meshDim);
    CHECK(strided.steps[i].kind == ordered.steps[i].kind);
    CHECK(strided.steps[i].bytesSent == ordered.steps[i].bytesSent);
  }
  CHECK(strided.steps[0].from == Placement::strided(0, 4));
}

TEST_CASE("a _StridedShard that is no shard order: DTensor's greedy fallback, refused where it goes wrong",
          "[redistribute]") {
  // A view's _S(0, 4) on a 1-D mesh (4 is no product of later mesh-dim sizes): one direct transform.
  auto view = planRedistribute(meta({12, 6}), mesh4, spec({Placement::strided(0, 4)}), spec({S(0)}));
  REQUIRE(view.possible);
  REQUIRE(view.steps.size() == 1);
  CHECK(view.steps[0].kind == CollectiveKind::AllGather);  // gather the strided pieces, then a local chunk
  CHECK(view.steps[0].from == Placement::strided(0, 4));
  auto back = planRedistribute(meta({12, 6}), mesh4, spec({R}), spec({Placement::strided(0, 4)}));
  REQUIRE(back.possible);
  REQUIRE(back.steps.size() == 1);
  CHECK(back.steps[0].kind == CollectiveKind::LocalChunk);
  // The _StridedShard as its dim's innermost split: mesh dim 1 gathered first, then mesh dim 0 (greedy).
  auto inner = planRedistribute(meta({16}), mesh2x4, spec({S(0), Placement::strided(0, 3)}), spec({R, R}));
  REQUIRE(inner.possible);
  REQUIRE(inner.steps.size() == 2);
  CHECK(inner.steps[0].meshDim == 1);
  CHECK(inner.steps[0].from == Placement::strided(0, 3));
  CHECK(inner.steps[1].meshDim == 0);
  // Under a later split of the same dim, DTensor's fallback sizes that split as if the _StridedShard did not
  // split it (its run returns wrong data): refused.
  auto bad = planRedistribute(meta({16}), mesh2x4, spec({Placement::strided(0, 3), S(0)}), spec({R, R}));
  CHECK_FALSE(bad.possible);
  CHECK(bad.whyNot == "mesh dim 1: S(0) -> R: DTensor's greedy planner sizes this split of dim 0 as if mesh dim 0's "
                      "_S(0, 3) (no shard order) did not split it, so its run raises or returns wrong data");
  // Nor can it change a split nested inside the _StridedShard's tensor dim.
  auto nested = planRedistribute(meta({16}), mesh2x4, spec({Placement::strided(0, 3), R}), spec({R, S(0)}));
  CHECK_FALSE(nested.possible);
  // A _StridedShard that is no shard order never becomes a Partial.
  auto partial = planRedistribute(meta({12}), mesh4, spec({Placement::strided(0, 3)}), spec({P()}));
  CHECK_FALSE(partial.possible);
}

TEST_CASE("graph search: a path DTensor cannot run is refused; _S(d, 1) is a Shard", "[redistribute]") {
  // A Partial(product) that stays Partial(product): for a huge tensor DTensor's prices route it through a
  // reduce_scatter (the later all_to_alls then move less) and back through Replicate, but R -> P(product) raises
  // at run time ("Replicate to Partial(product) conversion is not supported").
  const DeviceMesh mesh({4, 8, 4, 5});
  auto plan = planRedistribute(meta({int64_t{1} << 35, 178, 86}), mesh,
                               spec({Placement::strided(1, 4), P(ReduceOp::Product), S(1), R}),
                               spec({R, P(ReduceOp::Product), R, S(1)}));
  CHECK_FALSE(plan.possible);
  CHECK(plan.whyNot == "mesh dim 1 (dim1): the plan passes R -> P(product), and DTensor cannot turn a replicated "
                       "value into Partial(product) (that would take an n-th root)");
  // A split factor of 1 cuts one chunk into k pieces: a Shard's layout, planned as one, also next to a
  // _StridedShard that is no shard order (DTensor's greedy fallback on the placements).
  const DeviceMesh m2x2({2, 2});
  auto one = planRedistribute(meta({12, 12}), m2x2, spec({S(0), Placement::strided(1, 3)}),
                              spec({Placement::strided(0, 1), Placement::strided(1, 3)}));
  REQUIRE(one.possible);
  CHECK(one.steps.empty());
}

TEST_CASE("non-default order: DTensor's graph search, priced as DTensor prices it", "[redistribute]") {
  // Source: dim 0 split by mesh dim 1 then mesh dim 0. Target: mesh dim 0 shards dim 1, mesh dim 1 keeps dim 0.
  // Mesh dim 0 is dim 0's innermost split, so it can move to dim 1 with one all_to_all, which DTensor prices as
  // an all_gather of the local bytes plus 1 us; gathering it and chunking again costs an all_gather of k times
  // the bytes. For [8, 8] f32 the penalty wins: all_gather + chunk, as DTensor 2.14 plans it.
  auto small = planRedistribute(meta({8, 8}), mesh2x4, spec({S(0), S(0)}, {1, 0}), spec({S(1), S(0)}));
  REQUIRE(small.possible);
  REQUIRE(small.steps.size() == 2);
  CHECK(small.steps[0].meshDim == 0);
  CHECK(small.steps[0].kind == CollectiveKind::AllGather);
  CHECK(small.steps[1].meshDim == 0);
  CHECK(small.steps[1].kind == CollectiveKind::LocalChunk);
  CHECK(small.steps[1].to == S(1));
  // For [4096, 4096] the all_to_all's bytes win.
  auto large = planRedistribute(meta({4096, 4096}), mesh2x4, spec({S(0), S(0)}, {1, 0}), spec({S(1), S(0)}));
  REQUIRE(large.possible);
  REQUIRE(large.steps.size() == 1);
  CHECK(large.steps[0].meshDim == 0);
  CHECK(large.steps[0].kind == CollectiveKind::AllToAll);
  CHECK(large.steps[0].bytesSent == int64_t{1} * 512 * 2048 * 4);  // rows 4096/4 = 1024 -> chunk 512; cols 2048
  // The topology changes the prices: on inter-host mesh dims (0.22 of the bandwidth) the all_to_all wins sooner.
  CostModel inter;
  inter.interNodeDims = {true, true};
  auto mid = planRedistribute(meta({512, 256}), mesh2x4, spec({S(0), S(0)}, {1, 0}), spec({S(1), S(0)}));
  auto midInter = planRedistribute(meta({512, 256}), mesh2x4, spec({S(0), S(0)}, {1, 0}), spec({S(1), S(0)}), inter);
  CHECK(mid.steps.size() == 2);
  CHECK(midInter.steps.size() == 1);
}

TEST_CASE("10^12-element tensors are counted, never allocated; sizes saturate", "[redistribute]") {
  DeviceMesh mesh8({8});
  auto plan = planRedistribute(meta({1000000, 1000000}, DType::BF16), mesh8, spec({S(0)}), spec({R}));
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].bytesSent == int64_t{7} * 125000 * 1000000 * 2);  // 1.75e12
  auto huge = planRedistribute(meta({int64_t{1} << 40, int64_t{1} << 40}), mesh8, spec({P()}), spec({R}));
  CHECK(huge.steps.at(0).bytesSent == std::numeric_limits<int64_t>::max());
  CHECK(huge.totalBytes() == std::numeric_limits<int64_t>::max());
}

TEST_CASE("unknown shapes still plan the steps, with no bytes", "[redistribute]") {
  TensorMeta unknown;
  unknown.known = false;
  auto plan = planRedistribute(unknown, mesh2x4, spec({R, S(1)}), spec({R, S(0)}));
  REQUIRE(plan.possible);
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].kind == CollectiveKind::AllToAll);
  CHECK(plan.steps[0].bytesSent == 0);
}
