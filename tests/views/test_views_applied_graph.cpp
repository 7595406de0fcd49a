// The applied overlay on the plan graph and the Applied graph view (views/model/applied_graph_overlay.h,
// views/applied_graph_view.h): exact pill texts and states, collective marks, the ghost of the missing all-to-all,
// linked selection, and the app opening seed 1's log framed on the problem. Data: tests/data/trace/ (seed 1's
// TORCH_TRACE logs written by samples/gen/trace_log.py).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "app/gui/app.h"
#include "app/gui/platform.h"
#include "core/draw/graph_layout.h"
#include "core/model/placement_parse.h"
#include "tests/views/harness.h"
#include "views/model/applied_graph_overlay.h"
#include "views/applied_graph_view.h"
#include "views/model/document.h"
#include "views/model/graph_records.h"

using namespace ss;
using namespace ss::views;

namespace {
std::string trace(const std::string& name) { return std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/trace/" + name; }

GraphModel modelOf(const Plan& plan, const Diagnostics& d, const GraphOverlay& o) {
  auto layout = layoutGraph(layoutInputFromPlan(plan));
  REQUIRE(layout);
  return makeGraphModel(plan, d, std::move(*layout), &o);
}

// "consumer:input" -> "state: text" for every pill of the model.
std::map<std::string, std::string> pillsOf(const Plan& plan, const GraphModel& m) {
  std::map<std::string, std::string> out;
  for (const auto& [e, pills] : m.pills) {
    const auto& ed = m.layout.edges[static_cast<size_t>(e)];
    std::string v;
    for (const EdgePill& p : pills) v += (v.empty() ? "" : " | ") + std::string(pillStateName(p.state)) + (p.ghost ? " ghost" : "") + ": " + p.text;
    out[plan.graph.nodes[static_cast<size_t>(ed.dst)].name + ":" + std::to_string(ed.input)] = v;
  }
  return out;
}

std::map<std::string, std::string> marksOf(const Plan& g, const GraphModel& m) {
  std::map<std::string, std::string> out;
  for (int v = 0; v < static_cast<int>(m.markOf.size()); ++v)
    if (m.markOf[static_cast<size_t>(v)] >= 0) {
      const NodeMark& k = m.marks[static_cast<size_t>(m.markOf[static_cast<size_t>(v)])];
      out[g.graph.nodes[static_cast<size_t>(v)].name] = std::string(pillStateName(k.state)) + ": " + k.title + ", " + k.detail;
    }
  return out;
}

int countKind(const GraphModel& m, EdgeKind k) { return static_cast<int>(std::count(m.edgeKind.begin(), m.edgeKind.end(), k)); }

struct App {
  app::HeadlessPlatform platform;
  app::GuiApp gui;
  App() : gui(platform, options()) {
    std::string err;
    REQUIRE(gui.init(err));
  }
  static app::GuiOptions options() { return app::GuiOptions::isolated(); }
  void frames(int n) {
    for (int i = 0; i < n; ++i) gui.frame();
  }
};
}  // namespace

TEST_CASE("plan overlay: seed 1's missing all-to-all is a missing pill on its edge, the others applied", "[views][applied][overlay]") {
  Document doc;
  REQUIRE(doc.open(trace("seed1_missing.log")).ok());
  const Plan& plan = doc.plan();
  const GraphOverlay o = planOverlay(doc.applied(), plan.mesh);
  const GraphModel m = modelOf(plan, doc.diagnostics(), o);
  CHECK(pillsOf(plan, m) == std::map<std::string, std::string>{
                                {"index_put:2", "missing: missing all_to_all dim1 48.0 KiB"},
                                {"slice_scatter:1", "applied: all_to_all dim1 3.3 MiB 32.3 us"},
                                {"mm_1:1", "applied: all_gather dim0 9.1 MiB 66.8 us"},
                                {"output:1", "applied: all_reduce dim1 124.9 MiB 891.1 us"}});
  const int e = m.findEdge(plan.graph.find("index_put"), 2);
  REQUIRE(e >= 0);
  CHECK(m.edgeKind[static_cast<size_t>(e)] == EdgeKind::NotApplied);
  CHECK(countKind(m, EdgeKind::NotApplied) == 1);
  CHECK(m.problemEdges == std::vector<int>{e});
  CHECK(m.severity[static_cast<size_t>(plan.graph.find("index_put"))] == 3);
  // The record pass carries the pill's edge to the drawing, at the edge's midpoint, zoomed in or far out.
  Canvas c;
  c.size = {1200, 800};
  c.fit(m.layout.bounds, 20);
  GraphRecords r;
  buildGraphRecords(m, c, RecordOptions{}, r);
  int badges = 0;
  const BadgeRecord* missing = nullptr;
  for (const auto& b : r.badges) {
    badges += m.pills.count(b.edge) ? 1 : 0;
    if (b.edge == e) missing = &b;
  }
  CHECK(badges == 4);
  REQUIRE(missing);
  CHECK(missing->kind == EdgeKind::NotApplied);
  const Rectd src = m.layout.nodeRect(m.layout.edges[static_cast<size_t>(e)].src), dst = m.layout.nodeRect(plan.graph.find("index_put"));
  CHECK(missing->y == Approx(c.toScreen({0, (src.max.y + dst.min.y) * 0.5}).y));
  c.zoom = c.zoom / 50;  // far out: merged cells, the not-applied edge still drawn
  buildGraphRecords(m, c, RecordOptions{}, r);
  REQUIRE(r.merged);
  CHECK(std::any_of(r.edges.begin(), r.edges.end(), [&](const EdgeRecord& x) { return x.edge == e && x.kind == EdgeKind::NotApplied; }));
}

TEST_CASE("plan overlay: with the all-to-all applied every pill is applied; an unexplained one is unplanned", "[views][applied][overlay]") {
  Document doc;
  REQUIRE(doc.open(trace("seed1_applied.log")).ok());
  const Plan& plan = doc.plan();
  GraphModel m = modelOf(plan, doc.diagnostics(), planOverlay(doc.applied(), plan.mesh));
  CHECK(pillsOf(plan, m) == std::map<std::string, std::string>{
                                {"index_put:2", "applied: all_to_all dim1 48.0 KiB 9.3 us"},
                                {"slice_scatter:1", "applied: all_to_all dim1 3.3 MiB 32.3 us"},
                                {"mm_1:1", "applied: all_gather dim0 9.1 MiB 66.8 us"},
                                {"output:1", "applied: all_reduce dim1 124.9 MiB 891.1 us"}});
  CHECK(countKind(m, EdgeKind::NotApplied) == 0);
  CHECK(m.problemEdges.empty());
  // Take slice_scatter's tangents as they come: the applied all-to-all there explains nothing (a warning pill).
  const int ss = plan.graph.find("slice_scatter");
  REQUIRE(doc.apply(SetInputSpec{ss, 1, parseSpec("RS(1)").value()}).ok());
  m = modelOf(doc.plan(), doc.diagnostics(), planOverlay(doc.applied(), doc.plan().mesh));
  CHECK(pillsOf(doc.plan(), m).at("slice_scatter:1") == "unplanned: unplanned all_to_all dim1 3.3 MiB 32.3 us");
  CHECK(m.severity[static_cast<size_t>(ss)] == 3);  // the checker's own error at slice_scatter
  // The pill alone makes its consumer a warning.
  CHECK(modelOf(doc.plan(), {}, planOverlay(doc.applied(), doc.plan().mesh)).severity[static_cast<size_t>(ss)] == 2);
  const GraphModel am = modelOf(doc.applied()[0].graph, {}, appliedGraphOverlay(doc.applied()[0], doc.plan().mesh));
  CHECK(marksOf(doc.applied()[0].graph, am).at("shard_dim_alltoall_1") == "unplanned: all_to_all dim1, 3.3 MiB 32.3 us");
}

TEST_CASE("applied graph overlay: collectives drawn as collectives, the missing one a ghost on its edge", "[views][applied][overlay]") {
  Document doc;
  REQUIRE(doc.open(trace("seed1_missing.log")).ok());
  const AppliedGraph& a = doc.applied()[0];
  const GraphModel m = modelOf(a.graph, appliedGraphDiagnostics(doc.diagnostics(), a), appliedGraphOverlay(a, doc.plan().mesh));
  CHECK(marksOf(a.graph, m) == std::map<std::string, std::string>{
                                   {"shard_dim_alltoall", "applied: all_to_all dim1, 3.3 MiB 32.3 us"},
                                   {"all_gather_into_tensor", "applied: all_gather dim0, 9.1 MiB 66.8 us"},
                                   {"wait_tensor", "applied: wait_tensor, all_gather"},
                                   {"all_reduce", "applied: all_reduce dim1, 124.9 MiB 891.1 us"},
                                   {"wait_tensor_1", "applied: wait_tensor, all_reduce"}});
  CHECK(pillsOf(a.graph, m) == std::map<std::string, std::string>{{"index_put:2", "missing ghost: missing all_to_all dim1 48.0 KiB"}});
  const int ip = a.graph.graph.find("index_put");
  CHECK(m.severity[static_cast<size_t>(ip)] == 3);
  // Zoomed in, marked nodes carry their mark to the drawing; far out they stay visible as boxes of >= 3 px.
  Canvas c;
  c.size = {1200, 800};
  c.fit(m.layout.bounds, 20);
  GraphRecords r;
  buildGraphRecords(m, c, RecordOptions{}, r);
  REQUIRE_FALSE(r.merged);
  CHECK(std::count_if(r.nodes.begin(), r.nodes.end(), [](const NodeRecord& n) { return n.mark >= 0; }) == 5);
  CHECK(r.marks.empty());
  c.zoom /= 40;
  buildGraphRecords(m, c, RecordOptions{}, r);
  REQUIRE(r.merged);
  REQUIRE(r.marks.size() == 5);
  for (const MarkRecord& k : r.marks) {
    CHECK(k.x1 - k.x0 >= 2.999f);  // float screen coordinates
    CHECK(k.y1 - k.y0 >= 2.999f);
    CHECK(m.marks[static_cast<size_t>(k.mark)].state == PillState::Applied);
  }
  const int e = m.findEdge(ip, 2);
  REQUIRE(e >= 0);
  CHECK(a.graph.graph.nodes[static_cast<size_t>(m.layout.edges[static_cast<size_t>(e)].src)].name == "sum_1");
  // Fixed log: no ghost, every collective applied.
  Document ok;
  REQUIRE(ok.open(trace("seed1_applied.log")).ok());
  const AppliedGraph& b = ok.applied()[0];
  const GraphModel bm = modelOf(b.graph, {}, appliedGraphOverlay(b, ok.plan().mesh));
  CHECK(bm.pills.empty());
  CHECK(marksOf(b.graph, bm).size() == 6);
  for (const auto& [name, text] : marksOf(b.graph, bm)) CHECK(text.rfind("applied: ", 0) == 0);
}

TEST_CASE("linked selection between the plan and the applied graph", "[views][applied][overlay]") {
  Document doc;
  REQUIRE(doc.open(trace("seed1_missing.log")).ok());
  const Plan& plan = doc.plan();
  const AppliedGraph& a = doc.applied()[0];
  const Graph& ag = a.graph.graph;
  CHECK(appliedCounterpart(a, plan.graph.find("index_put"), 2) == LinkedPick{ag.find("index_put"), 2});
  CHECK(appliedCounterpart(a, plan.graph.find("t"), -1) == LinkedPick{ag.find("permute"), -1});
  CHECK(planCounterpart(a, ag.find("permute"), -1) == LinkedPick{plan.graph.find("t"), -1});
  CHECK(planCounterpart(a, ag.find("shard_dim_alltoall"), -1) == LinkedPick{plan.graph.find("slice_scatter"), 1});
  CHECK(planCounterpart(a, ag.find("wait_tensor"), -1) == LinkedPick{plan.graph.find("mm_1"), 1});
  CHECK(planCounterpart(a, ag.find("index_put"), 2) == LinkedPick{plan.graph.find("index_put"), 2});
  CHECK(planCounterpart(a, ag.find("split"), -1) == LinkedPick{});
}

TEST_CASE("the app opens seed 1's log framed on the missing edge; the Applied graph tab follows the selection", "[views][applied][app]") {
  App app;
  REQUIRE(app.gui.openFile(trace("seed1_missing.log")));
  const Plan& plan = app.gui.document().plan();
  const int ip = plan.graph.find("index_put");
  CHECK(app.gui.selection().node == ip);
  CHECK(app.gui.selection().input == 2);
  app.frames(1);
  // First frame: the graph fills the canvas (no empty band above the first layer) and shows both ends of the edge.
  const GraphViewState& gs = app.gui.graphSlot().viewState();
  REQUIRE(gs.model);
  const Rectd vis = gs.canvas.visibleWorld();
  const Rectd bounds = gs.model->layout.bounds;
  const double margin = 21.0 / gs.canvas.zoom;
  CHECK(vis.min.y >= bounds.min.y - margin);
  CHECK(vis.min.x >= std::min(bounds.min.x - margin, bounds.center().x - vis.width() * 0.5 - 1e-6));
  CHECK(vis.contains(gs.model->layout.nodeRect(ip).center()));
  CHECK(vis.contains(gs.model->layout.nodeRect(plan.graph.find("sum_1")).center()));
  CHECK(gs.canvas.zoom * gs.model->layout.nodeHeight >= 27.9);  // readable
  REQUIRE(gs.model->pills.size() == 4);

  // The Applied graph tab selects index_put's applied counterpart (its input 2) and draws the ghost.
  app.gui.showTab(ViewId::AppliedGraph);
  app.frames(3);
  AppliedGraphViewState& st = app.gui.appliedGraphState();
  const AppliedGraph& a = app.gui.document().applied()[0];
  CHECK(st.local.node == a.graph.graph.find("index_put"));
  CHECK(st.local.input == 2);
  REQUIRE(st.graph.model);
  CHECK(st.graph.model->marks.size() == 5);  // three collectives, two waits
  CHECK(std::any_of(st.graph.records.badges.begin(), st.graph.records.badges.end(),
                    [&](const BadgeRecord& b) { return b.kind == EdgeKind::NotApplied; }));
  // Selecting an applied node there selects its plan node; a plan selection moves the applied one back.
  st.local.selectNode(a.graph.graph.find("permute"));
  app.frames(1);
  CHECK(app.gui.selection().node == plan.graph.find("t"));
  app.gui.selection().selectNode(plan.graph.find("mm"), true);
  app.frames(2);
  CHECK(st.local.node == a.appliedOf[static_cast<size_t>(plan.graph.find("mm"))]);
}

TEST_CASE("an applied graph alone opens in the Applied graph tab, collectives highlighted and costed", "[views][applied][app]") {
  App app;
  REQUIRE(app.gui.openFile(trace("seed1_applied_only.txt")));
  app.frames(3);
  const AppliedGraphViewState& st = app.gui.appliedGraphState();
  REQUIRE(st.graph.model);  // drawn: the tab was brought to front
  const Plan& plan = app.gui.document().plan();
  CHECK(plan.mesh.shape() == std::vector<int64_t>{2, 4});
  std::map<std::string, std::string> marks = marksOf(plan, *st.graph.model);
  CHECK(marks.size() == 6);  // four collectives and the waits of the all-gather and the all-reduce
  CHECK(marks.at("all_reduce") == "plan: all_reduce dim1, 124.9 MiB 891.1 us");
  CHECK(marks.at("shard_dim_alltoall") == "plan: all_to_all dim1, 48.0 KiB 9.3 us");
  CHECK(marks.at("shard_dim_alltoall_1") == "plan: all_to_all dim1, 3.3 MiB 32.3 us");
  CHECK(marks.at("all_gather_into_tensor") == "plan: all_gather dim0, 9.1 MiB 66.8 us");
  // The plan graph tab shows the same marks.
  app.gui.showTab(ViewId::Graph);
  app.frames(2);
  REQUIRE(app.gui.graphSlot().viewState().model);
  CHECK(marksOf(plan, *app.gui.graphSlot().viewState().model) == marks);
}

TEST_CASE("an applied graph alone with the command line's mesh 2x4 (dp, tp)", "[views][applied][app]") {
  SessionInputs extras;
  extras.mesh = DeviceMesh::parse("2x4", "dp,tp").value();
  {
    App app;  // one app (one ImGui context) at a time
    REQUIRE(app.gui.openFile(trace("seed1_applied_only.txt"), extras));
    app.frames(3);
    const Plan& plan = app.gui.document().plan();
    REQUIRE(app.gui.document().appliedAlone());
    CHECK_FALSE(app.gui.document().appliedAlone()->meshInferred);
    CHECK(plan.mesh.dimNames() == std::vector<std::string>{"dp", "tp"});
    REQUIRE(app.gui.appliedGraphState().graph.model);
    const auto marks = marksOf(plan, *app.gui.appliedGraphState().graph.model);
    CHECK(marks.at("shard_dim_alltoall_1") == "plan: all_to_all tp, 3.3 MiB 32.3 us");
    CHECK(marks.at("all_gather_into_tensor") == "plan: all_gather dp, 9.1 MiB 66.8 us");
  }
  // A mesh the collectives do not fit (a group of 4 on a 1-D mesh of 8 ranks): no process group of the mesh has
  // that size, so the collective is invalid (core/applied/applied.h): unmapped, not costed, and an
  // invalid-collective error at its node says so.
  extras.mesh = DeviceMesh::parse("8", "").value();
  App app;
  REQUIRE(app.gui.openFile(trace("seed1_applied_only.txt"), extras));
  app.frames(3);
  REQUIRE(app.gui.appliedGraphState().graph.model);
  CHECK(marksOf(app.gui.document().plan(), *app.gui.appliedGraphState().graph.model).at("shard_dim_alltoall_1") ==
        "plan: all_to_all dim?, shard_dim_alltoall");
  int invalid = 0;
  for (const Diagnostic& d : app.gui.document().diagnostics().items)
    invalid += d.kind == DiagKind::InvalidCollective && app.gui.document().plan().graph.nodes[d.node].name == "shard_dim_alltoall_1";
  CHECK(invalid == 1);
}

TEST_CASE("a folder of per-rank logs: the Applied graph tab shows the picked rank's graph, selection kept", "[views][applied][app]") {
  App app;
  REQUIRE(app.gui.openFile(trace("seed1_ranks")));
  const auto& applied = app.gui.document().applied();
  REQUIRE(applied.size() == 2);
  // The same pills from both ranks are one pill on the plan graph (the gradient's all-reduce among them).
  const GraphOverlay o = planOverlay(applied, app.gui.document().plan().mesh);
  CHECK(o.edges.size() == 4);
  app.gui.showTab(ViewId::AppliedGraph);
  app.frames(3);
  AppliedGraphViewState& st = app.gui.appliedGraphState();
  REQUIRE(st.graph.model);
  CHECK(st.graph.seen.plan == &applied[0].graph);
  st.rank = 1;
  app.frames(3);
  CHECK(st.graph.seen.plan == &applied[1].graph);
  CHECK(applied[1].rank == 5);
  // Still index_put's input 2 (the first problem), now in rank 5's graph, with its ghost.
  CHECK(st.local.node == applied[1].graph.graph.find("index_put"));
  CHECK(st.local.input == 2);
  REQUIRE(st.graph.model);
  CHECK(pillsOf(applied[1].graph, *st.graph.model) ==
        std::map<std::string, std::string>{{"index_put:2", "missing ghost: missing all_to_all dim1 48.0 KiB"}});
}
