// Hardening of the importers: the autoparallel get_json export and placements readers refuse what
// they cannot represent (unknown keys, shard dims past the tensor's rank) and their writers keep what they read,
// so export and re-read is the identity. Inputs found by fuzzing are replayed from fuzz/regressions/<target>/;
// docs/reliability.md lists each finding (K2, K4, K6 and later numbers).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <functional>
#include <iterator>

#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"
#include "core/model/placement_parse.h"
#include "test_data.h"

using namespace ss;
using nlohmann::json;

namespace {
using test::readFile;
std::string regression(const std::string& target, const std::string& name) { return test::readRegression(target, name); }
std::string data(const std::string& name) { return test::ioData(name); }
json dataJson(const std::string& name) { return json::parse(readFile(data(name))); }
const Plan& falconGraph() {
  static const Plan plan = [] {
    auto p = loadPlanFile(data("falcon_mqa_joint.print_readable.py"));
    REQUIRE(p.ok());
    return std::move(*p);
  }();
  return plan;
}
}  // namespace

TEST_CASE("placements: an unknown key in a node entry is refused, not ignored (K2)", "[hardening][placements]") {
  // Found by fuzz_placements_json: {"outpet": "RS(0)", "inputs": [...]} loaded with the misspelt key ignored.
  auto j = parseJsonText(regression("fuzz_placements_json", "unknown-key-outpet"));
  REQUIRE(j.ok());
  auto p = applyPlacementsJson(falconGraph(), *j);
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().toString("pl.json") == "pl.json: /placements/index_put/outpet: unknown key (expected output, inputs)");
  // The key is escaped as a JSON pointer token.
  json k = dataJson("falcon_mqa_joint.placements.json");
  k["placements"]["mm"]["a/b~"] = 1;
  p = applyPlacementsJson(falconGraph(), k);
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().toString() == "/placements/mm/a~1b~0: unknown key (expected output, inputs)");
}

TEST_CASE("placements: a node with input specs and no output spec writes {output: null, inputs} (K2)",
          "[hardening][placements]") {
  json j = dataJson("falcon_mqa_joint.placements.json");
  j["placements"]["index_put"] = {{"inputs", {"RS(0)", "RR", "RS(0)"}}};
  auto p = applyPlacementsJson(falconGraph(), j);
  REQUIRE(p.ok());
  const int ip = p->graph.find("index_put");
  REQUIRE(ip >= 0);
  REQUIRE_FALSE(p->specs[ip].outputs[0].has_value());
  json w = writePlacementsJson(*p);
  CHECK(w["placements"]["index_put"] == json({{"output", nullptr}, {"inputs", {"RS(0)", "RR", "RS(0)"}}}));
  auto again = applyPlacementsJson(falconGraph(), w);
  REQUIRE(again.ok());
  CHECK(again->specs == p->specs);
  // The output-only style has nowhere to put inputs: such a node is left out, as before.
  CHECK_FALSE(writePlacementsJson(*p, PlacementsStyle::OutputOnly)["placements"].contains("index_put"));
}

TEST_CASE("autoparallel export: an unknown key in a node or an edge is refused, not ignored (K6)",
          "[hardening][autoparallel]") {
  // Found by fuzz_autoparallel_json: misspelt keys in edges (src_plicement, "   src_placement", dst_pl`cement)
  // loaded as absent placements; the first one is refused now.
  auto j = parseJsonText(regression("fuzz_autoparallel_json", "misspelt-dst-placement-key"));
  REQUIRE(j.ok());
  auto p = readAutoparallelJson(*j);
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().toString("ap.json") ==
        "ap.json: /nodes/5/inputs/0/src_plicement: unknown key (expected name, src_placement, dst_placement, "
        "comm_cost, transition_cost)");
  json k = dataJson("falcon_mqa_joint.autoparallel.json");
  k["nodes"][7]["sh`pe"] = k["nodes"][7]["shape"];
  p = readAutoparallelJson(k);
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().toString() ==
        "/nodes/7/sh`pe: unknown key (expected name, op, phase, placement, inputs, compute_cost, transition_cost, "
        "dtype, shape, placeholder_kind, source, module_path, ac_region, cluster_id, cluster_root)");
  // Every key the real export writes is accepted, the output node's {name, op, inputs: [{name}]} too.
  CHECK(readAutoparallelJson(dataJson("falcon_mqa_joint.autoparallel.json")).ok());
}

