// Record passes of the views: plain C++ results with exact values.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>

#include "core/io/load/load.h"

#include "core/check/check.h"
#include "core/model/placement_parse.h"
#include "tests/views/harness.h"
#include "views/costs_view.h"
#include "views/diagnostics_view.h"
#include "views/edge_view.h"
#include "views/model/focus.h"
#include "views/inspector_view.h"
#include "views/model/mesh_layout.h"
#include "views/run_view.h"
#include "views/tensor_view.h"

using namespace ss;
using namespace ss::views;

namespace {
ShardingSpec spec(const char* s) { return parseSpec(s).value(); }
TensorMeta meta(std::vector<int64_t> shape) {
  TensorMeta m;
  m.shape = std::move(shape);
  return m;
}
}  // namespace

TEST_CASE("mesh grid: Falcon's values edge on a 2x4 mesh, RS(1)", "[views][mesh]") {
  const DeviceMesh mesh({2, 4}, {"dim0", "dim1"});
  MeshGridOptions o;
  o.width = 800;
  o.height = 300;
  const MeshGridLayout g = layoutMeshGrid(mesh, meta({16, 128, 1, 64}), spec("RS(1)"), o);
  REQUIRE(g.error.empty());
  REQUIRE(g.cells.size() == 8);
  // Rank 5 is (1, 1): sequence chunk 1 of 4.
  const MeshCell& c5 = g.cells[5];
  CHECK(c5.shard.localShape == std::vector<int64_t>{16, 32, 1, 64});
  CHECK(c5.shard.offset == std::vector<int64_t>{0, 32, 0, 0});
  // Replicated over mesh dim 0: ranks j and 4+j hold the same data: 4 groups of 2.
  CHECK(g.groups == 4);
  CHECK(c5.group == g.cells[1].group);
  CHECK(c5.groupSize == 2);
  CHECK(g.cells[0].group != g.cells[1].group);
  // Layout: mesh dim 0 down, mesh dim 1 across.
  CHECK(g.cells[1].rect.x0 > g.cells[0].rect.x0);
  CHECK(g.cells[1].rect.y0 == g.cells[0].rect.y0);
  CHECK(g.cells[4].rect.y0 > g.cells[0].rect.y0);
  CHECK(g.cells[4].rect.x0 == g.cells[0].rect.x0);
  // Miniature: dims (1, 3) (sharded dim first, then the largest); rank 5 holds rows [0.25, 0.5) of dim 1.
  REQUIRE(c5.mini.size() == 1);
  CHECK(c5.mini[0].y0 == Approx(0.25));
  CHECK(c5.mini[0].y1 == Approx(0.5));
  CHECK(c5.mini[0].x0 == Approx(0.0));
  CHECK(c5.mini[0].x1 == Approx(1.0));
  CHECK(g.cellAt(c5.rect.x0 + 1, c5.rect.y0 + 1) == 5);
  CHECK(g.cellAt(-5, -5) == -1);
  // Labels name the mesh dims.
  bool sawRow = false, sawCol = false;
  for (const MeshLabel& l : g.labels) {
    sawRow = sawRow || (l.vertical && l.text == "dim0=1");
    sawCol = sawCol || (!l.vertical && l.text == "dim1=3");
  }
  CHECK(sawRow);
  CHECK(sawCol);
}

TEST_CASE("mesh grid: uneven shards, empty ranks, partial groups", "[views][mesh]") {
  const DeviceMesh mesh({4}, {"tp"});
  MeshGridOptions o;
  // 5 rows over 4 ranks: chunks of 2 -> 2, 2, 1, 0.
  const MeshGridLayout g = layoutMeshGrid(mesh, meta({5, 3}), spec("S(0)"), o);
  REQUIRE(g.cells.size() == 4);
  CHECK(g.cells[2].shard.localShape == std::vector<int64_t>{1, 3});
  CHECK(g.cells[3].shard.empty);
  CHECK(g.cells[3].mini.empty());
  CHECK(g.groups == 4);
  // Partial: every rank holds a different partial value even with the same slices.
  const MeshGridLayout p = layoutMeshGrid(mesh, meta({8, 8}), spec("P(sum)"), o);
  CHECK(p.groups == 4);
  CHECK(p.cells[0].shard.partial);
  // Replicated: one group of 4.
  const MeshGridLayout r = layoutMeshGrid(mesh, meta({8, 8}), spec("R"), o);
  CHECK(r.groups == 1);
  CHECK(r.cells[2].groupSize == 4);
  // A spec that does not fit the tensor: an error, no cells.
  const MeshGridLayout bad = layoutMeshGrid(mesh, meta({8}), spec("S(2)"), o);
  CHECK_FALSE(bad.error.empty());
  CHECK(bad.cells.empty());
}

