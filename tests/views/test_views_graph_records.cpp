// The record pass of the graph view, on layouts built from plain LayoutInputs (no plan, no ImGui).
#include <catch2/catch.hpp>

#include <set>

#include "views/model/graph_records.h"

using namespace ss;
using namespace ss::views;

namespace {

// `columns` independent chains of `depth` nodes, every chain's head also feeding its tail (a long edge).
LayoutInput grid(int columns, int depth) {
  LayoutInput in;
  in.nodeCount = columns * depth;
  for (int c = 0; c < columns; ++c) {
    const int base = c * depth;
    for (int k = 1; k < depth; ++k) in.edges.push_back({base + k - 1, base + k, 0});
    if (depth > 6) in.edges.push_back({base, base + depth - 1, 1});
  }
  return in;
}

GraphModel modelOf(const LayoutInput& in) {
  auto layout = layoutGraph(in);
  REQUIRE(layout);
  return modelForLayout(std::move(*layout));
}

Canvas canvasOver(const GraphModel& m, double zoom) {
  Canvas c;
  c.origin = {10, 20};
  c.size = {1000, 800};
  c.zoom = zoom;
  c.offset = m.layout.bounds.min;
  return c;
}

}  // namespace

TEST_CASE("graph records: zoomed in, nodes land exactly where the canvas puts them", "[graph_records]") {
  GraphModel m = modelOf(grid(1, 4));
  Canvas c = canvasOver(m, 1.0);
  GraphRecords r;
  RecordOptions o;
  o.selectedNode = 2;
  buildGraphRecords(m, c, o, r);
  CHECK_FALSE(r.merged);
  REQUIRE(r.nodes.size() == 4);
  for (const auto& rec : r.nodes) {
    const Rectd s = c.rectToScreen(m.layout.nodeRect(rec.node));
    CHECK(rec.x0 == Approx(s.min.x));
    CHECK(rec.y1 == Approx(s.max.y));
    CHECK(rec.detail == NodeDetail::Full);  // 40 px tall at zoom 1
    CHECK(rec.selected == (rec.node == 2));
  }
  REQUIRE(r.edges.size() == 3);
  CHECK(r.edges[0].ay == Approx(r.nodes[0].y1));  // leaves the producer's bottom
  CHECK(r.stubs.empty());
}

TEST_CASE("graph records: only the visible rectangle is visited", "[graph_records]") {
  GraphModel m = modelOf(grid(1, 100));
  Canvas c = canvasOver(m, 1.0);
  c.size = {400, 150};  // two layers of 80 world units fit (layer pitch 80, node height 40)
  GraphRecords r;
  buildGraphRecords(m, c, {}, r);
  REQUIRE(r.nodes.size() == 2);
  CHECK(r.nodes[0].node == 0);
  CHECK(r.nodes[1].node == 1);
  CHECK(r.nodesVisited == 2);
  // The long edge 0 -> 99 shows only its source stub; its target is far below.
  REQUIRE(r.stubs.size() == 1);
  CHECK(r.stubs[0].atSource);
  CHECK(m.layout.edges[r.stubs[0].edge].dst == 99);
}

TEST_CASE("graph records: far out, sub-pixel nodes merge into cells and problems stay marked", "[graph_records]") {
  const int columns = 50, depth = 200;
  LayoutInput in = grid(columns, depth);
  in.width.assign(in.nodeCount, 40.f);
  GraphModel m = modelOf(in);
  m.severity[7 * depth + 100] = 3;
  m.problemNodes = {7 * depth + 100};
  Canvas c;
  c.size = {1000, 800};
  c.fit(m.layout.bounds, 0);
  REQUIRE(m.layout.nodeHeight * c.zoom < 3.0);
  GraphRecords r;
  RecordOptions o;
  buildGraphRecords(m, c, o, r);
  CHECK(r.merged);
  CHECK(r.nodes.empty());
  CHECK(r.plainEdgesSkipped);
  CHECK(r.edges.empty());
  CHECK(r.nodesVisited == columns * depth);
  // Every node is counted in exactly one cell run (they are narrower than a cell here).
  REQUIRE(m.layout.maxNodeWidth * c.zoom < o.cellPx);
  long counted = 0;
  bool errorCell = false;
  for (const auto& cell : r.cells) { counted += cell.count; errorCell = errorCell || cell.severity == 3; }
  CHECK(counted == columns * depth);
  CHECK(errorCell);
  CHECK(r.cells.size() < static_cast<size_t>(columns * depth) / 4);  // merged: far fewer rectangles than nodes
  REQUIRE(r.markers.size() == 1);
  CHECK(r.markers[0].node == 7 * depth + 100);
  CHECK(r.markers[0].severity == 3);
}

