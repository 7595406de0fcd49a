// Fuzz target: the autoparallel `get_json()` export reader (ss::readAutoparallelJson).
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
  return 0;
}
