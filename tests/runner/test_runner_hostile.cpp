// Hostile plans written against the runner's kernels and limits: each ends refused (exit 2) or failed at its node
// (exit 3) with the message that names what was wrong, never a crash and never a verdict. And the OS layers of
// the child's sandbox, tried for real from inside it: what it may not do fails, what a run needs works, and a
// canary file outside its folder never changes.
// ATen first: its glog CHECK macro must not replace Catch's.
#include "runner/torch_internal.h"
#undef CHECK
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "core/model/limits.h"
#include "runner/runner.h"
#include "exec_direct.h"
#include "runner_test_util.h"

using namespace ss;
using namespace ss::test;

namespace {

struct Hostile {
  const char* what;
  std::string text;
  int exitCode;
  std::string message;  // a line of the run's output
};

}  // namespace

TEST_CASE("kernels that trust their arguments get forged ones: refused or failed at the node, never run",
          "[runner][safety][hostile]") {
  TempDir dir("hostile-test");
  const std::vector<Hostile> plans = {
      {"max_pool2d backward with forged indices",
       graph("primals_1: \"f32[1, 1, 4, 4]\"",
             "        ones: \"f32[1, 1, 2, 2]\" = torch.ops.aten.ones.default([1, 1, 2, 2], dtype = torch.float32)\n"
             "        full: \"i64[1, 1, 2, 2]\" = torch.ops.aten.full.default([1, 1, 2, 2], 100000, dtype = torch.int64)\n"
             "        mpb: \"f32[1, 1, 4, 4]\" = torch.ops.aten.max_pool2d_with_indices_backward.default(ones, primals_1, "
             "[2, 2], [2, 2], [0, 0], [1, 1], False, full)\n",
             "mpb"),
       3, "aten::max_pool2d_with_indices_backward: indices holds 100000, outside the input's pooled plane [0, 16)"},
      {"max_pool3d backward with forged indices",
       graph("primals_1: \"f32[1, 1, 2, 4, 4]\"",
             "        ones: \"f32[1, 1, 1, 2, 2]\" = torch.ops.aten.ones.default([1, 1, 1, 2, 2], dtype = torch.float32)\n"
             "        full: \"i64[1, 1, 1, 2, 2]\" = torch.ops.aten.full.default([1, 1, 1, 2, 2], 32, dtype = torch.int64)\n"
             "        mpb: \"f32[1, 1, 2, 4, 4]\" = torch.ops.aten.max_pool3d_with_indices_backward.default(ones, primals_1, "
             "[2, 2, 2], [2, 2, 2], [0, 0, 0], [1, 1, 1], False, full)\n",
             "mpb"),
       3, "aten::max_pool3d_with_indices_backward: indices holds 32, outside the input's pooled plane [0, 32)"},
      {"adaptive_max_pool2d backward with negative indices",
       graph("primals_1: \"f32[1, 1, 4, 4]\"",
             "        ones: \"f32[1, 1, 2, 2]\" = torch.ops.aten.ones.default([1, 1, 2, 2], dtype = torch.float32)\n"
             "        full: \"i64[1, 1, 2, 2]\" = torch.ops.aten.full.default([1, 1, 2, 2], -5000, dtype = torch.int64)\n"
             "        amb: \"f32[1, 1, 4, 4]\" = torch.ops.aten.adaptive_max_pool2d_backward.default(ones, primals_1, full)\n",
             "amb"),
       3, "aten::adaptive_max_pool2d_backward: indices holds -5000, outside the input's pooled plane [0, 16)"},
      {"searchsorted with a forged sorter",
       graph("primals_1: \"f32[8]\", primals_2: \"f32[4]\"",
             "        full: \"i64[8]\" = torch.ops.aten.full.default([8], 1000000, dtype = torch.int64)\n"
             "        ss: \"i64[4]\" = torch.ops.aten.searchsorted.Tensor(primals_1, primals_2, sorter = full)\n"
             "        conv: \"f32[4]\" = torch.ops.aten._to_copy.default(ss, dtype = torch.float32)\n",
             "conv"),
       3, "aten::searchsorted: sorter holds 1000000, outside the sorted dim [0, 8)"},
      {"embedding backward with forged indices",
       graph("primals_1: \"f32[4, 8]\"",
             "        full: \"i64[4]\" = torch.ops.aten.full.default([4], 77777, dtype = torch.int64)\n"
             "        emb: \"f32[16, 8]\" = torch.ops.aten.embedding_dense_backward.default(primals_1, full, 16, -1, False)\n",
             "emb"),
       3, "aten::embedding_dense_backward: indices holds 77777, outside num_weights [0, 16)"},
      {"_reshape_alias past its storage, then filled",
       graph("primals_1: \"f32[4]\"",
             "        clone: \"f32[4]\" = torch.ops.aten.clone.default(primals_1)\n"
             "        ra: \"f32[4]\" = torch.ops.aten._reshape_alias.default(clone, [4], [100000])\n"
             "        fill: \"f32[4]\" = torch.ops.aten.fill_.Scalar(ra, 7.0)\n",
             "fill"),
       3, "aten::_reshape_alias: the view reaches element 300000 of a storage of 4"},
      {"as_strided past its storage",
       graph("primals_1: \"f32[4]\"",
             "        ast: \"f32[4]\" = torch.ops.aten.as_strided.default(primals_1, [4], [1], 1000)\n",
             "ast"),
       3, "aten::as_strided: the view reaches element 1003 of a storage of 4"},
      {"layer norm backward with short mean and rstd (declared)",
       graph("primals_1: \"f32[8, 16]\", primals_2: \"f32[8, 16]\"",
             "        zeros: \"f32[2, 1]\" = torch.ops.aten.zeros.default([2, 1], dtype = torch.float32)\n"
             "        ones: \"f32[2, 1]\" = torch.ops.aten.ones.default([2, 1], dtype = torch.float32)\n"
             "        lnb = torch.ops.aten.native_layer_norm_backward.default(primals_1, primals_2, [16], zeros, ones, "
             "None, None, [True, False, False])\n"
             "        getitem: \"f32[8, 16]\" = lnb[0]\n",
             "getitem"),
       2, "refused: node lnb: the op's inputs do not fit together (input 2): native_layer_norm_backward: mean of "
          "shape [2, 1] holds 2 values"},
      {"unsafe index writes",
       graph("primals_1: \"f32[4]\"",
             "        clone: \"f32[4]\" = torch.ops.aten.clone.default(primals_1)\n"
             "        full: \"i64[2]\" = torch.ops.aten.full.default([2], 1000000, dtype = torch.int64)\n"
             "        ones: \"f32[2]\" = torch.ops.aten.ones.default([2], dtype = torch.float32)\n"
             "        ip: \"f32[4]\" = torch.ops.aten._index_put_impl_.default(clone, [full], ones, False, True)\n",
             "ip"),
       3, "aten::_index_put_impl_: unsafe=True skips the index bounds check"},
  };
  for (const Hostile& h : plans) {
    INFO(h.what);
    const std::string file = dir.file("hostile.py");
    writeBytes(file, h.text);
    CliResult run = runCli("run '" + file + "' --no-localise");
    INFO(run.output);
    CHECK(run.exitCode == h.exitCode);
    CHECK(contains(run.output, h.message));
    CHECK_FALSE(contains(run.output, "verdict: match"));
    CHECK_FALSE(contains(run.output, "crash"));
  }
}

