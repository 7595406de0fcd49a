// The fast autoparallel reader (readAutoparallelJsonTextFast, simdjson) against the DOM reader
// (readAutoparallelJson): the same Plan for every input the fast one accepts; it declines wherever it cannot be
// sure, and loadPlanText then gives exactly the DOM reader's result or located message.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/gen/llama.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"

using namespace ss;

namespace {

Result<Plan> domRead(const std::string& text) {
  auto j = parseJsonText(text);
  if (!j) return j.error();
  return readAutoparallelJson(*j);
}

void requireSame(const std::string& text, const std::string& what) {
  INFO(what);
  auto dom = domRead(text);
  INFO((dom ? std::string() : dom.error().toString(what)));
  REQUIRE(dom.ok());
  auto fast = readAutoparallelJsonTextFast(text);
  REQUIRE(fast.ok());
  CHECK(*fast == *dom);
  CHECK(fast->sourceFormat == dom->sourceFormat);
  CHECK(writeAutoparallelJson(*fast) == writeAutoparallelJson(*dom));
  for (int i = 0; i < dom->graph.size(); ++i) REQUIRE(fast->graph.inputs(i) == dom->graph.inputs(i));
}

// Every key of the export, tuples and getitems (matched on src_placement, out of order), null values, the
// placeholder-kind guesses, ac_region in its three forms, int and float costs.
const char* kEveryField = R"json({
 "mesh": {"shape": [2, 4], "dim_names": null},
 "nodes": [
  {"name": "x", "op": "placeholder", "phase": "forward", "placement": "S(0)R", "inputs": [], "compute_cost": 0,
   "dtype": "bfloat16", "shape": [16, 128], "placeholder_kind": "input", "module_path": null},
  {"name": "w", "op": "get_attr", "placement": "RS(1)", "dtype": "float32", "shape": [128, 64]},
  {"name": "ids", "op": "placeholder", "placement": "RR", "dtype": "int64", "shape": [16]},
  {"name": "tangents_1", "op": "placeholder", "placement": "S(0)S(1)", "dtype": "float32", "shape": [16, 64],
   "phase": "backward"},
  {"name": "mm", "op": "aten.mm.default", "phase": "forward", "placement": "S(0)S(1)",
   "inputs": [{"name": "x", "src_placement": "S(0)R", "dst_placement": "S(0)R", "comm_cost": 0.0},
              {"name": "w", "src_placement": "RS(1)", "dst_placement": null, "comm_cost": 3, "transition_cost": 1.5}],
   "compute_cost": 12.5, "transition_cost": 0.25, "dtype": "bfloat16", "shape": [16, 64],
   "source": {"file": "m\u00e9.py", "line": 3, "func": "forward", "code": "y = x @ w"}, "module_path": "layers.0",
   "ac_region": {"id": 3, "type": "PREFER_RECOMPUTE"}, "cluster_id": 4},
  {"name": "split", "op": "aten.split.Tensor", "placement": "(S(0)S(1), RR, None)",
   "inputs": [{"name": "mm", "src_placement": "S(0)S(1)", "dst_placement": "S(0)S(1)"}],
   "dtype": "bfloat16", "shape": [8, 64], "ac_region": 7, "cluster_id": 4, "cluster_root": "mm"},
  {"name": "getitem_1", "op": "<built-in function getitem>", "placement": "RR",
   "inputs": [{"name": "split", "src_placement": "RR", "dst_placement": "RR"}], "dtype": "bfloat16", "shape": [8, 64],
   "ac_region": "2:MUST_SAVE"},
  {"name": "getitem", "op": "<built-in function getitem>", "placement": "S(0)S(1)",
   "inputs": [{"name": "split", "src_placement": "S(0)S(1)"}], "dtype": "bfloat16", "shape": [8, 64]},
  {"name": "loss", "op": "aten.sum.default", "phase": "backward", "placement": "RR",
   "inputs": [{"name": "getitem", "src_placement": "S(0)S(1)", "dst_placement": "S(0)S(1)", "comm_cost": 0}],
   "dtype": "float32", "shape": []},
  {"name": "output", "op": "output", "inputs": [{"name": "loss"}, {"name": "tangents_1"}]}],
 "summary": {"total": 10, "comm": 2.5, "compute": 7.5, "transition": null}
})json";

