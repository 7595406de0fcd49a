// Fuzz target: the native plan reader alone (ss::parseJsonText + ss::planFromJson), so mutations are not
// spent on format detection. Properties as fuzz_load_plan.
#include <cstdint>

#include <nlohmann/json.hpp>

#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = "fuzz.plan.json";
  auto json = ss::parseJsonText(ss::fuzz::asText(data, size));
  if (!json) {
    ss::fuzz::checkOneLineError(json.error(), file);
    return 0;
  }
  auto plan = ss::planFromJson(*json);
  if (!plan) {
    ss::fuzz::checkOneLineError(plan.error(), file);
    return 0;
  }
  FUZZ_CHECK(plan->validateStructure().empty(), "a loaded plan is invalid");
  auto again = ss::planFromJson(ss::planToJson(*plan));
  FUZZ_CHECK(again.ok(), "planFromJson refuses planToJson's output");
  FUZZ_CHECK(ss::planToJson(*again) == ss::planToJson(*plan), "native JSON does not round-trip");
  return 0;
}
