// Replica deduplication (core/redistribute/replica.h) changes no result: every plan the runner tests run gives, with and
// without it (--no-dedup), the same per-rank losses, combined loss, relative errors, output errors, verdict,
// errors and localisation, bit for bit. Both runs use one intra-op thread per rank, so that ATen's reductions
// split their work the same way whatever the machine's core count. The gradient ratio is compared to 1e-6: the
// summed gradient adds the ranks' gradients in the order they arrive, with or without deduplication.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/plan/edit.h"
#include "core/gen/llama.h"
#include "core/model/placement_parse.h"
#include "runner/runner.h"
#include "runner_test_util.h"

using namespace ss;

namespace {

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

RunReport runWith(const Plan& plan, RunOptions o, bool dedup) {
  o.dedup = dedup;
  o.threadsPerRank = 1;
  return runner::runPlan(plan, o);
}

// Runs `plan` both ways and compares; returns the deduplicated report.
RunReport checkSame(const std::string& what, const Plan& plan, const RunOptions& o) {
  RunReport on = runWith(plan, o, true), off = runWith(plan, o, false);
  INFO(what << "\nwith dedup:\n" << on.summary() << "without:\n" << off.summary());
  CHECK(on.verdict() == off.verdict());
  CHECK(on.error == off.error);
  REQUIRE(on.batches.size() == off.batches.size());
  for (size_t b = 0; b < on.batches.size(); ++b) {
    const BatchResult &x = on.batches[b], &y = off.batches[b];
    REQUIRE(x.rankLosses.size() == y.rankLosses.size());
    for (size_t r = 0; r < x.rankLosses.size(); ++r) CHECK(sameBits(x.rankLosses[r], y.rankLosses[r]));
    CHECK(sameBits(x.combined, y.combined));
    CHECK(sameBits(x.reference, y.reference));
    CHECK(sameBits(x.relError, y.relError));
    CHECK(sameBits(x.outputRelError, y.outputRelError));
    CHECK(x.match == y.match);
    if (std::isnan(y.gradRatio)) CHECK(std::isnan(x.gradRatio));
    else CHECK(x.gradRatio == Approx(y.gradRatio).epsilon(1e-6));
  }
  CHECK(on.localised == off.localised);
  // As JSON: a shape that differs carries a NaN error (null in JSON), which operator== would call unequal.
  CHECK(nlohmann::json(on).value("first_divergence", nlohmann::json()).dump() ==
        nlohmann::json(off).value("first_divergence", nlohmann::json()).dump());
  CHECK(nlohmann::json(on).value("replica_disagreement", nlohmann::json()).dump() ==
        nlohmann::json(off).value("replica_disagreement", nlohmann::json()).dump());
  CHECK(off.computingRanks == off.ranks);
  return on;
}


}  // namespace

TEST_CASE("dedup: seed 1 fixed and as shipped give the same bits; 2 of 8 ranks compute the products",
          "[runner][dedup][seed1]") {
  RunOptions o;
  o.scale = 4;
  RunReport fixed = checkSame("seed 1 fixed, scale 4", test::falconFixed(), o);
  REQUIRE_FALSE(fixed.error);
  CHECK(fixed.verdict() == RunVerdict::Match);
  CHECK(fixed.computingRanks == 2);
  CHECK(fixed.batches.at(0).gradRatio == Approx(8.0).epsilon(1e-4));  // the all-reduced loss counted on 8 ranks
  // Without gradients every value is shared along both mesh dims where it holds.
  RunOptions noGrad = o;
  noGrad.gradients = false;
  noGrad.batches = 1;
  checkSame("seed 1 fixed, no gradients", test::falconFixed(), noGrad);
  // As shipped, index_put fails on every rank: the same error, rank and node.
  RunReport shipped = checkSame("seed 1 as shipped", test::loadOrFail(test::falconPath()), o);
  REQUIRE(shipped.error);
  CHECK(shipped.error->node == "index_put");
}

TEST_CASE("dedup: the teaching samples, as shipped and without their redistributes", "[runner][dedup][samples]") {
  for (const char* name : test::kTeachingSamples) {
    Plan plan = test::loadOrFail(test::samplePath(name));
    RunOptions o;
    o.batches = 2;
    checkSame(name, plan, o);
    plan.redistributes.clear();
    checkSame(std::string(name) + " without redistributes", plan, o);
  }
}

TEST_CASE("dedup: seed 2's AutoSP plans", "[runner][dedup][seed2]") {
  for (const char* name : {"autosp_seq_first.plan.json", "autosp_seq_first_fixed.plan.json",
                           "autosp_batch_first.plan.json"})
    checkSame(name, test::loadOrFail(test::samplePath(name)), RunOptions{});
}

TEST_CASE("dedup: the LLaMA-like joint graph (FSDP x TP, nested shards)", "[runner][dedup][llama]") {
  for (auto [dp, tp] : {std::pair<int64_t, int64_t>{2, 2}, {2, 1}}) {
    RunOptions o;
    o.batches = 1;
    checkSame("llama " + std::to_string(dp) + "x" + std::to_string(tp), test::smallLlama(dp, tp), o);
  }
}

