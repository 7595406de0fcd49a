// Re-running what autoparallel built (runner/rank_programs.h, SPMD programs): the applied graph of a real
// TORCH_TRACE log (tests/data/real/, written by the real autoparallel) on every rank of the plan's mesh, its
// collectives over Gloo, against the joint graph on one device; every output (results and gradients) put back
// together by the plan's output specs. Seed 1 runs at its real size (one batch: its two 4672 x 4672 products per
// rank dominate); the others are small models.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "core/run/rank_programs.h"
#include "runner/rank_programs.h"
#include "runner_test_util.h"

using namespace ss;
using namespace ss::test;

namespace {

std::string realCase(const std::string& name) { return std::string(SHARDSCOPE_TESTDATA_DIR) + "/real/" + name; }

RankPrograms loadCase(const std::string& name) {
  REQUIRE(holdsAppliedRun(realCase(name)));
  auto p = loadAppliedRankPrograms(realCase(name));
  if (!p) FAIL(p.error().toString());
  REQUIRE(p->spmd);
  REQUIRE(p->ranks.size() == 1);
  return std::move(*p);
}

RunReport runCase(const RankPrograms& p, int batches) {
  RunOptions o;
  o.batches = batches;
  return runner::runRankPrograms(p, o);
}

int nodeNamed(const Plan& plan, const std::string& name) {
  const int n = plan.graph.find(name);
  REQUIRE(n >= 0);
  return n;
}

}  // namespace

namespace {

struct MatchCase {
  const char* name;
  int ranks;
  int batches;
  int outputs;  // tensors the joint graph returns: forward results, then gradients (llama3: 1 + 21 parameters)
};

void checkMatches(const MatchCase& c) {
  const RankPrograms p = loadCase(c.name);
  RunReport r = runCase(p, c.batches);
  INFO(c.name << "\n" << r.summary());
  REQUIRE_FALSE(r.error);
  CHECK(r.ranks == c.ranks);
  CHECK(r.rtol == 1e-4);
  REQUIRE(r.batches.size() == static_cast<size_t>(c.batches));
  for (const BatchResult& b : r.batches) {
    CHECK(b.outputsCompared == c.outputs);
    CHECK(b.match);
    CHECK(b.outputRelError <= 1e-4);
    CHECK(b.reference > 0);
  }
  CHECK(r.localised);
  CHECK_FALSE(r.firstDivergence);
  CHECK(r.exitCode() == 0);
}

}  // namespace

TEST_CASE("applied graph re-run: conv, llama3_1d and llama3_2d match the joint graph on every output",
          "[runner][applied-run][real]") {
  for (const MatchCase c : {MatchCase{"conv", 8, 3, 7}, MatchCase{"llama3_1d", 8, 1, 22}, MatchCase{"llama3_2d", 8, 1, 22}})
    checkMatches(c);
}

// Seed 1 at its real size: 8 ranks each run both 2048 x 4672 x 4672 products (~1.6 TFLOP with the reference; ~4 GB).
TEST_CASE("applied graph re-run: seed1_fixed at real size matches on its output and gradient",
          "[runner][applied-run][real][real-size]") {
  checkMatches(MatchCase{"seed1_fixed", 8, 1, 2});
}

TEST_CASE("applied graph re-run: seed1_buggy fails at index_put on every rank with the real bug's shapes (exit 3)",
          "[runner][applied-run][real][real-size][cli]") {
  CliResult r = runCli("run " + realCase("seed1_buggy") + " --batches 1");
  INFO(r.output);
  CHECK(r.exitCode == 3);
  CHECK(contains(r.output, "node index_put"));
  CHECK(contains(r.output, "[16, 32, 1, 64]"));
  CHECK(contains(r.output, "[4, 128, 1, 64]"));
  CHECK(contains(r.output, "autoparallel_parallel_graph (traced on rank 0"));
}

TEST_CASE("applied graph re-run: flex_attn and dsv3_2x2 are refused at their higher-order op, naming it (exit 2)",
          "[runner][applied-run][real][cli]") {
  {
    CliResult r = runCli("run " + realCase("flex_attn"));
    INFO(r.output);
    CHECK(r.exitCode == 2);
    CHECK(contains(r.output, "flex_attention"));
    CHECK(contains(r.output, "is a higher-order op that runs its body subgraphs (sdpa_score0"));
  }
  {
    CliResult r = runCli("run " + realCase("dsv3_2x2") + "/rank0.log");
    INFO(r.output);
    CHECK(r.exitCode == 2);
    CHECK(contains(r.output, "local_map_hop"));
    CHECK(contains(r.output, "is a higher-order op that runs its body subgraph"));
  }
}

