// Whole real-world FX files: the constructs autoparallel's DeepSeek-V3 repro scripts hold (Python
// preamble, Triton kernels, stub classes, lambda attributes, higher-order ops, dict literals, symbolic scalars,
// MoE ops), in a self-made fixture with hand-checked shapes; applied graphs (local shapes) checked alone.
#include <catch2/catch.hpp>

#include <sstream>

#include "cli_run.h"
#include "core/check/check.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "test_data.h"

using namespace ss;

namespace {
std::vector<std::string> kinds(const Diagnostics& d) {
  std::vector<std::string> out;
  for (const auto& x : d.items) out.push_back(diagKindName(x.kind));
  return out;
}
}  // namespace

TEST_CASE("An applied graph alone: values that do not fit index_put's slot are an error naming both shapes", "[check][fx]") {
  auto broken = loadPlanFile(test::ioData("seed1_applied_missing.print_readable.py"));
  REQUIRE(broken.ok());
  const Diagnostics d = checkPlan(*broken);
  REQUIRE(kinds(d) == std::vector<std::string>{"shape-mismatch"});
  CHECK(d.items[0].severity == Severity::Error);
  CHECK(d.items[0].node == broken->graph.find("index_put"));
  CHECK(d.items[0].input == 2);
  CHECK(d.items[0].message ==
        "index_put: values of shape [16, 32, 1, 64] do not broadcast to the slots they fill in self, [4, 128, 1, 64]");
  auto cli = test::runCli("check " + test::ioData("seed1_applied_missing.print_readable.py"));
  CHECK(cli.code == 1);
  CHECK(cli.out.find("index_put: values of shape [16, 32, 1, 64] do not broadcast to the slots they fill in self, "
                     "[4, 128, 1, 64]") != std::string::npos);

  // The same graph with the all-gather and local chunk the plan asked for: every shape agrees, collectives included.
  auto fixed = loadPlanFile(test::ioData("seed1_applied_fixed.print_readable.py"));
  REQUIRE(fixed.ok());
  CHECK(kinds(checkPlan(*fixed)).empty());
  CHECK(test::runCli("check " + test::ioData("seed1_applied_fixed.print_readable.py")).code == 0);
}