TEST_CASE("graph records: redistribute edges get badges, filters and collapsed blocks hide", "[graph_records]") {
  LayoutInput in = grid(2, 5);
  in.block.assign(in.nodeCount, -1);
  in.blockNames = {"layers.0 (forward)"};
  in.blockFamily = {0};
  for (int k = 5; k < 10; ++k) in.block[k] = 0;  // the second chain is a block
  GraphModel m = modelOf(in);
  const int e12 = m.findEdge(2, 0);
  REQUIRE(e12 >= 0);
  CHECK(m.layout.edges[e12].src == 1);
  m.edgeKind[e12] = EdgeKind::NeedsRedistribute;
  m.badge[e12] = "all_to_all";
  Canvas c = canvasOver(m, 1.0);
  GraphRecords r;
  buildGraphRecords(m, c, {}, r);
  REQUIRE(r.badges.size() == 1);
  CHECK(r.badges[0].edge == e12);
  CHECK(r.badges[0].kind == EdgeKind::NeedsRedistribute);
  const double midY = (m.layout.nodeRect(1).max.y + m.layout.nodeRect(2).min.y) * 0.5;
  CHECK(r.badges[0].y == Approx(c.toScreen({0, midY}).y));
  REQUIRE(r.blocks.size() == 1);
  CHECK_FALSE(r.blocks[0].collapsed);
  CHECK(r.nodes.size() == 10);

  m.visible[3] = 0;
  m.collapsed[0] = 1;
  buildGraphRecords(m, c, {}, r);
  CHECK(r.nodes.size() == 4);  // chain 0 without node 3; the block's 5 nodes are inside the collapsed box
  REQUIRE(r.blocks.size() == 1);
  CHECK(r.blocks[0].collapsed);
  for (const auto& e : r.edges) {
    CHECK(m.layout.edges[e.edge].src != 3);
    CHECK(m.layout.edges[e.edge].dst != 3);
    CHECK(m.layout.edges[e.edge].src < 5);  // edges inside the collapsed block are gone
  }
  CHECK(r.edges.size() == 2);  // 0->1, 1->2 (2->3 and 3->4 hidden)
}

TEST_CASE("graph records: too many plain edges are dropped, special ones kept", "[graph_records]") {
  GraphModel m = modelOf(grid(3, 4));
  m.edgeKind[0] = EdgeKind::Redistribute;
  Canvas c = canvasOver(m, 1.0);
  RecordOptions o;
  o.maxPlainEdges = 2;
  GraphRecords r;
  buildGraphRecords(m, c, o, r);
  CHECK(r.plainEdgesSkipped);
  REQUIRE(r.edges.size() == 1);
  CHECK(r.edges[0].edge == 0);
}

TEST_CASE("graph records: entry points spread over the consumer's top by input index", "[graph_records]") {
  LayoutInput in;
  in.nodeCount = 3;
  in.edges = {{1, 2, 1}, {0, 2, 0}};
  GraphModel m = modelOf(in);
  CHECK(m.entryFraction[m.findEdge(2, 0)] == Approx(1.0 / 3));
  CHECK(m.entryFraction[m.findEdge(2, 1)] == Approx(2.0 / 3));
  CHECK(m.findEdge(2, 5) == -1);
  CHECK(m.findEdge(7, 0) == -1);
}

