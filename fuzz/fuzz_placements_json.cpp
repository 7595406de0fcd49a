// Fuzz target: the autoparallel `save_placements` reader (ss::applyPlacementsJson) applied to a fixed graph
// (tests/data/io/falcon_mqa_joint.print_readable.py, read once), so the node names in the seed placements file
// match. Properties: errors are one line; applied placements give a valid plan; writing the placements back
// and applying them again gives the same output specs and the same consumed spec on every input the file can
// name (one from a node with an output spec: autoparallel's strategies list no other).
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "fuzz/fuzz_common.h"

namespace {
const ss::Plan& graphPlan() {
  static const ss::Plan plan = [] {
    auto p = ss::loadPlanFile(SHARDSCOPE_SOURCE_DIR "/tests/data/io/falcon_mqa_joint.print_readable.py");
    FUZZ_CHECK(p.ok(), "the fixed graph does not load");
    return std::move(*p);
  }();
  return plan;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = "fuzz.placements.json";
  auto json = ss::parseJsonText(ss::fuzz::asText(data, size));
  if (!json) return 0;
  auto plan = ss::applyPlacementsJson(graphPlan(), *json);
  if (!plan) {
    ss::fuzz::checkOneLineError(plan.error(), file);
    return 0;
  }
  FUZZ_CHECK(plan->validateStructure().empty(), "a plan with applied placements is invalid");
  auto again = ss::applyPlacementsJson(graphPlan(), ss::writePlacementsJson(*plan));
  FUZZ_CHECK(again.ok(), "applyPlacementsJson refuses writePlacementsJson's output");
  const ss::Graph& g = plan->graph;
  for (int i = 0; i < g.size(); ++i) {
    if (g.nodes[i].kind == ss::NodeKind::Output) continue;
    FUZZ_CHECK(again->specs[i].outputs == plan->specs[i].outputs, "output specs do not round-trip");
    for (int k = 0; k < static_cast<int>(g.inputs(i).size()); ++k) {
      bool named = false;
      for (const auto& s : plan->specs[g.inputs(i)[k].node].outputs) named |= s.has_value();
      if (named) FUZZ_CHECK(again->consumerSpec(i, k) == plan->consumerSpec(i, k), "consumed specs do not round-trip");
    }
  }
  return 0;
}
