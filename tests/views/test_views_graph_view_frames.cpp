// The graph view in headless ImGui frames (font atlas built, no GL): drawing, selection by mouse, zoom to the
// cursor, search, filters, collapse and the background layout, on generated LLaMA-like plans.
#include <catch2/catch.hpp>

#include <imgui.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <thread>

#include "core/gen/llama.h"
#include "views/graph_view.h"
#include "views/headless_frame.h"
#include "views/keys.h"

using namespace ss;
using namespace ss::views;

namespace {

struct Headless : HeadlessFrame {
  Headless() : HeadlessFrame(ImVec2(1280, 800)) {}
  void frame(const std::function<void()>& body) { HeadlessFrame::frame(body, "graph"); }
};

Plan smallLlama() {
  gen::LlamaOptions o = gen::LlamaOptions::small(2, 2);
  return gen::makeLlamaPlan(o);
}

ImVec2 screenCentreOf(const GraphViewState& st, int v) {
  const Vec2d c = st.canvas.toScreen(st.model->layout.nodeRect(v).center());
  return ImVec2(static_cast<float>(c.x), static_cast<float>(c.y));
}

int firstNodeWithOp(const Plan& p, std::string_view op) {
  for (int v = 0; v < p.graph.size(); ++v) if (p.graph.nodes[v].op == op) return v;
  return -1;
}

}  // namespace

TEST_CASE("graph view: draws a generated plan, fitted, with redistribute badges", "[graph_view]") {
  Headless ui;
  const Plan plan = smallLlama();
  Diagnostics diags;
  GraphViewState st;
  st.minLabelPx = 0.f;  // the plain layout fitted whole (these tests are of the node level; the overview's own: test_views_overview.cpp)
  Selection sel;
  ui.frame([&] { drawGraphView(plan, diags, st, sel); });
  REQUIRE(st.model);
  CHECK(st.model->layout.nodeCount() == plan.graph.size());
  CHECK(st.model->layout.stampedBlocks >= 1);  // layers.1 is a copy of layers.0
  // Fitted: the whole layout is inside the canvas.
  const Rectd vis = st.canvas.visibleWorld();
  CHECK(vis.min.x <= st.model->layout.bounds.min.x + 1e-6);
  CHECK(vis.max.y >= st.model->layout.bounds.max.y - 1e-6);
  // The generator's explicit redistributes are edges with a collective badge.
  REQUIRE_FALSE(plan.redistributes.empty());
  const auto& r0 = plan.redistributes.front();
  const int e = st.model->findEdge(r0.node, r0.input);
  REQUIRE(e >= 0);
  CHECK(st.model->edgeKind[e] == EdgeKind::Redistribute);
  CHECK_FALSE(st.model->badge.at(e).empty());
  CHECK(ImGui::GetDrawData()->TotalVtxCount > 1000);
}

TEST_CASE("graph view: click selects, wheel zooms to the cursor, F3 jumps to a search hit", "[graph_view]") {
  Headless ui;
  const Plan plan = smallLlama();
  Diagnostics diags;
  GraphViewState st;
  st.minLabelPx = 0.f;  // the plain layout fitted whole (these tests are of the node level; the overview's own: test_views_overview.cpp)
  Selection sel;
  ImGuiIO& io = ImGui::GetIO();
  auto frame = [&] { ui.frame([&] { drawGraphView(plan, diags, st, sel); }); };
  frame();
  REQUIRE(st.model);

  // Zoom in on a node and click it.
  const int target = firstNodeWithOp(plan, "aten.mm.default");
  REQUIRE(target >= 0);
  st.canvas.zoom = 1.0;
  st.canvas.centerOn(st.model->layout.nodeRect(target).center());
  frame();
  ImVec2 p = screenCentreOf(st, target);
  p = ImVec2(std::floor(p.x), std::floor(p.y));  // ImGui floors the mouse position
  io.MousePos = p;
  frame();
  CHECK(st.hoveredNode == target);
  io.MouseDown[0] = true;
  frame();
  io.MouseDown[0] = false;
  frame();
  CHECK(sel.node == target);
  frame();
  CHECK(sel.input == -1);
  bool drawnSelected = false;
  for (const auto& n : st.records.nodes) drawnSelected = drawnSelected || (n.node == target && n.selected);
  CHECK(drawnSelected);

  // Wheel: zoom by 1.2 with the world point under the cursor fixed.
  const Vec2d before = st.canvas.toWorld({p.x, p.y});
  io.MouseWheel = 1.f;
  frame();
  io.MouseWheel = 0.f;
  CHECK(st.canvas.zoom == Approx(1.2));
  CHECK(st.canvas.toWorld({p.x, p.y}).x == Approx(before.x));
  CHECK(st.canvas.toWorld({p.x, p.y}).y == Approx(before.y));

  // Search by op; F3 selects the first hit and centres on it.
  st.search = "nll_loss_forward";
  frame();
  REQUIRE(st.searchHits.size() == 1);
  const int hit = st.searchHits[0];
  io.KeysDown[keys::kF3] = true;
  frame();
  io.KeysDown[keys::kF3] = false;
  frame();
  CHECK(sel.node == hit);
  const Vec2d c = st.canvas.toScreen(st.model->layout.nodeRect(hit).center());
  CHECK(c.x == Approx(st.canvas.origin.x + st.canvas.size.x / 2));
  CHECK(c.y == Approx(st.canvas.origin.y + st.canvas.size.y / 2));
  CHECK(st.model->match[hit] == 1);
}

