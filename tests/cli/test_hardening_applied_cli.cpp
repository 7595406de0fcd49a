// Hardening (issue 43): `check` of an applied graph with hostile group sizes, as the red team ran it: the file
// opens (exit 1, errors at the collectives) or a flag is refused with one line (exit 2); never "internal error".
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "cli_run.h"
#include "test_data.h"
#include "trace_cases.h"

using ss::test::runCli;

TEST_CASE("check of an applied graph with a 2^20-rank group opens; --group past the mesh is refused", "[hardening][applied][cli]") {
  const std::string dir = std::filesystem::temp_directory_path() / ("shardscope-applied-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string text = ss::test::readFile(ss::test::trace("seed1_applied_only.txt"));
  const std::string from = "(view, 2, '1')";
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(), "(view, 1048576, '1')");
  const std::string file = dir + "/applied.txt";
  std::ofstream(file) << text;
  // Was: "shardscope check: FILE: internal error: vector::_M_range_check: __n (which is 1) >= this->size() (which is 1)".
  auto r = runCli("check " + file);
  CHECK(r.code == 1);
  CHECK(r.out.rfind("applied graph alone: 35 nodes, mesh 1 (none inferred: the group sizes of its collectives (1048576 "
                    "on group '1', 4 on group '2') make no mesh of at most 1048576 ranks and 8 dims), 4 collectives\n", 0) == 0);
  CHECK(r.out.find("3 errors, 0 warnings, 0 infos\n") != std::string::npos);
  CHECK(r.out.find("internal error") == std::string::npos);
  // Was the same internal error: a --group naming mesh dim 1048576 of the inferred 2x4 mesh.
  auto g = runCli("check " + ss::test::trace("seed1_applied_only.txt") + " --group 2=1048576");
  CHECK(g.code == 2);
  CHECK(g.out == "--group 2=1048576: the mesh 2x4 has mesh dims 0 to 1\n");
  std::filesystem::remove_all(dir);
}
