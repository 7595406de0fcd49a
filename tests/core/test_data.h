#pragma once
// Test inputs kept in the tree: tests/data/io/ fixtures and fuzz/regressions/ crash inputs, read whole (bytes as
// they are). A missing file fails the test that asked for it.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>

namespace ss::test {

inline std::string readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  INFO(path);
  REQUIRE(f.good());
  return std::string(std::istreambuf_iterator<char>(f), {});
}
// Path of tests/data/io/NAME.
inline std::string ioData(const std::string& name) { return std::string(SHARDSCOPE_TESTDATA_DIR) + "/io/" + name; }
// Contents of tests/data/io/NAME.
inline std::string readIoData(const std::string& name) { return readFile(ioData(name)); }
// Contents of fuzz/regressions/TARGET/NAME.
inline std::string readRegression(const std::string& target, const std::string& name) {
  return readFile(std::string(SHARDSCOPE_SOURCE_DIR) + "/fuzz/regressions/" + target + "/" + name);
}

}  // namespace ss::test
