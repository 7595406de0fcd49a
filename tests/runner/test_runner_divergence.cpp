// Localisation: the first node whose sharded value departs from the reference (runner/divergence.h), on the
// seeds as shipped and fixed, on the teaching samples, and on hand-made measures.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/gen/llama.h"
#include "core/model/placement_parse.h"
#include "runner/divergence.h"
#include "runner/runner.h"
#include "runner_test_util.h"

using namespace ss;

TEST_CASE("seed 2 as shipped: the first divergence is the tagged input, sliced on dim 1 where the plan shards 0",
          "[runner][divergence][seed2]") {
  Plan plan = test::loadOrFail(test::samplePath("autosp_seq_first.plan.json"));
  RunReport r = runner::runPlan(plan, RunOptions{});
  INFO(r.summary());
  REQUIRE_FALSE(r.error);
  CHECK(r.exitCode() == 1);
  CHECK(r.localised);
  REQUIRE(r.firstDivergence);
  const Divergence& d = *r.firstDivergence;
  CHECK(d.node == "input_ids");
  CHECK(d.nodeIndex == 0);
  CHECK(d.batch == 0);
  CHECK(d.output == 0);
  CHECK(d.spec == "S(0)");
  CHECK(d.shapeMismatch);
  CHECK(std::isnan(d.relError));
  CHECK(d.tag == "input_id");
  CHECK(d.slicedDim == 1);
  CHECK(d.plannedDims == std::vector<int>{0});
  CHECK(d.wrongRanks == std::vector<int>{0, 1});
  REQUIRE(d.ranks.size() == 2);
  for (const auto& rk : d.ranks) {
    CHECK(rk.wrong);
    CHECK(rk.shape == std::vector<int64_t>{16, 1});
    CHECK(rk.expectedShape == std::vector<int64_t>{8, 2});
  }
  CHECK(d.disagreeingReplicas.empty());
  CHECK(d.detail ==
        "node input_ids (batch 0, spec S(0)): rank 0 holds [16, 1] where the spec gives [8, 2]; wrong on every rank; "
        "AutoSP tag input_id (bare: AutoSP's default dim 1) slices dim 1 of [16, 2] where the plan shards dim 0");
  CHECK_FALSE(r.replicaDisagreement);

  // --json: "first_divergence" with node, batch, rel_error (null: the shapes differ), spec and ranks.
  nlohmann::json j = r;
  REQUIRE(j.contains("first_divergence"));
  const auto& fd = j["first_divergence"];
  CHECK(fd["node"] == "input_ids");
  CHECK(fd["batch"] == 0);
  CHECK(fd["rel_error"].is_null());
  CHECK(fd["spec"] == "S(0)");
  CHECK(fd["ranks"].size() == 2);
  CHECK(fd["ranks"][1]["shape"] == nlohmann::json::array({16, 1}));
  CHECK(fd["tag"] == "input_id");
  CHECK(fd["sliced_dim"] == 1);
  RunReport back = j.get<RunReport>();
  REQUIRE(back.firstDivergence);
  CHECK(back.firstDivergence->wrongRanks == d.wrongRanks);
  CHECK(back.firstDivergence->detail == d.detail);
  CHECK(back.firstDivergence->ranks.size() == d.ranks.size());
}

TEST_CASE("seed 2 fixed and batch-first report no divergence; --no-localise turns it off", "[runner][divergence][seed2]") {
  for (const char* name : {"autosp_seq_first_fixed.plan.json", "autosp_batch_first.plan.json"}) {
    Plan plan = test::loadOrFail(test::samplePath(name));
    RunReport r = runner::runPlan(plan, RunOptions{});
    INFO(name << "\n" << r.summary());
    REQUIRE_FALSE(r.error);
    CHECK(r.exitCode() == 0);
    CHECK(r.localised);
    CHECK_FALSE(r.firstDivergence);
    CHECK_FALSE(r.replicaDisagreement);
    nlohmann::json j = r;
    CHECK(j["first_divergence"].is_null());
  }
  Plan plan = test::loadOrFail(test::samplePath("autosp_seq_first.plan.json"));
  RunOptions o;
  o.localise = false;
  RunReport off = runner::runPlan(plan, o);
  RunReport on = runner::runPlan(plan, RunOptions{});
  CHECK_FALSE(off.localised);
  CHECK_FALSE(off.firstDivergence);
  REQUIRE(off.batches.size() == on.batches.size());
  for (size_t b = 0; b < on.batches.size(); ++b) CHECK(off.batches[b].combined == on.batches[b].combined);
}

