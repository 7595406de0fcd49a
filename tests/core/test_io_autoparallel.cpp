// autoparallel's get_json() export and its placements file: read, check-relevant facts, write back, errors.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/model/placement_parse.h"
#include "test_data.h"

using namespace ss;
using nlohmann::json;

namespace {
std::string dataPath(const std::string& name) { return test::ioData(name); }
std::string readData(const std::string& name) { return test::readIoData(name); }
json readJson(const std::string& name) { return json::parse(readData(name)); }
ShardingSpec spec(const std::string& s) {
  auto r = parseSpec(s, {});
  REQUIRE(r.ok());
  return *r;
}
int idx(const Plan& p, const std::string& name) {
  int i = p.graph.find(name);
  REQUIRE(i >= 0);
  return i;
}
}  // namespace

TEST_CASE("autoparallel export reads: mesh, specs, edges, costs, clusters, summary", "[io][autoparallel]") {
  std::string text = readData("falcon_mqa_joint.autoparallel.json");
  CHECK(detectFileKind(text) == FileKind::AutoparallelJson);
  auto r = readAutoparallelJson(json::parse(text));
  REQUIRE(r.ok());
  const Plan& p = *r;
  CHECK(p.sourceFormat == PlanFormat::AutoparallelJson);
  CHECK(p.mesh == DeviceMesh({2, 4}, {"dim0", "dim1"}));
  CHECK(p.graph.size() == 27);
  CHECK(p.validate().empty());

  int ip = idx(p, "index_put");
  CHECK(p.graph.inputs(ip).size() == 3);
  CHECK(p.specs[ip].outputs == std::vector<std::optional<ShardingSpec>>{spec("RS(0)")});
  CHECK(p.consumerSpec(ip, 2) == spec("RS(0)"));
  CHECK(p.producerSpec(ip, 2) == spec("RS(1)"));  // the transition the solver counted ...
  CHECK(p.redistributes.empty());                 // ... and nobody inserted
  CHECK(p.edgeCosts.at({ip, 2}) == std::make_pair(0.0, 1.0));
  CHECK(p.graph.nodes[ip].transitionCost == 1.0);
  CHECK(p.graph.nodes[ip].computeCost == 2.5);
  CHECK(p.graph.nodes[ip].phase == Phase::Backward);
  CHECK(p.graph.nodes[ip].outputs[0] == TensorMeta{{16, 128, 73, 64}, DType::BF16, true});

  int mm = idx(p, "mm");
  CHECK(p.graph.nodes[mm].source == SourceLoc{"/home/user/falcon_mqa.py", 21, "forward", "h = self.proj(x).view(B, S, 73, 64)"});
  CHECK(p.graph.nodes[mm].modulePath == "proj");
  CHECK(p.graph.nodes[mm].clusterId == 0);
  CHECK(p.graph.nodes[idx(p, "mm_1")].clusterId == 0);
  CHECK(p.graph.nodes[idx(p, "index")].acRegion == "0:PREFER_RECOMPUTE");
  CHECK(p.edgeCosts.at({idx(p, "mm_1"), 1}) == std::make_pair(52.0, 0.0));
  CHECK(p.specs[idx(p, "mm_1")].outputs[0] == spec("RP(sum)"));
  CHECK(p.graph.nodes[idx(p, "tangents_1")].placeholderKind == PlaceholderKind::Tangent);
  CHECK(p.graph.nodes[idx(p, "primals_2")].placeholderKind == PlaceholderKind::Input);
  CHECK(p.graph.nodes[idx(p, "_tensor_constant0")].op == "get_attr");
  CHECK(p.graph.nodes[idx(p, "convert_element_type")].outputs[0].dtype == DType::F32);
  CHECK(p.summary == CostSummary{961.75, 90.5, 870.25, 1.0});
  const Node& out = p.graph.nodes.back();
  CHECK(out.kind == NodeKind::Output);
  CHECK(p.graph.inputs(p.graph.size() - 1).size() == 2);
  CHECK_FALSE(p.executable());  // the export has no op arguments
}

