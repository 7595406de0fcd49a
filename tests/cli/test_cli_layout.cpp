// The CLI as a process: exact outputs and exit codes.
#include <catch2/catch.hpp>

#include "cli_run.h"

#include <string>

namespace {
ss::test::CliRun run(const std::string& args) { return ss::test::runCli(args); }
}  // namespace

TEST_CASE("layout --json prints exactly the documented document", "[cli]") {
  auto r = run("layout --shape 7,5 --mesh 2x2 --placements 'S(0)S(0)' --json");
  CHECK(r.code == 0);
  CHECK(r.out ==
        "{\"ranks\": [{\"rank\": 0, \"coord\": [0, 0], \"local_shape\": [2, 5], \"offset\": [0, 0]}, "
        "{\"rank\": 1, \"coord\": [0, 1], \"local_shape\": [2, 5], \"offset\": [2, 0]}, "
        "{\"rank\": 2, \"coord\": [1, 0], \"local_shape\": [2, 5], \"offset\": [4, 0]}, "
        "{\"rank\": 3, \"coord\": [1, 1], \"local_shape\": [1, 5], \"offset\": [6, 0]}]}\n");
}

TEST_CASE("layout accepts every notation and marks empty shards", "[cli]") {
  auto a = run("layout --shape 16,128,73,64 --mesh 2x4 --names dim0,dim1 --placements \"P(None, 'dim1')\" --json");
  CHECK(a.code == 0);
  CHECK(a.out.find("{\"rank\": 5, \"coord\": [1, 1], \"local_shape\": [16, 32, 73, 64], \"offset\": [0, 32, 0, 0]}") !=
        std::string::npos);
  auto b = run("layout --shape 5,3 --mesh 4 --placements 'Shard(dim=0)'");
  CHECK(b.code == 0);
  CHECK(b.out.find("[0, 3]                 [5, 0]                 empty") != std::string::npos);
  CHECK(b.out.find("1 of 4 ranks hold an empty shard.") != std::string::npos);
}

TEST_CASE("layout errors are one line with exit 2", "[cli][errors]") {
  auto a = run("layout --shape 7,5 --mesh 2x2 --placements 'S(0)Q(1)'");
  CHECK(a.code == 2);
  CHECK(a.out ==
        "shardscope layout: --placements 'S(0)Q(1)': unknown placement 'Q' (expected S(d), R, P(op), _S(d, sf) or "
        "their long forms) (column 5)\n");
  CHECK(run("layout --shape 7,5 --mesh 2x0 --placements RR").out ==
        "shardscope layout: --mesh '2x0': mesh dim 1 has size 0; sizes must be >= 1\n");
  CHECK(run("layout --shape 7,5 --mesh 2x2").out ==
        "shardscope layout: missing --placements (see shardscope layout --help)\n");
  CHECK(run("layout --bogus 1").code == 2);
  CHECK(run("layout --shape 7,-5 --mesh 2 --placements R").code == 2);
  CHECK(run("layout --shape 7 --mesh 2x2 --placements 'S(1)R'").out ==
        "shardscope layout: --placements 'S(1)R': shard dim 1 is out of range for a tensor with 1 dims (column 1)\n");
}

TEST_CASE("help and version", "[cli]") {
  auto h = run("--help");
  CHECK(h.code == 0);
  CHECK(h.out.find("layout") != std::string::npos);
  auto v = run("--version");
  CHECK(v.out.rfind("shardscope ", 0) == 0);
  auto lh = run("layout --help");
  CHECK(lh.code == 0);
  CHECK(lh.out.rfind("Usage: shardscope layout", 0) == 0);
  CHECK(run("frobnicate").code == 2);
}