TEST_CASE("a shape error of the checker's rules is refused before the runner starts a kernel", "[runner][safety][hostile]") {
  TempDir dir("hostile-test");
  // mean and rstd declared [2, 1] for an [8, 16] input normalised over 16: one value per row is 8.
  const std::string file = dir.file("ln.py");
  writeBytes(file, graph("primals_1: \"f32[8, 16]\", primals_2: \"f32[8, 16]\", primals_3: \"f32[2, 1]\", primals_4: \"f32[2, 1]\"",
                         "        lnb = torch.ops.aten.native_layer_norm_backward.default(primals_1, primals_2, [16], "
                         "primals_3, primals_4, None, None, [True, False, False])\n"
                         "        getitem: \"f32[8, 16]\" = lnb[0]\n",
                         "getitem"));
  CliResult check = runCli("check '" + file + "'");
  INFO(check.output);
  CHECK(check.exitCode == 1);
  CHECK(contains(check.output, "[shape-mismatch]"));
  CliResult run = runCli("run '" + file + "'");
  INFO(run.output);
  CHECK(run.exitCode == 2);
  CHECK(contains(run.output, "refused: node lnb: the op's inputs do not fit together (input 2): "
                             "native_layer_norm_backward: mean of shape [2, 1] holds 2 values, but input [8, 16] "
                             "normalised over [16] needs 8 (one per row)"));
  const Plan plan = loadOrFail(file);
  RunReport report = runner::runPlan(plan, RunOptions{});
  REQUIRE(report.error);
  CHECK(report.error->stage == "shapes");
  CHECK(report.error->node == "lnb");
  CHECK(report.exitCode() == 2);

  // Handed to the executor directly (no refusal before it), the op's contract stops the kernel at the node.
  const auto direct = runGraphDirectly(plan);
  REQUIRE(direct);
  CHECK(direct->node == "lnb");
  CHECK(direct->message.rfind("aten::native_layer_norm_backward: mean has 2 elements, one per normalised row needs 8", 0) == 0);
}

