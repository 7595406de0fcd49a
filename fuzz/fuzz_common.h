#pragma once
// Shared by the libFuzzer targets: a property check that aborts (so libFuzzer saves the input as a crash) and
// the error contract every reader promises: one non-empty line.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/model/result.h"

#define FUZZ_CHECK(cond, what)                                                             \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "FUZZ_CHECK failed: %s (%s) at %s:%d\n", what, #cond, __FILE__, \
                   __LINE__);                                                              \
      std::abort();                                                                        \
    }                                                                                      \
  } while (0)

namespace ss::fuzz {

// Every reader error must be one line for the user, naming the place.
inline void checkOneLineError(const Error& e, const std::string& file) {
  const std::string line = e.toString(file);
  FUZZ_CHECK(!e.message.empty(), "error message is empty");
  FUZZ_CHECK(line.find('\n') == std::string::npos, "error message spans several lines");
}

inline std::string_view asText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace ss::fuzz