TEST_CASE("applied graph re-run: the CLI on conv's log, and flags that do not apply", "[runner][applied-run][real][cli]") {
  {
    CliResult r = runCli("run " + realCase("conv") + "/rank0.log --batches 2 --json");
    INFO(r.output);
    CHECK(r.exitCode == 0);
    auto j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
    CHECK(j["ranks"] == 8);
    REQUIRE(j["batches"].size() == 2);
    for (const auto& b : j["batches"]) CHECK(b["match"] == true);
  }
  {
    CliResult r = runCli("run " + realCase("conv") + " --scale 2");
    CHECK(r.exitCode == 2);
    CHECK(contains(r.output, "--scale does not apply to an applied graph's re-run"));
  }
}

TEST_CASE("applied graph re-run: collectives' groups and sizes and the placeholders' pieces are checked before use",
          "[runner][applied-run][real][hostile]") {
  const RankPrograms base = loadCase("conv");
  const int gather = nodeNamed(base.ranks[0], "all_gather_into_tensor");
  SECTION("a group size that is not its mesh dim's") {
    RankPrograms p = base;
    p.ranks[0].graph.nodes[gather].args[1] = Arg::integer(3);
    auto e = rankProgramsRefusal(p);
    REQUIRE(e);
    CHECK(e->stage == "unsafe-op");
    CHECK(e->node == "all_gather_into_tensor");
    CHECK(contains(e->message, "group size 3 on group '0', whose mesh dim has 8 ranks"));
    CHECK(runCase(p, 1).exitCode() == 2);
  }
  SECTION("a group that maps to no mesh dim") {
    RankPrograms p = base;
    p.ranks[0].graph.nodes[gather].args[2] = Arg::string("7");
    auto e = rankProgramsRefusal(p);
    REQUIRE(e);
    CHECK(contains(e->message, "process group '7' maps to no mesh dim"));
  }
  SECTION("a collective the runner does not execute") {
    RankPrograms p = base;
    p.ranks[0].graph.nodes[gather].op = "_c10d_functional.broadcast.default";
    auto e = rankProgramsRefusal(p);
    REQUIRE(e);
    CHECK(contains(e->message, "the runner executes no such collective"));
  }
  SECTION("a placeholder whose piece is not the traced shape") {
    RankPrograms p = base;
    const int x = nodeNamed(p.reference, "primals_7");
    p.reference.specs[x].outputs[0] = ShardingSpec::replicated(1);
    RunReport r = runCase(p, 1);
    REQUIRE(r.error);
    CHECK(r.error->stage == "load");
    CHECK(contains(r.error->message, "the program's placeholder 'primals_7' is [4, 3, 16, 16]; the plan's spec R of "
                                     "[32, 3, 16, 16] gives rank 0 [32, 3, 16, 16]"));
  }
}

TEST_CASE("applied graph re-run: a wrong op in the program is localised at its joint-graph node", "[runner][applied-run][real]") {
  RankPrograms p = loadCase("conv");
  // relu -> sigmoid in the applied graph (a made-up bug): every later value departs; the first is relu's.
  const int relu = nodeNamed(p.ranks[0], "relu");
  p.ranks[0].graph.nodes[relu].op = "aten.sigmoid.default";
  RunReport r = runCase(p, 1);
  INFO(r.summary());
  REQUIRE_FALSE(r.error);
  REQUIRE(r.batches.size() == 1);
  CHECK_FALSE(r.batches[0].match);
  CHECK(r.batches[0].outputRelError > 1e-2);
  REQUIRE(r.firstDivergence);
  CHECK(r.firstDivergence->node == p.reference.graph.nodes[p.spmd->referenceOf[relu]].name);
  CHECK(contains(r.firstDivergence->detail, "(the applied graph's relu)"));
  CHECK(r.exitCode() == 1);
}

TEST_CASE("applied graph re-run: the text form the child reads keeps the SPMD part", "[runner][applied-run][real]") {
  const RankPrograms p = loadCase("seed1_fixed");
  const std::string text = writeRankProgramsText(p);
  REQUIRE(looksLikeRankProgramsText(text));
  auto back = readRankProgramsText(text);
  if (!back) FAIL(back.error().message);
  REQUIRE(back->spmd);
  CHECK(*back->spmd == *p.spmd);
  CHECK(back->spmd->groupDims == std::map<std::string, int>{{"1", 0}, {"5", 1}});
  CHECK(back->rankCount() == 8);
}
