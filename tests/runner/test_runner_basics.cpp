// Runner mechanics: report JSON, --scale, memory refusal, one rank failing, teaching samples end to end.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/model/layout.h"
#include "core/run/run_report.h"
#include "runner/plan_scale.h"
#include "runner/runner.h"
#include "runner_test_util.h"

using namespace ss;

TEST_CASE("RunReport round-trips through JSON and maps verdicts to exit codes", "[runner][report]") {
  RunReport r;
  r.planName = "p";
  r.ranks = 2;
  r.meshShape = {2};
  r.backend = "gloo";
  r.seed = 7;
  BatchResult b;
  b.batch = 0;
  b.rankLosses = {1.5, 2.5};
  b.mean = 2.0;
  b.combined = 2.0;
  b.reference = 2.0;
  b.relError = 0;
  b.match = true;
  b.gradRatio = std::nan("");
  r.batches.push_back(b);
  CHECK(r.exitCode() == 0);
  nlohmann::json j = r;
  CHECK(j["verdict"] == "match");
  CHECK(j["batches"][0]["grad_ratio"].is_null());
  RunReport back = j.get<RunReport>();
  CHECK(back.batches.size() == 1);
  CHECK(back.batches[0].rankLosses == std::vector<double>{1.5, 2.5});
  CHECK(std::isnan(back.batches[0].gradRatio));
  CHECK(back.seed == 7);

  r.batches[0].match = false;
  CHECK(r.exitCode() == 1);
  r.error = RunError{"sharded", 3, 5, "index_put", "shape mismatch"};
  CHECK(r.exitCode() == 3);
  CHECK(r.error->toString() == "rank 3, node index_put: shape mismatch");
  auto line = runEventLine(RunEvent{RunEvent::Kind::Report, -1, -1, -1, 0, "", std::nullopt, r});
  auto ev = parseRunEventLine(line);
  REQUIRE(ev.ok());
  REQUIRE(ev->report);
  CHECK(ev->report->error == r.error);
  CHECK_FALSE(parseRunEventLine("{\"event\": \"bogus\"}").ok());
}

TEST_CASE("scale 4 keeps seed 1's ratios: merged dims take the product of their scaled parts", "[runner][scale]") {
  Plan plan = test::loadOrFail(test::falconPath());
  auto scaled = runner::scalePlan(plan, 4);
  REQUIRE(scaled.ok());
  const Graph& g = scaled->graph;
  CHECK(g.nodes[g.find("x")].outputs[0].shape == std::vector<int64_t>{4, 32, 1168});
  CHECK(g.nodes[g.find("view")].outputs[0].shape == std::vector<int64_t>{128, 1168});  // 4 x 32, not 2048/4
  CHECK(g.nodes[g.find("view_2")].outputs[0].shape == std::vector<int64_t>{4, 32, 73, 16});
  CHECK(g.nodes[g.find("slice_1")].outputs[0].shape == std::vector<int64_t>{4, 32, 71, 16});
  // The view's size argument follows its scaled output shape.
  const Arg& size = g.nodes[g.find("view_2")].args.at(1);
  REQUIRE(size.isList());
  CHECK(size.items.at(3).i == 16);
  // Per-rank local shapes of index_put's inputs shrink by the same factors.
  int ip = g.find("index_put");
  auto self = localShape(g.nodes[ip].outputs[0].shape, scaled->mesh, *scaled->specs[ip].outputs[0], 0);
  int values = g.find("sum_2");
  auto vals = localShape(g.nodes[values].outputs[0].shape, scaled->mesh, *scaled->specs[values].outputs[0], 0);
  CHECK(shapeToString(*self) == "[1, 32, 73, 16]");
  CHECK(shapeToString(*vals) == "[4, 8, 1, 16]");

  CHECK_FALSE(runner::scalePlan(plan, 0).ok());
  auto same = runner::scalePlan(plan, 1);
  REQUIRE(same.ok());
  CHECK(same->graph == plan.graph);
}

TEST_CASE("a run that would not fit in memory is refused with numbers", "[runner][memory]") {
  Plan plan = test::loadOrFail(test::falconPath());
  RunOptions o;
  o.memoryLimitBytes = int64_t{1} << 30;  // 1 GiB
  auto est = runner::estimateMemory(plan, o);
  CHECK(est.totalBytes > (int64_t{1} << 30));
  CHECK(est.totalBytes == est.referenceBytes + est.shardedBytes);
  RunReport r = runner::runPlan(plan, o);
  REQUIRE(r.error);
  CHECK(r.error->stage == "memory");
  CHECK(r.error->message.find("needs about") != std::string::npos);
  CHECK(r.error->message.find("1.0 GiB is available") != std::string::npos);
  CHECK(r.memoryEstimateBytes == est.totalBytes);
  CHECK(r.verdict() == RunVerdict::Refused);  // refused before anything ran
  CHECK(r.exitCode() == 2);
}

TEST_CASE("one rank failing stops the others at their next collective", "[runner][failure]") {
  // x [3, 4] sharded on 2 ranks: rank 0 holds 2 rows, rank 1 one row, so select(x, 0, 1) fails on rank 1 only.
  // Rank 0 goes on to the all_reduce before `loss` and must stop there at once instead of timing out.
  const char* text = test::kOneRankFailsPlan;
  auto plan = loadPlanText(text, "one_rank_fails.plan.json");
  REQUIRE(plan.ok());
  RunOptions o;
  o.timeoutSec = 30;
  auto t0 = std::chrono::steady_clock::now();
  RunReport r = runner::runPlan(*plan, o);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(r.summary());
  REQUIRE(r.error);
  CHECK(r.error->rank == 1);
  CHECK(r.error->node == "row");
  CHECK(r.error->message.find("index 1 out of range") != std::string::npos);
  CHECK(r.notes.empty());  // rank 0 stopped: not an error of its own
  CHECK(secs < 10);        // far below the 30 s collective timeout
}

TEST_CASE("every teaching sample matches as shipped and diverges or fails without its redistributes",
          "[runner][samples]") {
  // Together these exercise every collective kind the runner performs: all_gather, all_reduce, reduce-scatter
  // (all_reduce + chunk), all_to_all, local chunk, on 1-D and 2-D meshes.
  for (const char* name : test::kTeachingSamples) {
    Plan plan = test::loadOrFail(test::samplePath(name));
    REQUIRE_FALSE(plan.redistributes.empty());
    RunOptions o;
    o.batches = 2;
    RunReport r = runner::runPlan(plan, o);
    INFO(name << "\n" << r.summary());
    REQUIRE_FALSE(r.error);
    CHECK(r.batches.size() == 2);
    CHECK(r.exitCode() == 0);

    plan.redistributes.clear();
    RunReport broken = runner::runPlan(plan, o);
    INFO("without redistributes:\n" << broken.summary());
    CHECK(broken.exitCode() != 0);
  }
  // Data parallel: 4 ranks each hold the whole (all-reduced) loss, so the summed gradient is 4x the reference.
  RunReport dp = runner::runPlan(test::loadOrFail(test::samplePath("teach_data_parallel.plan.json")), RunOptions{});
  REQUIRE_FALSE(dp.error);
  CHECK(dp.batches[0].gradRatio == Approx(4.0).epsilon(1e-4));
}