TEST_CASE("dedup: a rank failing alone, and a replicated failure shared by its class", "[runner][dedup][failure]") {
  // x [3, 4] S(0) on 2 ranks: select(x, 0, 1) fails on rank 1 only (as in the runner's failure test).
  const char* oneFails = test::kOneRankFailsPlan;
  auto plan = loadPlanText(oneFails, "one_rank_fails.plan.json");
  REQUIRE(plan.ok());
  RunReport r = checkSame("one rank fails", *plan, RunOptions{});
  REQUIRE(r.error);
  CHECK(r.error->rank == 1);
  CHECK(r.error->node == "row");
  // x replicated on 4 ranks: select(x, 0, 5) fails everywhere; rank 0 computes it, the others take its error.
  const char* allFail = R"JSON({"format": "shardscope-plan", "version": 1, "name": "all_fail",
    "mesh": {"shape": [4]}, "run": {"seed": 0, "loss": "loss", "batches": 1},
    "nodes": [
      {"name": "x", "op": "placeholder", "placeholder_kind": "input", "meta": [{"shape": [3, 4], "dtype": "f32"}],
       "spec": ["R"]},
      {"name": "row", "op": "aten.select.int", "args": [{"t": "x"}, 0, 5], "meta": [{"shape": [4], "dtype": "f32"}],
       "spec": ["R"]},
      {"name": "loss", "op": "aten.sum.default", "args": [{"t": "row"}], "meta": [{"shape": [], "dtype": "f32"}],
       "spec": ["R"]},
      {"name": "output", "op": "output", "args": [[{"t": "loss"}]]}]})JSON";
  auto all = loadPlanText(allFail, "all_fail.plan.json");
  REQUIRE(all.ok());
  RunReport f = checkSame("every rank fails", *all, RunOptions{});
  REQUIRE(f.error);
  CHECK(f.error->node == "row");
  CHECK(f.notes == runWith(*all, RunOptions{}, false).notes);
}

TEST_CASE("dedup: a rank takes an input whose all_reduce it does not run", "[runner][dedup]") {
  // a RR is all-reduced along dim 0 into add, whose other input b is RS(0): rank 1 computes add but the
  // all_reduce runs on ranks 0 and 2 only; rank 1 takes the reduced value from rank 0 (core/redistribute/replica.h).
  const char* text = R"JSON({"format": "shardscope-plan", "version": 1, "name": "edge_taker",
    "mesh": {"shape": [2, 2]}, "run": {"seed": 3, "loss": "loss", "batches": 2},
    "nodes": [
      {"name": "a", "op": "placeholder", "placeholder_kind": "input", "meta": [{"shape": [1, 6], "dtype": "f32"}],
       "spec": ["RR"]},
      {"name": "b", "op": "placeholder", "placeholder_kind": "input", "meta": [{"shape": [2, 6], "dtype": "f32"}],
       "spec": ["RS(0)"]},
      {"name": "add", "op": "aten.add.Tensor", "args": [{"t": "a"}, {"t": "b"}],
       "meta": [{"shape": [2, 6], "dtype": "f32"}], "spec": ["RS(0)"]},
      {"name": "loss", "op": "aten.sum.default", "args": [{"t": "add"}], "meta": [{"shape": [], "dtype": "f32"}],
       "spec": ["RR"]},
      {"name": "output", "op": "output", "args": [[{"t": "loss"}]]}],
    "redistributes": [{"node": "add", "input": 0, "from": "P(sum)R", "to": "RR"}]})JSON";
  auto plan = loadPlanText(text, "edge_taker.plan.json");
  REQUIRE(plan.ok());
  RunReport r = checkSame("edge taker", *plan, RunOptions{});
  INFO(r.summary());
  REQUIRE_FALSE(r.error);
  REQUIRE(r.batches.size() == 2);
  // Ranks 0 and 1 differ (b's halves), ranks 2 and 3 hold theirs again: the rank losses come in pairs.
  for (const BatchResult& b : r.batches) {
    CHECK(b.rankLosses[0] == b.rankLosses[2]);
    CHECK(b.rankLosses[1] == b.rankLosses[3]);
    CHECK(b.rankLosses[0] != b.rankLosses[1]);
  }
}

TEST_CASE("dedup: --no-dedup reaches the runner through the CLI", "[runner][dedup][cli]") {
  // Seed 1 fixed at scale 4: the JSON report says how many ranks computed the largest node.
  char dir[] = "/tmp/ss_dedup_XXXXXX";
  REQUIRE(::mkdtemp(dir));
  const std::string fixed = std::string(dir) + "/fixed.plan.json";
  REQUIRE(test::runCli("fix " + test::falconPath() + " -o " + fixed).exitCode == 0);
  auto on = test::runCli("run " + fixed + " --scale 4 --batches 1 --json");
  auto off = test::runCli("run " + fixed + " --scale 4 --batches 1 --json --no-dedup");
  INFO(on.output << "\n" << off.output);
  CHECK(on.exitCode == 0);
  CHECK(off.exitCode == 0);
  CHECK(on.output.find("\"computing_ranks\": 2,") != std::string::npos);
  CHECK(off.output.find("\"computing_ranks\": 8,") != std::string::npos);
  auto text = test::runCli("run " + fixed + " --scale 4 --batches 1");
  CHECK(text.output.find(" ranks x ") != std::string::npos);
  CHECK(text.output.find("; replicas shared: 2 ranks compute the largest node") != std::string::npos);
  std::remove(fixed.c_str());
  ::rmdir(dir);
}
