// PlanBuilder and the one rulebook (Plan::validate): a plan that parses but is wrong opens, each wrong thing an
// error diagnostic at its node and input; what cannot be understood is refused at its place. Every file here is
// read by both the fast reader and the DOM reader, which must agree.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "plan_builder_cases.h"
#include "core/check/check.h"
#include "core/plan/fix.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"
#include "core/model/plan_builder.h"

using namespace ss;
using nlohmann::json;

using ss::test::loadBoth;
using ss::test::nativeWithSpec;


TEST_CASE("wrong placement counts, tags, loss nodes and doubled redistributes are findings", "[builder]") {
  SECTION("two placements on a 1-D mesh") {
    Plan p = loadBoth(nativeWithSpec("RS(0)"), false);
    const auto v = p.validate();
    REQUIRE(v.size() == 1);
    CHECK(v[0].kind == DiagKind::InvalidSpec);
    CHECK(v[0].node == 0);
    CHECK(v[0].message == "output spec RS(0): the spec RS(0) has 2 placements but the mesh has 1 dims");
  }
  SECTION("an unknown loss node") {
    Plan p = loadBoth(nativeWithSpec("S(0)", R"J( "run": {"loss": "nope"},)J"), false);
    const auto v = p.validate();
    REQUIRE(v.size() == 1);
    CHECK(v[0].kind == DiagKind::UnknownLossNode);
    CHECK(v[0].node == -1);
    CHECK(v[0].message == "the loss node 'nope' is not in the graph");
    CHECK(checkPlan(p).hasErrors());
  }
  SECTION("a tag on a dim the tensor lacks, and a tag off a placeholder") {
    std::string text = nativeWithSpec("S(0)");
    text.replace(text.find("\"spec\": [\"S(0)\"]},"), std::string("\"spec\": [\"S(0)\"]},").size(),
                 "\"spec\": [\"S(0)\"], \"tag\": {\"key\": \"input_id\", \"seq_dim\": 5}},");
    Plan p = loadBoth(text, false);
    auto v = p.validate();
    REQUIRE(v.size() == 1);
    CHECK(v[0].kind == DiagKind::InvalidTag);
    CHECK(v[0].node == 0);
    CHECK(v[0].message == "the AutoSP tag (input_id, 5) names dim 5 of a tensor with 2 dims");
    p.tags[1] = AutoSpTag{"label_id", std::nullopt};
    v = p.validate();
    REQUIRE(v.size() == 2);
    CHECK(v[1].kind == DiagKind::InvalidTag);
    CHECK(v[1].message == "the AutoSP tag label_id sits on relu, which is not a placeholder");
  }
  SECTION("two redistributes on one edge") {
    Plan p = loadBoth(nativeWithSpec("S(0)", R"J( "redistributes": [{"node": "relu", "input": 0, "from": "S(0)", "to": "R"},
      {"node": "relu", "input": 0, "from": "R", "to": "S(0)"}],)J"),
                      false);
    REQUIRE(p.redistributes.size() == 2);
    const auto v = p.validate();
    REQUIRE(v.size() == 1);
    CHECK(v[0].kind == DiagKind::BadRedistribute);
    CHECK(v[0].node == 1);
    CHECK(v[0].input == 0);
    CHECK(v[0].message == "two redistributes on input 0 of 'relu' (one edge takes one)");
  }
}

TEST_CASE("PlanBuilder: negative shard dims resolve against the rank; names and edges are refused", "[builder]") {
  PlanBuilder b(PlanFormat::Native);
  REQUIRE(b.setMesh({2, 2}, {}, Where("mesh")));
  int x = -1;
  Node& n = b.beginNode(&x);
  n.name = "x";
  n.op = "placeholder";
  n.kind = PlanBuilder::kindOfOp(n.op);
  n.outputs = {TensorMeta{{4, 6, 8}, DType::F32, true}};
  REQUIRE(b.endNode(Where("nodes", 0)));
  CHECK(x == 0);
  Node& dup = b.beginNode();
  dup.name = "x";
  dup.op = "placeholder";
  auto refused = b.endNode(Where("nodes", 1));
  REQUIRE(!refused);
  CHECK(refused.error().toString() == "/nodes/1/name: node name 'x' is used twice");
  b.plan().graph.nodes.pop_back();
  auto s = b.parseSpec("S(-1)S(-3)", Where("nodes", 0)("spec", 0));
  REQUIRE(s);
  CHECK(b.parseSpec("S(-1)S(-3)", Where{}).value() == *s);  // parsed once
  b.setOutputSpec(0, 0, **s);
  auto bad = b.parseSpec("S(", Where("nodes", 0)("spec", 0));
  REQUIRE(!bad);
  CHECK(bad.error().pointer == "/nodes/0/spec/0");
  REQUIRE(b.finishGraph());
  auto edge = b.addRedistribute(0, 0, ShardingSpec{}, ShardingSpec{}, Where("redistributes", 0));
  REQUIRE(!edge);
  CHECK(edge.error().toString() == "/redistributes/0/input: 'x' has 0 tensor inputs");
  auto p = b.finish();
  REQUIRE(p);
  CHECK(p->specs[0].outputs[0]->toMeshString() == "S(2)S(0)");
  CHECK(p->validate().empty());
}