TEST_CASE("autoparallel export: an absent dst_placement stays absent through export and re-read (K6)",
          "[hardening][autoparallel]") {
  json j = dataJson("falcon_mqa_joint.autoparallel.json");
  const int t1 = 22;
  REQUIRE(j["nodes"][t1]["name"] == "t_1");
  j["nodes"][t1]["inputs"][0].erase("dst_placement");
  auto p = readAutoparallelJson(j);
  REQUIRE(p.ok());
  REQUIRE_FALSE(p->specs[t1].inputs[0].has_value());
  json w = writeAutoparallelJson(*p);
  CHECK(w["nodes"][t1]["inputs"][0]["src_placement"] == "RS(0)");
  CHECK(w["nodes"][t1]["inputs"][0]["dst_placement"] == nullptr);
  auto again = readAutoparallelJson(w);
  REQUIRE(again.ok());
  CHECK(again->specs == p->specs);
  CHECK(writeAutoparallelJson(*again) == w);
  // What the op consumes is still the producer's spec.
  CHECK(again->consumerSpec(t1, 0)->toMeshString() == "RS(0)");
}

TEST_CASE("placements: a shard dim past the tensor's rank opens as an invalid-spec at its node (K4)",
          "[hardening][placements]") {
  auto one = [](const json& j) {
    auto p = applyPlacementsJson(falconGraph(), j);
    REQUIRE(p.ok());
    auto v = p->validate();
    REQUIRE(v.size() == 1);
    CHECK(v[0].kind == DiagKind::InvalidSpec);
    return std::pair(p->graph.nodes[v[0].node].name + " " + std::to_string(v[0].input), v[0].message);
  };
  json j = dataJson("falcon_mqa_joint.placements.json");
  j["placements"]["mm"]["output"] = "S(2)R";
  CHECK(one(j) == std::pair<std::string, std::string>("mm -1", "output spec S(2)R: S(2) on mesh dim 0 shards dim 2 of a tensor with 2 dims"));
  j = dataJson("falcon_mqa_joint.placements.json");
  j["placements"]["mm"]["inputs"][1] = "RS(2)";
  CHECK(one(j) == std::pair<std::string, std::string>("mm 1", "input spec RS(2): S(2) on mesh dim 1 shards dim 2 of a tensor with 2 dims"));
  j = dataJson("falcon_mqa_joint.placements.json");
  j["placements"]["view_4"] = "RS(2)";  // the bare-string form
  CHECK(one(j).second == "output spec RS(2): S(2) on mesh dim 1 shards dim 2 of a tensor with 2 dims");
  // A spec that does not parse is still refused, with the parser's words at its place.
  j["placements"]["view_4"] = "RS(";
  auto bad = applyPlacementsJson(falconGraph(), j);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().pointer == "/placements/view_4");
  CHECK(bad.error().message.rfind("\"RS(\": ", 0) == 0);
}

TEST_CASE("checkShardDims is the parser's own shard-dim check", "[hardening][placement]") {
  DeviceMesh mesh({2, 4});
  auto spec = parseSpec("S(0)S(4)", ParseContext{&mesh, -1});
  REQUIRE(spec.ok());
  auto parsed = parseSpec("S(0)S(4)", ParseContext{&mesh, 4});
  REQUIRE_FALSE(parsed.ok());
  auto checked = checkShardDims(*spec, 4);
  REQUIRE_FALSE(checked.ok());
  CHECK(checked.error().toString() == parsed.error().toString());
  CHECK(checked.error().toString() == "shard dim 4 is out of range for a tensor with 4 dims (column 1)");
  CHECK(checkShardDims(*spec, 5).ok());
  CHECK(checkShardDims(*spec, -1).ok());
  CHECK(checkShardDims(*spec, 4, 0).error().toString() == "shard dim 4 is out of range for a tensor with 4 dims");
}

TEST_CASE("placements: inputs left as produced are written as the spec they arrive in, as save_placements does",
          "[hardening][placements]") {
  // Found by fuzz_placements_json (120 s): "view_3": "RS(0)" (the bare-string form) sets no input spec. The file is
  // autoparallel's, whose strategies list every input spec: the writer spells out the spec the input arrives in
  // (add_1's output), and re-applying gives the same consumed specs (an explicit spec where none was set).
  auto j = parseJsonText(regression("fuzz_placements_json", "bare-output-string-inputs-as-produced"));
  REQUIRE(j.ok());
  auto p = applyPlacementsJson(falconGraph(), *j);
  REQUIRE(p.ok());
  const int v3 = p->graph.find("view_3");
  REQUIRE(v3 >= 0);
  CHECK_FALSE(p->specs[v3].inputs[0].has_value());
  CHECK(p->consumerSpec(v3, 0)->toMeshString() == "RS(0)");  // add_1's output, as produced
  json w = writePlacementsJson(*p);
  CHECK(w["placements"]["view_3"] == json({{"output", "RS(0)"}, {"inputs", {"RS(0)"}}}));
  auto again = applyPlacementsJson(falconGraph(), w);
  REQUIRE(again.ok());
  CHECK(again->specs[v3].outputs == p->specs[v3].outputs);
  CHECK(again->consumerSpec(v3, 0) == p->consumerSpec(v3, 0));
}

