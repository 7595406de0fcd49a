#pragma once
// Helpers shared by the runner tests: sample loading and running the CLI as a process.
#include <cstdio>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>

#include "core/io/load.h"
#include "core/plan.h"

namespace ss::test {

inline bool fileExists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

inline std::string samplePath(const std::string& name) { return std::string(SHARDSCOPE_SAMPLES_DIR) + "/" + name; }

// Seed 1 as shipped (samples/gen/falcon_index_put.py).
inline std::string falconPath() { return samplePath("falcon_index_put_2d.plan.json"); }

inline Plan loadOrFail(const std::string& path) {
  auto p = loadPlanFile(path);
  if (!p) throw std::runtime_error(p.error().toString(path));
  return *p;
}

struct CliResult {
  int exitCode = -1;
  std::string output;  // stdout + stderr
};

// Runs `binary args` with stderr folded into stdout.
inline CliResult runProgram(const std::string& binary, const std::string& args) {
  std::string cmd = binary + " " + args + " 2>&1";
  CliResult r;
  FILE* f = ::popen(cmd.c_str(), "r");
  if (!f) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) r.output.append(buf, n);
  int status = ::pclose(f);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline CliResult runCli(const std::string& args) { return runProgram(SHARDSCOPE_BINARY, args); }

}  // namespace ss::test