TEST_CASE("mesh grid: 3-D mesh is a row of 2-D slices", "[views][mesh]") {
  const DeviceMesh mesh({2, 2, 2}, {"pp", "dp", "tp"});
  MeshGridOptions o;
  o.width = 900;
  o.height = 400;
  const MeshGridLayout g = layoutMeshGrid(mesh, meta({8, 8}), spec("RS(0)S(1)"), o);
  REQUIRE(g.cells.size() == 8);
  // Rank 4 = (1, 0, 0) starts the second slice, to the right of the first.
  CHECK(g.cells[4].rect.x0 > g.cells[3].rect.x1);
  CHECK(g.cells[4].rect.y0 == g.cells[0].rect.y0);
  bool sliceLabel = false;
  for (const MeshLabel& l : g.labels) sliceLabel = sliceLabel || l.text == "pp=1";
  CHECK(sliceLabel);
}

TEST_CASE("tensor blocks: exact boundaries for uneven shards", "[views][tensor]") {
  const DeviceMesh mesh({3});
  // 7 rows on 3 ranks: chunks 3, 3, 1.
  const TensorBlocks tb = tensorBlocks(mesh, meta({7, 4}), spec("S(0)"), 0, 1);
  REQUIRE(tb.error.empty());
  REQUIRE(tb.blocks.size() == 3);
  CHECK(tb.blocks[0].a0 == 0);
  CHECK(tb.blocks[0].a1 == 3);
  CHECK(tb.blocks[2].a0 == 6);
  CHECK(tb.blocks[2].a1 == 7);
  CHECK(tb.blocks[2].frac.y0 == Approx(6.0 / 7.0));
  CHECK(tb.blocks[2].frac.x1 == Approx(1.0));
  CHECK(tb.blocks[2].holders == std::vector<int64_t>{2});
  CHECK(tb.blocks[0].b1 == 4);
  // 2x4 mesh, S(0)S(1) on [16, 128]: 8 blocks, one rank each.
  const TensorBlocks two = tensorBlocks(DeviceMesh({2, 4}), meta({16, 128}), spec("S(0)S(1)"), 0, 1);
  REQUIRE(two.blocks.size() == 8);
  // Row-major over (dimB, dimA): block 3 is dim0 [8, 16) x dim1 [32, 64), held by rank 5 = (1, 1).
  CHECK(two.blocks[3].holders == std::vector<int64_t>{5});
  CHECK(two.blocks[3].a0 == 8);
  CHECK(two.blocks[3].b0 == 32);
  CHECK(two.blocks[3].b1 == 64);
  // RS(1): the replicas over mesh dim 0 share a block.
  const TensorBlocks rep = tensorBlocks(DeviceMesh({2, 4}), meta({16, 128}), spec("RS(1)"), 0, 1);
  REQUIRE(rep.blocks.size() == 4);
  CHECK(rep.blocks[1].holders == std::vector<int64_t>{1, 5});
  CHECK(rankListString({0, 1, 2, 3, 6}) == "r0-3, r6");
  CHECK(rankListString({4}) == "r4");
}

TEST_CASE("edge summary: the values edge shows both local shapes and the all_to_all", "[views][edge]") {
  const Plan plan = test::loadFixture("mini_falcon.plan.json");
  Checker checker;
  const Diagnostics& d = checker.run(plan);
  const int acc = plan.graph.find("acc");
  REQUIRE(acc >= 0);
  CHECK(interestingInput(plan, d, acc) == 1);
  const EdgeSummary e = summarizeEdge(plan, d, acc, 1);
  REQUIRE(e.valid);
  CHECK(e.title == "values -> acc (input 1)");
  CHECK(e.differs);
  CHECK(e.have->toMeshString() == "RS(1)");
  CHECK(e.want->toMeshString() == "RS(0)");
  CHECK(e.haveShapes == "[16, 32, 1, 64]");
  CHECK(e.wantShapes == "[4, 128, 1, 64]");
  REQUIRE(e.redistribute.possible);
  REQUIRE(e.redistribute.steps.size() == 1);
  CHECK(e.redistribute.steps[0].meshDim == 1);
  CHECK(e.redistribute.steps[0].kind == CollectiveKind::AllToAll);
  CHECK(e.existing == nullptr);
  // Input 0 arrives as wanted.
  const EdgeSummary same = summarizeEdge(plan, d, acc, 0);
  CHECK(same.valid);
  CHECK_FALSE(same.differs);
  CHECK_FALSE(summarizeEdge(plan, d, acc, 7).valid);
}

