#include "views/fonts.h"

#include <cstdio>

#include <imgui.h>

namespace ss::views {
namespace {
Fonts g_fonts;

ImFont* addEmbedded(EmbeddedBytes bytes, float pixels, const char* name) {
  ImGuiIO& io = ImGui::GetIO();
  if (bytes.data == nullptr || bytes.size == 0) {
    ImFontConfig cfg;
    cfg.SizePixels = pixels;
    return io.Fonts->AddFontDefault(&cfg);
  }
  ImFontConfig cfg;
  cfg.FontDataOwnedByAtlas = false;  // the bytes live in .rodata
  cfg.OversampleH = 2;
  cfg.OversampleV = 1;
  snprintf(cfg.Name, sizeof(cfg.Name), "%s", name);
  static const ImWchar ranges[] = {0x0020, 0x00FF, 0x2010, 0x2027, 0x2190, 0x21FF, 0x2200, 0x22FF, 0x25A0, 0x25FF, 0};
  return io.Fonts->AddFontFromMemoryTTF(const_cast<unsigned char*>(bytes.data), static_cast<int>(bytes.size),
                                        pixels, &cfg, ranges);
}
}  // namespace

Fonts loadFonts(float basePixels, float scale) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  if (scale <= 0) scale = 1;
  const float px = basePixels * scale;
  g_fonts.ui = addEmbedded(embeddedUiFont(), px, "DejaVu Sans");
  g_fonts.mono = addEmbedded(embeddedMonoFont(), px, "DejaVu Sans Mono");
  g_fonts.large = addEmbedded(embeddedUiFont(), px * 1.35f, "DejaVu Sans large");
  io.FontDefault = g_fonts.ui;
  io.Fonts->Build();
  return g_fonts;
}

const Fonts& currentFonts() { return g_fonts; }

}  // namespace ss::views
