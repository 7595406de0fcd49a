// `shardscope fix` on autoparallel's real logs (tests/data/real/): saving keeps the solver's planned transitions,
// a --placement is pinned (worked around, never reverted), and fix's exit code is what `check` says of the file.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli_run.h"
#include "core/check/check.h"
#include "core/io/load/load.h"
#include "core/model/placement_parse.h"

using namespace ss;
using ss::test::runCli;

namespace {

std::string realDir(const std::string& c) { return std::string(SHARDSCOPE_TESTDATA_DIR) + "/real/" + c; }

struct TempFolder {
  std::string path;
  TempFolder() {
    std::string t = (std::filesystem::temp_directory_path() / "shardscope-fix-solver-XXXXXX").string();
    REQUIRE(::mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~TempFolder() { std::filesystem::remove_all(path); }
};

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("shardscope fix on every real log saves a plan that checks clean, with the solver's transitions",
          "[fix][solver][real][cli]") {
  TempFolder tmp;
  // (dsv3_2x2: tests/core/test_fix_solver.cpp, two transitions no redistribute makes.)
  for (const char* c : {"seed1_fixed", "seed1_buggy", "llama3_1d", "llama3_2d", "conv", "flex_attn"}) {
    INFO(c);
    const std::string out = tmp.path + "/" + c + ".plan.json";
    auto fix = runCli("fix " + realDir(c) + " -o " + out);
    INFO(fix.out);
    CHECK(fix.code == 0);
    CHECK(has(fix.out, "0 edits by the fix planner"));
    auto check = runCli("check " + out);
    INFO(check.out);
    CHECK(check.code == 0);
    // The saved plan holds, as redistributes, exactly the transitions the log's plan leaves to its apply pass.
    auto log = loadPlanFile(realDir(c));
    auto saved = loadPlanFile(out);
    REQUIRE(log.ok());
    REQUIRE(saved.ok());
    CHECK(saved->redistributes == log->plannedTransitions());
  }
}

TEST_CASE("shardscope fix --placement keeps the edit: sum_1 stays RS(0) and the saved file checks clean",
          "[fix][solver][real][cli]") {
  TempFolder tmp;
  const std::string out = tmp.path + "/edit.plan.json";
  auto fix = runCli("fix " + realDir("seed1_fixed") + "/rank0.log --placement 'sum_1=RS(0)' -o " + out);
  INFO(fix.out);
  CHECK(fix.code == 0);
  CHECK_FALSE(has(fix.out, "declare sum_1"));  // the edit is never reverted
  CHECK(has(fix.out, "insert redistribute RR -> RS(0) at sum_1 input 0"));
  CHECK(has(fix.out, "1 edit by the fix planner"));
  auto check = runCli("check " + out);
  INFO(check.out);
  CHECK(check.code == 0);
  auto saved = loadPlanFile(out);
  REQUIRE(saved.ok());
  const int sum1 = saved->graph.find("sum_1");
  REQUIRE(sum1 >= 0);
  CHECK(saved->specs[sum1].outputs[0] == *parseSpec("RS(0)"));
  // Fixing the saved plan again finds nothing to do.
  auto again = runCli("fix " + out + " -o " + tmp.path + "/again.plan.json");
  CHECK(again.code == 0);
  CHECK(has(again.out, "0 edits by the fix planner"));
}

TEST_CASE("shardscope fix --placement that no fix can keep says which edge and why, exit 1 as check says",
          "[fix][solver][real][cli]") {
  TempFolder tmp;
  const std::string out = tmp.path + "/blocked.plan.json";
  auto fix = runCli("fix " + realDir("seed1_fixed") + " --placement 'sum_1=RS(2)' -o " + out);
  INFO(fix.out);
  CHECK(fix.code == 1);
  CHECK(has(fix.out, "cannot fix around your edit: sum_1 is pinned to RS(2), and no input specs make sum produce "
                     "it: input 0 (alias_default) arrives RS(1)"));
  auto check = runCli("check " + out);
  CHECK(check.code == 1);  // fix's exit code is check's on the file it saved
  auto saved = loadPlanFile(out);
  REQUIRE(saved.ok());
  CHECK(saved->specs[saved->graph.find("sum_1")].outputs[0] == *parseSpec("RS(2)"));
}
