// The alpha-beta time model, the link table, and how plans print (docs/cost-model.md, worked examples).
#include <catch2/catch.hpp>

#include <cmath>

#include "core/redistribute/dtensor_cost.h"
#include "core/redistribute/redistribute.h"

using namespace ss;

namespace {
const Placement R = Placement::replicate();
Placement S(int d) { return Placement::shard(d); }
ShardingSpec spec(std::vector<Placement> p) { return ShardingSpec(std::move(p)); }
TensorMeta meta(std::vector<int64_t> shape, DType dt = DType::F32) { return TensorMeta{std::move(shape), dt, true}; }
const DeviceMesh mesh2x4({2, 4}, {"dim0", "dim1"});
}  // namespace

TEST_CASE("default link table: NVLink-class inside a node, InfiniBand-class across", "[redistribute][cost]") {
  CostModel cost;
  CHECK(cost.intraNode.name == "nvlink");
  CHECK(cost.intraNode.alphaUs == 3.0);
  CHECK(cost.intraNode.betaGBps == 150.0);
  CHECK(cost.interNode.name == "infiniband");
  CHECK(cost.interNode.alphaUs == 10.0);
  CHECK(cost.interNode.betaGBps == 25.0);
  CHECK(&cost.linkFor(0) == &cost.intraNode);
  cost.interNodeDims = {true, false};
  CHECK(&cost.linkFor(0) == &cost.interNode);
  CHECK(&cost.linkFor(1) == &cost.intraNode);
  CHECK(&cost.linkFor(7) == &cost.intraNode);   // beyond the table: intra-node
  CHECK(&cost.linkFor(-1) == &cost.intraNode);
}

TEST_CASE("an inter-node mesh dim uses the InfiniBand link", "[redistribute][cost]") {
  // S(0)R -> RR on 2x4, [8, 1024] f32: all_gather on mesh dim 0 (k = 2), 1 * 4 * 1024 * 4 = 16384 bytes.
  CostModel cost;
  cost.interNodeDims = {true, false};
  auto inter = planRedistribute(meta({8, 1024}), mesh2x4, spec({S(0), R}), spec({R, R}), cost);
  REQUIRE(inter.steps.size() == 1);
  CHECK(inter.steps[0].bytesSent == 16384);
  CHECK(inter.steps[0].timeUs == Approx(10.0 + 16384 / 25e3));  // 10.65536 us
  auto intra = planRedistribute(meta({8, 1024}), mesh2x4, spec({S(0), R}), spec({R, R}));
  CHECK(intra.steps.at(0).timeUs == Approx(3.0 + 16384 / 150e3));  // 3.109227 us
}

TEST_CASE("a custom link table changes only the time, never the bytes", "[redistribute][cost]") {
  CostModel slow;
  slow.intraNode = Link{"pcie", 20.0, 16.0};
  auto plan = planRedistribute(meta({16, 128, 1, 64}, DType::BF16), mesh2x4, spec({R, S(1)}), spec({R, S(0)}), slow);
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].bytesSent == 49152);
  CHECK(plan.steps[0].timeUs == Approx(3 * 20.0 + 49152 / 16e3));  // 63.072 us
  CHECK(plan.totalTimeUs() == Approx(63.072));
}

TEST_CASE("multi-step plans add up bytes and time", "[redistribute][cost]") {
  auto plan = planRedistribute(meta({64, 16}), mesh2x4, spec({S(0), S(0)}), spec({R, S(0)}));
  REQUIRE(plan.steps.size() == 3);
  CHECK(plan.totalBytes() == 1536 + 2048);
  CHECK(plan.totalTimeUs() == Approx((9.0 + 1536 / 150e3) + (3.0 + 2048 / 150e3)));
}

TEST_CASE("formatBytes and formatTimeUs", "[redistribute][cost]") {
  CHECK(formatBytes(0) == "0 B");
  CHECK(formatBytes(1023) == "1023 B");
  CHECK(formatBytes(1024) == "1.0 KiB");
  CHECK(formatBytes(49152) == "48.0 KiB");
  CHECK(formatBytes(2 * 1024 * 1024) == "2.0 MiB");
  CHECK(formatBytes(int64_t{3} << 30) == "3.0 GiB");
  CHECK(formatBytes(std::numeric_limits<int64_t>::max()) == "8.0 EiB");
  CHECK(formatTimeUs(0) == "0.0 us");
  CHECK(formatTimeUs(9.32768) == "9.3 us");
  CHECK(formatTimeUs(3200) == "3.20 ms");
  CHECK(formatTimeUs(2.5e6) == "2.50 s");
}

TEST_CASE("steps and plans print one line each", "[redistribute][cost]") {
  auto plan = planRedistribute(meta({16, 128, 1, 64}, DType::BF16), mesh2x4, spec({R, S(1)}), spec({R, S(0)}));
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].toString() == "mesh dim 1 (dim1): all_to_all S(1) -> S(0), 48.0 KiB, 9.3 us");
  CHECK(plan.summary() == "all_to_all on mesh dim 1 (dim1), 48.0 KiB, 9.3 us");
  auto multi = planRedistribute(meta({8, 8}), mesh2x4, spec({S(0), S(1)}), spec({S(1), S(0)}));
  CHECK(multi.summary() ==
        "all_gather on mesh dim 1 (dim1), 96 B, 9.0 us; all_to_all on mesh dim 0 (dim0), 64 B, 3.0 us; "
        "chunk on mesh dim 1 (dim1), no communication");
  CHECK(collectiveName(CollectiveKind::ReduceScatter) == std::string("reduce_scatter"));
  CHECK(collectiveName(CollectiveKind::LocalChunk) == std::string("chunk"));
  CHECK(collectiveName(CollectiveKind::LocalDivide) == std::string("divide"));
}

TEST_CASE("DTensor's redistribute_cost beside core's: a 64 MiB all_gather over 4 ranks", "[redistribute][cost][dtensor]") {
  // docs/cost-model.md, "Beside DTensor's own cost": the same plan, two models.
  DeviceMesh mesh({4});
  TensorMeta m;
  m.shape = {16 * 1024 * 1024};
  m.dtype = DType::F32;
  m.known = true;
  const ShardingSpec from({Placement::shard(0)}), to({Placement::replicate()});
  const RedistributePlan plan = planRedistribute(m, mesh, from, to);
  CHECK(plan.totalBytes() == 48 * 1024 * 1024);
  CHECK(plan.totalTimeUs() == Approx(344.5).epsilon(1e-3));
  CHECK(*dtensorRedistributeCost(m, mesh, from, to, plan, 8) == Approx(542.9).epsilon(1e-3));  // one host
  CHECK(*dtensorRedistributeCost(m, mesh, from, to, plan, 1) == Approx(2444.2).epsilon(1e-3));  // a device per host
  // Shard -> Partial is never picked implicitly by DTensor (infinite), free for core (a local embed).
  const ShardingSpec partial({Placement::partial()});
  const RedistributePlan embed = planRedistribute(m, mesh, from, partial);
  CHECK(embed.totalTimeUs() == 0.0);
  CHECK(std::isinf(*dtensorRedistributeCost(m, mesh, from, partial, embed, 8)));
  // A replicated source costs nothing in DTensor's model.
  CHECK(*dtensorRedistributeCost(m, mesh, to, from, planRedistribute(m, mesh, to, from), 8) == 0.0);
}