TEST_CASE("Where formats JSON pointers and text places only when asked", "[builder]") {
  CHECK(Where("nodes", 3)("inputs", 1)("dst_placement").pointer() == "/nodes/3/inputs/1/dst_placement");
  CHECK(Where("placements")("a/b~c")("output").pointer() == "/placements/a~1b~0c/output");
  CHECK(Where("mesh")("shape").item(2).pointer() == "/mesh/shape/2");
  CHECK(Where::at(4, 7).error("bad").toString("f.py") == "f.py:4:7: bad");
}

TEST_CASE("Graph: names indexed node by node answer as reindex does; the first duplicate is the one reported", "[builder]") {
  // 40 nodes appended without reserving (the index grows and catches up), each using the one before it.
  Graph g;
  for (int i = 0; i < 40; ++i) {
    Node n;
    n.name = "n" + std::to_string(i);
    n.op = i == 0 ? "placeholder" : "aten.relu.default";
    n.kind = PlanBuilder::kindOfOp(n.op);
    n.outputs = {TensorMeta{{4}, DType::F32, true}};
    if (i > 0) n.args = {Arg::tensor({i - 1, 0})};
    g.nodes.push_back(std::move(n));
    CHECK(g.indexNext() == -1);
    CHECK(g.find("n" + std::to_string(i)) == i);
    CHECK(g.indexed());
  }
  Node out;  // reads n5 twice, inside a list: users (out, 0) and (out, 2)
  out.name = "out";
  out.op = "output";
  out.kind = NodeKind::Output;
  out.args = {Arg::list({Arg::tensor({5, 0}), Arg::tensor({10, 0}), Arg::tensor({5, 0})})};
  g.nodes.push_back(std::move(out));
  CHECK(g.indexNext() == -1);
  CHECK(g.outputNode() == 40);
  CHECK(g.users(5) == std::vector<std::pair<int, int>>{{6, 0}, {40, 0}, {40, 2}});
  Graph full = g;
  full.reindex();
  CHECK(full.outputNode() == 40);
  for (int i = 0; i < g.size(); ++i) {
    CHECK(g.find(g.nodes[i].name) == i);
    CHECK(g.inputs(i) == full.inputs(i));
    CHECK(g.users(i) == full.users(i));
  }
  CHECK(g.find("n40") == -1);
  CHECK(g.validate().empty());

  // Two later nodes reuse earlier names: indexNext names the earlier node, validate the first reuse.
  for (const char* name : {"n3", "n7"}) {
    Node n;
    n.name = name;
    n.op = "aten.relu.default";
    n.outputs = {TensorMeta{{4}, DType::F32, true}};
    g.nodes.push_back(std::move(n));
  }
  CHECK(!g.indexed());
  Graph unindexed = g;  // the same nodes, its index not current: validate walks them itself
  CHECK(g.indexNext() == 7);  // catches up with the "n3" node appended without it, then "n7"
  CHECK(g.indexed());
  CHECK(g.find("n3") == 3);
  CHECK(g.validate() == "node name 'n3' is used twice");
  CHECK(unindexed.validate() == "node name 'n3' is used twice");
  full = g;
  full.reindex();
  CHECK(full.validate() == "node name 'n3' is used twice");
}

TEST_CASE("EdgeCostTable: sorted by edge whatever the order costs come in; lookups find exactly their edge", "[builder]") {
  EdgeCostTable t;
  t[{3, 1}] = {1.0, 2.0};
  t[{1, 0}] = {3.0, 4.0};  // before the last: inserted in place
  t[{3, 0}] = {5.0, 6.0};
  t[{3, 1}].first = 7.0;   // an edge given twice: the later value
  std::vector<std::pair<int, int>> keys;
  for (const auto& [key, v] : t) keys.push_back(key);
  CHECK(keys == std::vector<std::pair<int, int>>{{1, 0}, {3, 0}, {3, 1}});
  CHECK(t.at({3, 1}) == std::pair{7.0, 2.0});
  CHECK(t.find({2, 0}) == t.end());
  CHECK_THROWS_AS(t.at({0, 0}), std::out_of_range);
  EdgeCostTable u;
  u[{1, 0}] = {3.0, 4.0};
  u[{3, 0}] = {5.0, 6.0};
  u[{3, 1}] = {7.0, 2.0};
  CHECK(u == t);
  u.clear();
  CHECK(u.empty());
}
