#pragma once
// What this build of shardscope is, for `shardscope --version`: generated at build time (cmake/build_info.cmake
// writes build_info.cpp into the build tree, rewritten only when a value changes).
namespace ss::app {

struct BuildInfo {
  const char* version;      // the project's version (CMake's project(VERSION))
  const char* gitRevision;  // `git describe --always --dirty` of the source tree, or "unknown" outside git
  const char* torch;        // the LibTorch the runner was built against ("1.13.0 (CPU)"), or "none"
};

BuildInfo buildInfo();

}  // namespace ss::app
