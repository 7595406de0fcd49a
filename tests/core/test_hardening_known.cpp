// Hardening (issue 7): findings of the fuzzers in code other areas own. Each replays the exact input from
// fuzz/known/<target>/. Tagged [!mayfail] until the owner lands the fix (described in docs/reliability.md);
// then move the input to fuzz/regressions/<target>/ and drop the tag.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>

#include "core/io/formats.h"
#include "core/io/load.h"
#include "core/io/plan_json.h"

using namespace ss;

namespace {
std::string readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f.good());
  return std::string(std::istreambuf_iterator<char>(f), {});
}
std::string known(const std::string& target, const std::string& name) {
  return readFile(std::string(SHARDSCOPE_SOURCE_DIR) + "/fuzz/known/" + target + "/" + name);
}
std::string data(const std::string& name) { return std::string(SHARDSCOPE_TESTDATA_DIR) + "/io/" + name; }
}  // namespace

TEST_CASE("FX reader: a logical line whose indent runs past its end is an error, not an exception",
          "[hardening]") {
  // core/io/fx_text.cpp FxReader::read: lineText(ll).substr(ll.indent) throws std::out_of_range (indent 224 >
  // size 36) on this input (an unterminated string annotation spanning lines).
  const std::string text = known("fuzz_fx_text", "indent-past-line-end");
  Result<Plan> p = Error{"not run"};
  REQUIRE_NOTHROW(p = readFxText(text));
  if (!p.ok()) CHECK(p.error().toString("x.py").find('\n') == std::string::npos);
}

TEST_CASE("native format keeps kwarg order, so input indices survive save and load", "[hardening]") {
  // core/io/plan_json.cpp reads "kwargs" through nlohmann::json (keys sorted), so an FX-imported full(...,
  // dtype=, layout=, device=) comes back as device, dtype, layout. Tensor inputs are numbered over kwargs in
  // order, so a reorder can move input indices. Fix: read kwargs in file order (ordered_json or a pair list).
  auto p = loadPlanText(known("fuzz_load_plan", "fx-kwargs-order"), "x.py");
  REQUIRE(p.ok());
  const std::string written = writePlanString(*p);
  auto again = loadPlanText(written, "y.plan.json");
  REQUIRE(again.ok());
  CHECK(writePlanString(*again) == written);
}

TEST_CASE("native format: an FX get_attr node stays a buffer placeholder after save and load", "[hardening]") {
  // Found by fuzz_load_plan: the native reader made every op other than placeholder/output a call, so get_attr
  // nodes came back as calls without args. Fixed in core/io/plan_json.cpp.
  auto p = loadPlanFile(data("falcon_mqa_joint.print_readable.py"));
  REQUIRE(p.ok());
  const int c = p->graph.find("_tensor_constant0");
  REQUIRE(c >= 0);
  REQUIRE(p->graph.nodes[c].kind == NodeKind::Placeholder);
  auto again = loadPlanText(writePlanString(*p), "y.plan.json");
  REQUIRE(again.ok());
  const Node& n = again->graph.nodes[again->graph.find("_tensor_constant0")];
  CHECK(n.op == "get_attr");
  CHECK(n.kind == NodeKind::Placeholder);
  CHECK(n.placeholderKind == PlaceholderKind::Buffer);
  CHECK(n.args.empty());
}