TEST_CASE("autoparallel export writes back what it read", "[io][autoparallel]") {
  json orig = readJson("falcon_mqa_joint.autoparallel.json");
  auto a = readAutoparallelJson(orig);
  REQUIRE(a.ok());
  json w = writeAutoparallelJson(*a);
  auto b = readAutoparallelJson(w);
  REQUIRE(b.ok());
  CHECK(b->graph == a->graph);
  CHECK(b->specs == a->specs);
  CHECK(b->edgeCosts == a->edgeCosts);
  CHECK(b->summary == a->summary);
  CHECK(b->mesh == a->mesh);
  CHECK(writeAutoparallelJson(*b) == w);
  // Field by field against the real layout for the node the bug is about.
  const json& ip = w["nodes"][16];
  CHECK(ip["name"] == "index_put");
  CHECK(ip["op"] == "aten.index_put.default");
  CHECK(ip["placement"] == "RS(0)");
  CHECK(ip["inputs"][2] == json({{"name", "sum_1"}, {"src_placement", "RS(1)"}, {"dst_placement", "RS(0)"},
                                  {"comm_cost", 0.0}, {"transition_cost", 1.0}}));
  CHECK(w["nodes"][23]["cluster_root"] == "mm");
  CHECK(w["nodes"][11]["ac_region"] == json({{"id", 0}, {"type", "PREFER_RECOMPUTE"}}));
  CHECK(w["nodes"].back() == orig["nodes"].back());  // {"name": "output", "op": "output", "inputs": [{name}...]}
  CHECK(w["mesh"] == orig["mesh"]);
  CHECK(w["summary"] == orig["summary"]);
}

TEST_CASE("autoparallel export errors name the JSON pointer", "[io][autoparallel]") {
  json j = readJson("falcon_mqa_joint.autoparallel.json");
  json bad = j;
  bad["nodes"][3]["placement"] = "S(0)Q";
  auto r = readAutoparallelJson(bad);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().pointer == "/nodes/3/placement");
  CHECK(r.error().message.rfind("\"S(0)Q\": ", 0) == 0);
  bad = j;
  bad["nodes"][4]["inputs"][0]["name"] = "nope";
  r = readAutoparallelJson(bad);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().toString("a.json") == "a.json: /nodes/4/inputs/0/name: unknown node 'nope' (inputs must name nodes listed before)");
  bad = j;
  bad.erase("mesh");
  r = readAutoparallelJson(bad);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "missing required key 'mesh'");
  bad = j;
  bad["nodes"][5]["shape"] = {2048, "s0"};
  r = readAutoparallelJson(bad);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().pointer == "/nodes/5/shape/1");
  bad = j;
  bad["nodes"][2]["name"] = "primals_1";
  r = readAutoparallelJson(bad);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().toString() == "/nodes/2/name: node name 'primals_1' is used twice");
}

TEST_CASE("FX graph + placements file gives the same specs as the autoparallel export", "[io][placements]") {
  auto fx = readFxText(readData("falcon_mqa_joint.print_readable.py"));
  REQUIRE(fx.ok());
  std::string ptext = readData("falcon_mqa_joint.placements.json");
  CHECK(detectFileKind(ptext) == FileKind::AutoparallelPlacements);
  auto p = applyPlacementsJson(*fx, json::parse(ptext));
  REQUIRE(p.ok());
  auto ap = readAutoparallelJson(readJson("falcon_mqa_joint.autoparallel.json"));
  REQUIRE(ap.ok());
  CHECK(p->mesh == ap->mesh);
  REQUIRE(p->graph.size() == ap->graph.size());
  for (int i = 0; i < ap->graph.size(); ++i) {
    INFO(ap->graph.nodes[i].name);
    int j = p->graph.find(ap->graph.nodes[i].name);
    REQUIRE(j >= 0);
    CHECK(p->specs[j].outputs == ap->specs[i].outputs);
    CHECK(p->specs[j].inputs == ap->specs[i].inputs);
  }
  int ip = idx(*p, "index_put");
  CHECK(p->producerSpec(ip, 2) == spec("RS(1)"));
  CHECK(p->consumerSpec(ip, 2) == spec("RS(0)"));
  CHECK(p->validate().empty());
}

TEST_CASE("placements write back in both styles and re-apply to the same specs", "[io][placements]") {
  auto fx = readFxText(readData("falcon_mqa_joint.print_readable.py"));
  REQUIRE(fx.ok());
  auto p = applyPlacementsJson(*fx, readJson("falcon_mqa_joint.placements.json"));
  REQUIRE(p.ok());
  json w = writePlacementsJson(*p);
  CHECK(w["version"] == 1);
  CHECK(w["mesh_shape"] == json({2, 4}));
  CHECK(w["mesh_dim_names"] == json({"dim0", "dim1"}));
  CHECK(w["placements"]["index_put"] == json({{"output", "RS(0)"}, {"inputs", {"RS(0)", "RR", "RS(0)"}}}));
  CHECK(w["placements"]["full"] == json({{"output", "RS(0)"}, {"inputs", {"RS(0)"}}}));  // a factory: its output
  auto again = applyPlacementsJson(*fx, w);
  REQUIRE(again.ok());
  CHECK(again->specs == p->specs);
  json o = writePlacementsJson(*p, PlacementsStyle::OutputOnly);
  CHECK(o["placements"]["index_put"] == "RS(0)");
  CHECK(o["placements"]["mm_1"] == "RP(sum)");
  auto outOnly = applyPlacementsJson(*fx, o);
  REQUIRE(outOnly.ok());
  for (int i = 0; i < p->graph.size(); ++i) CHECK(outOnly->specs[i].outputs == p->specs[i].outputs);
}

