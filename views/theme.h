#pragma once
// Dark and light themes and the palette every view draws with, so a colour means the same thing everywhere:
// a rank's hue in the mesh view is the hue of the blocks it holds in the tensor view.
#include <cstdint>

#include <imgui.h>

#include "core/model/diagnostics.h"
#include "core/model/placement.h"

namespace ss::views {

enum class ThemeKind : uint8_t { Dark, Light };

struct Palette {
  ThemeKind kind = ThemeKind::Dark;
  ImU32 text, textDim, background, panel, grid, cellBorder, emptyCell, highlight, pinned;
  ImU32 error, warning, info, ok;
  ImU32 replicate, partial, hatch;
  // The graph's canvas: its background, the minimap's background and the minimap's frame of the view.
  ImU32 canvas, minimap, minimapView;
};

void applyTheme(ThemeKind kind);   // ImGui style colours + palette
const Palette& palette();
ThemeKind currentTheme();

ImU32 severityColor(Severity s);
// A stable hue for block groups and ranks: group `index` of `count` (golden-ratio spacing).
ImU32 groupColor(int64_t index, float alpha = 1.0f);
// Colour of a placement spec (graph nodes, legend): grey replicated, orange with Partial, else a hue per
// first sharded tensor dim.
ImU32 specColor(const ShardingSpec& spec);
ImU32 withAlpha(ImU32 c, float alpha);

}  // namespace ss::views
