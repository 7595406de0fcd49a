// Fuzz target: ss::loadPlanText, the entry every file goes through (content detection, then the native,
// autoparallel or FX reader). Properties: never crash, hang or blow memory; errors are one line; a plan that
// loads is valid, and writing it in the native format and reading it back gives the same plan.
#include <cstdint>

#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = "fuzz.plan.json";
  auto plan = ss::loadPlanText(ss::fuzz::asText(data, size), file);
  if (!plan) {
    ss::fuzz::checkOneLineError(plan.error(), file);
    return 0;
  }
  FUZZ_CHECK(plan->validateStructure().empty(), "a loaded plan is invalid");
  const std::string written = ss::writePlanString(*plan);
  auto again = ss::loadPlanText(written, "roundtrip.plan.json");
  FUZZ_CHECK(again.ok(), "the native writer produced a file its reader refuses");
  FUZZ_CHECK(ss::writePlanString(*again) == written, "native write(read(write(plan))) differs");
  return 0;
}
