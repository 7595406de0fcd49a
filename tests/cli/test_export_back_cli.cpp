// Back to autoparallel from the command line: `export --placements` on the real logs writes their runs' own
// save_placements files; `--placement NODE=SPEC` chooses a strategy autoparallel offers; the logs the real
// autoparallel wrote when it loaded those exports (tests/data/real/seed1_loaded, seed1_edited) check clean
// against the file each loaded, and alone say in one line that they hold no plan.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli_run.h"

using ss::test::runCli;
using nlohmann::json;

namespace {

std::string real(const std::string& name) { return std::string(SHARDSCOPE_TESTDATA_DIR) + "/real/" + name; }

json readJsonFile(const std::string& path) {
  std::ifstream f(path);
  REQUIRE(f.good());
  return json::parse(f);
}

struct TmpDir {
  std::string path = (std::filesystem::temp_directory_path() / ("ss_back_" + std::to_string(::getpid()))).string();
  TmpDir() { std::filesystem::create_directories(path); }
  ~TmpDir() { std::filesystem::remove_all(path); }
};

}  // namespace

TEST_CASE("export --placements of a real log is the run's own save_placements file", "[cli][placements][real]") {
  TmpDir d;
  for (const char* c : {"seed1_fixed", "llama3_2d", "conv"}) {
    INFO(c);
    auto r = runCli("export " + real(std::string(c) + "/rank0.log") + " --placements " + d.path + "/p.json");
    CHECK(r.code == 0);
    CHECK(r.out == "wrote " + d.path + "/p.json (placements)\n");
    CHECK(readJsonFile(d.path + "/p.json") == readJsonFile(real(std::string(c) + "/save_placements.json")));
  }
}

TEST_CASE("export --placement sum_1=RS(0) writes the strategy autoparallel offers for that output",
          "[cli][placements][real]") {
  TmpDir d;
  auto r = runCli("export " + real("seed1_fixed/rank0.log") + " --placement 'sum_1=RS(0)' --placements " + d.path +
                  "/p.json");
  INFO(r.out);
  CHECK(r.code == 0);
  const json p = readJsonFile(d.path + "/p.json")["placements"];
  const json theirs = readJsonFile(real("seed1_fixed/save_placements.json"))["placements"];
  // sum_1 (a sum over dim 2) takes its input in RS(0) to give RS(0); index_put's values arrive as produced.
  CHECK(theirs["sum_1"] == json({{"output", "RS(1)"}, {"inputs", {"RS(1)"}}}));
  CHECK(p["sum_1"] == json({{"output", "RS(0)"}, {"inputs", {"RS(0)"}}}));
  CHECK(p["index_put"] == theirs["index_put"]);
  // Nothing else changed.
  json rest = p, theirRest = theirs;
  rest.erase("sum_1");
  theirRest.erase("sum_1");
  CHECK(rest == theirRest);
  // The file the real autoparallel loaded for seed1_edited is this one.
  CHECK(readJsonFile(d.path + "/p.json") == readJsonFile(real("seed1_edited/shardscope_placements.json")));
}

TEST_CASE("the real autoparallel's logs of the loaded exports check clean against the file each loaded",
          "[cli][placements][real]") {
  for (const char* c : {"seed1_loaded", "seed1_edited"}) {
    INFO(c);
    const std::string log = real(std::string(c) + "/rank0.log");
    auto r = runCli("check " + log + " --placements " + real(std::string(c) + "/shardscope_placements.json"));
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(r.out.find("0 errors") != std::string::npos);
    auto alone = runCli("check " + log);
    CHECK(alone.code == 2);
    CHECK(alone.out == log + ": holds no plan (autoparallel's joint graph without autoparallel_solution or "
                             "autoparallel_sharding_optimizer_log: a run that loaded its placements with "
                             "load_placements); give the placements file it loaded: shardscope check " +
                           log + " --placements FILE\n");
  }
  // What the run loaded: the unedited export is the run's own save_placements file.
  CHECK(readJsonFile(real("seed1_loaded/shardscope_placements.json")) ==
        readJsonFile(real("seed1_fixed/save_placements.json")));
}
