#pragma once
// Drawing helpers of the graph view (views/graph_view.cpp) and the views that reuse it (the Applied graph tab's
// legend): the palette, and the applied-graph overlay's shapes (dashed edges, collective nodes, pills and ghost
// nodes). ImGui only; the records they draw come from views/model/graph_records.h.
#include <imgui.h>

#include <string>

#include "views/model/graph_records.h"

namespace ss::views::graphdraw {

// ---- palette ----
inline constexpr ImU32 kSpecPalette[] = {
    IM_COL32(78, 121, 167, 255),  IM_COL32(89, 161, 79, 255),   IM_COL32(176, 122, 161, 255),
    IM_COL32(118, 183, 178, 255), IM_COL32(237, 201, 72, 255),  IM_COL32(156, 117, 95, 255),
    IM_COL32(255, 157, 167, 255), IM_COL32(148, 103, 189, 255), IM_COL32(140, 140, 60, 255),
    IM_COL32(86, 180, 233, 255),  IM_COL32(204, 121, 167, 255), IM_COL32(0, 158, 115, 255)};
inline constexpr ImU32 kNoSpec = IM_COL32(120, 120, 120, 255);
inline constexpr ImU32 kRedistributeColour = IM_COL32(80, 200, 255, 255);
inline constexpr ImU32 kNeedsColour = IM_COL32(235, 60, 60, 255);
inline constexpr ImU32 kSelectColour = IM_COL32(255, 255, 255, 255);
inline constexpr ImU32 kMatchColour = IM_COL32(255, 230, 0, 255);
inline constexpr ImU32 kDivergentColour = IM_COL32(255, 64, 48, 255);  // the first divergent node of the last run
inline constexpr ImU32 kFadeColour = IM_COL32(24, 24, 28, 170);       // over nodes that run after it
inline constexpr ImU32 kAppliedColour = IM_COL32(90, 200, 120, 255);   // overlay: the applied graph performs it
inline constexpr ImU32 kUnplannedColour = IM_COL32(245, 170, 40, 255); // overlay: communicates with no plan for it
inline constexpr ImU32 kMissingFill = IM_COL32(48, 18, 20, 240);       // overlay: a missing pill / ghost node's inside

// Colour of an overlay state: applied green, missing the error red, unplanned orange, plan the redistribute blue.
ImU32 pillColour(PillState s);
inline ImVec2 v2(float x, float y) { return ImVec2(x, y); }
inline ImU32 withAlpha(ImU32 c, int alpha) { return (c & 0x00FFFFFFu) | (static_cast<ImU32>(alpha) << 24); }

// ---- overlay shapes ----
// A dashed edge: the straight line or the cubic GraphView draws; `phase` (0..1) shifts the dashes.
void drawDashed(ImDrawList* dl, const EdgeRecord& e, bool curved, ImU32 col, float thick, float phase);
// A collective node: a chamfered box in its state's colour, kind and mesh dim, then bytes and time.
void drawCollectiveNode(ImDrawList* dl, const NodeRecord& n, const NodeMark& mark, ImFont* font, float fontPx, float zoom);
// Every overlay pill of the frame's badges, laid out so none covers another (missing ones placed first, drawn
// on top); far out (not readable) a dot per pill.
void drawOverlayPills(ImDrawList* dl, const GraphRecords& r, const GraphModel& m, bool readable, float nodePx,
                      float fontPx, ImFont* font);

// ---- module overview ----
// A collapsed box (views/graph_overview.h): filled in its blocks' most common placement colour, darkened, framed in
// its worst severity; its name on the first line and what it holds (nodes, errors, warnings, communication) on the
// second, each elided to the box, drawn only when `fontPx` reaches `minFontPx`.
void drawCollapsedBox(ImDrawList* dl, const BlockRecord& b, const GraphModel& m, ImFont* font, float fontPx, float minFontPx);
// The box's tooltip: name, node count, what it holds, how to open it.
void drawBoxTooltip(const GraphModel& m, int block);
// "x3" beside an edge that stands for several between the same two units (a bundle into or out of a box).
void drawBundleCount(ImDrawList* dl, const EdgeRecord& e, ImFont* font, float fontPx);
// `text` cut to `maxWidth` pixels at `fontPx`, with "..." when cut.
std::string elide(ImFont* font, float fontPx, const std::string& text, float maxWidth);

}  // namespace ss::views::graphdraw
