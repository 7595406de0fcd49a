#include "views/mesh_view.h"

#include <algorithm>
#include <string>

#include "core/redistribute/redistribute.h"
#include "views/model/focus.h"
#include "views/model/text_fit.h"
#include "views/fonts.h"
#include "views/theme.h"
#include "views/toolbar.h"
#include "views/ui_probe.h"

namespace ss::views {
namespace {

std::string coordString(const std::vector<int64_t>& c) {
  std::string s = "(";
  for (size_t i = 0; i < c.size(); ++i) s += (i ? "," : "") + std::to_string(c[i]);
  return s + ")";
}

std::string partialOps(const ShardingSpec& spec) {
  std::string s;
  for (const Placement& p : spec.placements) {
    if (p.isPartial()) s += (s.empty() ? "" : ",") + std::string(reduceOpName(p.reduce));
  }
  return s;
}

void tooltipFor(const MeshCell& c, const DeviceMesh& mesh, const TensorMeta& meta, const ShardingSpec& spec) {
  ImGui::BeginTooltip();
  ImGui::Text("rank %lld  coord %s", static_cast<long long>(c.rank), coordString(c.shard.coord).c_str());
  ImGui::Text("local shape %s  (%lld elements, %s)", shapeToString(c.shard.localShape).c_str(),
              static_cast<long long>(c.shard.numel()),
              formatBytes(c.shard.numel() * dtypeBytes(meta.dtype)).c_str());
  ImGui::Text("global offset %s", shapeToString(c.shard.offset).c_str());
  for (size_t d = 0; d < c.shard.slices.size(); ++d) {
    std::string parts;
    for (const Interval& iv : c.shard.slices[d].parts) {
      parts += (parts.empty() ? "" : ", ") + std::string("[") + std::to_string(iv.start) + ", " +
               std::to_string(iv.start + iv.length) + ")";
    }
    if (parts.empty()) parts = "nothing";
    ImGui::Text("  dim %zu of %lld: %s", d, static_cast<long long>(meta.shape[d]), parts.c_str());
  }
  for (int md = 0; md < mesh.ndim(); ++md) {
    ImGui::Text("  mesh dim %d (%s): %s", md, mesh.dimName(md).c_str(), spec[md].longString().c_str());
  }
  if (c.shard.empty) ImGui::TextColored(ImVec4(0.7f, 0.7f, 0.7f, 1), "holds no elements (trailing torch.chunk)");
  if (c.shard.partial) ImGui::Text("partial values: the global tensor is the %s over the mesh dim", partialOps(spec).c_str());
  if (c.groupSize > 1) ImGui::Text("%d ranks hold this same data (replicas)", c.groupSize);
  ImGui::EndTooltip();
}

// The local shape in the widest form that fits `maxWidth`: "[16, 32, 1, 64]", then "16,32,1,64", then "16x32x1x64".
std::string fitShape(const std::vector<int64_t>& shape, ImFont* font, float maxWidth) {
  std::string tight, joined;
  for (size_t i = 0; i < shape.size(); ++i) {
    tight += (i ? "," : "") + std::to_string(shape[i]);
    joined += (i ? "x" : "") + std::to_string(shape[i]);
  }
  const float size = font ? font->FontSize : ImGui::GetFontSize();
  ImFont* f = font ? font : ImGui::GetFont();
  for (const std::string& s : {shapeToString(shape), tight}) {
    if (f->CalcTextSizeA(size, 1e9f, 0, s.c_str()).x <= maxWidth) return s;
  }
  // Still too wide: the start of it and "..." (the cell's tooltip has the whole shape).
  return shape.empty() ? "[]" : elideToWidth(joined, maxWidth, [&](const std::string& t) { return f->CalcTextSizeA(size, 1e9f, 0, t.c_str()).x; });
}

// A line of a cell, elided with "..." to `maxWidth` in the UI font.
std::string fitLine(const std::string& text, float maxWidth) {
  return elideToWidth(text, maxWidth, [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; });
}

}  // namespace

void drawHatch(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 color, float spacing) {
  dl->PushClipRect(a, b, true);
  const float h = b.y - a.y;
  for (float x = a.x - h; x < b.x; x += spacing) dl->AddLine(ImVec2(x, b.y), ImVec2(x + h, a.y), color, 1.0f);
  dl->PopClipRect();
}

int drawMeshGrid(ImDrawList* dl, ImVec2 origin, const MeshGridLayout& grid, const DeviceMesh& mesh,
                 const TensorMeta& meta, const ShardingSpec& spec, int64_t pinnedRank, bool compact) {
  const Palette& pal = palette();
  const Fonts& fonts = currentFonts();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const bool windowHovered = ImGui::IsWindowHovered(ImGuiHoveredFlags_AllowWhenBlockedByActiveItem);
  int hovered = windowHovered ? grid.cellAt(mouse.x - origin.x, mouse.y - origin.y) : -1;
  const float lineH = ImGui::GetTextLineHeight();

  // Labels: skip one that would overlap the previous label on its line (large meshes label every k-th index).
  float lastEndX = -1e9f, lastY = -1e9f, lastBottom = -1e9f;
  for (const MeshLabel& l : grid.labels) {
    const ImVec2 size = ImGui::CalcTextSize(l.text.c_str());
    if (l.vertical) {
      if (l.y < lastBottom && l.x == 0) continue;
      lastBottom = l.y + size.y;
    } else {
      if (l.y == lastY && l.x < lastEndX) continue;
      lastY = l.y;
      lastEndX = l.x + size.x + 6;
    }
    dl->AddText(ImVec2(origin.x + l.x, origin.y + l.y), pal.textDim, l.text.c_str());
  }
  const std::string pOps = partialOps(spec);
  for (size_t i = 0; i < grid.cells.size(); ++i) {
    const MeshCell& c = grid.cells[i];
    const ImVec2 a(origin.x + c.rect.x0, origin.y + c.rect.y0), b(origin.x + c.rect.x1, origin.y + c.rect.y1);
    const ImU32 fill = c.shard.empty ? pal.emptyCell : groupColor(c.group, 0.45f);
    dl->AddRectFilled(a, b, fill, 4.0f);
    if (c.shard.partial) drawHatch(dl, a, b, pal.hatch, 7.0f);
    const bool pinned = c.rank == pinnedRank;
    const ImU32 border = pinned ? pal.pinned : (static_cast<int>(i) == hovered ? pal.highlight : pal.cellBorder);
    dl->AddRect(a, b, border, 4.0f, 0, pinned || static_cast<int>(i) == hovered ? 2.5f : 1.0f);
    if (c.wrong) dl->AddRect(ImVec2(a.x + 1, a.y + 1), ImVec2(b.x - 1, b.y - 1), pal.error, 4.0f, 0, 3.0f);

    // Tiny cells (large meshes) carry colour only: the tooltip has the numbers.
    const std::string rankText = "r" + std::to_string(c.rank);
    if (c.rect.w() < ImGui::CalcTextSize(rankText.c_str()).x + 8 || c.rect.h() < lineH + 4) continue;
    dl->PushClipRect(ImVec2(a.x + 2, a.y + 1), ImVec2(b.x - 2, b.y - 1), true);
    float y = a.y + 3;
    const float x = a.x + 5;
    // Miniature on the right when the cell is roomy; otherwise it is dropped before any text.
    float miniSide = std::min(c.rect.h() - 10, c.rect.w() * 0.32f);
    if (compact || miniSide < 18) miniSide = 0;
    // The width a text line at `ty` has: up to the miniature when the line is beside it (the text never runs
    // under the miniature), else to the cell's border.
    // The miniature gives way to the shape: dropped when the shape's line (the second) is beside it and the
    // shape would be elided there.
    if (const float shapeY = y + lineH; miniSide > 0 && shapeY + lineH > b.y - miniSide - 5 &&
        fitShape(c.shard.localShape, fonts.mono, b.x - miniSide - 5 - x - 3).find(kEllipsis) != std::string::npos)
      miniSide = 0;
    const float miniTop = b.y - miniSide - 5;
    auto room = [&](float ty) { return (miniSide > 0 && ty + lineH > miniTop ? b.x - miniSide - 5 : b.x) - x - 3; };
    std::string head = rankText + " " + coordString(c.shard.coord);
    if (ImGui::CalcTextSize(head.c_str()).x > room(y)) head = rankText;
    dl->AddText(ImVec2(x, y), c.shard.empty ? pal.textDim : pal.text, head.c_str());
    y += lineH;
    if (y + lineH <= b.y + 2) {
      const std::string shape = fitShape(c.shard.localShape, fonts.mono, room(y));
      dl->AddText(fonts.mono, fonts.mono ? fonts.mono->FontSize : ImGui::GetFontSize(), ImVec2(x, y),
                  c.shard.empty ? pal.textDim : pal.text, shape.c_str());
      y += lineH;
    }
    if (!compact && y + lineH <= b.y + 2) {
      const std::string off = c.shard.empty ? "empty shard" : "at " + shapeToString(c.shard.offset);
      dl->AddText(ImVec2(x, y), pal.textDim, fitLine(off, room(y)).c_str());
      y += lineH;
    }
    if (!compact && y + lineH <= b.y + 2) {
      std::string extra;
      if (c.wrong) extra = "wrong (last run)";
      else if (c.shard.partial) extra = "P(" + pOps + ") partial";
      else if (c.groupSize > 1) extra = "x" + std::to_string(c.groupSize) + " replica";
      if (!extra.empty()) dl->AddText(ImVec2(x, y), c.wrong ? pal.error : pal.textDim, fitLine(extra, room(y)).c_str());
    }
    dl->PopClipRect();
    if (miniSide > 0) {
      const ImVec2 ma(b.x - miniSide - 5, b.y - miniSide - 5), mb(b.x - 5, b.y - 5);
      dl->AddRectFilled(ma, mb, withAlpha(pal.background, 0.8f));
      for (const Rect& m : c.mini) {
        dl->AddRectFilled(ImVec2(ma.x + m.x0 * miniSide, ma.y + m.y0 * miniSide),
                          ImVec2(std::max(ma.x + m.x1 * miniSide, ma.x + m.x0 * miniSide + 1.5f),
                                 std::max(ma.y + m.y1 * miniSide, ma.y + m.y0 * miniSide + 1.5f)),
                          groupColor(c.group, 1.0f));
      }
      dl->AddRect(ma, mb, pal.cellBorder);
    }
    // Replica marker: a small dot in the top-right corner, same for every cell of the group.
    if (c.groupSize > 1 && !c.shard.empty && c.rect.w() > 70) {
      dl->AddCircleFilled(ImVec2(b.x - 8, a.y + 8), 4.0f, groupColor(c.group, 1.0f));
    }
  }
  if (hovered >= 0) tooltipFor(grid.cells[static_cast<size_t>(hovered)], mesh, meta, spec);
  return hovered;
}

void drawMeshView(const Plan& plan, const Diagnostics& /*diags*/, MeshViewState& state, Selection& sel,
                  CommandQueue& /*cmds*/) {
  state.cellsDrawn = 0;
  state.wrongCellsDrawn = 0;
  state.unsized.clear();
  state.hoveredRank = -1;
  const std::vector<FocusTensor> focus = focusCandidates(plan, sel);
  if (state.seenGeneration != sel.generation) {
    // New selection: show the arriving layout of a selected edge, else output 0.
    state.focus = 0;
    state.dimA = state.dimB = -1;
    state.seenGeneration = sel.generation;
  }
  ImGui::TextDisabled("Mesh %s, %lld ranks", plan.mesh.toString().c_str(), static_cast<long long>(plan.mesh.size()));
  if (focus.empty()) {
    ImGui::TextWrapped("Select a node (graph or diagnostics) to see how its tensor lies on the devices.");
    return;
  }
  state.focus = std::clamp(state.focus, 0, static_cast<int>(focus.size()) - 1);
  const FocusTensor& f = focus[static_cast<size_t>(state.focus)];
  ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, 460.0f));
  if (ImGui::BeginCombo("##focus", f.label.c_str())) {
    for (size_t i = 0; i < focus.size(); ++i) {
      if (ImGui::Selectable(focus[i].label.c_str(), static_cast<int>(i) == state.focus)) state.focus = static_cast<int>(i);
    }
    ImGui::EndCombo();
  }
  // A tensor whose sizes the graph leaves symbolic (a Dynamo / AOT graph compiled for any size): its sizes as
  // printed, and no picture (there is no size to cut).
  const Node* producer =
      f.producer >= 0 && f.producer < plan.graph.size() ? &plan.graph.nodes[static_cast<size_t>(f.producer)] : nullptr;
  // AutoSP's slice output is laid out as the placeholder it slices (the global tensor every rank is handed).
  if (const AutoSpSlicedInput* x = findAutoSpSliced(plan.autoSpSliced, f.producer); x && x->slice == f.producer)
    producer = &plan.graph.nodes[static_cast<size_t>(x->placeholder)];
  const bool symbolic = !f.meta.known && producer && !producer->symbolicShape.empty();
  const std::string shape = symbolic ? producer->shapeText() : shapeToString(f.meta.shape);
  if (!f.spec) {
    ImGui::TextWrapped("%s: the plan gives no placement for this tensor %s.", f.label.c_str(), shape.c_str());
    return;
  }
  // Global shape, placement and its tensor-centric form: one row that wraps (views/toolbar.h).
  ToolbarFlow row("mesh");
  row.text("global " + shape + " " + dtypeName(f.meta.dtype), 0, "global");
  row.text(f.spec->toMeshString(), specColor(*f.spec), "spec");
  row.text(f.spec->toTensorString(symbolic ? static_cast<int>(producer->symbolicShape.size()) : f.meta.rank()),
           ImGui::GetColorU32(ImGuiCol_TextDisabled), "tensor_spec");
  if (symbolic) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("The graph is compiled for any size %s: there is no size to lay out. A TORCH_TRACE log of "
                       "the run holds each symbol's hint (its create_symbol records): open the log to see the "
                       "layout at those sizes.", shape.c_str());
    ImGui::PopStyleColor();
    state.unsized = shape;
    return;
  }
  if (!f.note.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", f.note.c_str());
    ImGui::PopStyleColor();
  }

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  MeshGridOptions opts;
  opts.width = std::max(avail.x, 120.0f);
  opts.height = std::max(avail.y, 80.0f);
  opts.labelLeft = plan.mesh.ndim() >= 2 ? ImGui::CalcTextSize((plan.mesh.dimName(plan.mesh.ndim() - 2) + "=00").c_str()).x + 8 : 0;
  opts.labelTop = ImGui::GetTextLineHeightWithSpacing();
  // Cells shrink to fit large meshes (down to colour-only squares); small meshes get roomy cells.
  opts.minCellW = 14;
  opts.minCellH = 12;
  opts.dimA = state.dimA;
  opts.dimB = state.dimB;
  MeshGridLayout grid = layoutMeshGrid(plan.mesh, f.meta, *f.spec, opts);
  // The last run's divergent node output: its wrong blocks (the node's own output, not an edge's arrival).
  if (state.divergence.node >= 0 && f.producer == state.divergence.node && !sel.hasEdge() &&
      sel.output == state.divergence.output)
    state.wrongCellsDrawn = markWrongRanks(grid, state.divergence.wrongRanks);
  if (!grid.error.empty()) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().error), "Cannot lay out: %s", grid.error.c_str());
    return;
  }
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##meshcanvas", ImVec2(std::max(grid.width, 1.0f), std::max(grid.height, 1.0f)));
  const bool clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
  const int hovered = drawMeshGrid(ImGui::GetWindowDrawList(), origin, grid, plan.mesh, f.meta, *f.spec,
                                   sel.pinnedRank, false);
  state.cellsDrawn = static_cast<int>(grid.cells.size());
  for (const MeshCell& c : grid.cells) {
    probeRect("mesh.rank" + std::to_string(c.rank),
              Rect{origin.x + c.rect.x0, origin.y + c.rect.y0, origin.x + c.rect.x1, origin.y + c.rect.y1});
  }
  if (hovered >= 0) {
    state.hoveredRank = grid.cells[static_cast<size_t>(hovered)].rank;
    if (clicked) sel.pinRank(state.hoveredRank);
  }
  if (grid.hiddenRanks > 0) ImGui::TextDisabled("%lld more ranks not drawn", static_cast<long long>(grid.hiddenRanks));
}

}  // namespace ss::views