TEST_CASE("fuzz_load_plan: an autoparallel export with S(5)R on a rank-3 tensor loads with a valid structure",
          "[hardening][autoparallel]") {
  // Found by fuzz_load_plan (~150 s before the K4 fix): loadPlanText accepted the export and the plan failed
  // Plan::validate() (view_1, rank 3, placed S(5)R). The input as found stops at one of its misspelt keys (K6);
  // the reduction to the one S(5)R change opens, its structure valid, with the finding at view_1.
  auto p = loadPlanText(regression("fuzz_load_plan", "autoparallel-shard-dim-past-rank"), "x.json");
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().toString("x.json") ==
        "x.json: /nodes/7/inputs/0/ s    rc_placement: unknown key (expected name, src_placement, dst_placement, "
        "comm_cost, transition_cost)");
  p = loadPlanText(regression("fuzz_load_plan", "autoparallel-shard-dim-past-rank-reduced.json"), "x.json");
  REQUIRE(p.ok());
  CHECK(p->validateStructure().empty());
  const auto v = p->validate();
  REQUIRE_FALSE(v.empty());
  CHECK(p->graph.nodes[v[0].node].name == "view_1");
  CHECK(v[0].message == "output spec S(5)R: S(5) on mesh dim 0 shards dim 5 of a tensor with 3 dims");
}

TEST_CASE("autoparallel export: what loads also saves and reloads natively (source line, cluster id, shape)",
          "[hardening][autoparallel]") {
  // Found by fuzz_load_plan (124 s): "line": -11 in a node's source loaded, the native writer wrote it and the
  // native reader refused its own file. The autoparallel reader now applies the native reader's ranges (getIntIn)
  // and its shape limits (shapeFromJson, core/io/native/plan_json.h).
  auto p = loadPlanText(regression("fuzz_load_plan", "autoparallel-negative-source-line"), "x.json");
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().toString("x.json") == "x.json: /nodes/5/source/line: value -11 is out of range [0, 2147483647]");
  const json base = dataJson("falcon_mqa_joint.autoparallel.json");
  auto refused = [&](const std::function<void(json&)>& edit) {
    json j = base;
    edit(j);
    auto r = readAutoparallelJson(j);
    REQUIRE_FALSE(r.ok());
    return r.error().toString();
  };
  CHECK(refused([](json& j) { j["nodes"][5]["cluster_id"] = int64_t{1} << 40; }) ==
        "/nodes/5/cluster_id: value 1099511627776 is out of range [-1, 2147483647]");
  CHECK(refused([](json& j) { j["nodes"][5]["cluster_id"] = uint64_t{1} << 63; }) ==
        "/nodes/5/cluster_id: value 9223372036854775807 is out of range [-1, 2147483647]");
  CHECK(refused([](json& j) { j["nodes"][1]["shape"][1] = -128; }) ==
        "/nodes/1/shape/1: size -128 is out of range [0, 2^53]");
  CHECK(refused([](json& j) { j["nodes"][1]["shape"][1] = int64_t{1} << 54; }) ==
        "/nodes/1/shape/1: size 18014398509481984 is out of range [0, 2^53]");
  CHECK(refused([](json& j) { j["nodes"][1]["shape"] = {int64_t{1} << 40, int64_t{1} << 40}; }) ==
        "/nodes/1/shape: the tensor has more than 2^62 elements");
  CHECK(refused([](json& j) { j["nodes"][1]["shape"] = json(std::vector<int>(65, 1)); }) ==
        "/nodes/1/shape: a tensor has at most 64 dims");
  CHECK(refused([](json& j) { j["nodes"][1]["shape"][0] = "s0"; }) ==
        "/nodes/1/shape/0: expected an integer size (symbolic sizes are not supported), got string");
  // In range, the same plan saves and reloads natively.
  json ok = base;
  ok["nodes"][5]["cluster_id"] = 7;
  ok["nodes"][5]["source"]["line"] = 2147483647;
  auto a = readAutoparallelJson(ok);
  REQUIRE(a.ok());
  const std::string written = writePlanString(*a);
  auto again = loadPlanText(written, "y.plan.json");
  REQUIRE(again.ok());
  CHECK(writePlanString(*again) == written);
}
