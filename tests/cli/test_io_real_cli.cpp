// What the real tools wrote: tests/data/real/ holds the TORCH_TRACE logs and artifacts that autoparallel and
// PyTorch themselves wrote when scripts/real_artifacts.sh ran them (tests/data/real/README.md: how, which
// versions). Every reader reads them exactly as written; the checker's verdicts on them are the user's.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli_run.h"
#include "test_data.h"

#include "core/applied/applied.h"
#include "core/applied/session.h"
#include "core/check/check.h"
#include "core/io/autoparallel/artifacts.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/io/trace/trace_log.h"
#include "core/model/placement_parse.h"

using namespace ss;

namespace {

std::string real(const std::string& name) { return std::string(SHARDSCOPE_TESTDATA_DIR) + "/real/" + name; }

// The one log of a case's folder (seed1_buggy keeps the name torch gave it).
std::string logOf(const std::string& c) {
  if (c == "seed1_buggy") return real(c + "/dedicated_log_torch_trace_rank_0_trj4f_tb.log");
  return real(c + "/rank0.log");
}

const char* const kCases[] = {"seed1_fixed", "seed1_buggy", "llama3_1d", "llama3_2d", "conv"};



}  // namespace

TEST_CASE("real solutions alone: autoparallel's own ops are checked, not refused", "[io][real][cli]") {
  for (const char* c : kCases) {
    INFO(c);
    auto r = test::runCli("check " + real(std::string(c) + "/autoparallel_solution.json"));
    CHECK(r.code == 0);
    CHECK(r.out.find("\n0 errors, 0 warnings, ") != std::string::npos);
    CHECK(r.out.find("[unsafe-op]") == std::string::npos);
    // autoparallel's cast and its einsum linears have rules: no node of either is left unchecked.
    CHECK(r.out.find("[unchecked-op]: no sharding rule for autoparallel.dtype_cast") == std::string::npos);
    CHECK(r.out.find("[unchecked-op]: no sharding rule for aten.einsum") == std::string::npos);
  }
}

TEST_CASE("real logs: the verdicts (seed 1 buggy fails at index_put; the fixed log and every model are clean)", "[io][real][cli][applied]") {
  auto bug = test::runCli("check " + logOf("seed1_buggy"));
  INFO(bug.out);
  CHECK(bug.code == 1);
  CHECK(bug.out.rfind("applied graph on rank 0 (0, 0): 24 of 24 plan nodes matched, 2 collectives, 4 of 5 planned "
                      "transitions found; group '1' -> mesh dim 0 (dim0) (size); group '5' -> mesh dim 1 (dim1) (size)\n", 0) == 0);
  CHECK(bug.out.find("error: index_put (input 2) [transition-not-applied]: the planned RS(1) -> RS(0) (all_to_all on "
                     "mesh dim 1 (dim1), 48.0 KiB per rank) is not in the applied graph: on rank 0 (0, 0) index_put "
                     "input 2 (values) receives local [16, 32, 1, 64] where RS(0) needs [4, 128, 1, 64]\n") != std::string::npos);
  CHECK(bug.out.find("  fix: the apply pass must insert all_to_all on mesh dim 1 (dim1), 48.0 KiB, 9.3 us on the edge "
                     "sum_1 -> index_put (input 2)\n") != std::string::npos);
  CHECK(bug.out.find("\n1 error, 0 warnings, 5 infos") != std::string::npos);
  // The fixed log: the planned all-to-all, done the CPU way (all-gather + split/cat), is found.
  auto fixed = test::runCli("check " + logOf("seed1_fixed"));
  CHECK(fixed.code == 0);
  CHECK(fixed.out.rfind("applied graph on rank 0 (0, 0): 24 of 24 plan nodes matched, 3 collectives, 5 of 5 planned "
                        "transitions found", 0) == 0);
  for (const char* c : {"seed1_fixed", "llama3_1d", "llama3_2d", "conv"}) {
    auto r = test::runCli("check " + logOf(c));
    INFO(c << "\n" << r.out);
    CHECK(r.code == 0);
    CHECK(r.out.find("\n0 errors, 0 warnings, ") != std::string::npos);
    CHECK(r.out.find("[unplanned-collective]") == std::string::npos);
    CHECK(r.out.find("[local-shape-mismatch]") == std::string::npos);
  }
  // Every artifact form of every case, given as separate files: the same verdicts.
  for (const char* c : kCases) {
    const std::string d = real(c) + "/";
    const int want = std::string(c) == "seed1_buggy" ? 1 : 0;
    INFO(c);
    CHECK(test::runCli("check " + d + "autoparallel_joint_graph.txt --solution " + d + "autoparallel_solution.json --applied " +
                       d + "autoparallel_parallel_graph.txt").code == want);
    CHECK(test::runCli("check " + d + "autoparallel_sharding_optimizer_log.txt --applied " + d +
                       "autoparallel_parallel_graph.txt").code == want);
    CHECK(test::runCli("check " + d + "autoparallel_joint_graph.txt --placements " + d + "save_placements.json").code == 0);
    CHECK(test::runCli("check " + d + "joint_graph_expanded_def.txt").code == 0);
  }
  // The log's folder (TORCH_TRACE's own layout) reads as the log.
  auto dir = test::runCli("check " + real("seed1_buggy"));
  CHECK(dir.code == 1);
  CHECK(dir.out.find("[transition-not-applied]") != std::string::npos);
}

TEST_CASE("a real applied graph alone: its mesh from its groups (2x4 with the flattened group of 8)", "[io][real][applied][cli]") {
  auto r = test::runCli("check " + real("llama3_2d/autoparallel_parallel_graph.txt"));
  INFO(r.out);
  CHECK(r.out.rfind("applied graph alone: 1149 nodes, mesh 2x4 (inferred from its collectives), 22 collectives\n", 0) == 0);
  CHECK(r.out.find("all_gather on the flattened mesh: 14 x") != std::string::npos);
  CHECK(r.out.find("unmapped") == std::string::npos);
}

TEST_CASE("real applied graphs alone: shapes checked through collectives (seed 1's bug found, the others clean)",
          "[io][real][applied][cli]") {
  auto bug = test::runCli("check " + real("seed1_buggy/autoparallel_parallel_graph.txt"));
  INFO(bug.out);
  CHECK(bug.code == 1);
  CHECK(bug.out.find("error: index_put (input 2) [shape-mismatch]: index_put: values of shape [16, 32, 1, 64] do not "
                     "broadcast to the slots they fill in self, [4, 128, 1, 64]\n1 error, 0 warnings, 0 infos\n") !=
        std::string::npos);
  for (const char* c : {"seed1_fixed", "llama3_1d", "llama3_2d"}) {
    auto r = test::runCli("check " + real(std::string(c) + "/autoparallel_parallel_graph.txt"));
    INFO(c << "\n" << r.out);
    CHECK(r.code == 0);
    CHECK(r.out.find("\n0 errors, 0 warnings, ") != std::string::npos);
    CHECK(r.out.find("[shape-mismatch]") == std::string::npos);
  }
  auto conv = test::runCli("check " + real("conv/autoparallel_parallel_graph.txt"));
  INFO(conv.out);
  CHECK(conv.code == 0);
  // Every op of the real convolution graph has a rule now, and autoparallel's shardings pass it.
  CHECK(conv.out.find("\n0 errors, 0 warnings, 0 infos\n36 of 36 op nodes checked by a sharding rule\n") !=
        std::string::npos);
}
