// TORCH_TRACE logs and autoparallel's artifacts: the record reader (md5, interned names, damaged logs), format
// detection, joint graph + solution -> one Plan, the optimizer log. Fixtures: tests/data/trace/ (written by
// samples/gen/trace_log.py from tests/data/io/falcon_mqa_joint.*).
#include <catch2/catch.hpp>

#include "cli_run.h"
#include "test_data.h"

#include "core/io/autoparallel/artifacts.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/io/trace/md5.h"
#include "core/io/trace/trace_log.h"
#include "core/model/placement_parse.h"

using namespace ss;

namespace {
std::string trace(const std::string& name) { return std::string(SHARDSCOPE_TESTDATA_DIR) + "/trace/" + name; }
std::string readTrace(const std::string& name) { return test::readFile(trace(name)); }
const std::string kTl = "seed1_tlparse/-_0_0_0/";
}  // namespace

TEST_CASE("damaged logs are refused at their line", "[io][trace][cli]") {
  auto md5 = test::runCli("check " + trace("damaged_md5.log"));
  CHECK(md5.code == 2);
  CHECK(md5.out == trace("damaged_md5.log") +
                       ":126:1: the payload of this artifact 'autoparallel_solution' record does not match its md5: "
                       "has_payload is 955af69ac49e2e75b70e00eb47a2c3ad, the 1 payload lines hash to "
                       "7c895c4808868e641a66294cb972821b (the log was edited or damaged)\n");
  auto cut = test::runCli("check " + trace("damaged_truncated.log"));
  CHECK(cut.code == 2);
  CHECK(cut.out == trace("damaged_truncated.log") +
                       ":128:1: the payload of this artifact 'autoparallel_parallel_graph' record is cut short: the file "
                       "ends before its md5 2e45ae3638d5a7a4b116a4beb1717c93 matches\n");
  auto env = test::runCli("check " + trace("damaged_envelope.log"));
  CHECK(env.code == 2);
  CHECK(env.out.rfind(trace("damaged_envelope.log") + ":126:345: the record's envelope is not valid JSON: ", 0) == 0);
  // The same through the generic loader (the app's path).
  auto p = loadPlanFile(trace("damaged_md5.log"));
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().line == 126);
}

TEST_CASE("the optimizer log alone gives the solution's placements", "[io][trace]") {
  const std::string text = readTrace(kTl + "autoparallel_sharding_optimizer_log.txt");
  CHECK(optimizerLogMeshDims(text).value() == 2);
  auto opt = readOptimizerLog(text, DeviceMesh({2, 4}, {"dim0", "dim1"}));
  REQUIRE(opt.ok());
  auto merged = loadPlanFile(trace("seed1_missing.log"));
  REQUIRE(merged.ok());
  REQUIRE(opt->graph.size() == merged->graph.size());
  for (int i = 0; i < opt->graph.size(); ++i) {
    INFO(opt->graph.nodes[i].name);
    CHECK(opt->graph.nodes[i].name == merged->graph.nodes[i].name);
    if (opt->graph.nodes[i].kind == NodeKind::Output) continue;
    CHECK(opt->specs[i].outputs == merged->specs[i].outputs);
    if (opt->graph.nodes[i].kind == NodeKind::Call) CHECK(opt->specs[i].inputs == merged->specs[i].inputs);
  }
  // Without a mesh the sizes are unknown: refused, saying what to pass.
  auto cli = test::runCli("check " + trace(kTl + "autoparallel_sharding_optimizer_log.txt"));
  CHECK(cli.code == 2);
  CHECK(cli.out == trace(kTl + "autoparallel_sharding_optimizer_log.txt") +
                       ": the optimizer log gives placements on a 2-dim mesh but not its sizes: pass --mesh (e.g. --mesh 2x4)\n");
}
