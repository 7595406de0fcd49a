// `shardscope gen` and `shardscope export` as processes: files they write read back, exit codes, errors.
#include <catch2/catch.hpp>

#include "cli_run.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "core/io/formats.h"
#include "core/io/load/load.h"

using namespace ss;

namespace {
using Run = ss::test::CliRun;
Run run(const std::string& args) { return ss::test::runCli(args); }
std::string tmpDir() {
  auto d = std::filesystem::temp_directory_path() / ("shardscope_cli_io_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d.string();
}
std::string data(const std::string& name) { return std::string(SHARDSCOPE_TESTDATA_DIR) + "/io/" + name; }
}  // namespace

TEST_CASE("gen writes every format and they load back as the same graph", "[cli][io]") {
  std::string d = tmpDir();
  const std::string sizes = "--layers 1 --batch 2 --seq 32 --hidden 128 --heads 4 --ffn 256 --vocab 100";
  auto a = run("gen " + sizes + " -o " + d + "/g.plan.json");
  CHECK(a.code == 0);
  CHECK(a.out == "wrote " + d + "/g.plan.json (native, 355 nodes, 1 layers, mesh 2x4 (dp, tp))\n");
  CHECK(run("gen " + sizes + " --format fx -o " + d + "/g.py").code == 0);
  CHECK(run("gen " + sizes + " --format placements -o " + d + "/p.json").code == 0);
  CHECK(run("gen " + sizes + " --format autoparallel -o " + d + "/g.json").code == 0);
  auto native = loadPlanFile(d + "/g.plan.json");
  REQUIRE(native.ok());
  auto fx = loadPlanWithPlacements(d + "/g.py", d + "/p.json");
  REQUIRE(fx.ok());
  auto ap = loadPlanFile(d + "/g.json");
  REQUIRE(ap.ok());
  CHECK(fx->graph.size() == 355);
  CHECK(ap->graph.size() == 355);
  for (int i = 0; i < native->graph.size(); ++i) {
    CHECK(fx->graph.nodes[i].name == native->graph.nodes[i].name);
    CHECK(fx->specs[i].outputs == native->specs[i].outputs);
    CHECK(ap->specs[i].outputs == native->specs[i].outputs);
  }
  std::filesystem::remove_all(d);
}

TEST_CASE("export writes placements autoparallel reads, and the other formats", "[cli][io]") {
  std::string d = tmpDir();
  auto r = run("export " + data("falcon_mqa_joint.autoparallel.json") + " --placements " + d + "/p.json --fx " + d +
               "/g.py --native " + d + "/n.plan.json --autoparallel " + d + "/a.json");
  CHECK(r.code == 0);
  CHECK(r.out == "wrote " + d + "/p.json (placements)\nwrote " + d + "/a.json (autoparallel)\nwrote " + d +
                     "/g.py (fx)\nwrote " + d + "/n.plan.json (native)\n");
  std::ifstream f(d + "/p.json");
  nlohmann::json p = nlohmann::json::parse(f);
  CHECK(p["version"] == 1);
  CHECK(p["mesh_shape"] == nlohmann::json({2, 4}));
  CHECK(p["placements"]["index_put"]["inputs"] == nlohmann::json({"RS(0)", "RR", "RS(0)"}));
  auto back = loadPlanWithPlacements(data("falcon_mqa_joint.print_readable.py"), d + "/p.json");
  REQUIRE(back.ok());
  CHECK(back->specs[back->graph.find("index_put")].outputs[0]->toMeshString() == "RS(0)");
  r = run("export " + data("falcon_mqa_joint.print_readable.py") + " --with-placements " +
          data("falcon_mqa_joint.placements.json") + " --placements " + d + "/p2.json --placements-style output-only");
  CHECK(r.code == 0);
  std::ifstream f2(d + "/p2.json");
  nlohmann::json p2 = nlohmann::json::parse(f2);
  CHECK(p2["placements"]["index_put"] == "RS(0)");
  std::filesystem::remove_all(d);
}

TEST_CASE("gen and export refuse bad input with exit 2 and one located line", "[cli][io]") {
  auto r = run("gen --layers 1 --format yaml -o /tmp/x");
  CHECK(r.code == 2);
  CHECK(r.out == "shardscope gen: --format 'yaml': expected native, autoparallel, placements or fx\n");
  r = run("gen --layers x -o /tmp/x");
  CHECK(r.code == 2);
  CHECK(r.out == "shardscope gen: --layers 'x': expected a non-negative integer\n");
  r = run("gen --layers 1 --heads 5 -o /tmp/x");
  CHECK(r.code == 2);
  CHECK(r.out == "shardscope gen: llama generator: hidden must be heads x an even head dim\n");
  r = run("export " + data("falcon_mqa_joint.autoparallel.json"));
  CHECK(r.code == 2);
  CHECK(r.out == "shardscope export: nothing to write: give --placements, --autoparallel, --fx or --native\n");
  r = run("export " + data("falcon_mqa_joint.placements.json") + " --fx /tmp/never.py");
  CHECK(r.code == 2);
  CHECK(r.out.find(data("falcon_mqa_joint.placements.json")) == 0);
}
