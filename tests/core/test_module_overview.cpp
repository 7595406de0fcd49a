// The module-hierarchy overview (core/draw/module_overview.h) on the LLaMA generator's graphs: the levels' boxes,
// the compact layout of the same nodes and edges, graph inputs drawn inside the box of their consumers, and the
// level Fit picks for a view.
#include <catch2/catch.hpp>

#include <set>

#include "core/draw/module_overview.h"
#include "core/gen/llama.h"

using namespace ss;

namespace {

Plan llama(int layers) { return gen::makeLlamaPlan(gen::LlamaOptions::small(layers, 2)); }

int collapsedBoxes(const GraphLayout& L) {
  int k = 0;
  for (const LayoutBlock& b : L.blocks) k += b.collapsed;
  return k;
}

}  // namespace

TEST_CASE("module overview: the levels of a 4-layer model", "[layout][overview]") {
  const Plan plan = llama(4);
  const LayoutInput in = layoutInputFromPlan(plan);
  REQUIRE(hasModuleBlocks(in));
  // Instances per phase: layers.0..3 forward and backward; families: layers.* forward and backward.
  REQUIRE(in.familyNames == std::vector<std::string>{"layers.* (forward)", "layers.* (backward)"});
  CHECK(in.blockNames.size() == 8);

  const ModuleExpansion families = expansionAt(in, OverviewLevel::Families);
  const ModuleExpansion blocks = expansionAt(in, OverviewLevel::Blocks);
  const ModuleExpansion nodes = expansionAt(in, OverviewLevel::Nodes);
  CHECK(families.openFamilies.empty());
  CHECK(blocks.openFamilies == std::set<int>{0, 1});
  CHECK(blocks.openBlocks.empty());
  CHECK(nodes.openBlocks.size() == 8);

  const OverviewUnits fu = overviewUnits(in, families), bu = overviewUnits(in, blocks), nu = overviewUnits(in, nodes);
  CHECK(nu.count() == plan.graph.size());
  CHECK(fu.count() < bu.count());
  CHECK(bu.count() < nu.count());
  // Every node is in exactly one unit; the family level has two boxes.
  int boxes = 0;
  for (int b : fu.box) boxes += b >= 0;
  CHECK(boxes == 2);
  boxes = 0;
  for (int b : bu.box) boxes += b >= 0;
  CHECK(boxes == 8);
  CHECK(overviewDepth(in, families) < overviewDepth(in, blocks));
  CHECK(overviewDepth(in, blocks) < overviewDepth(in, nodes));
}

