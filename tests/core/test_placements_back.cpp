// Back to the solver: the placements file shardscope writes for a real autoparallel log is the file autoparallel's
// own save_placements() wrote in the same run (tests/data/real/<case>/save_placements.json), equal as JSON.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "test_data.h"

#include "core/io/autoparallel/artifacts.h"
#include "core/io/formats.h"
#include "core/io/json_util.h"
#include "core/io/load/load.h"

using namespace ss;
using nlohmann::json;

namespace {

std::string real(const std::string& name) { return std::string(SHARDSCOPE_TESTDATA_DIR) + "/real/" + name; }

std::string logOf(const std::string& c) {
  if (c == "seed1_buggy") return real(c + "/dedicated_log_torch_trace_rank_0_trj4f_tb.log");
  return real(c + "/rank0.log");
}

// The nodes whose entries differ (or that one side lacks), for the failure message.
std::vector<std::string> differing(const json& a, const json& b) {
  std::vector<std::string> out;
  for (auto it = a.begin(); it != a.end(); ++it)
    if (!b.contains(it.key()) || b[it.key()] != it.value()) out.push_back(it.key());
  for (auto it = b.begin(); it != b.end(); ++it)
    if (!a.contains(it.key())) out.push_back(it.key());
  return out;
}

}  // namespace

TEST_CASE("placements export: every real log writes what save_placements wrote in its run", "[io][placements][real]") {
  const char* const cases[] = {"seed1_fixed", "seed1_buggy", "llama3_1d", "llama3_2d", "conv", "dsv3_2x2", "flex_attn"};
  // Entries per case (nodes the solver placed), as autoparallel's files have them.
  const std::map<std::string, size_t> entries{{"seed1_fixed", 30}, {"seed1_buggy", 30}, {"llama3_1d", 604},
                                              {"llama3_2d", 604},   {"conv", 49},        {"dsv3_2x2", 901},
                                              {"flex_attn", 92}};
  for (const char* c : cases) {
    INFO(c);
    auto plan = loadPlanFile(logOf(c));
    REQUIRE(plan.ok());
    auto theirs = parseJsonText(test::readFile(real(std::string(c) + "/save_placements.json")));
    REQUIRE(theirs.ok());
    const json ours = writePlacementsJson(*plan);
    CHECK(differing(ours["placements"], (*theirs)["placements"]) == std::vector<std::string>{});
    CHECK(ours == *theirs);
    CHECK(ours["placements"].size() == entries.at(c));
  }
}

TEST_CASE("placements export: the rules autoparallel's strategies follow, on real nodes", "[io][placements][real]") {
  auto seed1 = loadPlanFile(logOf("seed1_fixed"));
  REQUIRE(seed1.ok());
  const json s = writePlacementsJson(*seed1)["placements"];
  // A placeholder, a get_attr constant and a factory carry one input spec equal to their output.
  CHECK(s["_tensor_constant0"] == json({{"output", "RR"}, {"inputs", {"RR"}}}));
  CHECK(s["full"] == json({{"output", "RS(0)"}, {"inputs", {"RS(0)"}}}));
  // index_put consumes `values` (sum_1, produced RS(1)) in RS(0): the planned transition's target.
  CHECK(s["index_put"] == json({{"output", "RS(0)"}, {"inputs", {"RS(0)", "RR", "RS(0)"}}}));
  CHECK_FALSE(s.contains("output"));

  auto dsv3 = loadPlanFile(logOf("dsv3_2x2"));
  REQUIRE(dsv3.ok());
  const json d = writePlacementsJson(*dsv3)["placements"];
  // An input from a symbolic scalar (view(clone_8, [sym_size_int_17, 64, 32])) has no spec; sym_size_int has no entry.
  CHECK(d["view_65"] == json({{"output", "RR"}, {"inputs", {"RR"}}}));
  CHECK_FALSE(d.contains("sym_size_int_17"));
  // A tuple element the solver leaves unplaced: its getitem is placed "None", and so is its use.
  CHECK(d["getitem_19"] == json({{"output", "None"}, {"inputs", {"None"}}}));
}

TEST_CASE("placements export re-applies to the same consumed specs", "[io][placements][real]") {
  auto plan = loadPlanFile(logOf("llama3_2d"));
  REQUIRE(plan.ok());
  auto graph = loadPlanFile(real("llama3_2d/autoparallel_joint_graph.txt"));
  REQUIRE(graph.ok());
  auto again = applyPlacementsJson(*graph, writePlacementsJson(*plan));
  REQUIRE(again.ok());
  for (int i = 0; i < plan->graph.size(); ++i) {
    INFO(plan->graph.nodes[i].name);
    CHECK(again->specs[i].outputs == plan->specs[i].outputs);
    for (int k = 0; k < static_cast<int>(plan->graph.inputs(i).size()); ++k)
      if (plan->graph.nodes[i].kind != NodeKind::Output) CHECK(again->consumerSpec(i, k) == plan->consumerSpec(i, k));
  }
}

TEST_CASE("a log of a run that loaded its placements holds no plan: said in one line", "[io][placements][real]") {
  AutoparallelArtifacts a;
  a.joint = ArtifactText{"", "x.log", 1, 1, kJointGraphArtifact};
  CHECK(placementsNotInLog(a));
  a.solution = ArtifactText{"", "x.log", 1, 1, kSolutionArtifact};
  CHECK_FALSE(placementsNotInLog(a));
  a.solution.reset();
  a.joint->name = "aot_joint_graph";  // a compile without autoparallel (AutoSP): its graph is checked alone
  CHECK_FALSE(placementsNotInLog(a));
  CHECK(placementsNotInLogMessage("r.log") ==
        "r.log: holds no plan (autoparallel's joint graph without autoparallel_solution or "
        "autoparallel_sharding_optimizer_log: a run that loaded its placements with load_placements); give the "
        "placements file it loaded: shardscope check r.log --placements FILE");
}
