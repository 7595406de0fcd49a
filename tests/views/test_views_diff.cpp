// Compare mode: the Changes rows, graph badges and A|B layouts as records, and the app shell driven headless
// (File > Compare with... through GuiApp::compareWith, a click on a change selecting its edge, edits re-diffing).
#include <catch2/catch.hpp>

#include <filesystem>

#include "app/gui/app.h"
#include "app/gui/platform.h"
#include "core/plan/fix.h"
#include "core/gen/llama.h"
#include "core/io/load/load.h"
#include "tests/views/harness.h"
#include "views/changes_view.h"
#include "views/diff_layouts.h"
#include "views/graph_diff.h"
#include "views/ui_probe.h"

using namespace ss;
using namespace ss::views;
namespace fs = std::filesystem;

namespace {

Plan seed1() {
  Result<Plan> p = loadPlanFile(std::string(SHARDSCOPE_SAMPLES_DIR) + "/falcon_index_put_2d.plan.json");
  REQUIRE(p.ok());
  Plan plan = std::move(p).value();
  plan.normalizeSpecs();
  return plan;
}

// Seed 1 with the fix planner's edits applied (what `shardscope fix` saves).
Plan fixed(const Plan& a) {
  Plan b = a;
  const FixPlan fix = planFix(b);
  for (const Command& c : fix.batch.commands) REQUIRE(applyCommand(b, c).ok());
  return b;
}

std::string savedFixedSeed1() {
  const std::string path = (fs::temp_directory_path() / "ss_views_diff_fixed.plan.json").string();
  REQUIRE(savePlanFile(fixed(seed1()), path).ok());
  return path;
}

app::GuiOptions testOptions() { return app::GuiOptions::isolated(); }

}  // namespace

TEST_CASE("changes: seed 1 against fixed gives one change row and two diagnostics gone", "[views][diff]") {
  const Plan a = seed1();
  const Plan b = fixed(a);
  const PlanDiff d = diffPlans(a, b);
  const std::vector<ChangeRow> rows = changeRows(a, b, d);
  REQUIRE(rows.size() == 3);
  const int ip = a.graph.find("index_put");
  CHECK(rows[0].kind == ChangeRowKind::Change);
  CHECK(rows[0].label == "redistribute-added");
  CHECK(rows[0].title == "index_put (input 2): redistribute added RS(1) -> RS(0)");
  CHECK(rows[0].delta == "+48.0 KiB, +9.3 us");
  CHECK(rows[0].node == ip);
  CHECK(rows[0].input == 2);
  for (int i : {1, 2}) {
    CHECK(rows[static_cast<size_t>(i)].kind == ChangeRowKind::DiagnosticRemoved);
    CHECK(rows[static_cast<size_t>(i)].label == "error gone");
    CHECK(rows[static_cast<size_t>(i)].severity == 3);
    CHECK(rows[static_cast<size_t>(i)].node == ip);
    CHECK(rows[static_cast<size_t>(i)].input == 2);
  }
  CHECK(rows[1].title.rfind("error: index_put (input 2) [missing-redistribute]: sum_2 delivers RS(1)", 0) == 0);
  CHECK(rows[2].title.rfind("error: index_put (input 2) [incompatible-inputs]: ", 0) == 0);

  const GraphDiffMarks marks = graphDiffMarks(a, b, d);
  CHECK(marks.nodes.empty());
  REQUIRE(marks.edges.size() == 1);
  CHECK(marks.edges[0].node == ip);
  CHECK(marks.edges[0].input == 2);
  CHECK(marks.edges[0].before == "no redistribute");
  CHECK(marks.edges[0].after == "RS(1) -> RS(0)");
}

