// `shardscope teach` as a process: the text per step, and every bad input one line with its exit code.
#include <catch2/catch.hpp>

#include "cli_run.h"

#include <string>

namespace {
ss::test::CliRun run(const std::string& args) { return ss::test::runCli(args); }
}  // namespace

TEST_CASE("teach prints the blocks each step moves, in any notation", "[cli][teach]") {
  // The same redistribute in three notations gives the same text.
  const auto a = run("teach --shape 10,3 --mesh 4 --from 'S(0)' --to 'R'");
  const auto b = run("teach --shape 10,3 --mesh 4 --from '(Shard(dim=0),)' --to '[R, R]'");
  REQUIRE(a.code == 0);
  CHECK(b.code == 0);
  CHECK(a.out == b.out);
  CHECK(a.out.find("tensor [10, 3] f32 on mesh 4\n") == 0);
  CHECK(a.out.find("step 1 of 1: all_gather on mesh dim 0 (dim0): S(0) -> R, 108 B per rank, 9.0 us\n") != std::string::npos);
  CHECK(a.out.find("  round 2 of 3:\n    r0 -> r1: [9:10, 0:3], 3 elements + 6 padding\n") != std::string::npos);
  CHECK(a.out.find("    r3 holds [0:10, 0:3] local [10, 3], sent 108 B, received 108 B\n") != std::string::npos);
  const auto jax = run("teach --shape 8,6 --mesh 2x4 --names dp,tp --from \"P(None, 'tp')\" --to \"P('tp', None)\" --dtype bf16");
  CHECK(jax.code == 0);
  CHECK(jax.out.find("step 1 of 1: all_to_all on mesh dim 1 (tp): S(1) -> S(0), 24 B per rank") != std::string::npos);
}

TEST_CASE("teach errors are one line: exit 2 for bad input, 1 when no redistribute connects the specs", "[cli][teach][errors]") {
  auto r = run("teach --shape 8,6 --mesh 2x4 --from 'RS(x)' --to 'RS(0)'");
  CHECK(r.code == 2);
  CHECK(r.out == "shardscope teach: --from 'RS(x)': expected a tensor dim, found 'x' (column 4)\n");
  // The range check is the parser's (core/placement_parse): it names the spec's first column.
  r = run("teach --shape 8,6 --mesh 2x4 --from 'RS(1)' --to 'RS(2)'");
  CHECK(r.code == 2);
  CHECK(r.out == "shardscope teach: --to 'RS(2)': shard dim 2 is out of range for a tensor with 2 dims (column 1)\n");
  r = run("teach --shape 8,x --mesh 2x4 --from R --to R");
  CHECK(r.code == 2);
  CHECK(r.out == "shardscope teach: --shape '8,x': expected a non-negative size (column 3)\n");
  r = run("teach --shape 8,6 --mesh 4 --from 'S(0)' --to 'P(max)'");
  CHECK(r.code == 1);
  CHECK(r.out == "shardscope teach: mesh dim 0 (dim0): S(0) -> P(max): DTensor turns only a Shard into Partial(sum) "
                 "(the shard written into zeros); a shard cannot become a Partial(max) value\n");
  r = run("teach --shape 8,6 --mesh 4 --from R --to R --dtype q7");
  CHECK(r.code == 2);
  CHECK(r.out == "shardscope teach: --dtype 'q7': unknown dtype (f32, bf16, f16, f64, i64, ...)\n");
  r = run("teach --shape 8,6 --mesh 4 --to R");
  CHECK(r.code == 2);
  CHECK(r.out == "shardscope teach: missing --from (see shardscope teach --help)\n");
  r = run("teach --help");
  CHECK(r.code == 0);
  CHECK(r.out.find("Usage: shardscope teach") == 0);
}
