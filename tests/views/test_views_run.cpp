// The Run panel's status lines (views/run_view.h: runStatusLines) from a real run's events: seed 1 fixed at
// scale 4 through the app's RunPanel and this build's shardscope-runner child (tests/views/harness.h).
#include <catch2/catch.hpp>

#include <chrono>
#include <regex>
#include <thread>

#include "app/gui/run.h"
#include "core/plan/edit.h"
#include "core/io/load/load.h"
#include "core/model/placement_parse.h"
#include "tests/views/harness.h"
#include "views/run_view.h"

using namespace ss;

TEST_CASE("run panel: the ETA line while a real run goes, the BLAS and cost lines from its report", "[views][run]") {
  auto loaded = loadPlanFile(std::string(SHARDSCOPE_SAMPLES_DIR) + "/falcon_index_put_2d.plan.json");
  REQUIRE(loaded.ok());
  Plan plan = std::move(loaded.value());
  Redistribute fix;
  fix.node = plan.graph.find("index_put");
  fix.input = 2;
  fix.from = *parseSpec("RS(1)");
  fix.to = *parseSpec("RS(0)");
  REQUIRE(applyCommand(plan, InsertRedistribute{fix}).ok());

  const bool runnerBuilt = views::test::useBuiltRunner();
  app::RunPanel panel;
  if (!panel.model().available) {
    if (runnerBuilt) FAIL("this build has a runner but the run panel found none: " << panel.model().unavailableReason);
    WARN("run panel test skipped: " << panel.model().unavailableReason);
    return;
  }
  // Before a run: no line at all.
  CHECK(views::runStatusLines(panel.model()).progress.empty());
  CHECK(views::runStatusLines(panel.model()).blas.empty());
  CHECK(views::runStatusLines(panel.model()).cost.empty());
  CHECK(views::runStatusLines(panel.model()).sandbox.empty());

  panel.start(plan, 4, views::DocStamp{});
  REQUIRE(panel.active());
  const std::regex etaLine(R"((reference|sharded), batch [0-2]  [0-9]+\.[0-9] s, ETA [0-9]+ s, sizes / 4)");
  std::vector<std::string> seen;
  std::vector<double> etas;
  const auto t0 = std::chrono::steady_clock::now();
  while (panel.active() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(240)) {
    panel.poll();
    const views::RunViewModel& m = panel.model();
    const views::RunStatusLines lines = views::runStatusLines(m);
    if (panel.active() && m.etaS >= 0) {
      seen.push_back(lines.progress);
      etas.push_back(m.etaS);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const views::RunViewModel& m = panel.model();
  INFO(m.error);
  REQUIRE(m.status == views::RunStatus::Passed);
  REQUIRE_FALSE(seen.empty());
  for (const std::string& line : seen) {
    INFO(line);
    CHECK(std::regex_match(line, etaLine));
  }
  // The ETA is the whole run's, from the measured pace: finite, and below the budget's 900 s.
  for (double e : etas) CHECK(e < 900);
  // Done: elapsed time stays, the ETA goes.
  const views::RunStatusLines done = views::runStatusLines(m);
  CHECK(done.progress.find("ETA") == std::string::npos);
  CHECK(std::regex_match(done.progress, std::regex(R"(  [0-9]+\.[0-9] s, sizes / 4)")));
  // The report's BLAS, its threads and the thread budget, and the replica sharing of seed 1 (2 of 8 compute).
  INFO(done.blas);
  CHECK(std::regex_match(done.blas, std::regex(R"(BLAS: .+ \(/.+\), [0-9]+ threads; 8 ranks x [0-9]+; replicas shared: 2 compute the largest node)")));
  // What the run cost: both phases' times from the report, their ratio, and the runner child's peak.
  INFO(done.cost);
  CHECK(std::regex_match(done.cost, std::regex(R"(reference [0-9]+\.[0-9]{2} s, sharded [0-9]+\.[0-9]{2} s \([0-9]+\.[0-9]{2}x\), peak memory [0-9]+ MiB)")));
  CHECK(m.referenceS > 0);
  CHECK(m.shardedS > 0);
  CHECK(m.peakRssBytes > 100 << 20);  // LibTorch alone takes more
  // The child's containment, layer by layer, every one in place on this machine.
  CHECK(done.sandbox == "sandbox: network, no-new-privs, filesystem, capabilities, seccomp");
  CHECK(done.sandboxMissing.empty());
  // The runner's notes are listed, not shown as the stage (the progress lines above never held one).
  REQUIRE(m.notes.size() == 1);
  CHECK(m.notes[0].rfind("summed over ranks, the gradients of replicated parameters are 7.9", 0) == 0);
}