TEST_CASE("graph view: problems are marked, filters and collapse hide without moving", "[graph_view]") {
  Headless ui;
  const Plan plan = smallLlama();
  const int bad = firstNodeWithOp(plan, "aten.mm.default");
  REQUIRE(bad >= 0);
  Diagnostics diags;
  Diagnostic d;
  d.severity = Severity::Error;
  d.kind = DiagKind::IncompatibleInputs;
  d.node = bad;
  d.input = 1;
  d.message = "inputs disagree";
  diags.items.push_back(d);
  GraphViewState st;
  st.minLabelPx = 0.f;  // the plain layout fitted whole (these tests are of the node level; the overview's own: test_views_overview.cpp)
  Selection sel;
  auto frame = [&] { ui.frame([&] { drawGraphView(plan, diags, st, sel); }); };
  frame();
  REQUIRE(st.model);
  CHECK(st.model->severity[bad] == 3);
  CHECK(st.model->problemNodes == std::vector<int>{bad});
  const int e = st.model->findEdge(bad, 1);
  REQUIRE(e >= 0);
  CHECK(st.model->edgeKind[e] == EdgeKind::NeedsRedistribute);
  // Fitted far out: the problem is still drawn (marker or an error cell).
  bool shown = false;
  for (const auto& m : st.records.markers) shown = shown || m.node == bad;
  for (const auto& n : st.records.nodes) shown = shown || (n.node == bad && n.severity == 3);
  CHECK(shown);

  const auto xBefore = st.model->layout.x;
  st.filter.onlyProblems = true;
  frame();
  int visible = 0;
  for (uint8_t v : st.model->visible) visible += v;
  CHECK(visible == 1);
  CHECK(st.model->layout.x == xBefore);  // filtering never moves nodes
  for (const auto& n : st.records.nodes) CHECK(n.node == bad);

  st.filter.onlyProblems = false;
  st.filter.collapseRepeated = true;
  frame();
  int collapsed = 0;
  for (uint8_t c : st.model->collapsed) collapsed += c;
  CHECK(collapsed == st.model->layout.stampedBlocks);
  CHECK(collapsed >= 1);

  st.filter.collapseRepeated = false;
  st.filter.forward = false;
  frame();
  for (int v = 0; v < plan.graph.size(); ++v)
    if (plan.graph.nodes[v].phase == Phase::Forward) REQUIRE(st.model->visible[v] == 0);
}

TEST_CASE("graph view: large graphs are laid out off the UI thread with progress", "[graph_view]") {
  Headless ui;
  const Plan plan = smallLlama();
  Diagnostics diags;
  GraphViewState st;
  st.minLabelPx = 0.f;  // the plain layout fitted whole (these tests are of the node level; the overview's own: test_views_overview.cpp)
  st.syncLayoutBelow = 0;  // force the worker
  Selection sel;
  auto frame = [&] { ui.frame([&] { drawGraphView(plan, diags, st, sel); }); };
  frame();
  for (int i = 0; i < 500 && !st.model; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    frame();
  }
  REQUIRE(st.model);
  CHECK(st.model->layout.nodeCount() == plan.graph.size());
  CHECK_FALSE(st.layoutRunning());
}

