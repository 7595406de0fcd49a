// Fuzz target: the FX graph text reader (print_readable output and repro scripts), ss::readFxText.
// Properties: errors are one line; a loaded plan is valid; its FX text reads back with as many nodes.
#include <cstdint>
#include <cstdio>

#include "core/io/formats.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = "fuzz_graph.py";
  auto plan = ss::readFxText(ss::fuzz::asText(data, size));
  if (!plan) {
    ss::fuzz::checkOneLineError(plan.error(), file);
    return 0;
  }
  FUZZ_CHECK(plan->validateStructure().empty(), "a loaded FX plan is invalid");
  // What readFxText read holds Python names only, so its text is always writable.
  auto text = ss::writeFxText(*plan);
  FUZZ_CHECK(text.ok(), "writeFxText refuses a plan readFxText read");
  auto again = ss::readFxText(*text);
  if (!again.ok())  // what the reader said of what the writer wrote, for the crash log
    std::fprintf(stderr, "readFxText: %s\nwritten:\n%s\n", again.error().toString("written.py").c_str(), text->c_str());
  FUZZ_CHECK(again.ok(), "readFxText refuses writeFxText's output");
  FUZZ_CHECK(again->graph.size() == plan->graph.size(), "FX text does not round-trip the node count");
  return 0;
}