TEST_CASE("focus candidates for a selected edge and a node", "[views][focus]") {
  const Plan plan = test::loadFixture("mini_falcon.plan.json");
  Selection sel;
  sel.selectEdge(plan.graph.find("acc"), 1);
  const auto f = focusCandidates(plan, sel);
  REQUIRE(f.size() == 3);  // arrives, wanted, the node's output
  CHECK(f[0].spec->toMeshString() == "RS(1)");
  CHECK(f[1].spec->toMeshString() == "RS(0)");
  CHECK(f[2].label == "acc output");
  CHECK(localShapeSummary(plan, f[0].meta, *f[0].spec) == "[16, 32, 1, 64]");
  const auto dims = defaultDrawDims(meta({16, 128, 1, 64}), spec("RS(1)"));
  CHECK(dims == std::pair<int, int>{1, 3});
  CHECK(defaultDrawDims(meta({5}), std::nullopt) == std::pair<int, int>{0, -1});
}

TEST_CASE("inspector helpers: placement choices, spec edits, arg text", "[views][inspector]") {
  const auto choices = placementChoices(2, Placement::replicate());
  REQUIRE(choices.size() == 8);  // R, S(0), S(1), five partials
  CHECK(choices[2].shortString() == "S(1)");
  const auto withStrided = placementChoices(2, Placement::strided(0, 2));
  CHECK(withStrided.size() == 9);
  const ShardingSpec s = withPlacement(spec("RS(1)"), 1, Placement::shard(0));
  CHECK(s.toMeshString() == "RS(0)");
  const Plan plan = test::loadFixture("mini_falcon.plan.json");
  const Node& acc = plan.graph.nodes[static_cast<size_t>(plan.graph.find("acc"))];
  CHECK(argToString(acc.args[1], plan.graph) == "values");
  CHECK(argToString(Arg::list({Arg::integer(16), Arg::none(), Arg::boolean(true)}), plan.graph) == "[16, None, True]");
}

TEST_CASE("diagnostics filter", "[views][diagnostics]") {
  const Plan plan = test::loadFixture("mini_falcon.plan.json");
  Diagnostics d;
  Diagnostic a;
  a.severity = Severity::Warning;
  a.kind = DiagKind::UnevenShard;
  a.node = 0;
  a.message = "zeros is uneven";
  Diagnostic b;
  b.severity = Severity::Error;
  b.kind = DiagKind::MissingRedistribute;
  b.node = plan.graph.find("acc");
  b.input = 1;
  b.message = "values arrives as RS(1)";
  Diagnostic c;
  c.severity = Severity::Info;
  c.kind = DiagKind::UncheckedOp;
  c.message = "no rule";
  d.items = {a, b, c};
  DiagnosticsViewState st;
  CHECK(filterDiagnostics(plan, d, st) == std::vector<int>{1, 0});  // errors first; infos hidden by default
  st.showInfos = true;
  CHECK(filterDiagnostics(plan, d, st).size() == 3);
  std::snprintf(st.filter, sizeof(st.filter), "ACC");
  CHECK(filterDiagnostics(plan, d, st) == std::vector<int>{1});
  CHECK(diagnosticCountsText(d) == "1 error, 1 warning, 1 info");
}

TEST_CASE("costs: the missing all_to_all is the costliest edge", "[views][costs]") {
  const Plan plan = test::loadFixture("mini_falcon.plan.json");
  const CostReport r = computeCosts(plan);
  REQUIRE(r.edges.size() == 1);
  CHECK(r.edges[0].node == plan.graph.find("acc"));
  CHECK(r.edges[0].input == 1);
  CHECK(r.edges[0].status == EdgeCost::Status::Missing);
  CHECK(std::string(edgeStatusName(r.edges[0].status)) == "missing");
  CHECK(r.edges[0].bytes > 0);
  CHECK(r.totalBytes == r.edges[0].bytes);
  REQUIRE(r.phases.size() == 1);
  CHECK(r.phases[0].phase == Phase::Backward);
  CHECK(r.phases[0].edges == 1);
}

