// Which of the op overloads DTensor 2.14.1 registers a sharding strategy for have a rule in core's op table:
// tests/dtensor/dtensor_ops_2.14.json is DTensor's own list (scripts/dtensor_ops.py in the sid root). The counts
// are exact, so every rule added or lost shows here.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "core/ops/op_safety.h"
#include "core/ops/op_table.h"

using namespace ss;

namespace {
nlohmann::json dtensorOps() {
  std::ifstream f(std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/dtensor/dtensor_ops_2.14.json");
  REQUIRE(f.good());
  return nlohmann::json::parse(f);
}
}  // namespace

TEST_CASE("DTensor 2.14.1's op list: every overload has a rule or a replicate-only entry", "[dtensor][op_table]") {
  const nlohmann::json j = dtensorOps();
  CHECK(j["torch_version"].get<std::string>().rfind("2.14.1", 0) == 0);
  REQUIRE(j["ops"].size() == 1239);
  int ruled = 0, replicateOnly = 0;
  std::set<std::string> names, ruledNames, uncovered;
  for (const auto& o : j["ops"]) {
    const std::string op = o["op"];
    const std::string key(rules::ruleKeyView(op));
    names.insert(key);
    const ops::OpEntry* e = ops::findOp(op);
    if (!e || !e->sharding) {
      uncovered.insert(op);
      continue;
    }
    ++ruled;
    replicateOnly += !e->replicateOnlyWhy.empty();
    ruledNames.insert(key);
    // A ruled aten op the runner refuses would turn a plan check understands into an unsafe-op error. (prims
    // ops share aten's key and rule; the runner, a LibTorch without Python's prims, runs only a few of them.)
    INFO(op);
    // Unless the runner refuses it on purpose, with the reason `shardscope ops` shows (a kernel the op campaign
    // broke and no contract can hold: core/ops/op_table.cpp's refused entries).
    if (op.rfind("aten.", 0) == 0 && !e->refused) CHECK(isPureTensorOp(op));
    if (e->refused) CHECK(e->refusedWhy.size() > 20);
    // A replicate-only entry always says why.
    if (!e->replicateOnlyWhy.empty()) CHECK(e->replicateOnlyWhy.size() > 20);
  }
  CHECK(names.size() == 632);  // distinct rule keys (prims and aten spellings of one op share a key)
  CHECK(ruled == 1239);
  CHECK(replicateOnly == 20);
  CHECK(ruledNames.size() == 632);
  // Every overload is covered (the last were float8's _scaled_mm.default and .out, core/rules/scaled_mm.cpp):
  // an op without a rule fails here.
  CHECK(uncovered.empty());
}

TEST_CASE("DTensor's pointwise family: how many core checks", "[dtensor][op_table][rules]") {
  // DTensor registers 728 overloads through its pointwise family, list ops (_foreach_*, _fused_adam*) included:
  // core has a rule for every one.
  const nlohmann::json j = dtensorOps();
  int family = 0, ruled = 0;
  for (const auto& o : j["ops"]) {
    if (o["fn"].get<std::string>().find("._pointwise_ops.") == std::string::npos) continue;
    ++family;
    const ops::OpEntry* e = ops::findOp(o["op"].get<std::string>());
    ruled += e && e->sharding;
  }
  CHECK(family == 728);
  CHECK(ruled == 728);
}