std::string variant(const std::string& base, const std::string& from, const std::string& to) {
  auto at = base.find(from);
  REQUIRE(at != std::string::npos);
  return base.substr(0, at) + to + base.substr(at + from.size());
}

}  // namespace

TEST_CASE("fast autoparallel reader: the falcon fixture reads as the DOM reader reads it", "[io][fastload][autoparallel]") {
  auto text = readFileText(std::string(SHARDSCOPE_TESTDATA_DIR) + "/io/falcon_mqa_joint.autoparallel.json");
  REQUIRE(text.ok());
  requireSame(*text, "falcon_mqa_joint.autoparallel.json");
}

TEST_CASE("fast autoparallel reader: every autoparallel export in the tests reads as the DOM reader reads it",
          "[io][fastload][autoparallel]") {
  int seen = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(SHARDSCOPE_TESTDATA_DIR)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    auto text = readFileText(entry.path().string());
    REQUIRE(text.ok());
    if (detectFileKind(*text) != FileKind::AutoparallelJson) continue;
    // Exports of broken plans (hardening fixtures) are the DOM reader's to report; the rest must agree.
    if (!domRead(*text).ok()) continue;
    requireSame(*text, entry.path().string());
    ++seen;
  }
  CHECK(seen >= 8);  // the falcon fixture, the trace exports and the real autoparallel solutions
}

TEST_CASE("fast autoparallel reader: generated LLaMA exports read identically", "[io][fastload][autoparallel]") {
  for (bool recompute : {true, false}) {
    gen::LlamaOptions o;
    o.layers = 2;
    o.recompute = recompute;
    const std::string text = writeAutoparallelJson(gen::makeLlamaPlan(o)).dump();
    requireSame(text, recompute ? "llama recompute" : "llama");
  }
}

TEST_CASE("fast autoparallel reader: every field, tuples, getitems, guesses", "[io][fastload][autoparallel]") {
  requireSame(kEveryField, "every field");
  auto p = readAutoparallelJsonTextFast(kEveryField);
  REQUIRE(p.ok());
  const Graph& g = p->graph;
  CHECK(p->name == "autoparallel");
  CHECK(p->sourceFormat == PlanFormat::AutoparallelJson);
  CHECK(g.nodes[g.find("w")].placeholderKind == PlaceholderKind::Param);        // guessed: float
  CHECK(g.nodes[g.find("ids")].placeholderKind == PlaceholderKind::Input);      // guessed: int64
  CHECK(g.nodes[g.find("tangents_1")].placeholderKind == PlaceholderKind::Tangent);  // guessed: the name
  const int mm = g.find("mm");
  CHECK(g.nodes[mm].acRegion == "3:PREFER_RECOMPUTE");
  CHECK(g.nodes[g.find("split")].acRegion == "7");
  CHECK(g.nodes[g.find("getitem_1")].acRegion == "2:MUST_SAVE");
  CHECK(p->edgeCosts.at({mm, 1}) == std::pair<double, double>{3.0, 1.5});
  CHECK(p->edgeCosts.at({mm, 0}) == std::pair<double, double>{0.0, 0.0});
  CHECK(p->summary == CostSummary{10, 2.5, 7.5, -1});
  // getitem_1 takes the tuple's element 1 (src RR), then getitem element 0 (matched, wrapping around).
  CHECK(g.nodes[g.find("getitem_1")].args[0].t.output == 1);
  CHECK(g.nodes[g.find("getitem")].args[0].t.output == 0);
  CHECK(g.nodes[g.find("output")].phase == Phase::Backward);
  CHECK_FALSE(p->specs[mm].inputs[1].has_value());
  CHECK(p->specs[mm].inputs[0]->toMeshString() == "S(0)R");
}

