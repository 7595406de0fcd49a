// Hardening: the loaders on malformed, hostile and enormous input. Every bad file gives exactly one
// located line; huge described tensors load and are counted without being allocated.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <functional>

#include "core/io/load/load.h"
#include "core/model/layout.h"
#include "core/redistribute/redistribute.h"

using namespace ss;
using nlohmann::json;

namespace {

// A small valid plan on a 2x4 mesh; each case below breaks one thing in it.
json basePlan() {
  return json::parse(R"({"format": "shardscope-plan", "version": 1, "name": "base",
    "mesh": {"shape": [2, 4], "dim_names": ["dim0", "dim1"]},
    "run": {"seed": 0, "loss": "y", "batches": 3, "rtol": 1e-4},
    "nodes": [
      {"name": "x", "op": "placeholder", "placeholder_kind": "input", "meta": [{"shape": [16, 128], "dtype": "bf16"}],
       "spec": ["S(0)R"], "tag": {"key": "input_id", "seq_dim": 1}},
      {"name": "y", "op": "aten.mul.Tensor", "args": [{"t": "x"}, 2.0], "meta": [{"shape": [16, 128], "dtype": "bf16"}],
       "spec": ["S(0)R"]},
      {"name": "output", "op": "output", "args": [[{"t": "y"}]]}]})");
}

std::string loadMessage(const std::function<void(json&)>& mutate) {
  json j = basePlan();
  mutate(j);
  auto p = loadPlanText(j.dump(), "bad.plan.json");
  if (p.ok()) return "OK";
  const std::string line = p.error().toString("bad.plan.json");
  CHECK(line.find('\n') == std::string::npos);
  return line;
}

}  // namespace

TEST_CASE("the base plan of these cases loads", "[hardening]") { CHECK(loadMessage([](json&) {}) == "OK"); }

TEST_CASE("truncated files: a line:col at the cut, never a crash", "[hardening]") {
  const std::string text = basePlan().dump(1);
  for (size_t cut = 1; cut < text.size(); cut += 37) {
    auto p = loadPlanText(text.substr(0, cut), "cut.plan.json");
    REQUIRE_FALSE(p.ok());
    const std::string line = p.error().toString("cut.plan.json");
    INFO("cut at " << cut << ": " << line);
    CHECK(line.rfind("cut.plan.json:", 0) == 0);
    CHECK(p.error().line >= 1);
    CHECK(line.find('\n') == std::string::npos);
  }
}

TEST_CASE("wrong types: a JSON pointer to the value and what was expected", "[hardening]") {
  CHECK(loadMessage([](json& j) { j["mesh"]["shape"] = "2x4"; }) ==
        "bad.plan.json: /mesh/shape: expected an array of mesh dim sizes, got string");
  CHECK(loadMessage([](json& j) { j["nodes"] = 3; }) == "bad.plan.json: /nodes: expected an array of nodes, got integer");
  CHECK(loadMessage([](json& j) { j["nodes"][0]["meta"][0]["shape"][0] = 1.5; }) ==
        "bad.plan.json: /nodes/0/meta/0/shape/0: expected an integer size, got number");
  CHECK(loadMessage([](json& j) { j["nodes"][0]["spec"][0] = 5; }) ==
        "bad.plan.json: /nodes/0/spec/0: expected a placement string like \"RS(0)\" or null, got integer");
  CHECK(loadMessage([](json& j) { j["run"]["rtol"] = "small"; }) == "bad.plan.json: /run/rtol: expected a number, got string");
}

TEST_CASE("unknown placements and out-of-range dims", "[hardening]") {
  CHECK(loadMessage([](json& j) { j["nodes"][1]["spec"][0] = "S(0)Q(1)"; }) ==
        "bad.plan.json: /nodes/1/spec/0: \"S(0)Q(1)\": unknown placement 'Q' (expected S(d), R, P(op), _S(d, sf) or "
        "their long forms) (column 5)");
  // A shard dim past the rank and a placement count other than the mesh's are findings, not refusals
  // (tests/core/test_plan_builder.cpp): the plan loads.
  CHECK(loadMessage([](json& j) { j["nodes"][1]["spec"][0] = "RS(5)"; }) == "OK");
  CHECK(loadMessage([](json& j) { j["nodes"][1]["spec"][0] = "S(0)"; }) == "OK");
  CHECK(loadMessage([](json& j) { j["nodes"][1]["args"][0] = {{"t", "x"}, {"i", 7}}; }) ==
        "bad.plan.json: /nodes/1/args/0/i: 'x' has 1 outputs, not 8");
  CHECK(loadMessage([](json& j) { j["nodes"][1]["args"][0] = {{"t", "x"}, {"i", -1}}; }) ==
        "bad.plan.json: /nodes/1/args/0/i: value -1 is out of range [0, 65536]");
  CHECK(loadMessage([](json& j) { j["nodes"][0]["tag"]["seq_dim"] = 99; }) ==
        "bad.plan.json: /nodes/0/tag/seq_dim: value 99 is out of range [0, 64]");
  CHECK(loadMessage([](json& j) { j["nodes"][0]["tag"]["seq_dim"] = 5; }) == "OK");  // past the rank: a finding
  CHECK(loadMessage([](json& j) {
          j["redistributes"] = json::array({{{"node", "y"}, {"input", 9}, {"from", "S(0)R"}, {"to", "RR"}}});
        }).rfind("bad.plan.json: /redistributes/0/input: ", 0) == 0);
  CHECK(loadMessage([](json& j) { j["run"]["batches"] = -5; }) ==
        "bad.plan.json: /run/batches: value -5 is out of range [1, 1000]");
}

