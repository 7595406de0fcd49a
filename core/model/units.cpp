// Quantities as people read them (core/model/units.h).
#include "core/model/units.h"

#include <cstdio>

namespace ss {

std::string formatBytes(int64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  static const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes) / 1024.0;
  int u = 0;
  while (v >= 1024.0 && u < 5) { v /= 1024.0; ++u; }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

std::string formatTimeUs(double us) {
  char buf[32];
  if (us < 1000.0) std::snprintf(buf, sizeof buf, "%.1f us", us);
  else if (us < 1e6) std::snprintf(buf, sizeof buf, "%.2f ms", us / 1e3);
  else std::snprintf(buf, sizeof buf, "%.2f s", us / 1e6);
  return buf;
}

}  // namespace ss
