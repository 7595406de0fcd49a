// Fuzz target: the autoparallel `get_json()` export reader (ss::readAutoparallelJson). Properties: errors are
// one line; a loaded plan is valid; its export reads back with the same specs.
#include <cstdint>

#include <nlohmann/json.hpp>

#include "core/io/formats.h"
#include "core/io/load.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = "fuzz.autoparallel.json";
  auto json = ss::parseJsonText(ss::fuzz::asText(data, size));
  if (!json) return 0;  // JSON syntax is fuzz_native_plan's business
  auto plan = ss::readAutoparallelJson(*json);
  if (!plan) {
    ss::fuzz::checkOneLineError(plan.error(), file);
    return 0;
  }
  FUZZ_CHECK(plan->validate().empty(), "a loaded autoparallel plan is invalid");
  auto again = ss::readAutoparallelJson(ss::writeAutoparallelJson(*plan));
  FUZZ_CHECK(again.ok(), "readAutoparallelJson refuses writeAutoparallelJson's output");
  FUZZ_CHECK(again->specs == plan->specs, "autoparallel specs do not round-trip");
  return 0;
}
