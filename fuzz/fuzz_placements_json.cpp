// Fuzz target: the autoparallel `save_placements` reader (ss::applyPlacementsJson) applied to a fixed graph
// (the Falcon index_put sample, loaded once), so the node names in the corpus match.
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/io/formats.h"
#include "core/io/load.h"
#include "fuzz/fuzz_common.h"

namespace {
const ss::Plan& graphPlan() {
  static const ss::Plan plan = [] {
    auto p = ss::loadPlanFile(SHARDSCOPE_SOURCE_DIR "/samples/falcon_index_put_2d.plan.json");
    return p ? std::move(*p) : ss::Plan{};
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
  FUZZ_CHECK(plan->validate().empty(), "a plan with applied placements is invalid");
  return 0;
}
