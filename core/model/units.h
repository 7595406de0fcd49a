#pragma once
// Quantities as people read them, in every message, table and view: bytes in binary units, times from
// microseconds up. One spelling everywhere ("48.0 KiB", "9.3 us", "3.20 ms").
#include <cstdint>
#include <string>

namespace ss {

std::string formatBytes(int64_t bytes);  // "2.0 MiB"; below 1 KiB exact ("512 B"); up to EiB
std::string formatTimeUs(double us);     // "21.4 us", "3.20 ms", "1.50 s"

}  // namespace ss