// In a solver's export every bare edge whose layouts differ is a transition its apply pass inserts: planned. The
// same plan read natively has them missing; an inserted redistribute is inserted either way.
TEST_CASE("costs: a solver export's transitions are planned, not missing", "[views][costs]") {
  Plan plan = test::loadFixture("mini_falcon.plan.json");
  const int acc = plan.graph.find("acc");
  plan.sourceFormat = PlanFormat::AutoparallelJson;
  CostReport r = computeCosts(plan);
  REQUIRE(r.edges.size() == 1);
  CHECK(r.edges[0].status == EdgeCost::Status::Planned);
  CHECK(std::string(edgeStatusName(r.edges[0].status)) == "planned");
  plan.sourceFormat = PlanFormat::AutoparallelPlacements;
  CHECK(computeCosts(plan).edges.at(0).status == EdgeCost::Status::Planned);
  plan.redistributes.push_back(Redistribute{acc, 1, *plan.producerSpec(acc, 1), *plan.consumerSpec(acc, 1)});
  r = computeCosts(plan);
  REQUIRE(r.edges.size() == 1);
  CHECK(r.edges[0].status == EdgeCost::Status::Inserted);
  CHECK(r.edges[0].inserted());
}

TEST_CASE("run plot points map losses into the plot rectangle", "[views][run]") {
  const auto pts = plotPoints({1.0, 2.0, 3.0}, 1.0, 3.0, 0, 0, 100, 50);
  REQUIRE(pts.size() == 3);
  CHECK(pts[0].first == Approx(0));
  CHECK(pts[0].second == Approx(50));  // lowest value at the bottom
  CHECK(pts[1].first == Approx(50));
  CHECK(pts[1].second == Approx(25));
  CHECK(pts[2].second == Approx(0));
  const auto one = plotPoints({5.0}, 4.0, 6.0, 0, 0, 100, 50);
  CHECK(one[0].first == Approx(50));
}

TEST_CASE("AutoSP layout: the tag's dim is sliced whatever the plan says", "[views][focus]") {
  AutoSpTag bare{"input_id", std::nullopt};
  CHECK(autoSpLayout(spec("S(0)"), bare, 2)->toMeshString() == "S(1)");
  AutoSpTag seqFirst{"input_id", 0};
  CHECK(autoSpLayout(spec("S(0)"), seqFirst, 2)->toMeshString() == "S(0)");
  CHECK(autoSpLayout(spec("RS(0)"), bare, 2)->toMeshString() == "RS(1)");
  CHECK_FALSE(autoSpLayout(spec("R"), bare, 2).has_value());
  CHECK_FALSE(autoSpLayout(spec("S(0)"), bare, 1).has_value());  // dim 1 of a 1-D tensor
  // The fixture's tagged input offers the AutoSP layout as a focus candidate.
  const Plan plan = test::loadFixture("mini_falcon.plan.json");
  Selection sel;
  sel.selectNode(plan.graph.find("ids"));
  const auto f = focusCandidates(plan, sel);
  REQUIRE(f.size() == 2);
  CHECK(f[1].label == "ids as AutoSP slices it (dim 0)");
  CHECK(f[1].spec->toMeshString() == "S(0)R");
}

// Hidden benchmark: SHARDSCOPE_BENCH_PLAN=FILE shardscope_views_tests "[.bench]"
TEST_CASE("bench: record passes on a big plan", "[.bench]") {
  const char* path = std::getenv("SHARDSCOPE_BENCH_PLAN");
  if (path == nullptr) return;
  Result<Plan> p = loadPlanFile(path);
  REQUIRE(p.ok());
  const Plan& plan = p.value();
  auto t0 = std::chrono::steady_clock::now();
  const CostReport r = computeCosts(plan);
  auto t1 = std::chrono::steady_clock::now();
  Checker checker;
  const Diagnostics& d = checker.run(plan);
  auto t2 = std::chrono::steady_clock::now();
  DiagnosticsViewState st;
  st.showInfos = true;
  const auto rows = filterDiagnostics(plan, d, st);
  auto t3 = std::chrono::steady_clock::now();
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  WARN("nodes " << plan.graph.size() << ", edges with comm " << r.edges.size() << ": computeCosts " << ms(t0, t1)
       << " ms, check " << ms(t1, t2) << " ms, filter " << rows.size() << " diags " << ms(t2, t3) << " ms");
}

TEST_CASE("mesh grid: a 16x16 mesh fits its area with small cells", "[views][mesh]") {
  const DeviceMesh mesh({16, 16}, {"dp", "tp"});
  MeshGridOptions o;
  o.width = 450;
  o.height = 330;
  o.minCellW = 14;
  o.minCellH = 12;
  const MeshGridLayout g = layoutMeshGrid(mesh, meta({8, 2048, 4096}), spec("S(0)R"), o);
  REQUIRE(g.cells.size() == 256);
  CHECK(g.width <= 450.5f);
  CHECK(g.height <= 330.5f);
  // 8 rows over 16 ranks of dp: dp = 8..15 hold nothing.
  CHECK(g.cells[16 * 7].shard.localShape == std::vector<int64_t>{1, 2048, 4096});
  CHECK(g.cells[16 * 8].shard.empty);
}