TEST_CASE("seed 1 as shipped still fails at index_put and nothing before it departs", "[runner][divergence][seed1]") {
  Plan plan = test::loadOrFail(test::falconPath());
  RunOptions o;
  o.scale = 4;
  o.batches = 1;
  RunReport r = runner::runPlan(plan, o);
  INFO(r.summary());
  REQUIRE(r.error);
  CHECK(r.error->node == "index_put");
  CHECK(r.exitCode() == 3);
  CHECK(r.localised);
  CHECK_FALSE(r.firstDivergence);
}

TEST_CASE("teaching samples: no divergence as shipped; a missing all_reduce shows as disagreeing replicas",
          "[runner][divergence][samples]") {
  for (const char* name : test::kTeachingSamples) {
    Plan plan = test::loadOrFail(test::samplePath(name));
    RunOptions o;
    o.batches = 1;
    RunReport r = runner::runPlan(plan, o);
    INFO(name << "\n" << r.summary());
    REQUIRE_FALSE(r.error);
    CHECK(r.localised);
    CHECK_FALSE(r.firstDivergence);
  }
  // FSDP x TP without the all_reduce before pow_1 (S(0)P(sum) -> S(0)R): pow_1 squares partial sums, so the two
  // tp ranks of each dp row, which the spec says are replicas, hold different values.
  Plan plan = test::loadOrFail(test::samplePath("teach_fsdp_tp.plan.json"));
  int pow1 = plan.graph.find("pow_1");
  auto& rs = plan.redistributes;
  rs.erase(std::remove_if(rs.begin(), rs.end(), [&](const Redistribute& x) { return x.node == pow1; }), rs.end());
  RunOptions o;
  o.batches = 1;
  RunReport r = runner::runPlan(plan, o);
  INFO(r.summary());
  REQUIRE_FALSE(r.error);
  CHECK(r.exitCode() == 1);
  REQUIRE(r.firstDivergence);
  CHECK(r.firstDivergence->node == "pow_1");
  CHECK(r.firstDivergence->spec == "S(0)R");
  CHECK(r.firstDivergence->disagreeingReplicas == std::vector<std::vector<int>>{{0, 1}, {2, 3}});
  CHECK(r.firstDivergence->relError > 0.1);
  REQUIRE(r.replicaDisagreement);
  CHECK(r.replicaDisagreement->node == "pow_1");
}

