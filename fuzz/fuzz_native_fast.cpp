// Fuzz target: the fast native plan reader (ss::planFromJsonTextFast, simdjson) held to the DOM reader
// (ss::planFromJson), as fuzz_autoparallel_json does for the export. Properties: the fast reader accepts only
// what the DOM reader reads, and reads exactly the same Plan; the two share one PlanBuilder, so a plan that
// parses but is wrong is read by both (its findings are Plan::validate's) and has a valid structure.
#include <cstdint>

#include <nlohmann/json.hpp>

#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = ss::fuzz::asText(data, size);
  auto fast = ss::planFromJsonTextFast(text);
  auto json = ss::parseJsonText(text);
  if (!json) {
    FUZZ_CHECK(!fast.ok(), "the fast native reader accepts text that is not JSON to nlohmann");
    return 0;  // JSON syntax is fuzz_native_plan's business
  }
  auto plan = ss::planFromJson(*json);
  if (!fast) return 0;  // declining is always allowed: loadPlanText then reads with the DOM reader
  FUZZ_CHECK(plan.ok(), "the fast native reader accepts what the DOM reader refuses");
  FUZZ_CHECK(*fast == *plan, "the fast native reader reads another Plan than the DOM reader");
  FUZZ_CHECK(fast->validateStructure().empty(), "the fast native reader made a plan of invalid structure");
  FUZZ_CHECK(ss::writePlanString(*fast) == ss::writePlanString(*plan), "the two readers' plans write differently");
  return 0;
}
