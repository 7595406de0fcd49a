// Running a plan is as safe as viewing it: hostile plans (read a file, write a file, deeply nested arguments,
// huge allocations) are refused by check, by `shardscope run`, by the runner child and by the runner library,
// and the files they aim at stay byte-identical. The child's sandbox (descriptors, cwd, limits) and the budget.
// ATen first: its glog CHECK macro must not replace Catch's.
#include "runner/torch_internal.h"
#undef CHECK
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/ops/op_safety.h"
#include "runner/runner.h"
#include "runner/sandbox.h"
#include "exec_direct.h"
#include "runner_test_util.h"

using namespace ss;
using namespace ss::test;

namespace {

// The target: 16 known bytes, as a 4-float tensor would map them.
const std::string kVictimBytes = "precious-data-16";

// FX text (print_readable) of a joint graph whose first op maps `target` (shared: writable) and whose next op
// fills it: run as is, this overwrites the file's first 16 bytes with four 7.0f.
std::string fxWritesFile(const std::string& target) {
  return "class GraphModule(torch.nn.Module):\n"
         "    def forward(self, primals_1: \"f32[4]\", tangents_1: \"f32[]\"):\n"
         "        from_file: \"f32[4]\" = torch.ops.aten.from_file.default('" + target +
         "', True, 4, dtype = torch.float32)\n"
         "        fill_: \"f32[4]\" = torch.ops.aten.fill_.Scalar(from_file, 7.0)\n"
         "        add: \"f32[4]\" = torch.ops.aten.add.Tensor(primals_1, fill_)\n"
         "        sum_1: \"f32[]\" = torch.ops.aten.sum.default(add)\n"
         "        return (sum_1, tangents_1)\n";
}

// Reads the file (not shared) into the loss: its content would leak into the run's report.
std::string fxReadsFile(const std::string& target) {
  return "class GraphModule(torch.nn.Module):\n"
         "    def forward(self, primals_1: \"f32[4]\", tangents_1: \"f32[]\"):\n"
         "        from_file: \"f32[4]\" = torch.ops.aten.from_file.default('" + target +
         "', False, 4, dtype = torch.float32)\n"
         "        add: \"f32[4]\" = torch.ops.aten.add.Tensor(primals_1, from_file)\n"
         "        sum_1: \"f32[]\" = torch.ops.aten.sum.default(add)\n"
         "        return (sum_1, tangents_1)\n";
}

std::string fxDeeplyNested() {
  std::string deep = "1";
  for (int i = 0; i < 40; ++i) deep = "[" + deep + "]";
  return "class GraphModule(torch.nn.Module):\n"
         "    def forward(self, primals_1: \"f32[4]\", tangents_1: \"f32[]\"):\n"
         "        add: \"f32[4]\" = torch.ops.aten.add.Tensor(primals_1, " + deep + ")\n"
         "        sum_1: \"f32[]\" = torch.ops.aten.sum.default(add)\n"
         "        return (sum_1, tangents_1)\n";
}

struct Hostile {
  const char* what;
  std::string node, op;  // the node the refusal names
  std::string text;
};

CliResult runRunner(const std::string& args) { return runProgram(SHARDSCOPE_RUNNER_BINARY, args); }


}  // namespace

TEST_CASE("hostile plans are refused by check, run, the runner child and the runner library; files stay intact",
          "[runner][safety]") {
  TempDir dir("safety-test");
  const std::string victim = dir.file("victim.bin");
  writeBytes(victim, kVictimBytes);
  const std::vector<Hostile> plans = {
      {"writes a file", "from_file", "aten.from_file.default", fxWritesFile(victim)},
      {"reads a file", "from_file", "aten.from_file.default", fxReadsFile(victim)},
      {"nests arguments deeply", "add", "aten.add.Tensor", fxDeeplyNested()},
  };
  for (const Hostile& h : plans) {
    INFO(h.what);
    const std::string planFile = dir.file("hostile.py");
    writeBytes(planFile, h.text);
    const Plan plan = loadOrFail(planFile);  // it parses: a wrong plan opens

    CliResult check = runCli("check '" + planFile + "'");
    INFO(check.output);
    CHECK(check.exitCode == 1);
    CHECK(contains(check.output, "[unsafe-op]"));
    CHECK(contains(check.output, h.op));

    CliResult run = runCli("run '" + planFile + "'");
    INFO(run.output);
    CHECK(run.exitCode == 2);
    CHECK(contains(run.output, planFile + ": refused: node '" + h.node + "' (" + h.op + "): "));

    // The child refuses on its own (it trusts no parent), in both output modes.
    CliResult child = runRunner("'" + planFile + "'");
    INFO(child.output);
    CHECK(child.exitCode == 2);
    CHECK(contains(child.output, "refused: node '" + h.node + "'"));
    CliResult events = runRunner("'" + planFile + "' --events");
    CHECK(events.exitCode == 2);
    CHECK(contains(events.output, "\"stage\":\"unsafe-op\""));

    // The library refuses before anything runs...
    RunReport report = runner::runPlan(plan, RunOptions{});
    REQUIRE(report.error);
    CHECK(report.error->stage == "unsafe-op");
    CHECK(report.error->node == h.node);
    CHECK(report.verdict() == RunVerdict::Refused);
    CHECK(report.exitCode() == 2);
    CHECK(report.batches.empty());

    // ...and the executor refuses the node itself when handed the graph directly.
    const auto direct = runGraphDirectly(plan);
    REQUIRE(direct);
    CHECK(direct->node == h.node);
    CHECK(direct->message.rfind("refused: ", 0) == 0);
    CHECK(readBytes(victim) == kVictimBytes);
  }
  CHECK(readBytes(victim) == kVictimBytes);
}