TEST_CASE("an op that writes through out= is an in-place write: the reference's write does not leak into the ranks",
          "[runner][safety][hostile]") {
  TempDir dir("hostile-test");
  const std::string file = dir.file("mul_out.py");
  // (out= is another placeholder: an out= sharing memory with the op's inputs is refused, runner/op_contracts.h.)
  writeBytes(file, graph("primals_1: \"f32[4, 4]\", primals_2: \"f32[4, 4]\"",
                         "        mul: \"f32[4, 4]\" = torch.ops.aten.mul.out(primals_1, 2, out = primals_2)\n"
                         "        add: \"f32[4, 4]\" = torch.ops.aten.add.Tensor(mul, primals_2)\n",
                         "add"));
  // Without gradients: autograd refuses out= forms on tensors that require them.
  CliResult run = runCli("run '" + file + "' --batches 2 --no-grad");
  INFO(run.output);
  CHECK(run.exitCode == 0);
  CHECK(contains(run.output, "verdict: match"));
}

TEST_CASE("ranks, threads and sizes past what a run takes are refused before anything starts", "[runner][safety][hostile]") {
  TempDir dir("hostile-test");
  auto planWithMesh = [](const nlohmann::json& shape, const nlohmann::json& xShape) {
    return nlohmann::json{
        {"format", "shardscope-plan"}, {"version", 1}, {"name", "big"}, {"mesh", {{"shape", shape}}},
        {"run", {{"loss", "loss"}, {"batches", 1}}},
        {"nodes",
         {{{"name", "x"}, {"op", "placeholder"}, {"placeholder_kind", "input"},
           {"meta", {{{"shape", xShape}, {"dtype", "f32"}}}}, {"spec", {std::string(shape.size(), 'R')}}},
          {{"name", "loss"}, {"op", "aten.sum.default"}, {"args", {{{"t", "x"}}}},
           {"meta", {{{"shape", nlohmann::json::array()}, {"dtype", "f32"}}}}, {"spec", {std::string(shape.size(), 'R')}}},
          {{"name", "output"}, {"op", "output"}, {"args", {{{{"t", "loss"}}}}}}}}}.dump();
  };
  {
    const std::string file = dir.file("ranks.plan.json");
    writeBytes(file, planWithMesh({1024, 1024}, {4}));
    CliResult run = runCli("run '" + file + "'");
    INFO(run.output);
    CHECK(run.exitCode == 2);
    CHECK(contains(run.output, "the mesh has 1048576 ranks; a local run starts one thread per rank and takes at most 128"));
    CliResult child = runProgram(SHARDSCOPE_RUNNER_BINARY, "'" + file + "'");
    CHECK(child.exitCode == 2);
    CHECK(contains(child.output, "refused: the mesh has 1048576 ranks"));
  }
  {
    // 2^31 x 2^31 floats: 2^64 bytes, past int64. The estimate saturates instead of wrapping to a small number.
    const std::string file = dir.file("wrap.plan.json");
    writeBytes(file, planWithMesh({2}, {int64_t{1} << 31, int64_t{1} << 31}));
    CliResult run = runCli("run '" + file + "'");
    INFO(run.output);
    CHECK(run.exitCode == 2);
    CHECK(contains(run.output, "run refused: this run needs about 8.0 EiB"));
    RunOptions o;
    const runner::MemoryEstimate e = runner::estimateMemory(loadOrFail(file), o);
    CHECK(e.totalBytes == std::numeric_limits<int64_t>::max());
  }
  {
    // 2^61 floats: 2^63 bytes, one past INT64_MAX. The total stays INT64_MAX (it once went negative and the plan ran).
    const std::string file = dir.file("negative.plan.json");
    writeBytes(file, planWithMesh({2}, {int64_t{1} << 31, int64_t{1} << 30}));
    CliResult run = runCli("run '" + file + "'");
    INFO(run.output);
    CHECK(run.exitCode == 2);
    CHECK(contains(run.output, "run refused: this run needs about 8.0 EiB"));
  }
  {
    RunOptions o;
    o.threadsPerRank = 1000;
    RunReport r = runner::runPlan(loadOrFail(samplePath("teach_all_reduce.plan.json")), o);
    REQUIRE(r.error);
    CHECK(r.error->stage == "limits");
    CHECK(r.error->message == "--threads-per-rank 1000 is more than 64");
    CHECK(r.exitCode() == 2);
  }
}

