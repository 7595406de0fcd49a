// The graph records of a run's first divergent node: marked, and every node after it in execution order faded.
#include <catch2/catch.hpp>

#include "views/model/graph_records.h"

using namespace ss;
using namespace ss::views;

namespace {

GraphModel chain(int n) {
  LayoutInput in;
  in.nodeCount = n;
  for (int k = 1; k < n; ++k) in.edges.push_back({k - 1, k, 0});
  auto layout = layoutGraph(in);
  REQUIRE(layout);
  return modelForLayout(std::move(*layout));
}

Canvas canvasOver(const GraphModel& m, double zoom) {
  Canvas c;
  c.origin = {0, 0};
  c.size = {1000, 800};
  c.zoom = zoom;
  c.offset = m.layout.bounds.min;
  return c;
}

}  // namespace

TEST_CASE("graph records: the first divergent node is marked and what runs after it is faded",
          "[graph_records][divergence]") {
  GraphModel m = chain(5);
  GraphRecords r;
  RecordOptions o;
  buildGraphRecords(m, canvasOver(m, 1.0), o, r);
  REQUIRE(r.nodes.size() == 5);
  for (const auto& n : r.nodes) {
    CHECK_FALSE(n.divergent);
    CHECK_FALSE(n.faded);
  }
  o.divergentNode = 2;
  buildGraphRecords(m, canvasOver(m, 1.0), o, r);
  REQUIRE(r.nodes.size() == 5);
  for (const auto& n : r.nodes) {
    CHECK(n.divergent == (n.node == 2));
    CHECK(n.faded == (n.node > 2));
  }
}

TEST_CASE("graph records: far out, the divergent node keeps an error-coloured marker", "[graph_records][divergence]") {
  GraphModel m = chain(2000);
  GraphRecords r;
  RecordOptions o;
  o.divergentNode = 1500;
  Canvas c;
  c.size = {1000, 800};
  c.fit(m.layout.bounds, 0);
  REQUIRE(m.layout.nodeHeight * c.zoom < 3.0);
  buildGraphRecords(m, c, o, r);
  REQUIRE(r.merged);
  int found = 0;
  for (const auto& mk : r.markers)
    if (mk.node == 1500) {
      ++found;
      CHECK(mk.severity == 3);
    }
  CHECK(found == 1);
}
