#pragma once
// The embedded UI fonts (DejaVu Sans and Sans Mono, compiled into the binary: see assets/embedded_font.cpp.in)
// and their loading into ImGui's atlas at a given content scale, so text is crisp on any monitor.
#include <cstddef>

struct ImFont;

namespace ss::views {

struct EmbeddedBytes {
  const unsigned char* data = nullptr;
  size_t size = 0;
};
EmbeddedBytes embeddedUiFont();    // empty when the build had no font file
EmbeddedBytes embeddedMonoFont();

struct Fonts {
  ImFont* ui = nullptr;     // body text
  ImFont* mono = nullptr;   // shapes, specs, code
  ImFont* large = nullptr;  // headlines (edge view)
};

// Rebuilds io.Fonts at `basePixels * scale` and sets io.FontGlobalScale = 1/scale where the framebuffer is
// scaled. Must be called before the first NewFrame, or between frames followed by a backend texture rebuild.
// Falls back to ImGui's built-in font when nothing is embedded.
Fonts loadFonts(float basePixels, float scale);
const Fonts& currentFonts();

}  // namespace ss::views
