// The generated LLaMA-like plan and the falcon fixtures through the checker: the generator's specs check clean,
// the autoparallel export of the index_put bug shows the missing redistribute.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/check/check.h"
#include "core/gen/llama.h"
#include "core/io/formats.h"
#include "test_data.h"

using namespace ss;

namespace {
std::string readData(const std::string& name) { return test::readIoData(name); }
}  // namespace

TEST_CASE("the generated plan checks without errors", "[io][gen][check]") {
  gen::LlamaOptions o = gen::LlamaOptions::small(2, 4);
  Plan a = gen::makeLlamaPlan(o);
  Diagnostics d = checkPlan(a);
  for (const auto& x : d.items)
    if (x.severity == Severity::Error)
      FAIL_CHECK((x.node >= 0 ? a.graph.nodes[x.node].name : std::string("plan")) << ": " << x.kind << ": " << x.message);
  CHECK(d.summary().errors == 0);
}

// The checker's reading of exports (core/check/check.cpp): every edge whose src differs from its dst is a transition
// the apply pass inserts, reported on that edge.
TEST_CASE("the autoparallel export of the index_put bug reports the values edge", "[io][autoparallel][check]") {
  auto p = readAutoparallelJson(nlohmann::json::parse(readData("falcon_mqa_joint.autoparallel.json")));
  REQUIRE(p.ok());
  Diagnostics d = checkPlan(*p);
  int ip = p->graph.find("index_put");
  bool flagged = false;
  for (const auto& x : d.items) flagged |= x.node == ip && x.input == 2;
  CHECK(flagged);
}