TEST_CASE("a huge allocation is refused before it runs, or fails at its node when the shapes hide it",
          "[runner][safety][memory]") {
  TempDir dir("safety-test");
  // Announced: the plan's shapes say 4 TiB. Refused by the memory estimate before anything runs (exit 2).
  const std::string announced = dir.file("huge.py");
  writeBytes(announced,
             "class GraphModule(torch.nn.Module):\n"
             "    def forward(self, primals_1: \"f32[4]\", tangents_1: \"f32[]\"):\n"
             "        empty: \"f32[1099511627776]\" = torch.ops.aten.empty.memory_format([1099511627776], dtype = "
             "torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)\n"
             "        sum_1: \"f32[]\" = torch.ops.aten.sum.default(empty)\n"
             "        return (sum_1, tangents_1)\n");
  CliResult run = runCli("run '" + announced + "'");
  INFO(run.output);
  CHECK(run.exitCode == 2);
  // 16 TiB for the run itself + 4 TiB for the reference outputs localisation keeps (the first batch).
  CHECK(contains(run.output, "run refused: this run needs about 20.0 TiB"));

  // Hidden: the plan declares 4 elements but resize_ asks for 2^32 floats (16 GiB). The child's address-space
  // cap (memory allowance 1 GiB + LibTorch's mappings) makes the allocation fail at that node.
  nlohmann::json plan = {
      {"format", "shardscope-plan"}, {"version", 1}, {"name", "hidden_alloc"}, {"mesh", {{"shape", {1}}}},
      {"run", {{"loss", "loss"}, {"batches", 1}}},
      {"nodes",
       {{{"name", "x"}, {"op", "placeholder"}, {"placeholder_kind", "input"},
         {"meta", {{{"shape", {4}}, {"dtype", "f32"}}}}, {"spec", {"R"}}},
        {{"name", "big"}, {"op", "aten.resize_.default"}, {"args", {{{"t", "x"}}, {4294967296}}},
         {"meta", {{{"shape", {4}}, {"dtype", "f32"}}}}, {"spec", {"R"}}},
        {{"name", "loss"}, {"op", "aten.sum.default"}, {"args", {{{"t", "x"}}}},
         {"meta", {{{"shape", nlohmann::json::array()}, {"dtype", "f32"}}}}, {"spec", {"R"}}},
        {{"name", "output"}, {"op", "output"}, {"args", {{{{"t", "loss"}}}}}}}}};
  const std::string hidden = dir.file("hidden.plan.json");
  writeBytes(hidden, plan.dump());
  CliResult child = runRunner("'" + hidden + "' --options '{\"memory_limit_bytes\": 1073741824, \"gradients\": false}'");
  INFO(child.output);
  CHECK(child.exitCode == 3);
  CHECK(contains(child.output, "node big"));
  CHECK(contains(child.output, "alloc"));
}

TEST_CASE("the runner child holds only its pipes, writes no file and works in a private folder", "[runner][safety]") {
  TempDir dir("safety-test");
  // fd 9 is inherited (no close-on-exec): the child must close it.
  CliResult r = runRunner("--sandbox-report 9<'" + std::string(SHARDSCOPE_SAMPLES_DIR) + "/teach_all_reduce.plan.json'");
  INFO(r.output);
  REQUIRE(r.exitCode == 0);
  auto j = nlohmann::json::parse(r.output);
  CHECK(j["fds"] == nlohmann::json::array({0, 1, 2}));
  const std::string cwd = j["cwd"];
  CHECK(cwd.rfind("/tmp/shardscope-run-", 0) == 0);
  CHECK_FALSE(fileExists(cwd));  // removed when the runner ended
  CHECK(j["rlimit_fsize"] == 0);
  CHECK(j["rlimit_core"] == 0);
  CHECK(j["rlimit_nofile"].get<int64_t>() == runner::openFilesFor(8));
}

TEST_CASE("a run past its wall-clock budget stops with stage budget", "[runner][safety][budget]") {
  // A budget far below what seed 1 takes (making its placeholders alone takes longer): the watchdog fires before the
  // first batch ends, so the run stops there whatever the machine's speed.
  RunOptions o;
  o.scale = 4;
  o.batches = 3;
  o.budgetSec = 0.001;
  CliResult r = runRunner("'" + falconPath() + "' --options '" + nlohmann::json(o).dump() + "'");
  INFO(r.output);
  CHECK(r.exitCode == 3);
  CHECK(contains(r.output, "error (budget): the run exceeded its wall-clock budget of 0.001 s (--budget)"));
  CHECK_FALSE(contains(r.output, "batch  reference"));  // no batch ran
}
