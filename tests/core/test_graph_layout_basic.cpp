#include <catch2/catch.hpp>

#include <chrono>
#include <random>
#include <thread>

#include "core/draw/graph_layout.h"

using namespace ss;

namespace {

LayoutInput chainInput(int n) {
  LayoutInput in;
  in.nodeCount = n;
  for (int i = 1; i < n; ++i) in.edges.push_back({i - 1, i, 0});
  return in;
}

float centre(const GraphLayout& g, int v) { return g.x[v] + g.w[v] * 0.5f; }

// Within every layer, nodes sorted by x keep at least `gap` between them (nothing overlaps).
void requireNoOverlap(const GraphLayout& g, float gap) {
  for (int l = 0; l < g.layerCount(); ++l) {
    for (int i = g.layerStart[l]; i + 1 < g.layerStart[l + 1]; ++i) {
      const int a = g.byLayer[i], b = g.byLayer[i + 1];
      INFO("layer " << l << " nodes " << a << " and " << b);
      REQUIRE(g.x[a] + g.w[a] + gap <= g.x[b] + 1e-3f);
    }
  }
}

// `blocks` identical blocks of 5 nodes (in -> a -> {b, c} -> d), chained d -> next in, plus one parameter per
// block feeding `b`.
LayoutInput repeatedBlocks(int blocks) {
  LayoutInput in;
  const int per = 6;
  in.nodeCount = blocks * per + 1;
  in.label.assign(in.nodeCount, 0);
  in.block.assign(in.nodeCount, -1);
  in.edges.clear();
  for (int b = 0; b < blocks; ++b) {
    const int base = b * per;
    const int param = base, x = base + 1, a = base + 2, pb = base + 3, c = base + 4, d = base + 5;
    if (b > 0) in.edges.push_back({base - 1, x, 0});
    in.edges.push_back({x, a, 0});
    in.edges.push_back({a, pb, 0});
    in.edges.push_back({param, pb, 1});
    in.edges.push_back({a, c, 0});
    in.edges.push_back({pb, d, 0});
    in.edges.push_back({c, d, 1});
    for (int k = 0; k < per; ++k) in.label[base + k] = 10 + k;
    for (int k = 1; k < per; ++k) in.block[base + k] = b;
    in.blockNames.push_back("layers." + std::to_string(b) + " (forward)");
    in.blockFamily.push_back(0);
  }
  in.edges.push_back({blocks * per - 1, blocks * per, 0});  // the output
  return in;
}

}  // namespace

TEST_CASE("graph layout: a chain is one node per layer, aligned", "[graph_layout]") {
  auto g = layoutGraph(chainInput(4));
  REQUIRE(g);
  CHECK(g->layer == std::vector<int>{0, 1, 2, 3});
  CHECK(g->layerCount() == 4);
  for (int v = 1; v < 4; ++v) CHECK(centre(*g, v) == Approx(centre(*g, 0)));
  LayoutOptions o;
  CHECK(g->y[2] == Approx(2 * (o.nodeHeight + o.layerGap)));
  CHECK(g->bounds.height() == Approx(3 * (o.nodeHeight + o.layerGap) + o.nodeHeight));
}

TEST_CASE("graph layout: a diamond is symmetric and separated", "[graph_layout]") {
  LayoutInput in;
  in.nodeCount = 4;
  in.edges = {{0, 1, 0}, {0, 2, 0}, {1, 3, 0}, {2, 3, 1}};
  LayoutOptions o;
  auto g = layoutGraph(in, o);
  REQUIRE(g);
  CHECK(g->layer == std::vector<int>{0, 1, 1, 2});
  CHECK(g->x[2] - (g->x[1] + g->w[1]) == Approx(o.nodeGap));
  CHECK((centre(*g, 1) + centre(*g, 2)) * 0.5f == Approx(centre(*g, 0)));
  CHECK(centre(*g, 3) == Approx(centre(*g, 0)));
}

