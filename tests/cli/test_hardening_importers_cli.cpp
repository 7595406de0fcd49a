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
#include "cli_run.h"
#include "test_data.h"

using namespace ss;
using nlohmann::json;

namespace {
using test::readFile;
std::string regression(const std::string& target, const std::string& name) { return test::readRegression(target, name); }
std::string data(const std::string& name) { return test::ioData(name); }
json dataJson(const std::string& name) { return json::parse(readFile(data(name))); }
}  // namespace

TEST_CASE("autoparallel export: a shard dim past the tensor's rank opens, flagged like a native plan (K4)",
          "[hardening][autoparallel]") {
  // Found by fuzz_autoparallel_json: S(5)R on a rank-3 tensor loaded and the native reader refused the same plan.
  // Both readers now keep it (PlanBuilder) and the checker reports it where it is (Plan::validate), exit 1.
  const std::string file = std::string(SHARDSCOPE_SOURCE_DIR) + "/fuzz/regressions/fuzz_autoparallel_json/shard-dim-out-of-range";
  auto p = loadPlanText(regression("fuzz_autoparallel_json", "shard-dim-out-of-range"), "ap.json");
  REQUIRE(p.ok());
  auto v = p->validate();
  REQUIRE(v.size() == 1);
  CHECK(v[0].kind == DiagKind::InvalidSpec);
  CHECK(p->graph.nodes[v[0].node].name == "primals_2");
  CHECK(v[0].input == -1);
  CHECK(v[0].message == "output spec S(5)R: S(5) on mesh dim 0 shards dim 5 of a tensor with 3 dims");
  auto cli = test::runCli("check " + file);
  CHECK(cli.code == 1);
  CHECK(cli.out.find("error: primals_2 [invalid-spec]: output spec S(5)R: S(5) on mesh dim 0 shards dim 5 of a tensor "
                     "with 3 dims\n") != std::string::npos);
  // An input's dst_placement is checked against its producer's rank (view reads primals_2, rank 3).
  json j = dataJson("falcon_mqa_joint.autoparallel.json");
  REQUIRE(j["nodes"][3]["name"] == "view");
  j["nodes"][3]["inputs"][0]["dst_placement"] = " RS(3)";
  p = readAutoparallelJson(j);
  REQUIRE(p.ok());
  v = p->validate();
  REQUIRE(v.size() == 1);
  CHECK(v[0].node == 3);
  CHECK(v[0].input == 0);
  CHECK(v[0].message == "input spec RS(3): S(3) on mesh dim 1 shards dim 3 of a tensor with 3 dims");
  // A tuple element is checked against the rank its getitem gives it.
  json t = json::parse(R"J({"mesh": {"shape": [2, 4], "dim_names": null}, "nodes": [
    {"name": "x", "op": "placeholder", "placement": "RR", "inputs": [], "dtype": "float32", "shape": [4, 8]},
    {"name": "split", "op": "aten.split.Tensor", "placement": "(RS(0), S(2)R)", "dtype": "float32", "shape": [2, 8],
     "inputs": [{"name": "x", "src_placement": "RR", "dst_placement": "RR", "comm_cost": 0.0}]},
    {"name": "getitem", "op": "<built-in function getitem>", "placement": "RR", "dtype": "float32", "shape": [2, 8],
     "inputs": [{"name": "split", "src_placement": "S(2)R", "dst_placement": "S(2)R", "comm_cost": 0.0}]}]})J");
  p = readAutoparallelJson(t);
  REQUIRE(p.ok());
  v = p->validate();
  REQUIRE(v.size() == 2);
  CHECK(v[0].node == 1);
  CHECK(v[0].message == "output spec S(2)R: S(2) on mesh dim 0 shards dim 2 of a tensor with 2 dims");
  CHECK(v[1].node == 2);
  CHECK(v[1].input == 0);
  // With the getitem of rank 3 it validates.
  t["nodes"][2]["shape"] = {2, 8, 3};
  t["nodes"][2]["inputs"][0]["dst_placement"] = "RR";
  p = readAutoparallelJson(t);
  REQUIRE(p.ok());
  CHECK(p->validate().empty());
}