TEST_CASE("graph view: F fits, a click on the minimap moves the view there", "[graph_view]") {
  Headless ui;
  const Plan plan = smallLlama();
  Diagnostics diags;
  GraphViewState st;
  st.minLabelPx = 0.f;  // the plain layout fitted whole (these tests are of the node level; the overview's own: test_views_overview.cpp)
  Selection sel;
  ImGuiIO& io = ImGui::GetIO();
  auto frame = [&] { ui.frame([&] { drawGraphView(plan, diags, st, sel); }); };
  frame();
  REQUIRE(st.model);
  const Canvas fitted = st.canvas;
  // Zoom in on the top of the graph.
  st.canvas.zoom = 1.0;
  st.canvas.centerOn(st.model->layout.bounds.min);
  frame();
  // The minimap sits in the canvas's bottom-right corner; its bottom edge maps to the graph's bottom.
  const float right = static_cast<float>(st.canvas.origin.x + st.canvas.size.x) - 10.f;
  const float bottom = static_cast<float>(st.canvas.origin.y + st.canvas.size.y) - 10.f;
  io.MousePos = ImVec2(right - 5.f, bottom - 1.f);
  frame();
  io.MouseDown[0] = true;
  frame();
  io.MouseDown[0] = false;
  frame();
  const Vec2d centre = st.canvas.toWorld(st.canvas.origin + st.canvas.size * 0.5);
  CHECK(centre.y > st.model->layout.bounds.max.y - 0.05 * st.model->layout.bounds.height());
  CHECK(st.canvas.zoom == Approx(1.0));
  // F over the canvas fits the whole graph again.
  io.MousePos = ImVec2(static_cast<float>(st.canvas.origin.x + 50), static_cast<float>(st.canvas.origin.y + 50));
  frame();
  io.KeysDown[keys::kF] = true;
  frame();
  io.KeysDown[keys::kF] = false;
  frame();
  CHECK(st.canvas.zoom == Approx(fitted.zoom));
  CHECK(st.canvas.offset.y == Approx(fitted.offset.y));
}

TEST_CASE("graph view: an empty plan and a plan without specs draw without trouble", "[graph_view]") {
  Headless ui;
  Diagnostics diags;
  Selection sel;
  {
    Plan empty;
    GraphViewState st;
    st.minLabelPx = 0.f;
  st.minLabelPx = 0.f;  // the plain layout fitted whole (these tests are of the node level; the overview's own: test_views_overview.cpp)
    for (int i = 0; i < 3; ++i) ui.frame([&] { drawGraphView(empty, diags, st, sel); });
    REQUIRE(st.model);
    CHECK(st.model->layout.nodeCount() == 0);
    CHECK(st.records.nodes.empty());
  }
  {
    Plan bare = smallLlama();
    bare.specs.clear();  // specs absent: every node uncoloured, no redistribute edges
    bare.redistributes.clear();
    GraphViewState st;
    st.minLabelPx = 0.f;
  st.minLabelPx = 0.f;  // the plain layout fitted whole (these tests are of the node level; the overview's own: test_views_overview.cpp)
    for (int i = 0; i < 3; ++i) ui.frame([&] { drawGraphView(bare, diags, st, sel); });
    REQUIRE(st.model);
    for (int16_t c : st.model->colour) REQUIRE(c == -1);
    for (auto k : st.model->edgeKind) REQUIRE(k == EdgeKind::Normal);
  }
}

TEST_CASE("graph view: a document replaced in place is laid out again on request", "[graph_view]") {
  Headless ui;
  Plan plan = smallLlama();
  Diagnostics diags;
  GraphViewState st;
  st.minLabelPx = 0.f;  // the plain layout fitted whole (these tests are of the node level; the overview's own: test_views_overview.cpp)
  Selection sel;
  auto frame = [&] { ui.frame([&] { drawGraphView(plan, diags, st, sel); }); };
  frame();
  REQUIRE(st.model);
  const size_t edgesBefore = st.model->layout.edges.size();
  // Same address, same size and names, one edge fewer: only the owner's request reveals it.
  const int last = plan.graph.size() - 1;
  auto& outArgs = plan.graph.nodes[last].args;
  REQUIRE_FALSE(outArgs.empty());
  REQUIRE(outArgs[0].isList());
  auto& items = outArgs[0].items;  // (loss, grads..., None...): drop the last tensor
  for (size_t i = items.size(); i-- > 0;)
    if (items[i].isTensor()) { items.erase(items.begin() + static_cast<long>(i)); break; }
  plan.graph.reindex();
  plan.normalizeSpecs();
  frame();
  CHECK(st.model->layout.edges.size() == edgesBefore);  // not noticed (cheap per-frame identity)
  st.relayoutRequested = true;
  frame();
  REQUIRE(st.model);
  CHECK(st.model->layout.edges.size() + 1 == edgesBefore);
}
