#include "views/theme.h"

#include <cmath>

namespace ss::views {
namespace {
Palette g_palette;

ImU32 rgb(int r, int g, int b, int a = 255) { return IM_COL32(r, g, b, a); }

ImU32 hsv(float h, float s, float v, float a = 1.0f) {
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(h, s, v, r, g, b);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, a));
}
}  // namespace

void applyTheme(ThemeKind kind) {
  Palette p;
  p.kind = kind;
  if (kind == ThemeKind::Dark) {
    ImGui::StyleColorsDark();
    p.text = rgb(230, 230, 230);
    p.textDim = rgb(150, 150, 160);
    p.background = rgb(24, 25, 28);
    p.panel = rgb(34, 36, 40);
    p.grid = rgb(60, 62, 70);
    p.cellBorder = rgb(110, 112, 125);
    p.emptyCell = rgb(48, 48, 52);
    p.highlight = rgb(255, 214, 64);
    p.pinned = rgb(90, 200, 255);
    p.error = rgb(240, 80, 80);
    p.warning = rgb(240, 180, 60);
    p.info = rgb(110, 160, 240);
    p.ok = rgb(90, 200, 120);
    p.replicate = rgb(130, 130, 140);
    p.partial = rgb(235, 140, 60);
    p.hatch = rgb(0, 0, 0, 90);
    p.canvas = rgb(28, 28, 34);
    p.minimap = rgb(20, 20, 26, 220);
    p.minimapView = rgb(255, 255, 255, 200);
  } else {
    ImGui::StyleColorsLight();
    p.text = rgb(20, 20, 24);
    p.textDim = rgb(100, 100, 110);
    p.background = rgb(245, 245, 247);
    p.panel = rgb(255, 255, 255);
    p.grid = rgb(210, 210, 218);
    p.cellBorder = rgb(120, 120, 130);
    p.emptyCell = rgb(225, 225, 228);
    p.highlight = rgb(220, 150, 0);
    p.pinned = rgb(0, 120, 220);
    p.error = rgb(210, 40, 40);
    p.warning = rgb(200, 130, 0);
    p.info = rgb(40, 100, 200);
    p.ok = rgb(30, 150, 70);
    p.replicate = rgb(160, 160, 170);
    p.partial = rgb(230, 130, 40);
    p.hatch = rgb(0, 0, 0, 70);
    p.canvas = rgb(250, 250, 252);
    p.minimap = rgb(232, 232, 238, 230);
    p.minimapView = rgb(20, 20, 30, 200);
  }
  ImGuiStyle& st = ImGui::GetStyle();
  st.WindowRounding = 0;
  st.FrameRounding = 3;
  st.GrabRounding = 3;
  st.TabRounding = 3;
  st.WindowBorderSize = 1;
  st.FramePadding = ImVec2(6, 3);
  st.ItemSpacing = ImVec2(8, 5);
  st.CellPadding = ImVec2(5, 2);
  g_palette = p;
}

const Palette& palette() { return g_palette; }
ThemeKind currentTheme() { return g_palette.kind; }

ImU32 severityColor(Severity s) {
  switch (s) {
    case Severity::Error: return g_palette.error;
    case Severity::Warning: return g_palette.warning;
    case Severity::Info: return g_palette.info;
  }
  return g_palette.info;
}

ImU32 groupColor(int64_t index, float alpha) {
  const float golden = 0.6180339887f;
  const float h = std::fmod(0.58f + static_cast<float>(index) * golden, 1.0f);
  const bool dark = g_palette.kind == ThemeKind::Dark;
  return hsv(h, dark ? 0.55f : 0.45f, dark ? 0.78f : 0.95f, alpha);
}

ImU32 specColor(const ShardingSpec& spec) {
  if (spec.hasPartial()) return g_palette.partial;
  for (const Placement& p : spec.placements) {
    if (p.isShard()) {
      static const float hues[] = {0.58f, 0.33f, 0.78f, 0.12f, 0.95f, 0.47f};
      const bool dark = g_palette.kind == ThemeKind::Dark;
      return hsv(hues[static_cast<size_t>(p.dim) % 6], dark ? 0.55f : 0.75f, dark ? 0.75f : 0.6f);
    }
  }
  return g_palette.replicate;
}

ImU32 withAlpha(ImU32 c, float alpha) {
  ImVec4 v = ImGui::ColorConvertU32ToFloat4(c);
  v.w *= alpha;
  return ImGui::ColorConvertFloat4ToU32(v);
}

}  // namespace ss::views