TEST_CASE("graph layout: parameters sit just above their first consumer", "[graph_layout]") {
  // 0 -> 1 -> 2 -> 3 -> 4 (chain); 5 = param, 6 = t(param) feeding 4 and, later, 7.
  LayoutInput in;
  in.nodeCount = 8;
  in.edges = {{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {3, 4, 0}, {5, 6, 0}, {6, 7, 0}, {4, 7, 1}};
  // 5 and 6 come after 4 in topological order here; a real graph lists placeholders first: both are fine.
  in.edges.push_back({6, 7, 2});
  in.nodeCount = 9;
  in.edges.push_back({7, 8, 0});  // the output
  auto g = layoutGraph(in);
  REQUIRE(g);
  CHECK(g->layer[8] == 6);
  CHECK(g->layer[7] == 5);
  CHECK(g->layer[6] == 4);  // input-only: pulled down to just above its consumer
  CHECK(g->layer[5] == 3);
}

TEST_CASE("graph layout: dead values do not pull, values read only by the output stay early", "[graph_layout]") {
  // 0 -> 1 -> 2 -> 3 -> 4 (chain); 5 = f(0), 6 = g(5) (a recompute), 7 = dead use of 6, 8 = h(4, 6), 9 = output
  // reading 8 and 2 (a gradient computed early).
  LayoutInput in;
  in.nodeCount = 10;
  in.edges = {{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {3, 4, 0}, {0, 5, 0}, {5, 6, 0}, {6, 7, 0},
              {4, 8, 0}, {6, 8, 1}, {8, 9, 0}, {2, 9, 1}};
  auto g = layoutGraph(in);
  REQUIRE(g);
  CHECK(g->layer == std::vector<int>{0, 1, 2, 3, 4, 3, 4, 5, 5, 6});
}

TEST_CASE("graph layout: long edges are flagged, bad edges dropped", "[graph_layout]") {
  LayoutInput in = chainInput(10);
  in.edges.push_back({1, 9, 1});  // spans 8 layers
  in.edges.push_back({2, 4, 1});  // spans 2
  in.edges.push_back({5, 3, 0});  // backwards: dropped
  in.edges.push_back({3, 42, 0});  // out of range: dropped
  LayoutOptions o;
  o.maxRoutedSpan = 4;
  auto g = layoutGraph(in, o);
  REQUIRE(g);
  CHECK(g->droppedEdges == 2);
  REQUIRE(g->edges.size() == 11);
  CHECK(g->longEdge[9] == 1);
  CHECK(g->longEdge[10] == 0);
  CHECK(g->longEdge[0] == 0);
}

TEST_CASE("graph layout: repeated blocks are laid out once and stamped", "[graph_layout]") {
  const int blocks = 12;
  LayoutInput in = repeatedBlocks(blocks);
  LayoutOptions o;
  auto g = layoutGraph(in, o);
  REQUIRE(g);
  REQUIRE(g->blocks.size() == blocks);
  CHECK(g->templatesLaidOut == 1);
  CHECK(g->stampedBlocks == blocks - 1);
  REQUIRE(g->classes.size() == 1);
  CHECK(g->classes[0].instances == blocks);
  CHECK(g->blocks[0].stamped == false);
  CHECK(g->blocks[5].stamped == true);
  // Every copy has the template's shape: same offsets of each member from the block's first member.
  for (int b = 1; b < blocks; ++b) {
    for (int k = 2; k < 6; ++k) {
      CHECK(g->x[b * 6 + k] - g->x[b * 6 + 1] == Approx(g->x[k] - g->x[1]));
      CHECK(g->layer[b * 6 + k] - g->layer[b * 6 + 1] == g->layer[k] - g->layer[1]);
    }
    CHECK(g->blocks[b].firstLayer == g->blocks[b - 1].lastLayer + 1);
  }
  // The parameters (free nodes) sit beside the spine, not on it.
  requireNoOverlap(*g, o.nodeGap);
  for (int b = 0; b < blocks; ++b) CHECK(g->layer[b * 6] == g->layer[b * 6 + 3] - 1);
}

TEST_CASE("graph layout: a block that differs gets its own class", "[graph_layout]") {
  LayoutInput in = repeatedBlocks(4);
  in.label[3 * 6 + 4] = 99;  // block 3's node c runs another op
  auto g = layoutGraph(in);
  REQUIRE(g);
  CHECK(g->templatesLaidOut == 2);
  CHECK(g->stampedBlocks == 2);
  CHECK(g->blocks[3].cls != g->blocks[0].cls);
}

TEST_CASE("graph layout: a random DAG never overlaps and is deterministic", "[graph_layout]") {
  std::mt19937 rng(7);
  LayoutInput in;
  in.nodeCount = 3000;
  in.block.assign(in.nodeCount, -1);
  for (int b = 0; b < 10; ++b) { in.blockNames.push_back("b" + std::to_string(b)); in.blockFamily.push_back(0); }
  for (int v = 0; v < in.nodeCount; ++v) {
    if (v % 3 != 0) in.block[v] = static_cast<int>(rng() % 10);
    in.width.push_back(static_cast<float>(60 + rng() % 200));
    const int fanIn = v == 0 ? 0 : static_cast<int>(rng() % 4);
    for (int k = 0; k < fanIn; ++k) {
      const int span = 1 + static_cast<int>(rng() % (rng() % 8 == 0 ? 1000 : 20));
      in.edges.push_back({std::max(0, v - span), v, k});
    }
  }
  LayoutOptions o;
  auto g1 = layoutGraph(in, o);
  auto g2 = layoutGraph(in, o);
  REQUIRE(g1);
  REQUIRE(g2);
  CHECK(g1->x == g2->x);
  CHECK(g1->layer == g2->layer);
  requireNoOverlap(*g1, o.nodeGap * 0.99f);
  for (const auto& e : g1->edges) REQUIRE(g1->layer[e.src] < g1->layer[e.dst]);
}

TEST_CASE("graph layout: spatial queries find exactly the nodes in a rectangle", "[graph_layout]") {
  LayoutInput in;
  in.nodeCount = 7;
  in.edges = {{0, 1, 0}, {0, 2, 0}, {0, 3, 0}, {1, 4, 0}, {2, 5, 0}, {3, 6, 0}};
  auto g = layoutGraph(in);
  REQUIRE(g);
  CHECK(g->hitTest({g->x[2] + 1, g->y[2] + 1}) == 2);
  CHECK(g->hitTest({g->x[2] - 1, g->y[2] + 1}) == -1);  // in the gap
  CHECK(g->hitTest({g->x[0] + 2, g->y[0] - 5}) == -1);
  const auto [l0, l1] = g->layersIn(g->y[1] + 1, g->y[1] + 2);
  CHECK(l0 == 1);
  CHECK(l1 == 2);
  const auto [b, e] = g->nodesIn(1, g->x[2] + 1, g->x[3] + 1);
  REQUIRE(e - b == 2);
  CHECK(g->byLayer[b] == 2);
  CHECK(g->byLayer[b + 1] == 3);
}

TEST_CASE("graph layout: cancellation and the worker thread", "[graph_layout]") {
  LayoutProgress cancelled;
  cancelled.cancel = true;
  CHECK_FALSE(layoutGraph(repeatedBlocks(3), {}, &cancelled).has_value());

  LayoutProgress p;
  auto g = layoutGraph(repeatedBlocks(3), {}, &p);
  REQUIRE(g);
  CHECK(p.fraction.load() == 1.0f);

  LayoutWorker worker;
  worker.start(repeatedBlocks(50));
  for (int i = 0; i < 500 && worker.running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  REQUIRE_FALSE(worker.running());
  auto done = worker.take();
  REQUIRE(done);
  CHECK(done->nodeCount() == 50 * 6 + 1);
  CHECK_FALSE(worker.take().has_value());
}

TEST_CASE("graph layout: module paths name repeated blocks", "[graph_layout]") {
  CHECK(moduleBlockOf("model.layers.7.mlp").instance == "model.layers.7");
  CHECK(moduleBlockOf("model.layers.7.mlp").family == "model.layers.*");
  CHECK(moduleBlockOf("layers.12").instance == "layers.12");
  CHECK(moduleBlockOf("3.attn").instance == "3");
  CHECK(moduleBlockOf("3.attn").family == "*");
  CHECK(moduleBlockOf("tok_embeddings").instance.empty());
  CHECK(moduleBlockOf("").instance.empty());
  CHECK(moduleBlockOf("h.x2.1").instance == "h.x2.1");
  CHECK(labelWidth(0) == 72.0f);
  CHECK(labelWidth(20) == 168.0f);  // 7*20+16 = 156 -> 168
  CHECK(labelWidth(1000) == 312.0f);
}
