// A run's first divergent node in the app: the mesh records of its wrong blocks, and (with the runner built) a
// real run of seed 2 as shipped that selects input_ids, marks it in the graph and shows both ranks wrong.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "app/gui/app.h"
#include "app/gui/platform.h"
#include "core/model/placement_parse.h"
#include "tests/views/harness.h"
#include "views/model/mesh_layout.h"
#include "views/ui_probe.h"

using namespace ss;
using namespace ss::app;
namespace fs = std::filesystem;

TEST_CASE("mesh grid: the ranks a run found wrong are marked, the others not", "[views][mesh][divergence]") {
  const DeviceMesh mesh({2, 2}, {"dp", "tp"});
  TensorMeta m;
  m.shape = {8, 16};
  views::MeshGridOptions o;
  views::MeshGridLayout g = views::layoutMeshGrid(mesh, m, parseSpec("S(0)R").value(), o);
  REQUIRE(g.error.empty());
  REQUIRE(g.cells.size() == 4);
  CHECK(views::markWrongRanks(g, {1, 3, 9}) == 2);  // rank 9 is not on this mesh
  for (const auto& c : g.cells) CHECK(c.wrong == (c.rank == 1 || c.rank == 3));
  CHECK(views::markWrongRanks(g, {}) == 0);
  for (const auto& c : g.cells) CHECK_FALSE(c.wrong);
}

TEST_CASE("app: a run of seed 2 as shipped selects input_ids, marks it and shows both ranks wrong",
          "[views][app][run][divergence]") {
  const std::string sample = std::string(SHARDSCOPE_SAMPLES_DIR) + "/autosp_seq_first.plan.json";
  const bool runnerBuilt = views::test::useBuiltRunner();
  HeadlessPlatform platform;
  GuiApp app(platform, GuiOptions::isolated());
  std::string err;
  REQUIRE(app.init(err));
  if (!app.runPanel().model().available) {
    if (runnerBuilt) FAIL("this build has a runner but the run panel found none: " << app.runPanel().model().unavailableReason);
    WARN("skipped: " << app.runPanel().model().unavailableReason);
    return;
  }
  REQUIRE(app.openFile(sample));
  for (int i = 0; i < 2; ++i) app.frame();
  app.runPanel().start(app.document().plan(), 1, app.document().stamp());
  const auto t0 = std::chrono::steady_clock::now();
  while (app.runPanel().active() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120)) {
    app.step(0.05);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (int i = 0; i < 3; ++i) app.frame();
  const views::RunViewModel& m = app.runPanel().model();
  INFO(m.error);
  CHECK(m.status == views::RunStatus::Mismatch);
  REQUIRE(m.firstDivergence);
  const int ids = app.document().plan().graph.find("input_ids");
  CHECK(m.firstDivergence->node == "input_ids");
  CHECK(app.selection().node == ids);
  CHECK(app.graphSlot().divergentNode() == ids);
  CHECK(app.meshState().divergence.node == ids);
  CHECK(app.meshState().divergence.wrongRanks == std::vector<int>{0, 1});
  CHECK(app.meshState().wrongCellsDrawn == 2);  // the mesh pane shows input_ids with both blocks wrong
}
