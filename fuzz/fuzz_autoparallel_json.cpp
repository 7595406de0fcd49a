// Fuzz target: the autoparallel `get_json()` export readers (ss::readAutoparallelJson, and the fast simdjson one
// that loadPlanFile tries first). Properties: errors are one line; a loaded plan is valid; its export reads back
// with the same specs; the fast reader accepts only what the DOM reader reads, and reads exactly the same Plan.
#include <cstdint>

#include <nlohmann/json.hpp>

#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = "fuzz.autoparallel.json";
  const std::string_view text = ss::fuzz::asText(data, size);
  auto fast = ss::readAutoparallelJsonTextFast(text);
  auto json = ss::parseJsonText(text);
  if (!json) {
    FUZZ_CHECK(!fast.ok(), "the fast autoparallel reader accepts text that is not JSON to nlohmann");
    return 0;  // JSON syntax is fuzz_native_plan's business
  }
  auto plan = ss::readAutoparallelJson(*json);
  if (fast) {
    FUZZ_CHECK(plan.ok(), "the fast autoparallel reader accepts what the DOM reader refuses");
    FUZZ_CHECK(*fast == *plan, "the fast autoparallel reader reads another Plan than the DOM reader");
  }
  if (!plan) {
    ss::fuzz::checkOneLineError(plan.error(), file);
    return 0;
  }
  FUZZ_CHECK(plan->validateStructure().empty(), "a loaded autoparallel plan is invalid");
  auto again = ss::readAutoparallelJson(ss::writeAutoparallelJson(*plan));
  FUZZ_CHECK(again.ok(), "readAutoparallelJson refuses writeAutoparallelJson's output");
  FUZZ_CHECK(again->specs == plan->specs, "autoparallel specs do not round-trip");
  return 0;
}
