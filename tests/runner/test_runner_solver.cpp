// Re-running a plan that has no loss: autoparallel's joint graph (tests/data/real/, as the real autoparallel wrote
// it) has tangents and returns its forward result and its gradients. Its plan runs with shardscope's own
// redistributes (the solver's planned transitions among them), tangents drawn from the seed like inputs, and the
// verdict compares every output, assembled from the ranks by the spec it ends in. Seed 1 runs at --scale 4
// ([4, 32, 1168] bf16 through a 1168x1168 linear).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "runner_test_util.h"

#include "core/io/native/plan_json.h"
#include "runner/runner.h"

using namespace ss;

namespace {

std::string seed1Dir() { return std::string(SHARDSCOPE_TESTDATA_DIR) + "/real/seed1_fixed"; }

RunOptions scaled(int batches) {
  RunOptions o;
  o.scale = 4;
  o.batches = batches;
  return o;
}

}  // namespace

TEST_CASE("autoparallel's seed 1 plan (no loss node) matches on its outputs and gradients at --scale 4",
          "[runner][solver][real]") {
  Plan plan = test::loadOrFail(seed1Dir() + "/rank0.log");
  REQUIRE(plan.run.lossNode.empty());
  REQUIRE(plan.executable());
  RunReport r = runner::runPlan(plan, scaled(2));
  INFO(r.summary());
  REQUIRE_FALSE(r.error);
  REQUIRE(r.batches.size() == 2);
  for (const BatchResult& b : r.batches) {
    CHECK(b.rankLosses.empty());
    CHECK(std::isnan(b.relError));
    CHECK(b.outputsCompared == 2);  // the forward result and the weight's gradient
    CHECK(b.outputRelError <= 1e-5);
    CHECK(b.match);
  }
  CHECK(r.exitCode() == 0);
  CHECK(r.summary().find("outputs: 2 compared") != std::string::npos);
}

TEST_CASE("without the transition autoparallel planned into index_put, the plan fails at index_put on the ranks",
          "[runner][solver][real]") {
  Plan plan = test::loadOrFail(seed1Dir());
  plan.adoptPlannedTransitions();
  const int indexPut = plan.graph.find("index_put");
  auto& rs = plan.redistributes;
  const size_t before = rs.size();
  rs.erase(std::remove_if(rs.begin(), rs.end(), [&](const Redistribute& x) { return x.node == indexPut && x.input == 2; }),
           rs.end());
  REQUIRE(rs.size() + 1 == before);
  RunReport r = runner::runPlan(plan, scaled(1));
  INFO(r.summary());
  REQUIRE(r.error);
  CHECK(r.error->node == "index_put");
  CHECK(r.exitCode() == 3);
}

TEST_CASE("shardscope run of seed 1 with --placement sum_1=RS(0), and of the plan fix saved with that edit, match",
          "[runner][solver][real][cli]") {
  test::TempDir tmp("solver-run");
  auto edited = test::runCli("run " + seed1Dir() + " --placement 'sum_1=RS(0)' --scale 4 --batches 1");
  INFO(edited.output);
  CHECK(edited.exitCode == 0);
  CHECK(test::contains(edited.output, "following your edit: insert redistribute RR -> RS(0) at sum_1 input 0"));
  CHECK(test::contains(edited.output, "verdict: match"));
  const std::string saved = tmp.file("edit.plan.json");
  auto fix = test::runCli("fix " + seed1Dir() + "/rank0.log --placement 'sum_1=RS(0)' -o " + saved);
  INFO(fix.output);
  REQUIRE(fix.exitCode == 0);
  auto rerun = test::runCli("run " + saved + " --scale 4 --batches 1");
  INFO(rerun.output);
  CHECK(rerun.exitCode == 0);
  CHECK(test::contains(rerun.output, "verdict: match"));
}

TEST_CASE("the outputs' verdict catches a wrong value: a LLaMA-like joint graph without its loss node, one P -> R gone",
          "[runner][solver]") {
  // Without a loss node the joint graph's outputs are the verdict (the former loss among them). Dropping one
  // Partial -> Replicate redistribute inside the graph leaves every shape right and the values wrong.
  Plan plan = test::smallLlama(2, 2);
  plan.run.lossNode.clear();
  RunOptions o;
  o.batches = 1;
  {
    RunReport good = runner::runPlan(plan, o);
    INFO(good.summary());
    REQUIRE_FALSE(good.error);
    CHECK(good.batches.at(0).outputsCompared >= 3);
    CHECK(good.batches.at(0).outputRelError <= 1e-5);
    CHECK(good.exitCode() == 0);
  }
  const int out = plan.graph.outputNode();
  auto partialToReplicate = std::find_if(plan.redistributes.begin(), plan.redistributes.end(), [&](const Redistribute& r) {
    return r.node != out && r.from.hasPartial() && r.to.isReplicated();
  });
  REQUIRE(partialToReplicate != plan.redistributes.end());
  plan.redistributes.erase(partialToReplicate);
  RunReport bad = runner::runPlan(plan, o);
  INFO(bad.summary());
  REQUIRE_FALSE(bad.error);
  CHECK(std::isfinite(bad.batches.at(0).outputRelError));
  CHECK(bad.batches.at(0).outputRelError > 1e-2);
  CHECK_FALSE(bad.batches.at(0).worstOutput.empty());
  CHECK(bad.exitCode() == 1);
}
