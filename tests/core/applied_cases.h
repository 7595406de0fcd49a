#pragma once
// Test helpers for the real cases (tests/data/real/<case>/): a session of one file, a case checked with a
// hand-made applied graph in place of its own, and one-spot text replacement for making those variants. Shared by
// the applied-graph tests of seed 1 and of the models, and the AutoSP ones.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "test_data.h"

#include "core/applied/session.h"
#include "core/check/check.h"

namespace ss::test {

inline std::string realCase(const std::string& name) { return std::string(SHARDSCOPE_TESTDATA_DIR) + "/real/" + name; }

// Case `c`'s joint graph and solution as autoparallel wrote them, with `applied` as the applied graph.
inline Diagnostics checkCaseWithApplied(const std::string& c, const std::string& applied, AppliedSession& out) {
  // A folder of its own per call: ctest runs the cases of a file in parallel processes.
  std::string tmpl = (std::filesystem::temp_directory_path() / "shardscope-applied-case-XXXXXX").string();
  REQUIRE(mkdtemp(tmpl.data()) != nullptr);
  const std::string dir = tmpl;
  {
    std::ofstream f(dir + "/applied.txt");
    f << applied;
  }
  SessionInputs in;
  in.primary = realCase(c + "/autoparallel_joint_graph.txt");
  in.solution = realCase(c + "/autoparallel_solution.json");
  in.applied = dir + "/applied.txt";
  auto s = loadSession(in);
  INFO((s.ok() ? std::string() : s.error().toString()));
  REQUIRE(s.ok());
  out = std::move(*s);
  Diagnostics d = checkSession(out);
  std::filesystem::remove_all(dir);
  return d;
}

// The session of one file or folder (a log, a graph), which must load and hold a plan.
inline AppliedSession openSession(const std::string& path) {
  SessionInputs in;
  in.primary = path;
  auto s = loadSession(in);
  INFO((s.ok() ? std::string() : s.error().toString()));
  REQUIRE(s.ok());
  REQUIRE(s->hasPlan);
  return std::move(*s);
}

// `text` with its first `from` replaced by `to` (which must be there).
inline std::string replacedOnce(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace ss::test
