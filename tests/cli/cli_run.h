#pragma once
// Runs the built `shardscope` binary as a process (path from SHARDSCOPE_BINARY) and captures its exit code and
// its stdout and stderr together, in order. Shared by the CLI tests.
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace ss::test {

struct CliRun {
  int code;         // exit status; -1 when the process did not exit normally
  std::string out;  // stdout and stderr interleaved
};

inline CliRun runCli(const std::string& args) {
  const std::string cmd = std::string(SHARDSCOPE_BINARY) + " " + args + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  REQUIRE(f);
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) out.append(buf.data(), n);
  const int status = pclose(f);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace ss::test
