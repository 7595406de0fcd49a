// What makes runs fast and small (docs/performance.md, "Runs"): the report names the BLAS and the thread budget,
// progress carries an ETA from the reference's pace, and the shared read-only placeholders are copied per rank
// when the graph writes in place. Speed itself is measured by scripts/bench_run.sh, not here.
#include <catch2/catch.hpp>

#include <thread>

#include <nlohmann/json.hpp>

#include "core/plan/edit.h"
#include "core/model/placement_parse.h"
#include "runner/runner.h"
#include "runner_test_util.h"

using namespace ss;

TEST_CASE("the run report names the BLAS LibTorch multiplies with and one thread budget", "[runner][speed]") {
  Plan plan = test::loadOrFail(test::samplePath("teach_all_reduce.plan.json"));
  RunOptions o;
  o.batches = 1;
  RunReport r = runner::runPlan(plan, o);
  INFO(r.summary());
  REQUIRE_FALSE(r.error);
  // scripts/common.sh installs libopenblas0-pthread, which Debian registers as libblas.so.3.
  CHECK(r.blas.rfind("OpenBLAS ", 0) == 0);
  CHECK(r.blas.find("openblas") != std::string::npos);  // the library file it resolved to
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  CHECK(r.referenceThreads == cores);
  CHECK(r.blasThreads == cores);
  CHECK(r.threadsPerRank == std::max(1, cores / r.ranks));
  CHECK(r.summary().find("blas: OpenBLAS ") != std::string::npos);
  auto j = nlohmann::json(r);
  CHECK(j["blas"] == r.blas);
  CHECK(j["threads_per_rank"] == r.threadsPerRank);
  CHECK(j.get<RunReport>().blasThreads == r.blasThreads);
}

TEST_CASE("progress carries an ETA from the reference's pace, reaching zero at the end", "[runner][speed]") {
  Plan plan = test::falconFixed();
  RunOptions o;
  o.scale = 4;
  o.batches = 2;
  std::vector<RunEvent> progress;
  RunReport r = runner::runPlan(plan, o, [&](const RunEvent& e) {
    if (e.kind == RunEvent::Kind::Progress && e.rank <= 0) progress.push_back(e);
  });
  INFO(r.summary());
  REQUIRE_FALSE(r.error);
  int refWithEta = 0, lastRank0 = -1;
  for (size_t k = 0; k < progress.size(); ++k) {
    if (progress[k].rank < 0 && progress[k].batch == 1) {
      CHECK(progress[k].etaSec > 0);  // a whole batch measured: the pace is known
      ++refWithEta;
    }
    if (progress[k].rank == 0) lastRank0 = static_cast<int>(k);
  }
  CHECK(refWithEta > 0);
  REQUIRE(lastRank0 >= 0);
  const RunEvent& end = progress[lastRank0];
  CHECK(end.batch == 1);
  CHECK(end.node == end.nodes);
  CHECK(end.etaSec == Approx(0.0).margin(1e-9));
  // The ETA travels in the event line.
  for (const RunEvent& e : progress)
    if (e.etaSec > 0) {
      auto back = parseRunEventLine(runEventLine(e));
      REQUIRE(back.ok());
      CHECK(back->etaSec == Approx(e.etaSec));
      break;
    }
}

TEST_CASE("a graph that writes in place gets its own copy of the placeholders on every rank", "[runner][speed]") {
  // x is replicated on 2 ranks and add_ writes into it: shared pieces would add 1 twice (or race).
  nlohmann::json plan = {
      {"format", "shardscope-plan"}, {"version", 1}, {"name", "in_place"}, {"mesh", {{"shape", {2}}}},
      {"run", {{"loss", "loss"}, {"batches", 2}}},
      {"nodes",
       {{{"name", "x"}, {"op", "placeholder"}, {"placeholder_kind", "input"},
         {"meta", {{{"shape", {8, 4}}, {"dtype", "f32"}}}}, {"spec", {"R"}}},
        {{"name", "add_"}, {"op", "aten.add_.Tensor"}, {"args", {{{"t", "x"}}, 1.0}},
         {"meta", {{{"shape", {8, 4}}, {"dtype", "f32"}}}}, {"spec", {"R"}}},
        {{"name", "sq"}, {"op", "aten.mul.Tensor"}, {"args", {{{"t", "add_"}}, {{"t", "add_"}}}},
         {"meta", {{{"shape", {8, 4}}, {"dtype", "f32"}}}}, {"spec", {"R"}}},
        {{"name", "loss"}, {"op", "aten.sum.default"}, {"args", {{{"t", "sq"}}}},
         {"meta", {{{"shape", nlohmann::json::array()}, {"dtype", "f32"}}}}, {"spec", {"R"}}},
        {{"name", "output"}, {"op", "output"}, {"args", {{{{"t", "loss"}}}}}}}}};
  auto loaded = loadPlanText(plan.dump(), "in_place.plan.json");
  REQUIRE(loaded.ok());
  RunReport r = runner::runPlan(*loaded, RunOptions{});
  INFO(r.summary());
  REQUIRE_FALSE(r.error);
  CHECK(r.computingRanks == 2);  // replica deduplication is off: a shared x would be written once, not per rank
  REQUIRE(r.batches.size() == 2);
  for (const auto& b : r.batches) {
    CHECK(b.match);
    CHECK(b.rankLosses[0] == b.reference);
    CHECK(b.rankLosses[1] == b.reference);
  }
}
