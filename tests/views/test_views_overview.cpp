// The graph view's module overview (views/graph_overview.h) in headless frames: the level Fit picks so labels are
// readable (11 px or more) on a real LLaMA-3 log of 605 nodes and on generated models, boxes opened by E and by
// double-click with the camera kept on them, a node selected inside a box opening it, Shift+E closing it, and
// edges into a box bundled with their count.
#include <catch2/catch.hpp>

#include <imgui.h>

#include <functional>

#include "core/gen/llama.h"
#include "views/graph_overview.h"
#include "views/graph_view.h"
#include "views/headless_frame.h"
#include "views/keys.h"
#include "views/model/document.h"

using namespace ss;
using namespace ss::views;

namespace {

struct Headless : HeadlessFrame {
  explicit Headless(ImVec2 size) : HeadlessFrame(size) {}
  void frame(const std::function<void()>& body) { HeadlessFrame::frame(body, "graph"); }
};

int collapsed(const GraphModel& m) {
  int k = 0;
  for (uint8_t c : m.collapsed) k += c;
  return k;
}

// Text is drawn on this frame's records: a collapsed box tall enough for a line, or a node with its title, at
// a zoom whose font is at least the minimum.
int labelled(const GraphViewState& st) {
  if (13.0 * st.canvas.zoom < st.minLabelPx - 1e-9) return 0;
  int k = 0;
  for (const BlockRecord& b : st.records.blocks) k += b.collapsed && b.y1 - b.y0 >= 13.0 * st.canvas.zoom;
  for (const NodeRecord& n : st.records.nodes) k += n.detail != NodeDetail::Box;
  return k;
}

Plan realLlama2d() {
  Document doc;
  const auto ok = doc.open(std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/real/llama3_2d/rank0.log");
  if (!ok) FAIL(ok.error().toString());
  return doc.plan();
}

}  // namespace

TEST_CASE("overview: Fit on the real LLaMA-3 log shows labels of 11 px or more", "[views][graph_view][overview][real]") {
  const Plan plan = realLlama2d();
  REQUIRE(plan.graph.size() == 605);
  for (ImVec2 size : {ImVec2(1280, 720), ImVec2(1600, 1000), ImVec2(2560, 1440)}) {
    INFO("window " << size.x << "x" << size.y);
    Headless ui(size);
    Diagnostics diags;
    GraphViewState st;
    Selection sel;
    for (int i = 0; i < 3; ++i) ui.frame([&] { drawGraphView(plan, diags, st, sel); });
    REQUIRE(st.model);
    CHECK(13.0 * st.canvas.zoom >= st.minLabelPx - 1e-9);
    CHECK(labelled(st) >= 5);
    // The level is a whole one, picked for the window: modules or layers boxed, not all 605 nodes.
    const auto level = currentLevel(st);
    REQUIRE(level.has_value());
    CHECK(*level != OverviewLevel::Nodes);
    CHECK(collapsed(*st.model) >= 1);
    // Fit again (F) keeps it so.
    st.fitRequested = true;
    ui.frame([&] { drawGraphView(plan, diags, st, sel); });
    CHECK(13.0 * st.canvas.zoom >= st.minLabelPx - 1e-9);
    CHECK(labelled(st) >= 5);
  }
}

TEST_CASE("overview: a box opens by E and by double-click, the camera stays on it; Shift+E closes it",
          "[views][graph_view][overview]") {
  const Plan plan = gen::makeLlamaPlan(gen::LlamaOptions::small(4, 2));
  Headless ui(ImVec2(1280, 720));
  Diagnostics diags;
  GraphViewState st;
  Selection sel;
  for (int i = 0; i < 2; ++i) ui.frame([&] { drawGraphView(plan, diags, st, sel); });
  REQUIRE(st.model);
  setLevel(st, OverviewLevel::Blocks);
  for (int i = 0; i < 2; ++i) ui.frame([&] { drawGraphView(plan, diags, st, sel); });
  REQUIRE(currentLevel(st) == OverviewLevel::Blocks);
  const int boxes = collapsed(*st.model);
  REQUIRE(boxes >= 8);
  // The first collapsed box in view: hover it and press E.
  const BlockRecord* target = nullptr;
  for (const BlockRecord& b : st.records.blocks)
    if (b.collapsed) { target = &b; break; }
  REQUIRE(target != nullptr);
  const int block = target->block;
  const ImVec2 at((target->x0 + target->x1) * 0.5f, (target->y0 + target->y1) * 0.5f);
  const ImVec2 corner(target->x0, target->y0);
  const std::string name = st.model->layout.blocks[static_cast<size_t>(block)].name;
  ImGui::GetIO().MousePos = at;
  ui.frame([&] { drawGraphView(plan, diags, st, sel); });
  CHECK(st.hoveredBox == block);
  ImGui::GetIO().KeysDown[GLFW_KEY_E] = true;
  ui.frame([&] { drawGraphView(plan, diags, st, sel); });
  ImGui::GetIO().KeysDown[GLFW_KEY_E] = false;
  ui.frame([&] { drawGraphView(plan, diags, st, sel); });
  CHECK(collapsed(*st.model) == boxes - 1);
  CHECK_FALSE(st.expansionAuto);
  // Its first node sits where the box's corner was.
  int first = -1;
  for (int v = 0; v < plan.graph.size() && first < 0; ++v)
    if (st.layoutInput->block[static_cast<size_t>(v)] >= 0 &&
        st.layoutInput->blockNames[static_cast<size_t>(st.layoutInput->block[static_cast<size_t>(v)])] == name)
      first = v;
  REQUIRE(first >= 0);
  const Vec2d now = st.canvas.toScreen(st.model->layout.nodeRect(first).min);
  CHECK(std::abs(now.x - corner.x) < 24.0);  // the box's frame is drawn 8 world units outside its nodes
  CHECK(std::abs(now.y - corner.y) < 24.0);

  // Shift+E with a node of it selected closes it again.
  sel.selectNode(first);
  ui.frame([&] { drawGraphView(plan, diags, st, sel); });
  ImGui::GetIO().KeyShift = true;
  ImGui::GetIO().KeysDown[GLFW_KEY_E] = true;
  ui.frame([&] { drawGraphView(plan, diags, st, sel); });
  ImGui::GetIO().KeysDown[GLFW_KEY_E] = false;
  ImGui::GetIO().KeyShift = false;
  ui.frame([&] { drawGraphView(plan, diags, st, sel); });
  CHECK(collapsed(*st.model) == boxes);

  // Selecting a node inside a box (from the diagnostics list, search, next problem) opens it.
  sel.selectNode(first, true);
  ui.frame([&] { drawGraphView(plan, diags, st, sel); });
  CHECK(collapsedBoxOf(st, first) == -1);
  CHECK(collapsed(*st.model) == boxes - 1);

  // Double-click on another box opens it (the camera moved to it first).
  for (const LayoutBlock& blk : st.model->layout.blocks)
    if (blk.collapsed) {
      st.canvas.centerOn(blk.bounds.center());
      break;
    }
  ui.frame([&] { drawGraphView(plan, diags, st, sel); });
  const BlockRecord* other = nullptr;
  for (const BlockRecord& b : st.records.blocks)
    if (b.collapsed) { other = &b; break; }
  REQUIRE(other != nullptr);
  const ImVec2 p((other->x0 + other->x1) * 0.5f, (other->y0 + other->y1) * 0.5f);
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = p;
  for (int click = 0; click < 2; ++click) {
    io.MouseDown[0] = true;
    ui.frame([&] { drawGraphView(plan, diags, st, sel); });
    io.MouseDown[0] = false;
    ui.frame([&] { drawGraphView(plan, diags, st, sel); });
  }
  ui.frame([&] { drawGraphView(plan, diags, st, sel); });
  CHECK(collapsed(*st.model) == boxes - 2);
}

TEST_CASE("overview: edges into a collapsed box are bundled with their count", "[views][graph_view][overview]") {
  const Plan plan = gen::makeLlamaPlan(gen::LlamaOptions::small(2, 2));
  Headless ui(ImVec2(1600, 1000));
  Diagnostics diags;
  GraphViewState st;
  Selection sel;
  ui.frame([&] { drawGraphView(plan, diags, st, sel); });
  setLevel(st, OverviewLevel::Blocks);
  for (int i = 0; i < 3; ++i) ui.frame([&] { drawGraphView(plan, diags, st, sel); });
  REQUIRE(collapsed(*st.model) >= 4);
  int bundles = 0, total = 0;
  for (const EdgeRecord& e : st.records.edges) {
    total += e.bundled;
    bundles += e.bundled > 1;
  }
  CHECK(bundles >= 1);
  CHECK(total > static_cast<int>(st.records.edges.size()));
  // No two records join the same pair of units.
  std::set<std::pair<int, int>> pairs;
  const GraphModel& m = *st.model;
  for (const EdgeRecord& e : st.records.edges) {
    const auto& le = m.layout.edges[static_cast<size_t>(e.edge)];
    const auto unit = [&](int v) { return m.blockOf[v] >= 0 && m.collapsed[m.blockOf[v]] ? -2 - m.blockOf[v] : v; };
    CHECK(pairs.insert({unit(le.src), unit(le.dst)}).second);
  }
}
