// Fuzz target: the FX graph text reader (print_readable output and repro scripts), ss::readFxText.
#include <cstdint>

#include "core/io/formats.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = "fuzz_graph.py";
  auto plan = ss::readFxText(ss::fuzz::asText(data, size));
  if (!plan) {
    ss::fuzz::checkOneLineError(plan.error(), file);
    return 0;
  }
  FUZZ_CHECK(plan->validate().empty(), "a loaded FX plan is invalid");
  return 0;
}
