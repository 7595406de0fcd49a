#pragma once
// PNG files the app writes (render, teach frames), encoded in memory and saved through core's safe atomic write
// (core/io/load/load.h writeFileAtomic): no planted symlink is followed, a half-written image never replaces a good one.
#include <string>

#include "core/model/result.h"

namespace ss::app {

// `rgba`: w * h * 4 bytes, rows top to bottom.
Result<bool> writePngFile(const std::string& path, int w, int h, const unsigned char* rgba);

}  // namespace ss::app