TEST_CASE("localise combines hand-made measures: each block once, floors for small blocks, shapes",
          "[runner][divergence]") {
  Plan plan = test::loadOrFail(test::samplePath("teach_fsdp_tp.plan.json"));
  const int mm = plan.graph.find("mm");      // [8, 32] S(0)S(1): 4 blocks of [4, 16], no replicas
  const int pow1 = plan.graph.find("pow_1");  // [8, 16] S(0)R: 2 blocks, each on 2 replicas
  runner::ReferenceFactsMap refs;
  refs[{0, mm, 0}] = runner::ReferenceFacts{10.0, 256, {8, 32}};
  refs[{0, pow1, 0}] = runner::ReferenceFacts{4.0, 128, {8, 16}};
  auto block = [](int node, double diff, double self, double expected, int64_t numel) {
    runner::BlockMeasure m;
    m.node = node;
    m.diff = diff;
    m.self = self;
    m.expected = expected;
    m.numel = numel;
    return m;
  };
  std::vector<std::vector<runner::BlockMeasure>> ranks(4);
  for (int r = 0; r < 4; ++r) {
    ranks[r].push_back(block(mm, 1e-7, 5, 5, 64));
    ranks[r].push_back(block(pow1, 1e-7, 2.8, 2.8, 64));
  }
  auto clean = runner::localise(plan, refs, ranks, 1e-4);
  CHECK_FALSE(clean.first);
  CHECK_FALSE(clean.replicas);

  // Rank 3's mm block is off by 0.01 (rel. 2e-3 of its block): the node's error counts the block once.
  ranks[3][0].diff = 0.01;
  auto one = runner::localise(plan, refs, ranks, 1e-4);
  REQUIRE(one.first);
  CHECK(one.first->node == "mm");
  CHECK(one.first->wrongRanks == std::vector<int>{3});
  CHECK(one.first->relError == Approx(std::sqrt(3 * 1e-14 + 1e-4) / 10.0));
  CHECK(one.first->ranks[3].relError == Approx(0.01 / 5));
  CHECK(one.first->disagreeingReplicas.empty());

  // An all-zero block is judged against the tensor's scale (floor 10 * sqrt(64 / 256) = 5), not against 0.
  ranks[3][0] = block(mm, 1e-6, 1e-6, 0, 64);
  CHECK_FALSE(runner::localise(plan, refs, ranks, 1e-4).first);

  // pow_1: replicas 2 and 3 hold different values; each replicated block is counted once in the node's error.
  ranks[3][1] = block(pow1, 0.5, 2.9, 2.8, 64);
  auto rep = runner::localise(plan, refs, ranks, 1e-4);
  REQUIRE(rep.first);
  CHECK(rep.first->node == "pow_1");
  CHECK(rep.first->disagreeingReplicas == std::vector<std::vector<int>>{{2, 3}});
  CHECK(rep.first->wrongRanks == std::vector<int>{3});
  CHECK(rep.first->relError == Approx(std::sqrt((3 * 1e-14 + 0.25) / 2) / 4.0));
  REQUIRE(rep.replicas);
  CHECK(rep.replicas->node == "pow_1");

  // A rank holding another shape: no error number, the shapes named.
  ranks[1][0].shapeOk = false;
  ranks[1][0].shape = {8, 16};
  auto shape = runner::localise(plan, refs, ranks, 1e-4);
  REQUIRE(shape.first);
  CHECK(shape.first->node == "mm");
  CHECK(shape.first->shapeMismatch);
  CHECK(std::isnan(shape.first->relError));
  CHECK(shape.first->ranks[1].expectedShape == std::vector<int64_t>{4, 16});
  CHECK(shape.first->detail.find("rank 1 holds [8, 16] where the spec gives [4, 16]") != std::string::npos);

  // The measures travel between processes unchanged (NaN included).
  ranks[2][0].diff = std::nan("");
  auto text = runner::encodeMeasures(ranks[2]);
  auto back = runner::decodeMeasures(text);
  REQUIRE(back);
  REQUIRE(back->size() == 2);
  CHECK(std::isnan((*back)[0].diff));
  CHECK((*back)[1] == ranks[2][1]);
  CHECK_FALSE(runner::decodeMeasures("[[1, 2]]"));
}

TEST_CASE("a LLaMA-like joint graph (forward and backward nodes, nested shards) reports no divergence",
          "[runner][divergence][llama]") {
  for (auto [dp, tp] : {std::pair<int64_t, int64_t>{2, 2}, {2, 1}}) {
    Plan plan = test::smallLlama(dp, tp);
    RunOptions ro;
    ro.batches = 1;
    RunReport r = runner::runPlan(plan, ro);
    INFO(dp << "x" << tp << "\n" << r.summary());
    REQUIRE_FALSE(r.error);
    CHECK(r.batches[0].match);
    CHECK(r.localised);
    CHECK_FALSE(r.firstDivergence);
    CHECK_FALSE(r.replicaDisagreement);
  }
}