TEST_CASE("graph records: a partial view finds exactly the edges a full scan would", "[graph_records]") {
  // A random DAG with short and long edges; views over several layer windows.
  LayoutInput in;
  in.nodeCount = 1500;
  uint32_t seed = 12345;
  auto next = [&] { seed = seed * 1664525u + 1013904223u; return seed >> 8; };
  for (int v = 1; v < in.nodeCount; ++v)
    for (int k = 0, fan = 1 + static_cast<int>(next() % 3); k < fan; ++k) {
      const int span = 1 + static_cast<int>(next() % (next() % 5 == 0 ? 400 : 6));
      in.edges.push_back({std::max(0, v - span), v, k});
    }
  GraphModel m = modelOf(in);
  const auto& L = m.layout;
  for (double top : {0.0, 0.25, 0.5, 0.9}) {
    Canvas c;
    c.size = {1200, 700};
    c.zoom = 0.5;
    c.offset = {L.bounds.min.x, L.bounds.min.y + top * L.bounds.height()};
    GraphRecords r;
    RecordOptions o;
    o.maxPlainEdges = 1u << 30;
    buildGraphRecords(m, c, o, r);
    REQUIRE_FALSE(r.merged);
    std::set<int> got;
    for (const auto& e : r.edges) got.insert(e.edge);
    for (const auto& s : r.stubs) got.insert(s.edge);
    // Brute force with the contract's criteria.
    const Rectd vis = c.visibleWorld();
    const Rectd visStub = vis.expanded(o.stubPx / c.zoom);
    std::set<int> want;
    for (size_t e = 0; e < L.edges.size(); ++e) {
      const auto& ed = L.edges[e];
      const Vec2d a{L.x[ed.src] + L.w[ed.src] * 0.5, L.y[ed.src] + L.h[ed.src]};
      const Vec2d b{L.x[ed.dst] + L.w[ed.dst] * m.entryFraction[e], L.y[ed.dst]};
      const bool shows = L.longEdge[e] ? (visStub.contains(a) || visStub.contains(b))
                                       : Rectd{{std::min(a.x, b.x), a.y}, {std::max(a.x, b.x), b.y}}.overlaps(vis);
      if (shows) want.insert(static_cast<int>(e));
    }
    INFO("view from " << top);
    CHECK(got == want);
    CHECK_FALSE(want.empty());
  }
}

TEST_CASE("graph records: far out, whole blocks are one rectangle each; filtered blocks fall back", "[graph_records]") {
  // 40 chains of 300 nodes, each chain a block.
  const int chains = 40, depth = 300;
  LayoutInput in = grid(chains, depth);
  in.width.assign(in.nodeCount, 20.f);
  in.block.assign(in.nodeCount, -1);
  for (int c = 0; c < chains; ++c) {
    in.blockNames.push_back("layers." + std::to_string(c) + " (forward)");
    in.blockFamily.push_back(0);
    for (int k = 0; k < depth; ++k) in.block[c * depth + k] = c;
  }
  GraphModel m = modelOf(in);
  for (int v = 0; v < in.nodeCount; ++v) m.colour[v] = static_cast<int16_t>(v % depth < 180 ? 2 : 5);
  for (size_t b = 0; b < m.blockColour.size(); ++b) m.blockColour[b] = 2;  // as refreshGraphModel would find
  Canvas c;
  c.size = {1000, 800};
  c.fit(m.layout.bounds, 0);
  REQUIRE(m.layout.nodeHeight * c.zoom < 3.0);
  GraphRecords r;
  buildGraphRecords(m, c, {}, r);
  REQUIRE(r.merged);
  REQUIRE(r.cells.size() == static_cast<size_t>(chains));
  for (const auto& cell : r.cells) {
    CHECK(cell.count == depth);
    CHECK(cell.colour == 2);
  }
  CHECK(r.nodesVisited == chains * depth);

  // Hide one node of block 3: its other nodes go through the cell grid, the rest stay summaries.
  m.visible[3 * depth + 50] = 0;
  m.blockWhole[3] = 0;
  buildGraphRecords(m, c, {}, r);
  long counted = 0;
  int summaries = 0;
  for (const auto& cell : r.cells) {
    counted += cell.count;
    summaries += cell.count == depth;
  }
  CHECK(summaries == chains - 1);
  CHECK(counted == chains * depth - 1);
}