TEST_CASE("huge meshes are refused, the largest allowed one loads", "[hardening]") {
  CHECK(loadMessage([](json& j) { j["mesh"]["shape"] = {1048576, 2}; }) ==
        "bad.plan.json: /mesh: the mesh has more than 1048576 ranks");
  CHECK(loadMessage([](json& j) {
          j["mesh"] = {{"shape", json::array({1, 1, 1, 1, 1, 1, 1, 1, 1})}};
        }) == "bad.plan.json: /mesh: a device mesh has at most 8 dims, got 9");
  CHECK(loadMessage([](json& j) { j["mesh"]["shape"] = {4611686018427387904LL, 2}; }) ==
        "bad.plan.json: /mesh: the mesh has more than 1048576 ranks");
  CHECK(loadMessage([](json& j) { j["mesh"]["shape"] = {1024, 1024}; }) == "OK");
}

TEST_CASE("a 10^12-element tensor is described, laid out and costed, never allocated", "[hardening]") {
  json j = basePlan();
  j["nodes"][0]["meta"][0]["shape"] = {1000000, 1000000};
  j["nodes"][1]["meta"][0]["shape"] = {1000000, 1000000};
  auto p = loadPlanText(j.dump(), "big.plan.json");
  REQUIRE(p.ok());
  const TensorMeta& meta = p->graph.nodes[0].outputs.at(0);
  CHECK(meta.numel() == 1000000000000);
  auto shard = shardOnRank(meta.shape, p->mesh, *p->specs[0].outputs.at(0), 7);
  REQUIRE(shard.ok());
  CHECK(shard->localShape == std::vector<int64_t>{500000, 1000000});
  CHECK(shard->numel() == 500000000000);
  auto plan = planRedistribute(meta, p->mesh, *p->specs[0].outputs.at(0), ShardingSpec::replicated(2));
  REQUIRE(plan.steps.size() == 1);
  CHECK(plan.steps[0].bytesSent == int64_t{500000} * 1000000 * 2);  // all_gather on mesh dim 0, k = 2, bf16
  // Beyond 2^53 per dim the reader refuses (JSON numbers stop being exact there).
  CHECK(loadMessage([](json& x) { x["nodes"][0]["meta"][0]["shape"] = {4611686018427387904LL, 4}; }) ==
        "bad.plan.json: /nodes/0/meta/0/shape/0: size 4611686018427387904 is out of range [0, 2^53]");
}

TEST_CASE("hostile bytes: deep nesting, binary, bad UTF-8, control characters", "[hardening]") {
  auto msg = [](const std::string& text) {
    auto p = loadPlanText(text, "x.json");
    REQUIRE_FALSE(p.ok());
    std::string line = p.error().toString("x.json");
    CHECK(line.find('\n') == std::string::npos);
    return line;
  };
  CHECK(msg("{\"format\": \"shardscope-plan\", \"d\": " + std::string(100000, '[') + std::string(100000, ']') + "}") ==
        "x.json:1:291: JSON nests deeper than 256 levels");
  CHECK(msg(std::string("\xff\xfe\x00\x01", 4)) == "x.json:1:1: not a plan file: expected a JSON object (shardscope plan, autoparallel export), FX graph text (print_readable, a repro script) or a TORCH_TRACE log");
  CHECK(msg("{\"format\": \"shardscope-plan\", \"name\": \"\xff\"}").rfind("x.json:1:40: invalid JSON: ", 0) == 0);
  CHECK(msg("{\"format\": \"shardscope-plan\", \"version\": NaN}").rfind("x.json:1:42: invalid JSON: ", 0) == 0);
  // A name with a newline is echoed escaped: the message stays one line.
  json j = basePlan();
  j["format"] = "shards\ncope";
  CHECK(msg(j.dump()) == "x.json: /format: not a shardscope plan (format is 'shards\\ncope')");
}