TEST_CASE("module overview: a collapsed box is one rectangle holding its nodes and their weights", "[layout][overview]") {
  const Plan plan = llama(4);
  const LayoutInput in = layoutInputFromPlan(plan);
  const auto L = layoutOverview(in, expansionAt(in, OverviewLevel::Blocks));
  REQUIRE(L);
  // The same nodes and edges as the plain layout (views keep their node and edge indexes).
  const auto plain = layoutGraph(in);
  REQUIRE(plain);
  CHECK(L->nodeCount() == plan.graph.size());
  CHECK(L->edges.size() == plain->edges.size());
  REQUIRE(collapsedBoxes(*L) == 8);
  CHECK(L->bounds.height() < plain->bounds.height() / 4);

  int wq = -1;  // a weight (placeholder) only layers.1 reads
  for (int v = 0; v < plan.graph.size(); ++v)
    if (plan.graph.nodes[v].kind == NodeKind::Placeholder && plan.graph.nodes[v].modulePath == "layers.1.attention.wq") wq = v;
  REQUIRE(wq >= 0);
  for (size_t b = 0; b < L->blocks.size(); ++b) {
    const LayoutBlock& blk = L->blocks[b];
    if (!blk.collapsed) continue;
    CHECK(blk.instances == 1);
    CHECK(blk.sourceBlock >= 0);
    CHECK(blk.firstLayer == blk.lastLayer);
    int members = 0;
    for (int v = 0; v < L->nodeCount(); ++v) {
      if (L->blockOf[static_cast<size_t>(v)] != static_cast<int>(b)) continue;
      ++members;
      CHECK(L->nodeRect(v).min.x == blk.bounds.min.x);
      CHECK(L->nodeRect(v).min.y == blk.bounds.min.y);
      CHECK(L->nodeRect(v).max.x == blk.bounds.max.x);
    }
    CHECK(members == blk.nodeCount);
  }
  {
    const int box = L->blockOf[static_cast<size_t>(wq)];
    REQUIRE(box >= 0);
    CHECK(L->blocks[static_cast<size_t>(box)].collapsed);
    CHECK(L->blocks[static_cast<size_t>(box)].name.rfind("layers.1 (", 0) == 0);
  }
  // Spatial index: every node in its layer's slice, sorted by x.
  for (int l = 0; l < L->layerCount(); ++l)
    for (int k = L->layerStart[static_cast<size_t>(l)]; k + 1 < L->layerStart[static_cast<size_t>(l) + 1]; ++k)
      CHECK(L->x[static_cast<size_t>(L->byLayer[static_cast<size_t>(k)])] <= L->x[static_cast<size_t>(L->byLayer[static_cast<size_t>(k) + 1])]);

  // The family level: one box per phase holding its 4 blocks.
  const auto F = layoutOverview(in, expansionAt(in, OverviewLevel::Families));
  REQUIRE(F);
  REQUIRE(collapsedBoxes(*F) == 2);
  for (const LayoutBlock& blk : F->blocks)
    if (blk.collapsed) {
      CHECK(blk.instances == 4);
      CHECK(blk.sourceBlock == -1);
    }
  CHECK(F->blocks[0].name == "layers.* (forward)");
  // Deterministic.
  const auto again = layoutOverview(in, expansionAt(in, OverviewLevel::Blocks));
  CHECK(again->x == L->x);
  CHECK(again->y == L->y);
}

TEST_CASE("module overview: one block opened among collapsed ones", "[layout][overview]") {
  const Plan plan = llama(4);
  const LayoutInput in = layoutInputFromPlan(plan);
  ModuleExpansion x = expansionAt(in, OverviewLevel::Blocks);
  x.openBlocks.insert(2);  // layers.2 (forward)
  REQUIRE(in.blockNames[2] == "layers.2 (forward)");
  const auto L = layoutOverview(in, x);
  REQUIRE(L);
  CHECK(collapsedBoxes(*L) == 7);
  // Its nodes have rectangles of their own.
  std::set<std::pair<float, float>> corners;
  int members = 0;
  for (int v = 0; v < L->nodeCount(); ++v)
    if (in.block[static_cast<size_t>(v)] == 2) {
      ++members;
      corners.insert({L->x[static_cast<size_t>(v)], L->y[static_cast<size_t>(v)]});
    }
  CHECK(members > 50);
  CHECK(static_cast<int>(corners.size()) == members);
}

TEST_CASE("module overview: Fit's level is the deepest whose rows are readable in the view", "[layout][overview]") {
  const Plan plan = llama(4);
  const LayoutInput in = layoutInputFromPlan(plan);
  const LayoutOptions opts;
  const double rowPx = 34;  // 11 px labels: 40-unit nodes at zoom 11/13
  const int nodesDepth = overviewDepth(in, expansionAt(in, OverviewLevel::Nodes));
  const int blocksDepth = overviewDepth(in, expansionAt(in, OverviewLevel::Blocks));
  const double perRow = (opts.nodeHeight + opts.layerGap) * rowPx / opts.nodeHeight;
  CHECK(chooseOverviewLevel(in, 1e6, nodesDepth * perRow + 1, rowPx) == OverviewLevel::Nodes);
  CHECK(chooseOverviewLevel(in, 1e6, nodesDepth * perRow - perRow, rowPx) == OverviewLevel::Blocks);
  CHECK(chooseOverviewLevel(in, 1e6, blocksDepth * perRow - perRow, rowPx) == OverviewLevel::Families);
  CHECK(chooseOverviewLevel(in, 1e6, 10, rowPx) == OverviewLevel::Families);
  // A graph without module paths is its nodes.
  Plan flat = plan;
  for (Node& n : flat.graph.nodes) n.modulePath.clear();
  CHECK(chooseOverviewLevel(layoutInputFromPlan(flat), 10, 10, rowPx) == OverviewLevel::Nodes);
}
