// Hardening (issue 43): a path naming something other than a regular file is refused up front with one line,
// never waited on. `check` on a FIFO used to block forever in the open (a reader waits for a writer).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include "cli_run.h"

using ss::test::runCli;

TEST_CASE("check and export refuse a FIFO and a device at once, exit 2", "[hardening][cli]") {
  const std::string dir = std::filesystem::temp_directory_path() / ("shardscope-fifo-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string fifo = dir + "/plan.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // A regression blocks here until ctest's timeout fails the test.
  auto r = runCli("check " + fifo);
  CHECK(r.code == 2);
  CHECK(r.out == fifo + ": is a FIFO, not a plan file (shardscope reads regular files only)\n");
  auto e = runCli("export " + fifo + " --native " + dir + "/out.plan.json");
  CHECK(e.code == 2);
  CHECK(e.out.find("is a FIFO, not a plan file") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir + "/out.plan.json"));
  auto d = runCli("check /dev/zero");
  CHECK(d.code == 2);
  CHECK(d.out == "/dev/zero: is a device, not a plan file (shardscope reads regular files only)\n");
  std::filesystem::remove_all(dir);
}
