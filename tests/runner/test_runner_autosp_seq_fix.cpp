// Seed 2 fixed on DeepSpeed AutoSP's real rank programs (core/run/autosp_seq_fix.h): seq0_buggy's programs slice
// the batch; `--seq-dim input_ids=0` moves the slice to the sequence in every rank program, and the fixed programs
// then match the single-device run on 3 batches with the losses of the real fixed run's own programs (seq0_fixed,
// written by DeepSpeed with the fix applied) on the same data.
#include <catch2/catch.hpp>

#include <filesystem>

#include "core/run/autosp_seq_fix.h"
#include "core/run/rank_programs.h"
#include "runner/rank_programs.h"
#include "runner_test_util.h"

using namespace ss;
using namespace ss::test;

namespace {

std::string autospLog(const std::string& name) {
  return std::string(SHARDSCOPE_TESTDATA_DIR) + "/real/autosp/" + name + "/rank0.log";
}

RankPrograms loadCase(const std::string& name) {
  auto p = loadRankPrograms(autospLog(name));
  if (!p) FAIL(p.error().toString());
  REQUIRE(p->ranks.size() == 2);
  return *p;
}

RunReport run3(const RankPrograms& p) {
  RunOptions o;
  o.batches = 3;
  o.rtol = 1e-4;
  return runner::runRankPrograms(p, o);
}

}  // namespace

TEST_CASE("seq0_buggy with AutoSP's slice moved to input_ids' dim 0 matches, with seq0_fixed's losses",
          "[runner][rank-programs][autosp-real][seq-fix]") {
  RankPrograms buggy = loadCase("seq0_buggy");
  auto steps = moveAutoSpSlices(buggy, {SeqDimRequest{"input_ids", 0}});
  REQUIRE(steps);
  RunReport fixedBuggy = run3(buggy);
  // The real fixed run's own programs on the same data: the runner draws each input by its index in the reference,
  // and seq0_buggy's reference has two more size symbols (its batch is dynamic), so seq0_fixed's programs run against
  // seq0_buggy's reference (the same model; every placeholder of theirs is one of its, of the same shape).
  RankPrograms realFixedPrograms = loadCase("seq0_fixed");
  realFixedPrograms.reference = buggy.reference;
  realFixedPrograms.symbols.insert(buggy.symbols.begin(), buggy.symbols.end());
  RunReport realFixed = run3(realFixedPrograms);
  INFO(fixedBuggy.summary() << "\n" << realFixed.summary());
  REQUIRE_FALSE(fixedBuggy.error);
  REQUIRE_FALSE(realFixed.error);
  REQUIRE(fixedBuggy.batches.size() == 3);
  REQUIRE(realFixed.batches.size() == 3);
  for (size_t b = 0; b < 3; ++b) {
    const auto& x = fixedBuggy.batches[b];
    const auto& y = realFixed.batches[b];
    CHECK(x.match);
    CHECK(x.relError <= 1e-4);
    REQUIRE(x.rankLosses.size() == 2);
    CHECK(x.reference == y.reference);
    for (size_t r = 0; r < 2; ++r) CHECK(x.rankLosses[r] == Approx(y.rankLosses[r]).epsilon(1e-6));
  }
  CHECK(fixedBuggy.exitCode() == 0);
}

TEST_CASE("shardscope fix moves AutoSP's slice in the real logs' rank programs, and run runs the fixed programs",
          "[runner][rank-programs][autosp-real][seq-fix][cli]") {
  namespace fs = std::filesystem;
  const std::string dir = (fs::temp_directory_path() / ("ss_seqfix_" + std::to_string(::getpid()))).string();
  fs::create_directories(dir);
  const std::string out = dir + "/seq0_fixed_by_shardscope.json";
  {
    CliResult r = runCli("fix " + autospLog("seq0_buggy") + " --seq-dim input_ids=0 -o " + out);
    INFO(r.output);
    CHECK(r.exitCode == 0);
    CHECK(contains(r.output, "rank 0: getitem_3: L_input_ids_ (input_ids) sliced on dim 0 (s72) instead of dim 1 (s70)"));
    CHECK(contains(r.output, "rank 1: getitem_4: L_labels_ (labels) sliced on dim 0 (s97) instead of dim 1 (s38)"));
    CHECK(contains(r.output, "in 2 rank programs; saved " + out));
  }
  {
    CliResult r = runCli("run " + out);
    INFO(r.output);
    CHECK(r.exitCode == 0);
    CHECK(contains(r.output, "AutoSP's slice of input_ids moved to dim 0 (--seq-dim)"));
  }
  {
    CliResult r = runCli("run " + autospLog("seq0_buggy") + " --seq-dim input_ids=0 --batches 1");
    INFO(r.output);
    CHECK(r.exitCode == 0);
  }
  {
    // Without --seq-dim: the move the app's Fix all makes at the flagged slice of the log's graph.
    CliResult r = runCli("fix " + autospLog("seq0_buggy") + " -o " + out);
    INFO(r.output);
    CHECK(r.exitCode == 0);
    CHECK(contains(r.output, "rank 0: getitem_3: L_input_ids_ (input_ids) sliced on dim 0 (s72) instead of dim 1 (s70)"));
    CHECK(contains(r.output, "in 2 rank programs; saved " + out));
  }
  {
    // The fixed passes' log flags nothing: nothing to move, and fix says what it needs.
    CliResult r = runCli("fix " + autospLog("seq0_fixed") + " -o " + out);
    CHECK(r.exitCode == 2);
    CHECK(contains(r.output, "its graph flags no slice of the wrong dim; give --seq-dim INPUT=DIM"));
  }
  {
    CliResult r = runCli("fix " + autospLog("seq0_buggy") + " --seq-dim input_id=0 -o " + out);
    CHECK(r.exitCode == 2);
    CHECK(contains(r.output, "--seq-dim input_id=0: AutoSP slices no input named 'input_id'"));
  }
  fs::remove_all(dir);
}