TEST_CASE("the runner child is contained by the OS: no writes outside its folder, no exec, no processes, no network",
          "[runner][safety][sandbox]") {
  TempDir dir("hostile-test");
  const std::string canary = dir.file("canary.txt");
  writeBytes(canary, "do not touch");
  ::chmod(canary.c_str(), 0640);
  CliResult r = runProgram(SHARDSCOPE_RUNNER_BINARY, "--sandbox-report '" + canary + "'");
  INFO(r.output);
  REQUIRE(r.exitCode == 0);
  const auto j = nlohmann::json::parse(r.output);
  for (const char* layer : {"network", "no-new-privs", "filesystem", "capabilities", "seccomp"}) {
    INFO(layer);
    CHECK(j["layers"][layer]["active"] == true);
  }
  CHECK(j["complete"] == true);
  const auto& p = j["probes"];
  CHECK(p["create_in_private_folder"] == "ok");
  CHECK(p["loopback"] == "ok");
  CHECK(p["canary_read"] == "EACCES");
  for (const char* denied : {"create_in_home", "create_in_tmp", "canary_write", "canary_unlink", "canary_rename",
                             "read_etc_shadow"}) {
    INFO(denied);
    CHECK(p[denied] == "EACCES");
  }
  // Refused by seccomp before Landlock would see them (truncate by path, chmod, link).
  for (const char* denied : {"canary_truncate", "canary_chmod", "canary_link_into_private_folder", "execve", "fork",
                             "kill_parent", "kill_init", "ptrace_parent", "unix_socket", "netlink_uevent_socket", "mount",
                             "unshare"}) {
    INFO(denied);
    CHECK(p[denied] == "EPERM");
  }
  CHECK(p["connect_outside"] == "ENETUNREACH");
  CHECK(readBytes(canary) == "do not touch");
  struct stat st {};
  REQUIRE(::stat(canary.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
  CHECK_FALSE(fileExists(canary + ".moved"));
  CHECK_FALSE(fileExists(j["cwd"].get<std::string>()));  // the supervisor removed the private folder
}

TEST_CASE("a run reports its sandbox layer by layer, and --require-sandbox runs only when every layer holds",
          "[runner][safety][sandbox]") {
  CliResult run = runCli("run '" + samplePath("teach_all_reduce.plan.json") + "' --require-sandbox");
  INFO(run.output);
  CHECK(run.exitCode == 0);
  CHECK(contains(run.output, "sandbox: network, no-new-privs, filesystem, capabilities, seccomp\n"));
  // The address-space cap follows the memory allowance: 80% of it (what the memory check admits) plus what the
  // child has mapped (LibTorch) and its threads' reservations, measured here at about 1.5 GiB.
  {
    RunOptions o;
    o.memoryLimitBytes = int64_t{2} << 30;
    CliResult events = runProgram(SHARDSCOPE_RUNNER_BINARY, "'" + samplePath("teach_all_reduce.plan.json") +
                                                                "' --events --options '" + nlohmann::json(o).dump() + "'");
    REQUIRE(events.exitCode == 0);
    const std::string last = events.output.substr(events.output.rfind("{\"event\""));
    const auto report = nlohmann::json::parse(last.substr(0, last.find('\n')))["report"];
    const int64_t cap = report["address_space_limit_bytes"];
    INFO(cap);
    CHECK(cap > (int64_t{2} << 30) / 10 * 8);
    CHECK(cap < (int64_t{2} << 30) / 10 * 8 + (int64_t{3} << 30));
  }
  // A distributed run talks over the host's network: its network layer is missing, so --require-sandbox refuses.
  RunOptions o;
  o.distributed = true;
  o.requireSandbox = true;
  CliResult child = runProgram(SHARDSCOPE_RUNNER_BINARY, "'" + samplePath("teach_all_reduce.plan.json") +
                                                             "' --options '" + nlohmann::json(o).dump() + "'");
  INFO(child.output);
  CHECK(child.exitCode == 2);
  CHECK(contains(child.output, "--require-sandbox: this machine cannot contain the run fully: network (a distributed run "
                               "talks to other processes over the host's network)"));
}
