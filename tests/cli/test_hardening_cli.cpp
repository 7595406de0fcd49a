// Hardening: the `shardscope` binary run as a process on hostile flags. Bad input exits 2 with one
// line on stderr; huge but valid input works and allocates nothing tensor-sized.
#include <catch2/catch.hpp>

#include "cli_run.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace {
using Run = ss::test::CliRun;
Run run(const std::string& args) { return ss::test::runCli(args); }
// Exit 2 and exactly one line.
std::string refused(const std::string& args) {
  Run r = run(args);
  INFO(args << " -> " << r.out);
  CHECK(r.code == 2);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
  return r.out;
}
}  // namespace

TEST_CASE("layout: huge meshes and listings are refused in one line", "[hardening][cli]") {
  CHECK(refused("layout --shape 7 --mesh 1048576x2 --placements RR") ==
        "shardscope layout: --mesh '1048576x2': the mesh has more than 1048576 ranks\n");
  CHECK(refused("layout --shape 7 --mesh 2x2x2x2x2x2x2x2x2 --placements RRRRRRRRR") ==
        "shardscope layout: --mesh '2x2x2x2x2x2x2x2x2': a device mesh has at most 8 dims, got 9\n");
  CHECK(refused("layout --shape 7 --mesh 99999999999999999999 --placements 'S(0)'") ==
        "shardscope layout: --mesh '99999999999999999999': expected a mesh dim size (mesh shapes look like 2x4) "
        "(column 1)\n");
  CHECK(refused("layout --shape 1000000000000 --mesh 1024x1024 --placements '_S(0, 1000)S(0)'") ==
        "shardscope layout: the layout would hold up to 1048576 rank(s) x 1000 interval(s); the limit is 16777216 "
        "(use fewer ranks or smaller split factors)\n");
}

TEST_CASE("layout: out-of-range numbers and dims are refused in one line", "[hardening][cli]") {
  CHECK(refused("layout --shape 99999999999999999999 --mesh 2 --placements 'S(0)'") ==
        "shardscope layout: --shape '99999999999999999999': expected a non-negative size (column 1)\n");
  CHECK(refused("layout --shape 7,5 --mesh 2 --placements 'S(5)'") ==
        "shardscope layout: --placements 'S(5)': shard dim 5 is out of range for a tensor with 2 dims (column 1)\n");
  CHECK(refused("layout --shape 7 --mesh 2 --placements 'S(99999999999)'") ==
        "shardscope layout: --placements 'S(99999999999)': a tensor dim 99999999999 is out of range (column 3)\n");
  CHECK(refused("layout --shape 7 --mesh 2 --placements '_S(0,0)'") ==
        "shardscope layout: --placements '_S(0,0)': split factor must be >= 1 (column 6)\n");
  CHECK(refused("layout --shape , --mesh 2 --placements R") ==
        "shardscope layout: --shape ',': expected a non-negative size (column 1)\n");
}

TEST_CASE("layout: a newline inside a flag value does not break the one-line message", "[hardening][cli]") {
  const std::string out = refused("layout --shape 7 --mesh 2x4 --names dp,tp --placements \"P(('d\np', 'tp'))\"");
  CHECK(out.find("no mesh dim is named 'd\\np'") != std::string::npos);
}

TEST_CASE("layout: 10^12 elements and 2^20 ranks work", "[hardening][cli]") {
  Run big = run("layout --shape 1000000,1000000 --mesh 2x4 --placements 'S(0)S(1)' --json");
  CHECK(big.code == 0);
  CHECK(big.out.find("{\"rank\": 7, \"coord\": [1, 3], \"local_shape\": [500000, 250000], \"offset\": [500000, 750000]}") !=
        std::string::npos);
  Run ranks = run("layout --shape 7 --mesh 1048576 --placements 'S(0)'");
  CHECK(ranks.code == 0);
  CHECK(ranks.out.find("1048569 of 1048576 ranks hold an empty shard.") != std::string::npos);
}