TEST_CASE("changes: the A|B layouts of the fixed edge and of a changed output", "[views][diff]") {
  const Plan a = seed1();
  const Plan b = fixed(a);
  const PlanDiff d = diffPlans(a, b);
  const int ip = a.graph.find("index_put");
  const LayoutPair e = edgeLayoutsAB(a, b, d, ip, 2);
  REQUIRE(e.a.valid);
  REQUIRE(e.b.valid);
  CHECK(e.title == "sum_2 -> index_put (input 2) in A and in B");
  CHECK(e.a.spec.toMeshString() == "RS(1)");
  CHECK(e.a.shapes == "[16, 32, 1, 64]");
  CHECK(e.a.caption == "receives RS(1): no redistribute, index_put wants RS(0)");
  CHECK(e.b.spec.toMeshString() == "RS(0)");
  CHECK(e.b.shapes == "[4, 128, 1, 64]");
  CHECK(e.b.caption == "receives RS(0) after its redistribute RS(1) -> RS(0)");
  CHECK(e.differs);
  // Another edge of the same node is the same in both.
  const LayoutPair same = edgeLayoutsAB(a, b, d, ip, 0);
  CHECK(same.a.valid);
  CHECK_FALSE(same.differs);

  // An output spec change: B declares sum_2's output RS(0).
  Plan c = a;
  const int s2 = a.graph.find("sum_2");
  c.specs[static_cast<size_t>(s2)].outputs[0] = *a.consumerSpec(ip, 2);
  const PlanDiff dc = diffPlans(a, c);
  const LayoutPair o = outputLayoutsAB(a, c, dc, s2, 0);
  CHECK(o.a.spec.toMeshString() == "RS(1)");
  CHECK(o.b.spec.toMeshString() == "RS(0)");
  CHECK(o.b.caption == "sum_2 outputs RS(0)");
  CHECK(o.differs);
  const GraphDiffMarks marks = graphDiffMarks(a, c, dc);
  REQUIRE(marks.nodes.size() == 1);
  CHECK(marks.nodes[0].node == s2);
  CHECK(marks.nodes[0].before == "out RS(1)");
  CHECK(marks.nodes[0].after == "out RS(0)");
}

TEST_CASE("graph diff records: badges on screen only, text when zoomed in", "[views][diff][graph]") {
  const Plan a = seed1();
  const Plan b = fixed(a);
  const PlanDiff d = diffPlans(a, b);
  const GraphDiffMarks marks = graphDiffMarks(a, b, d);
  std::optional<GraphLayout> layout = layoutGraph(layoutInputFromPlan(a));
  REQUIRE(layout);
  const GraphModel model = makeGraphModel(a, d.diagnosticsA, std::move(*layout));
  const int ip = a.graph.find("index_put");
  Canvas canvas;
  canvas.size = {1000, 700};
  canvas.zoom = 1.0;
  canvas.centerOn(model.layout.nodeRect(ip).center());
  std::vector<DiffBadgeRecord> recs;
  buildGraphDiffRecords(marks, model, canvas, ip, recs);
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].edge);
  CHECK(recs[0].mark == 0);
  CHECK(recs[0].readable);
  CHECK(recs[0].selected);
  // The badge sits above the consumer's top edge and within the canvas.
  const Rectd r = canvas.rectToScreen(model.layout.nodeRect(ip));
  CHECK(recs[0].y0 <= r.min.y);
  CHECK(recs[0].x0 >= 0);
  CHECK(recs[0].x0 <= 1000);
  // Far out: a dot, not text.
  canvas.zoom = 0.05;
  canvas.centerOn(model.layout.nodeRect(ip).center());
  buildGraphDiffRecords(marks, model, canvas, -1, recs);
  REQUIRE(recs.size() == 1);
  CHECK_FALSE(recs[0].readable);
  CHECK_FALSE(recs[0].selected);
  // Scrolled away: nothing.
  canvas.zoom = 1.0;
  canvas.offset = {-1e6, -1e6};
  buildGraphDiffRecords(marks, model, canvas, -1, recs);
  CHECK(recs.empty());
}

