// A plan is judged by the DTensor of the torch that wrote it (core/check/torch_version.h): 2.6 refuses Shard ->
// Partial and Replicate -> Partial other than sum, which 2.14 runs; a torch never compared gets one info. The
// version travels from a real TORCH_TRACE log's torch_version record and through the native plan format.
#include <catch2/catch.hpp>

#include <string>

#include "core/applied/session.h"
#include "core/check/check.h"
#include "core/check/torch_version.h"
#include "core/io/native/plan_json.h"
#include "plan_text.h"

using namespace ss;
using namespace ss::test;
using nlohmann::json;

namespace {

std::vector<std::string> kinds(const Diagnostics& d) {
  std::vector<std::string> k;
  for (const auto& x : d.items) k.push_back(diagKindName(x.kind));
  return k;
}

// x S(0) is redistributed into `to` before neg, which keeps a Partial (linear): a plan 2.14 runs as written.
Plan embedPlan(const std::string& to, const std::string& torch) {
  json nodes = {ph("x", {8, 16}, "S(0)"), call("y", "aten.neg.default", {ref("x")}, {8, 16}, to, {to})};
  Plan p = planOf({4}, nodes, {{{"node", "y"}, {"input", 0}, {"from", "S(0)"}, {"to", to}}}, "y");
  p.torchVersion = torch;
  return p;
}

}  // namespace

TEST_CASE("torch version: which DTensor judges", "[check][dtensor]") {
  CHECK(judgeFor("2.6.0+cu124").release == DTensorRelease::V2_6);
  CHECK(judgeFor("2.6.0+cu124").compared);
  CHECK(judgeFor("2.14.1+debian").release == DTensorRelease::V2_14);
  CHECK(judgeFor("2.14.1+debian").compared);
  CHECK(judgeFor("2.9.0").release == DTensorRelease::V2_14);
  CHECK_FALSE(judgeFor("2.9.0").compared);
  CHECK_FALSE(judgeFor("2.15.0a0+git1234").compared);
  CHECK(judgeFor("").compared);         // unknown: nothing to say
  CHECK(judgeFor("nightly").compared);  // unreadable: the same
}

TEST_CASE("torch version: 2.6 refuses the Shard -> Partial that 2.14 runs", "[check][dtensor]") {
  const Plan newer = embedPlan("P(sum)", "2.14.1+debian");
  CHECK(kinds(checkPlan(newer)) == std::vector<std::string>{});
  const Plan unknown = embedPlan("P(sum)", "");
  CHECK(kinds(checkPlan(unknown)) == std::vector<std::string>{});

  const Plan older = embedPlan("P(sum)", "2.6.0+cpu");
  Diagnostics d = checkPlan(older);
  REQUIRE(kinds(d) == std::vector<std::string>{"bad-redistribute"});
  CHECK(d.items[0].node == older.graph.find("y"));
  CHECK(d.items[0].input == 0);
  CHECK(d.items[0].message ==
        "the redistribute S(0) -> P(sum) is not possible for this plan's torch: DTensor of torch 2.6.0+cpu (2.6) refuses "
        "Shard -> Partial on mesh dim 0 ('redistribute from S(d) to P not supported yet'); 2.14 runs it");
}

TEST_CASE("torch version: 2.6 makes Replicate into Partial(sum) only", "[check][dtensor]") {
  auto plan = [](const std::string& to, const std::string& torch) {
    json nodes = {ph("x", {8, 16}, "R"), call("y", "aten.neg.default", {ref("x")}, {8, 16}, to, {to})};
    Plan p = planOf({4}, nodes, {{{"node", "y"}, {"input", 0}, {"from", "R"}, {"to", to}}}, "y");
    p.torchVersion = torch;
    return p;
  };
  CHECK(kinds(checkPlan(plan("P(sum)", "2.6.0"))) == std::vector<std::string>{});
  Diagnostics avg = checkPlan(plan("P(avg)", "2.6.0"));
  REQUIRE(kinds(avg) == std::vector<std::string>{"bad-redistribute"});
  CHECK(avg.items[0].message ==
        "the redistribute R -> P(avg) is not possible for this plan's torch: DTensor of torch 2.6.0 (2.6) turns "
        "Replicate into Partial(sum) only, not P(avg) (mesh dim 0); 2.14 runs it");
  CHECK(kinds(checkPlan(plan("P(avg)", "2.14.1"))) == std::vector<std::string>{});
}

TEST_CASE("torch version: a torch never compared is said once, plan-wide", "[check][dtensor]") {
  Diagnostics d = checkPlan(embedPlan("P(sum)", "2.9.0"));
  REQUIRE(kinds(d) == std::vector<std::string>{"torch-version"});
  CHECK(d.items[0].severity == Severity::Info);
  CHECK(d.items[0].node == -1);
  CHECK(d.items[0].message ==
        "written by torch 2.9.0, whose DTensor was never compared with core: checked with DTensor 2.14's semantics "
        "(compared: 2.6 and 2.14; docs/checks.md, \"Checked against DTensor\")");
}

TEST_CASE("torch version: read from a real log, kept by the native format", "[check][dtensor][real]") {
  SessionInputs in;
  in.primary = std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/real/llama3_1d/rank0.log";
  auto s = loadSession(in);
  REQUIRE(s.ok());
  CHECK(s->plan.torchVersion == "2.14.1+debian");

  Plan p = embedPlan("P(sum)", "2.6.0+cpu");
  const std::string text = writePlanString(p);
  CHECK(text.find("\"torch_version\": \"2.6.0+cpu\"") != std::string::npos);
  auto fast = planFromJsonTextFast(text);
  REQUIRE(fast.ok());
  CHECK(fast->torchVersion == "2.6.0+cpu");
  auto dom = planFromJson(json::parse(text));
  REQUIRE(dom.ok());
  CHECK(dom->torchVersion == "2.6.0+cpu");
  CHECK(writePlanString(*dom) == text);
}
