// The shipped samples: seed 1 (falcon index_put on a 2x4 mesh) checks with exactly its two errors and fixes to
// a clean plan; the teaching samples check clean and each carries its collective.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "core/check/check.h"
#include "core/plan/fix.h"
#include "core/io/load/load.h"

using namespace ss;

namespace {

Plan loadSample(const std::string& name) {
  auto p = loadPlanFile(std::string(SHARDSCOPE_SAMPLES_DIR) + "/" + name);
  if (!p.ok()) FAIL(p.error().toString(name));
  return std::move(p.value());
}

int runCli(const std::string& args) {
  int rc = std::system((std::string(SHARDSCOPE_BINARY) + " " + args + " > /dev/null 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace

TEST_CASE("shardscope fix writes a plan that checks clean", "[check][fix][cli]") {
  const std::string in = std::string(SHARDSCOPE_SAMPLES_DIR) + "/falcon_index_put_2d.plan.json";
  char tmpl[] = "/tmp/ss_fix_XXXXXX";
  int fd = mkstemp(tmpl);
  REQUIRE(fd >= 0);
  close(fd);
  const std::string out = std::string(tmpl) + ".plan.json";
  CHECK(runCli("fix " + in + " -o " + out) == 0);
  auto fixed = loadPlanFile(out);
  REQUIRE(fixed.ok());
  CHECK(checkPlan(fixed.value()).items.empty());
  CHECK(fixed->redistributes.size() == loadSample("falcon_index_put_2d.plan.json").redistributes.size() + 1);
  // Bad usage is exit 2 with the plan untouched.
  CHECK(runCli("fix " + in) == 2);
  CHECK(runCli("fix " + in + " -o " + out + " --seq-dim nosuchkey=0") == 2);
  CHECK(runCli("fix " + in + " -o " + out + " '--placement=index_put=S(9)R'") == 2);
  CHECK(runCli("fix /nonexistent.plan.json -o " + out) == 2);
  // A user placement that breaks index_put is repaired by the planner.
  CHECK(runCli("fix " + in + " -o " + out + " '--placement=full_1=S(0)R'") == 0);
  auto placed = loadPlanFile(out);
  REQUIRE(placed.ok());
  CHECK(checkPlan(placed.value()).items.empty());
  std::remove(out.c_str());
  std::remove(tmpl);
}