TEST_CASE("app: Compare with... marks the graph, lists the change, a click selects its edge", "[views][app][diff]") {
  const std::string fixedPath = savedFixedSeed1();
  app::HeadlessPlatform platform;
  app::GuiApp app(platform, testOptions());
  std::string err;
  REQUIRE(app.init(err));
  setProbing(true);
  clearProbes();
  REQUIRE(app.openFile(std::string(SHARDSCOPE_SAMPLES_DIR) + "/falcon_index_put_2d.plan.json"));
  for (int i = 0; i < 3; ++i) app.frame();
  CHECK_FALSE(app.comparison().active);
  CHECK(app.graphSlot().diffRecords().empty());

  REQUIRE(app.compareWith(fixedPath));
  for (int i = 0; i < 4; ++i) app.frame();
  const Plan& plan = app.document().plan();
  const int ip = plan.graph.find("index_put");
  CHECK(app.comparison().active);
  REQUIRE(app.comparison().rows.size() == 3);
  CHECK(app.changesState().rowsDrawn == 3);
  // The first change is selected and the graph shows its badge.
  CHECK(app.selection().node == ip);
  CHECK(app.selection().input == 2);
  REQUIRE(app.graphSlot().diffRecords().size() == 1);
  CHECK(app.graphSlot().diffRecords()[0].edge);

  // Select elsewhere, then click the change row: the edge is selected again.
  app.selection().selectNode(0);
  for (int i = 0; i < 2; ++i) app.frame();
  const auto row = probedRect("changes.row0");
  REQUIRE(row.has_value());
  test::mouseTo((row->x0 + row->x1) * 0.5f, (row->y0 + row->y1) * 0.5f);
  app.frame();
  test::mouseButton(true);
  app.frame();
  test::mouseButton(false);
  for (int i = 0; i < 2; ++i) app.frame();
  CHECK(app.selection().node == ip);
  CHECK(app.selection().input == 2);
  CHECK(app.changesState().selectedRow == 0);

  // Fixing A the same way makes the plans the same: the comparison follows the edit, and undo brings it back.
  const FixPlan fix = planFix(plan);
  app.commands().push(fix.batch);
  for (int i = 0; i < 2; ++i) app.frame();
  CHECK(app.comparison().diff.same());
  CHECK(app.comparison().rows.empty());
  REQUIRE(app.document().undo().ok());
  for (int i = 0; i < 2; ++i) app.frame();
  CHECK(app.comparison().rows.size() == 3);

  // A file that cannot be read: shown, the comparison kept.
  CHECK_FALSE(app.compareWith("/nonexistent/b.plan.json"));
  CHECK(app.modal() == "Problem");
  CHECK(app.comparison().active);
  // Opening another plan ends the comparison.
  REQUIRE(app.openFile(fixedPath));
  CHECK_FALSE(app.comparison().active);
  setProbing(false);
}

TEST_CASE("changes view clips: a diff with hundreds of changes draws the visible rows", "[views][diff]") {
  const Plan a = gen::makeLlamaPlan(gen::LlamaOptions::small(2));
  Plan b = a;
  b.redistributes.clear();
  Comparison cmp;
  cmp.active = true;
  cmp.b = b;
  const Diagnostics diagsA = checkPlan(a);
  const std::vector<AppliedGraph> noApplied;
  cmp.refresh(CompareView{a, noApplied, diagsA}, 1);
  REQUIRE(cmp.rows.size() > 200);
  CHECK(cmp.rows.size() == cmp.diff.changes.size() + cmp.diff.diagnosticsAdded.size() + cmp.diff.diagnosticsRemoved.size());
  test::ImGuiHarness h(1000, 600);
  ChangesViewState st;
  Selection sel;
  for (int i = 0; i < 3; ++i) h.frame([&] { drawChangesView(a, cmp, st, sel); });
  CHECK(st.rowsDrawn > 10);
  CHECK(st.rowsDrawn < 60);
}
