// Single views in a headless ImGui frame, with their models given directly.
#include <catch2/catch.hpp>

#include "tests/views/harness.h"
#include "views/run_view.h"
#include "views/ui_probe.h"

using namespace ss;
using namespace ss::views;

TEST_CASE("run view: failure with a jump to the failing node, losses table and plot", "[views][run]") {
  test::ImGuiHarness h;
  setProbing(true);
  const Plan plan = test::loadFixture("mini_falcon.plan.json");
  Selection sel;
  RunViewState st;
  RunViewModel m;
  m.status = RunStatus::Failed;
  m.error = "Broadcast failed in ExpandView([16, 32, 1, 64], [4, 128, 1, 64])";
  m.errorRank = 3;
  m.errorNode = "acc";
  RunViewActions act;
  h.frame([&] { act = drawRunView(plan, m, st, sel); });
  CHECK_FALSE(act.start);
  const auto go = probedRect("run.goto");
  REQUIRE(go.has_value());
  test::mouseTo((go->x0 + go->x1) * 0.5f, (go->y0 + go->y1) * 0.5f);
  h.frame([&] { drawRunView(plan, m, st, sel); });
  test::mouseButton(true);
  h.frame([&] { drawRunView(plan, m, st, sel); });
  test::mouseButton(false);
  h.frame([&] { drawRunView(plan, m, st, sel); });
  CHECK(sel.node == plan.graph.find("acc"));
  CHECK(sel.centreRequested);

  // A finished run: three batches in the table and the plot drawn.
  m = RunViewModel{};
  m.status = RunStatus::Mismatch;
  for (int b = 0; b < 3; ++b) {
    RunBatchRow r;
    r.batch = b;
    r.reference = 2.0 + b;
    r.mean = 2.5 + b;
    r.relError = 0.5 / (2.0 + b);
    r.rankLosses = {r.mean, r.mean};
    m.batches.push_back(r);
  }
  const int verts = h.frame([&] { drawRunView(plan, m, st, sel); });
  CHECK(st.plotDrawn);
  CHECK(verts > 500);
  setProbing(false);
}

TEST_CASE("run view without a runner says why", "[views][run]") {
  test::ImGuiHarness h;
  const Plan plan = test::loadFixture("mini_falcon.plan.json");
  Selection sel;
  RunViewState st;
  RunViewModel m;
  m.available = false;
  m.unavailableReason = "no runner";
  RunViewActions act;
  h.frame([&] { act = drawRunView(plan, m, st, sel); });
  CHECK_FALSE(act.start);
  CHECK_FALSE(st.plotDrawn);
}
