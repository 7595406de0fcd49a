// Hand-made variants of seed 1's real applied graph (tests/data/real/seed1_fixed, written by autoparallel): each
// wrong thing is exactly one error at the right node.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <stdlib.h>

#include "applied_cases.h"
#include "test_data.h"

#include "core/applied/session.h"
#include "core/check/check.h"

using namespace ss;

namespace {

std::string real(const std::string& name) { return test::realCase(name); }

// Seed 1's joint graph and solution as autoparallel wrote them, with `applied` as the applied graph.
Diagnostics checkWithApplied(const std::string& applied, AppliedSession& out) {
  return test::checkCaseWithApplied("seed1_fixed", applied, out);
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  return test::replacedOnce(std::move(text), from, to);
}

}  // namespace

TEST_CASE("applied variants: the real graph as written is clean", "[applied][real]") {
  AppliedSession s;
  const Diagnostics d = checkWithApplied(test::readFile(real("seed1_fixed/autoparallel_parallel_graph.txt")), s);
  CHECK(d.summary().errors == 0);
  CHECK(d.summary().warnings == 0);
  REQUIRE(s.applied.size() == 1);
  CHECK(s.applied[0].transitionsFound == 5);
}

TEST_CASE("applied variants: a collective on the wrong mesh dim is one error at its consumer", "[applied][real]") {
  // index_put's values gathered over group '1' (mesh dim 0, size 2) instead of '5' (dim 1, size 4), the count
  // unchanged: group '1' then has two sizes; its size-2 use still maps it to dim 0, the size-4 use performs nothing.
  const std::string text = replaced(test::readFile(real("seed1_fixed/autoparallel_parallel_graph.txt")),
                                    "all_gather_into_tensor.default(sum_1, 4, '5')",
                                    "all_gather_into_tensor.default(sum_1, 4, '1')");
  AppliedSession s;
  const Diagnostics d = checkWithApplied(text, s);
  REQUIRE(d.summary().errors == 1);
  const Plan& p = s.plan;
  std::vector<std::string> problems;
  for (const Diagnostic& x : d.items)
    if (x.severity != Severity::Info)
      problems.push_back(std::string(severityName(x.severity)) + " " + diagKindName(x.kind) + " at " +
                         p.graph.nodes[x.node].name + ":" + std::to_string(x.input));
  CHECK(problems == std::vector<std::string>{"error transition-not-applied at index_put:2",
                                             "warning unplanned-collective at index_put:2"});
  const GroupMapping* g1 = nullptr;
  for (const GroupMapping& g : s.applied[0].groups)
    if (g.group == "1") g1 = &g;
  REQUIRE(g1);
  CHECK_FALSE(g1->consistent);
  CHECK(g1->meshDim == 0);
  CHECK(g1->how == "inconsistent: used with group sizes 2 4, mapped by size 2");
  CHECK(s.applied[0].transitionsFound == 4);
}
