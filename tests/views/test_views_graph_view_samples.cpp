// The graph view over every shipped sample, checked by the real checker: several headless frames each; the
// Falcon sample's problem (index_put's values arriving RS(1) against RS(0)) is marked where it is drawn.
#include <catch2/catch.hpp>

#include <imgui.h>

#include <filesystem>

#include "core/check/check.h"
#include "core/io/load/load.h"
#include "views/graph_view.h"
#include "views/headless_frame.h"

using namespace ss;
using namespace ss::views;

namespace {

struct Frames : HeadlessFrame {
  Frames() : HeadlessFrame(ImVec2(1400, 900)) {}
  void run(const Plan& plan, const Diagnostics& diags, GraphViewState& st, Selection& sel, int count) {
    for (int i = 0; i < count; ++i) frame([&] { drawGraphView(plan, diags, st, sel); }, "graph");
  }
};

}  // namespace

TEST_CASE("graph view: every sample draws, problems marked", "[graph_view][samples]") {
  int samples = 0;
  for (const auto& entry : std::filesystem::directory_iterator(SHARDSCOPE_SAMPLES_DIR)) {
    const std::string path = entry.path().string();
    if (path.size() < 10 || path.substr(path.size() - 10) != ".plan.json") continue;
    INFO(path);
    auto plan = loadPlanFile(path);
    REQUIRE(plan.ok());
    const Diagnostics diags = checkPlan(*plan);
    Frames ui;
    GraphViewState st;
    Selection sel;
    ui.run(*plan, diags, st, sel, 3);
    ++samples;
    REQUIRE(st.model);
    CHECK(st.model->layout.nodeCount() == plan->graph.size());
    CHECK(st.records.nodes.size() + st.records.cells.size() > 0);
    CHECK(ImGui::GetDrawData()->TotalVtxCount > 0);
    // Fit keeps labels readable (views/graph_overview.h): every node with an error or a warning in view is drawn
    // marked (a node record with its severity, or a marker), and the first problem is in view.
    const Rectd vis = st.canvas.visibleWorld();
    for (size_t k = 0; k < st.model->problemNodes.size(); ++k) {
      const int v = st.model->problemNodes[k];
      if (k > 0 && !vis.contains(st.model->layout.nodeRect(v).center())) continue;
      bool marked = false;
      for (const auto& n : st.records.nodes) marked = marked || (n.node == v && n.severity >= 2);
      for (const auto& m : st.records.markers) marked = marked || m.node == v;
      CHECK(marked);
    }
    CHECK(13.0 * st.canvas.zoom >= st.minLabelPx - 1e-9);
    if (path.find("falcon_index_put_2d") != std::string::npos) {
      const int ip = plan->graph.find("index_put");
      REQUIRE(ip >= 0);
      CHECK(st.model->severity[ip] == 3);
      // The missing redistribute on index_put's values (input 2) is a red edge with the all_to_all badge.
      const int e = st.model->findEdge(ip, 2);
      REQUIRE(e >= 0);
      CHECK(st.model->edgeKind[e] == EdgeKind::NeedsRedistribute);
      CHECK(st.model->badge.at(e) == "all_to_all");
    }
  }
  CHECK(samples >= 4);
}
