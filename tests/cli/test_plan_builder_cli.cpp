// PlanBuilder and the one rulebook (Plan::validate): a plan that parses but is wrong opens, each wrong thing an
// error diagnostic at its node and input; what cannot be understood is refused at its place. Every file here is
// read by both the fast reader and the DOM reader, which must agree.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "plan_builder_cases.h"
#include "cli_run.h"
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

namespace {

std::string writeTemp(const std::string& name, const std::string& text) {
  auto p = std::filesystem::temp_directory_path() / name;
  std::ofstream(p) << text;
  return p.string();
}

// An autoparallel export (2x4 mesh): x [8, 16] placed S(0)R, relu consuming it as `dst`, the output.
std::string exportWithDst(const std::string& dst) {
  return R"J({"mesh": {"shape": [2, 4], "dim_names": ["dp", "tp"]}, "nodes": [
  {"name": "x", "op": "placeholder", "placement": "S(0)R", "shape": [8, 16], "dtype": "float32", "inputs": []},
  {"name": "relu", "op": "aten.relu.default", "placement": "S(0)R", "shape": [8, 16], "dtype": "float32",
   "inputs": [{"name": "x", "src_placement": "S(0)R", "dst_placement": ")J" +
         dst + R"J(", "comm_cost": 0.0}]},
  {"name": "output", "op": "output", "inputs": [{"name": "relu"}]}]})J";
}


std::vector<std::string> lines(const Plan& p, const Diagnostics& d) {
  std::vector<std::string> out;
  for (const auto& x : d.items)
    out.push_back(std::string(severityName(x.severity)) + " " + (x.node >= 0 ? p.graph.nodes[x.node].name : "plan") +
                  " " + std::to_string(x.input) + " " + diagKindName(x.kind) + ": " + x.message);
  return out;
}

}  // namespace

TEST_CASE("an autoparallel dst_placement S(7)R on a 2-D tensor opens, flagged at its node and input", "[builder]") {
  const std::string text = exportWithDst("S(7)R");
  Plan p = loadBoth(text, true);
  REQUIRE(p.specs[1].inputs[0]);
  CHECK(p.specs[1].inputs[0]->toMeshString() == "S(7)R");  // kept as written
  const auto v = p.validate();
  REQUIRE(v.size() == 1);
  CHECK(v[0].kind == DiagKind::InvalidSpec);
  CHECK(v[0].node == 1);
  CHECK(v[0].input == 0);
  CHECK(v[0].message == "input spec S(7)R: S(7) on mesh dim 0 shards dim 7 of a tensor with 2 dims");
  const Diagnostics d = checkPlan(p);
  CHECK(lines(p, d) == std::vector<std::string>{
                           "error relu 0 invalid-spec: input spec S(7)R: S(7) on mesh dim 0 shards dim 7 of a tensor with 2 dims"});

  // fix repairs it: the input consumes what x delivers.
  const FixPlan f = planFix(p);
  CHECK(f.steps == std::vector<std::string>{"drop the input spec S(7)R at relu input 0 (it does not fit the tensor)"});
  CHECK(!f.remaining.hasErrors());

  const std::string file = writeTemp("ss_builder_s7.json", text);
  auto r = test::runCli("check " + file);
  CHECK(r.code == 1);
  CHECK(r.out.find("error: relu (input 0) [invalid-spec]: input spec S(7)R: S(7) on mesh dim 0 shards dim 7 of a "
                   "tensor with 2 dims\n") == 0);
  // The run refuses it with the list of findings (before looking for a runner).
  auto run = test::runCli("run " + file);
  CHECK(run.code == 3);
  CHECK(run.out.find("run failed: the plan breaks 1 rule(s) of a valid plan, fix them first; relu (input 0) "
                     "[invalid-spec]: input spec S(7)R: S(7) on mesh dim 0 shards dim 7 of a tensor with 2 dims") !=
        std::string::npos);
}

TEST_CASE("a native spec S(9) opens, flagged at its node", "[builder]") {
  const std::string text = nativeWithSpec("S(9)");
  Plan p = loadBoth(text, false);
  REQUIRE(p.specs[0].outputs[0]);
  CHECK(p.specs[0].outputs[0]->toMeshString() == "S(9)");
  const Diagnostics d = checkPlan(p);
  CHECK(lines(p, d) == std::vector<std::string>{
                           "error x -1 invalid-spec: output spec S(9): S(9) on mesh dim 0 shards dim 9 of a tensor with 2 dims"});
  const std::string file = writeTemp("ss_builder_s9.plan.json", text);
  auto r = test::runCli("check " + file);
  CHECK(r.code == 1);
  CHECK(r.out.find("error: x [invalid-spec]: output spec S(9): S(9) on mesh dim 0 shards dim 9 of a tensor with 2 dims\n") == 0);
  auto j = test::runCli("check --json " + file);
  CHECK(j.code == 1);
  CHECK(json::parse(j.out)["diagnostics"][0]["kind"] == "invalid-spec");
}

TEST_CASE("a spec that does not parse is refused at its place, exit 2", "[builder]") {
  const std::string native = writeTemp("ss_builder_syntax.plan.json", nativeWithSpec("S(0"));
  auto r = test::runCli("check " + native);
  CHECK(r.code == 2);
  CHECK(r.out.rfind(native + ": /nodes/0/spec/0: \"S(0\": ", 0) == 0);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
  const std::string ap = writeTemp("ss_builder_syntax.json", exportWithDst("S(0)Q"));
  auto a = test::runCli("check " + ap);
  CHECK(a.code == 2);
  CHECK(a.out.rfind(ap + ": /nodes/1/inputs/0/dst_placement: \"S(0)Q\": ", 0) == 0);
}