TEST_CASE("placements errors name the node and the place", "[io][placements]") {
  auto fx = readFxText(readData("falcon_mqa_joint.print_readable.py"));
  REQUIRE(fx.ok());
  json j = readJson("falcon_mqa_joint.placements.json");
  json bad = j;
  bad["placements"]["no/such"] = "RR";
  auto r = applyPlacementsJson(*fx, bad);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().toString("p.json") == "p.json: /placements/no~1such: no node named 'no/such' in the graph");
  bad = j;
  bad["placements"]["mm"]["inputs"] = {"S(0)R"};
  r = applyPlacementsJson(*fx, bad);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().toString() == "/placements/mm/inputs: 1 input spec(s) for a node with 2 tensor input(s)");
  bad = j;
  bad["placements"]["mm"]["output"] = "S(2";  // does not parse (S(2)R parses: a finding, not a refusal)
  r = applyPlacementsJson(*fx, bad);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().pointer == "/placements/mm/output");
  bad = j;
  bad["version"] = 2;
  r = applyPlacementsJson(*fx, bad);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().toString() == "/version: unsupported placements version 2 (expected 1)");
  bad = j;
  bad["placements"]["view"] = 3;
  r = applyPlacementsJson(*fx, bad);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().toString() == "/placements/view: expected a placement string like \"RS(0)\", got integer");
}

TEST_CASE("loadPlanWithPlacements combines two files and locates errors in the right one", "[io][placements]") {
  auto r = loadPlanWithPlacements(dataPath("falcon_mqa_joint.print_readable.py"), dataPath("falcon_mqa_joint.placements.json"));
  REQUIRE(r.ok());
  CHECK(r->mesh.shape() == std::vector<int64_t>{2, 4});
  CHECK(r->specs[idx(*r, "index_put")].inputs[2] == spec("RS(0)"));
  auto e = loadPlanWithPlacements(dataPath("falcon_mqa_joint.print_readable.py"), dataPath("collectives.print_readable.py"));
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().toString() == dataPath("collectives.print_readable.py") +
                                    ": not a placements file (expected {\"version\": 1, \"mesh_shape\": [...], "
                                    "\"placements\": {...}})");
  e = loadPlanWithPlacements(dataPath("collectives.print_readable.py"), dataPath("falcon_mqa_joint.placements.json"));
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().toString() == dataPath("falcon_mqa_joint.placements.json") +
                                    ": /placements/_tensor_constant0: no node named '_tensor_constant0' in the graph");
}

TEST_CASE("placements applied as a correct apply pass insert every planned transition", "[io][placements]") {
  auto fx = readFxText(readData("falcon_mqa_joint.print_readable.py"));
  REQUIRE(fx.ok());
  auto p = applyPlacementsJson(*fx, readJson("falcon_mqa_joint.placements.json"), true);
  REQUIRE(p.ok());
  // The checker's four planned transitions (redistribute-required), the gradient's at the output among them.
  REQUIRE(p->redistributes.size() == 4);
  const Redistribute* r = p->findRedistribute(idx(*p, "index_put"), 2);
  REQUIRE(r != nullptr);
  CHECK(r->from == spec("RS(1)"));
  CHECK(r->to == spec("RS(0)"));
  CHECK(p->findRedistribute(idx(*p, "slice_scatter"), 1) != nullptr);
  CHECK(p->findRedistribute(idx(*p, "mm_1"), 1) != nullptr);
  const Redistribute* grad = p->findRedistribute(p->graph.outputNode(), 1);
  REQUIRE(grad != nullptr);
  CHECK(grad->from == spec("RP(sum)"));
  CHECK(grad->to == spec("RR"));
  auto bare = applyPlacementsJson(*fx, readJson("falcon_mqa_joint.placements.json"), false);
  REQUIRE(bare.ok());
  CHECK(bare->redistributes.empty());
}