TEST_CASE("fast autoparallel reader declines what it cannot read exactly; loading gives the DOM result",
          "[io][fastload][autoparallel]") {
  const std::string base = kEveryField;
  struct Case {
    std::string text;
    std::string message;  // the DOM reader's located message through loadPlanText; empty: it loads
  };
  const std::vector<Case> cases = {
      // Refused by the DOM reader (K6, K4 in docs/reliability.md and the basic checks).
      {variant(base, "\"compute_cost\": 12.5", "\"compute_cots\": 12.5"),
       "/nodes/4/compute_cots: unknown key (expected name, op, phase, placement, inputs, compute_cost, "
       "transition_cost, dtype, shape, placeholder_kind, source, module_path, ac_region, cluster_id, cluster_root)"},
      {variant(base, "\"src_placement\": \"RS(1)\"", "\"src_placement\": \"RS(1)\", \"dst\": 1"),
       "/nodes/4/inputs/1/dst: unknown key (expected name, src_placement, dst_placement, comm_cost, transition_cost)"},
      {variant(base, "{\"name\": \"x\", \"src_placement\"", "{\"name\": \"nope\", \"src_placement\""),
       "/nodes/4/inputs/0/name: unknown node 'nope' (inputs must name nodes listed before)"},
      {variant(base, "\"name\": \"ids\"", "\"name\": \"w\""), "/nodes/2/name: node name 'w' is used twice"},
      {variant(base, "\"dtype\": \"int64\"", "\"dtype\": \"int65\""), "/nodes/2/dtype: unknown dtype 'int65'"},
      {variant(base, "\"dst_placement\": \"S(0)R\"", "\"dst_placement\": \"(S(0)R, RR)\""),
       "/nodes/4/inputs/0/dst_placement: an input takes one spec, not a tuple"},
      {variant(base, "\"ac_region\": 7", "\"ac_region\": 7.5"), "/nodes/5/ac_region: expected an object {\"id\", \"type\"}, an integer or a string, got number"},
      // The native reader's limits, which the DOM reader applies too (so the plan saves and reloads natively).
      {variant(base, "\"shape\": [16]", "\"shape\": [18446744073709551615]"),
       "/nodes/2/shape/0: size 18446744073709551615 is out of range [0, 2^53]"},
      {variant(base, "\"line\": 3", "\"line\": -1"), "/nodes/4/source/line: value -1 is out of range [0, 2147483647]"},
      {variant(base, "\"cluster_id\": 4,", "\"cluster_id\": -2,"),
       "/nodes/5/cluster_id: value -2 is out of range [-1, 2147483647]"},
      // Unknown keys in the smaller objects are refused too; unknown top-level keys and duplicate keys are read
      // by the DOM reader (it ignores the first, keeps the last of the second); the fast one declines both.
      {variant(base, "\"summary\"", "\"extra\": {\"a\": [1]}, \"summary\""), ""},
      {variant(base, "\"dim_names\": null", "\"dim_names\": null, \"devices\": 8"),
       "/mesh/devices: unknown key (expected shape, dim_names)"},
      {variant(base, "\"line\": 3", "\"line\": 3, \"col\": 4"),
       "/nodes/4/source/col: unknown key (expected file, line, func, code)"},
      {variant(base, "\"type\": \"PREFER_RECOMPUTE\"", "\"kind\": \"PREFER_RECOMPUTE\""),
       "/nodes/4/ac_region/kind: unknown key (expected id, type)"},
      {variant(base, "\"transition\": null", "\"transfer\": null"),
       "/summary/transfer: unknown key (expected total, comm, compute, transition)"},
      {variant(base, "\"cluster_id\": 4}", "\"cluster_id\": 4, \"cluster_id\": 5}"), ""},

  };
  for (const auto& c : cases) {
    INFO(c.text);
    CHECK_FALSE(readAutoparallelJsonTextFast(c.text).ok());
    auto loaded = loadPlanText(c.text, "x.json");
    auto dom = domRead(c.text);
    REQUIRE(loaded.ok() == dom.ok());
    if (c.message.empty()) {
      INFO((loaded ? std::string() : loaded.error().toString("x.json")));
      REQUIRE(loaded.ok());
      CHECK(*loaded == *dom);
    } else {
      REQUIRE_FALSE(loaded.ok());
      CHECK(loaded.error().toString("x.json") == "x.json: " + c.message);
    }
  }
}

TEST_CASE("loading an autoparallel export from a file takes the fast reader", "[io][fastload][autoparallel]") {
  // Same Plan from the file path (padded read) as from the text, and it is the fast reader's.
  const std::string path = std::string(SHARDSCOPE_TESTDATA_DIR) + "/io/falcon_mqa_joint.autoparallel.json";
  auto fromFile = loadPlanFile(path);
  auto text = readFileText(path);
  REQUIRE(fromFile.ok());
  REQUIRE(text.ok());
  auto fast = readAutoparallelJsonTextFast(*text);
  REQUIRE(fast.ok());
  CHECK(*fromFile == *fast);
  CHECK(fromFile->sourceFormat == PlanFormat::AutoparallelJson);
}
