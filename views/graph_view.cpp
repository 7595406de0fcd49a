// The graph view; see views/graph_view.h. ImGui 1.86 (keys through io.KeysDown, GLFW key codes).
// Sections: palette, model upkeep, toolbar, input, drawing, minimap, entry point.
#include "views/graph_view.h"

#include "views/graph_overview.h"
#include "views/graph_view_draw.h"
#include "views/keys.h"
#include "views/theme.h"
#include "views/toolbar.h"
#include "views/ui_probe.h"

#include <imgui.h>
#include <imgui_internal.h>  // SetItemUsingMouseWheel: the wheel zooms the canvas, not the window

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace ss::views {
namespace {

constexpr int kKeyF = 70;    // GLFW_KEY_F
constexpr int kKeyF3 = keys::kF3;

using namespace graphdraw;

// ---- model upkeep ----
size_t countEdges(const Plan& plan) {
  size_t e = 0;
  for (int v = 0; v < plan.graph.size(); ++v) e += plan.graph.inputs(v).size();
  return e;
}

// Cheap per-frame identity of the graph (edits never change it; a new document is another plan, another size or
// other names, or comes with GraphViewState::relayoutRequested). Counting edges every frame would cost ~5 ms at 1M.
bool sameGraph(const GraphViewState::Seen& s, const Plan& plan) {
  const auto& nodes = plan.graph.nodes;
  return s.plan == &plan && s.nodes == plan.graph.size() && s.first == (nodes.empty() ? "" : nodes.front().name) &&
         s.last == (nodes.empty() ? "" : nodes.back().name);
}

void startLayout(const Plan& plan, const Diagnostics& diags, GraphViewState& st, Vec2d viewPx) {
  const size_t edges = countEdges(plan);
  auto& s = st.seen;
  s.plan = &plan;
  s.nodes = plan.graph.size();
  s.edges = edges;
  s.first = plan.graph.nodes.empty() ? "" : plan.graph.nodes.front().name;
  s.last = plan.graph.nodes.empty() ? "" : plan.graph.nodes.back().name;
  s.diags = &diags;
  s.diagCount = diags.items.size();
  s.redistributes = plan.redistributes.size();
  s.revision = st.revision;
  s.overlay = st.overlay;
  st.model.reset();
  st.fitRequested = true;
  // The module overview at the level a view of this size reads (views/graph_overview.h).
  startOverviewLayout(plan, diags, st, viewPx);
}

void keepModelCurrent(const Plan& plan, const Diagnostics& diags, GraphViewState& st, Vec2d viewPx) {
  if (st.relayoutRequested || !sameGraph(st.seen, plan)) {
    st.relayoutRequested = false;
    startLayout(plan, diags, st, viewPx);
    return;
  }
  keepOverviewCurrent(plan, diags, st);
  if (!st.model) return;
  auto& s = st.seen;
  if (s.diags != &diags || s.diagCount != diags.items.size() || s.redistributes != plan.redistributes.size() ||
      s.revision != st.revision || s.overlay != st.overlay) {
    refreshGraphModel(plan, diags, *st.model, st.overlay);
    applyFilter(plan, st.filter, *st.model);
    st.filterSeen = st.filter;
    s.diags = &diags;
    s.diagCount = diags.items.size();
    s.redistributes = plan.redistributes.size();
    s.revision = st.revision;
    s.overlay = st.overlay;
    st.searchSeen.assign(1, '\0');  // re-run the search over the refreshed model
  }
  if (!(st.filter == st.filterSeen)) {
    applyFilter(plan, st.filter, *st.model);
    st.filterSeen = st.filter;
  }
  if (st.search != st.searchSeen) {
    st.searchHits = searchNodes(plan, st.search, *st.model);
    st.searchCursor = -1;
    st.searchSeen = st.search;
  }
}

// Moves the camera (zoom unchanged) so the graph fills the view where it can: on each axis a graph larger than
// the view keeps its bounds (plus a margin) covering the view; a smaller one is centred. Keeps what was centred
// in view, since it lies inside the bounds.
void keepGraphInView(Canvas& c, const Rectd& bounds, double marginPx) {
  if (bounds.empty()) return;
  const Rectd b = bounds.expanded(marginPx / c.zoom);
  const Rectd vis = c.visibleWorld();
  const double vw = vis.width(), vh = vis.height();
  c.offset.x = b.width() <= vw ? b.center().x - vw * 0.5 : std::clamp(c.offset.x, b.min.x, b.max.x - vw);
  c.offset.y = b.height() <= vh ? b.center().y - vh * 0.5 : std::clamp(c.offset.y, b.min.y, b.max.y - vh);
}

// Centres on the selection: the node, or a selected edge's producer and consumer together when both fit at a
// readable zoom; then frames the view on the graph (no empty canvas beside it).
void centreOnSelection(GraphViewState& st, int v, int input) {
  if (!st.model || v < 0 || v >= st.model->layout.nodeCount()) return;
  const GraphLayout& L = st.model->layout;
  // Zoom in far enough to read the node when the view is far out.
  const double readable = 28.0 / L.nodeHeight;
  if (st.canvas.zoom < readable) st.canvas.zoom = std::min(readable, st.canvas.maxZoom);
  Rectd target = L.nodeRect(v);
  if (const int e = input >= 0 ? st.model->findEdge(v, input) : -1; e >= 0) {
    Rectd both = target;
    both.include(L.nodeRect(L.edges[e].src));
    const Vec2d view = st.canvas.size / st.canvas.zoom;
    if (both.width() < view.x * 0.9 && both.height() < view.y * 0.8) target = both;
  }
  st.canvas.centerOn(target.center());
  keepGraphInView(st.canvas, L.bounds, 20.0);
}

void jumpToHit(GraphViewState& st, Selection& sel, int step) {
  if (st.searchHits.empty()) return;
  const int count = static_cast<int>(st.searchHits.size());
  st.searchCursor = ((st.searchCursor < 0 ? (step > 0 ? -1 : 0) : st.searchCursor) + step + count) % count;
  sel.selectNode(st.searchHits[st.searchCursor], true);
}

// ---- toolbar ----
// The controls wrap to more lines in a narrow pane (views/toolbar.h): none is ever cut off.
void drawToolbar(const Plan& plan, GraphViewState& st, Selection& sel) {
  ImGuiIO& io = ImGui::GetIO();
  ToolbarFlow row("graph");
  row.next(ToolbarFlow::buttonWidth("Fit"));
  if (ImGui::Button("Fit")) st.fitRequested = true;
  row.probe("fit");
  if (io.KeyCtrl && ImGui::IsKeyPressed(kKeyF, false)) st.focusSearch = true;
  if (st.focusSearch) { ImGui::SetKeyboardFocusHere(); st.focusSearch = false; }
  if (st.searchReset) {  // an active text field keeps its own copy of the text: release it
    ImGui::ClearActiveID();
    st.searchReset = false;
  }
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s", st.search.c_str());
  row.next(180);
  ImGui::SetNextItemWidth(180);
  if (ImGui::InputTextWithHint("##search", "search name or op (Ctrl+F)", buf, sizeof buf,
                               ImGuiInputTextFlags_EnterReturnsTrue)) {
    st.search = buf;
    if (st.model && st.search != st.searchSeen) {
      st.searchHits = searchNodes(plan, st.search, *st.model);
      st.searchCursor = -1;
      st.searchSeen = st.search;
    }
    jumpToHit(st, sel, +1);
  } else {
    st.search = buf;
  }
  row.probe("search");
  if (ImGui::IsItemActive() && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) st.search.clear();
  if (ImGui::IsKeyPressed(kKeyF3, true)) jumpToHit(st, sel, io.KeyShift ? -1 : +1);
  if (!st.search.empty()) {
    char hits[48];
    std::snprintf(hits, sizeof hits, "%d/%d", st.searchCursor + 1, static_cast<int>(st.searchHits.size()));
    row.next(ToolbarFlow::textWidth(hits));
    ImGui::TextUnformatted(hits);
    row.probe("hits");
    row.next(ToolbarFlow::smallButtonWidth("<"));
    if (ImGui::SmallButton("<")) jumpToHit(st, sel, -1);
    row.probe("previous_hit");
    row.next(ToolbarFlow::smallButtonWidth(">"));
    if (ImGui::SmallButton(">")) jumpToHit(st, sel, +1);
    row.probe("next_hit");
  }
  auto check = [&](const char* label, bool* v, const char* probe) {
    row.next(ToolbarFlow::checkboxWidth(label));
    ImGui::Checkbox(label, v);
    row.probe(probe);
  };
  check("fwd", &st.filter.forward, "fwd");
  check("bwd", &st.filter.backward, "bwd");
  check("other", &st.filter.other, "other");
  std::snprintf(buf, sizeof buf, "%s", st.filter.modulePath.c_str());
  row.next(140);
  ImGui::SetNextItemWidth(140);
  if (ImGui::InputTextWithHint("##module", "module path", buf, sizeof buf)) st.filter.modulePath = buf;
  row.probe("module");
  check("only problems", &st.filter.onlyProblems, "only_problems");
  check("collapse repeated", &st.filter.collapseRepeated, "collapse_repeated");
  if (st.layoutInput && hasModuleBlocks(*st.layoutInput)) {
    // The overview's level: modules, layers or nodes (Fit picks it; E / Shift+E open and close one box).
    const std::optional<OverviewLevel> level = currentLevel(st);
    row.next(110);
    ImGui::SetNextItemWidth(110);
    if (ImGui::BeginCombo("##level", level ? overviewLevelName(*level) : "custom")) {
      for (OverviewLevel l : {OverviewLevel::Families, OverviewLevel::Blocks, OverviewLevel::Nodes})
        if (ImGui::Selectable(overviewLevelName(l), level == l)) setLevel(st, l);
      ImGui::EndCombo();
    }
    row.probe("level");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("What the overview shows: every module as one box, every layer as one box, or every node.\n"
                        "Double-click or E opens the box under the mouse; Shift+E closes the one around the selection.");
  }
  check("minimap", &st.showMinimap, "minimap");
  // Legend: the most common output placements, on one line (the line after the controls when they leave no
  // room); what does not fit, and the layout's numbers, go in the "+N" entry's tooltip.
  if (st.model && !st.model->specNames.empty()) {
    std::vector<int> order(st.model->specNames.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return st.model->specCounts[a] > st.model->specCounts[b]; });
    const auto& L = st.model->layout;
    char stats[160];
    std::snprintf(stats, sizeof stats, "%d nodes, %d layers, %d blocks (%d laid out, %d stamped)", L.nodeCount(),
                  L.layerCount(), static_cast<int>(L.blocks.size()), L.templatesLaidOut, L.stampedBlocks);
    auto entry = [&](int cls) {
      return st.model->specNames[cls] + " (" + std::to_string(st.model->specCounts[cls]) + ")";
    };
    const size_t shown = std::min<size_t>(order.size(), 8);
    const float swatch = 12 + ImGui::GetStyle().ItemSpacing.x;
    const std::string moreLabel = "+" + std::to_string(order.size()) + " more";  // the widest it can be
    const float moreW = ToolbarFlow::textWidth(moreLabel.c_str());
    ImDrawList* dl = ImGui::GetWindowDrawList();
    size_t drawn = 0;
    for (; drawn < shown; ++drawn) {
      const std::string text = entry(order[drawn]);
      const float w = swatch + ToolbarFlow::textWidth(text.c_str());
      // The first entry may start a line; the others stay on it, keeping room for "+N more" when more follow.
      const bool last = drawn + 1 == order.size();
      if (drawn > 0 && !row.fits(w + (last ? 0 : ImGui::GetStyle().ItemSpacing.x + moreW))) break;
      row.next(w);
      const ImVec2 p = ImGui::GetCursorScreenPos();
      dl->AddRectFilled(v2(p.x, p.y + 3), v2(p.x + 10, p.y + 13), graphSpecColour(order[drawn]));
      ImGui::Dummy(ImVec2(12, 14));
      ImGui::SameLine();
      ImGui::TextUnformatted(text.c_str());
      row.probe("legend" + std::to_string(drawn));
    }
    const std::string more = drawn < order.size() ? "+" + std::to_string(order.size() - drawn) + " more" : "(i)";
    row.next(ToolbarFlow::textWidth(more.c_str()));
    ImGui::TextDisabled("%s", more.c_str());
    row.probe("legend_more");
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      for (size_t i = drawn; i < order.size(); ++i) ImGui::TextUnformatted(entry(order[i]).c_str());
      ImGui::TextDisabled("%s", stats);
      ImGui::EndTooltip();
    }
  }
}

// ---- input ----
double distanceToSegment(ImVec2 p, ImVec2 a, ImVec2 b) {
  const double dx = b.x - a.x, dy = b.y - a.y;
  const double len2 = dx * dx + dy * dy;
  double t = len2 > 0 ? ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2 : 0;
  t = std::clamp(t, 0.0, 1.0);
  const double qx = a.x + t * dx - p.x, qy = a.y + t * dy - p.y;
  return std::sqrt(qx * qx + qy * qy);
}

// The layout edge under `mouse` (within 4 px of a line or stub), or -1.
int edgeUnder(const GraphRecords& r, ImVec2 mouse, float stubPx) {
  int best = -1;
  double bestDist = 4.0;
  for (const auto& e : r.edges) {
    const double d = distanceToSegment(mouse, v2(e.ax, e.ay), v2(e.bx, e.by));
    if (d < bestDist) { bestDist = d; best = e.edge; }
  }
  for (const auto& s : r.stubs) {
    const ImVec2 a = v2(s.x, s.y), b = v2(s.x, s.atSource ? s.y + stubPx : s.y - stubPx);
    const double d = distanceToSegment(mouse, a, b);
    if (d < bestDist) { bestDist = d; best = s.edge; }
  }
  return best;
}

// ---- drawing ----
void drawRecords(ImDrawList* dl, const Plan& plan, const GraphViewState& st) {
  const GraphRecords& r = st.records;
  const GraphModel& m = *st.model;
  const float zoom = static_cast<float>(st.canvas.zoom);
  ImFont* font = ImGui::GetFont();
  const float fontPx = std::clamp(13.f * zoom, st.minLabelPx, 26.f);  // text below minLabelPx is not drawn
  // Block frames behind everything; collapsed blocks as solid boxes with their name.
  for (const auto& b : r.blocks) {
    const auto& blk = m.layout.blocks[b.block];
    if (b.collapsed) {
      drawCollapsedBox(dl, b, m, font, fontPx, st.minLabelPx);
    } else {
      dl->AddRect(v2(b.x0, b.y0), v2(b.x1, b.y1), IM_COL32(110, 110, 140, 120), 6.f);
      if (b.y1 - b.y0 > 40) dl->AddText(v2(b.x0 + 4, b.y0 - 15), IM_COL32(160, 160, 190, 200), blk.name.c_str());
    }
  }
  // Edges below nodes.
  for (const auto& e : r.edges) {
    const bool special = e.kind != EdgeKind::Normal;
    ImU32 col = e.kind == EdgeKind::NeedsRedistribute || e.kind == EdgeKind::NotApplied ? kNeedsColour
                : special                                                          ? kRedistributeColour
                                                      : IM_COL32(150, 150, 160, r.merged ? 90 : 150);
    if (e.selected) col = kSelectColour;
    const float thick = special || e.selected ? 2.5f : 1.f;
    if (e.kind == EdgeKind::NotApplied) {
      // The planned collective is not there: a dashed edge (white dashes between when selected).
      const bool curved = !r.merged && std::abs(e.by - e.ay) > 30;
      if (e.selected) drawDashed(dl, e, curved, kSelectColour, thick, 0.5f);
      drawDashed(dl, e, curved, kNeedsColour, thick + 0.5f, 0.f);
      continue;
    }
    if (!r.merged && std::abs(e.by - e.ay) > 30 && r.edges.size() < 4000) {
      const float dy = (e.by - e.ay) * 0.5f;
      dl->AddBezierCubic(v2(e.ax, e.ay), v2(e.ax, e.ay + dy), v2(e.bx, e.by - dy), v2(e.bx, e.by), col, thick, 12);
    } else {
      dl->AddLine(v2(e.ax, e.ay), v2(e.bx, e.by), col, thick);
    }
  }
  if (!r.merged && 13.f * zoom >= st.minLabelPx)
    for (const auto& e : r.edges) drawBundleCount(dl, e, font, fontPx);
  const float stub = st.recordOptions.stubPx;
  for (const auto& s : r.stubs) {
    ImU32 col = s.kind == EdgeKind::NeedsRedistribute || s.kind == EdgeKind::NotApplied ? kNeedsColour
                : s.kind == EdgeKind::Redistribute    ? kRedistributeColour
                                                      : IM_COL32(150, 150, 160, 170);
    if (s.selected) col = kSelectColour;
    const float thick = s.kind != EdgeKind::Normal || s.selected ? 2.5f : 1.f;
    if (s.atSource) {
      dl->AddLine(v2(s.x, s.y), v2(s.x, s.y + stub), col, thick);
      dl->AddCircleFilled(v2(s.x, s.y + stub), 2.5f, col);
    } else {
      dl->AddLine(v2(s.x, s.y - stub), v2(s.x, s.y), col, thick);
      dl->AddTriangleFilled(v2(s.x - 3, s.y - 5), v2(s.x + 3, s.y - 5), v2(s.x, s.y), col);
    }
  }
  // Nodes or merged cells.
  for (const auto& c : r.cells) {
    const ImU32 col = c.severity >= 2 ? graphSeverityColour(c.severity) : graphSpecColour(c.colour);
    dl->AddRectFilled(v2(c.x0, c.y0), v2(c.x1, c.y1), col);
  }
  for (const auto& mk : r.marks)
    if (mk.mark >= 0 && mk.mark < static_cast<int>(m.marks.size()))
      dl->AddRectFilled(v2(mk.x0, mk.y0), v2(mk.x1, mk.y1), pillColour(m.marks[static_cast<size_t>(mk.mark)].state));
  char text[200];
  for (const auto& n : r.nodes) {
    const ImVec2 a = v2(n.x0, n.y0), b = v2(n.x1, n.y1);
    const float round = n.detail == NodeDetail::Box ? 0.f : 3.f;
    if (n.mark >= 0 && n.mark < static_cast<int>(m.marks.size())) {
      drawCollectiveNode(dl, n, m.marks[static_cast<size_t>(n.mark)], font, fontPx, zoom);
      continue;
    }
    dl->AddRectFilled(a, b, graphSpecColour(n.colour), round);
    if (n.severity >= 1 && n.detail != NodeDetail::Box) {
      const float rad = std::clamp(5.f * zoom, 2.f, 7.f);
      dl->AddCircleFilled(v2(n.x1 - rad - 2, n.y0 + rad + 2), rad, graphSeverityColour(n.severity));
    }
    if (n.severity >= 2) dl->AddRect(a, b, graphSeverityColour(n.severity), round, 0, n.detail == NodeDetail::Box ? 1.5f : 3.f);
    if (n.match) dl->AddRect(v2(a.x - 2, a.y - 2), v2(b.x + 2, b.y + 2), kMatchColour, round, 0, 2.f);
    if (n.selected) dl->AddRect(v2(a.x - 3, a.y - 3), v2(b.x + 3, b.y + 3), kSelectColour, round, 0, 2.5f);
    // The last run's first divergent node: a thick red frame; what runs after it is faded.
    if (n.divergent) dl->AddRect(v2(a.x - 5, a.y - 5), v2(b.x + 5, b.y + 5), kDivergentColour, round, 0, 3.5f);
    if (n.faded) dl->AddRectFilled(a, b, kFadeColour, round);
    if (n.detail == NodeDetail::Box) continue;
    const std::string title = nodeTitle(plan, n.node);
    dl->AddText(font, fontPx, v2(n.x0 + 4 * zoom, n.y0 + 3 * zoom), IM_COL32(255, 255, 255, 255), title.c_str());
    if (n.detail == NodeDetail::Full) {
      std::snprintf(text, sizeof text, "%s", nodeShapeText(plan, n.node).c_str());
      dl->AddText(font, fontPx, v2(n.x0 + 4 * zoom, n.y0 + 3 * zoom + fontPx), IM_COL32(235, 235, 235, 220), text);
    }
  }
  // Problem markers (far zoom): never smaller than a few pixels.
  for (const auto& mk : r.markers) {
    const ImU32 col = mk.selected ? kSelectColour : graphSeverityColour(mk.severity);
    dl->AddCircleFilled(v2(mk.x, mk.y), mk.selected ? 6.f : 4.f, col);
    if (mk.selected) dl->AddCircle(v2(mk.x, mk.y), 9.f, kSelectColour, 0, 2.f);
  }
  // Badges naming the collective.
  const bool readable = !r.merged && m.layout.nodeHeight * zoom >= 12.f;
  for (const auto& b : r.badges) {
    if (m.pills.count(b.edge)) continue;  // drawn by drawOverlayPills below
    const ImU32 col = b.kind == EdgeKind::NeedsRedistribute || b.kind == EdgeKind::NotApplied ? kNeedsColour : kRedistributeColour;
    auto it = m.badge.find(b.edge);
    if (!readable || it == m.badge.end()) { dl->AddCircleFilled(v2(b.x, b.y), 4.f, col); continue; }
    const char* label = it->second.c_str();
    const ImVec2 size = ImGui::CalcTextSize(label);
    const ImVec2 a = v2(b.x - size.x * 0.5f - 4, b.y - size.y * 0.5f - 2), c = v2(b.x + size.x * 0.5f + 4, b.y + size.y * 0.5f + 2);
    dl->AddRectFilled(a, c, withAlpha(col, 235), 6.f);
    dl->AddText(v2(a.x + 4, a.y + 2), IM_COL32(10, 10, 10, 255), label);
  }
  drawOverlayPills(dl, r, m, readable, static_cast<float>(m.layout.nodeHeight * zoom), fontPx, font);
}

void drawTooltip(const Plan& plan, const Diagnostics& diags, const GraphViewState& st) {
  if (st.hoveredNode >= 0) {
    const Node& n = plan.graph.nodes[st.hoveredNode];
    ImGui::BeginTooltip();
    ImGui::Text("%s  (%s)", n.name.c_str(), n.op.c_str());
    const std::string shape = nodeShapeText(plan, st.hoveredNode);
    if (!shape.empty()) ImGui::Text("%s", shape.c_str());
    if (const int mk = st.model->markOf.empty() ? -1 : st.model->markOf[st.hoveredNode]; mk >= 0) {
      const NodeMark& mark = st.model->marks[static_cast<size_t>(mk)];
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pillColour(mark.state)), "%s  %s  (%s)", mark.title.c_str(),
                         mark.detail.c_str(), pillStateName(mark.state));
    }
    if (st.hoveredNode < static_cast<int>(plan.specs.size()) && !plan.specs[st.hoveredNode].outputs.empty() &&
        plan.specs[st.hoveredNode].outputs[0])
      ImGui::Text("output: %s", plan.specs[st.hoveredNode].outputs[0]->toMeshString().c_str());
    if (!n.modulePath.empty()) ImGui::TextDisabled("%s  %s", phaseName(n.phase), n.modulePath.c_str());
    int shown = 0;
    for (const Diagnostic& item : diags.items) {
      if (item.node != st.hoveredNode) continue;
      const Diagnostic* d = &item;
      if (shown++ == 3) { ImGui::TextDisabled("..."); break; }
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(graphSeverityColour(static_cast<uint8_t>(d->severity) + 1)),
                         "%s: %s", diagKindName(d->kind), d->message.c_str());
    }
    ImGui::EndTooltip();
  } else if (st.hoveredEdge >= 0) {
    const auto& e = st.model->layout.edges[st.hoveredEdge];
    ImGui::BeginTooltip();
    ImGui::Text("%s -> %s (input %d)", plan.graph.nodes[e.src].name.c_str(), plan.graph.nodes[e.dst].name.c_str(), e.input);
    if (st.model->layout.longEdge[st.hoveredEdge])
      ImGui::TextDisabled("spans %d layers; double-click jumps to the far end",
                          st.model->layout.layer[e.dst] - st.model->layout.layer[e.src]);
    auto it = st.model->badge.find(st.hoveredEdge);
    if (it != st.model->badge.end()) ImGui::Text("redistribute: %s", it->second.c_str());
    if (auto p = st.model->pills.find(st.hoveredEdge); p != st.model->pills.end())
      for (const EdgePill& pill : p->second)
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pillColour(pill.state)), "applied graph (%s): %s",
                           pillStateName(pill.state), pill.text.c_str());
    ImGui::EndTooltip();
  }
}

// ---- minimap ----
void drawMinimap(ImDrawList* dl, GraphViewState& st, ImVec2 canvasMin, ImVec2 canvasMax) {
  const GraphModel& m = *st.model;
  const Rectd world = m.layout.bounds;
  if (world.empty()) return;
  // The minimap scales with the pane: at most a fifth of the canvas's width and a third of its height (and 180 x
  // 220 px), so it never hides much of a small pane's graph.
  const float maxW = std::min(180.f, (canvasMax.x - canvasMin.x) * kMinimapMaxWidth),
              maxH = std::min(220.f, (canvasMax.y - canvasMin.y) * kMinimapMaxHeight);
  const double scale = std::min(maxW / std::max(world.width(), 1.0), maxH / std::max(world.height(), 1.0));
  const float w = std::max(24.f, static_cast<float>(world.width() * scale)), h = static_cast<float>(world.height() * scale);
  const ImVec2 a = v2(canvasMax.x - w - 10, canvasMax.y - h - 10), b = v2(canvasMax.x - 10, canvasMax.y - 10);
  if (a.x < canvasMin.x || a.y < canvasMin.y) return;
  probeRect("graph.minimap", Rect{a.x, a.y, b.x, b.y});
  auto toMini = [&](Vec2d p) {
    return v2(a.x + static_cast<float>((p.x - world.min.x) * scale), a.y + static_cast<float>((p.y - world.min.y) * scale));
  };
  dl->AddRectFilled(a, b, palette().minimap, 3.f);
  for (size_t i = 0; i < m.layout.blocks.size(); ++i) {
    const auto& blk = m.layout.blocks[i];
    if (blk.nodeCount == 0) continue;
    dl->AddRectFilled(toMini(blk.bounds.min), toMini(blk.bounds.max), IM_COL32(90, 110, 150, 160));
  }
  // Nodes in no block (all of them in a graph without repeated layers) as tiny boxes in their spec colour; past
  // kMiniNodes the blocks and problems alone keep the minimap cheap on 100k-node graphs.
  constexpr size_t kMiniNodes = 20000;
  if (m.freeNodes.size() <= kMiniNodes)
    for (int v : m.freeNodes) {
      if (v < 0 || v >= static_cast<int>(m.visible.size()) || !m.visible[v]) continue;
      const Rectd r = m.layout.nodeRect(v);
      ImVec2 p = toMini(r.min), q = toMini(r.max);
      q.x = std::max(q.x, p.x + 1.f);
      q.y = std::max(q.y, p.y + 1.f);
      const uint32_t c = graphSpecColour(v < static_cast<int>(m.colour.size()) ? m.colour[v] : -1);
      dl->AddRectFilled(p, q, (c & 0x00FFFFFFu) | 0xB0000000u);
    }
  for (int v : m.problemNodes) {
    const ImVec2 p = toMini(m.layout.nodeRect(v).center());
    dl->AddRectFilled(v2(p.x - 1.5f, p.y - 1.5f), v2(p.x + 1.5f, p.y + 1.5f), graphSeverityColour(m.severity[v]));
  }
  // The view's rectangle, clipped to the minimap: a view wider than the graph would otherwise frame empty space.
  const Rectd vis = st.canvas.visibleWorld();
  dl->PushClipRect(a, b, true);
  dl->AddRect(toMini(vis.min), toMini(vis.max), palette().minimapView, 0, 0, 1.5f);
  dl->PopClipRect();
  dl->AddRect(a, b, IM_COL32(120, 120, 140, 255), 3.f);
  // Click or drag inside: centre the view there.
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const bool inside = mouse.x >= a.x && mouse.x <= b.x && mouse.y >= a.y && mouse.y <= b.y;
  if (inside && ImGui::IsMouseClicked(0)) st.draggingMinimap = true;
  if (!ImGui::IsMouseDown(0)) st.draggingMinimap = false;
  if (st.draggingMinimap)
    st.canvas.centerOn({world.min.x + (mouse.x - a.x) / scale, world.min.y + (mouse.y - a.y) / scale});
}

}  // namespace

uint32_t graphSpecColour(int colourClass) {
  if (colourClass < 0) return kNoSpec;
  return kSpecPalette[colourClass % static_cast<int>(sizeof kSpecPalette / sizeof kSpecPalette[0])];
}

uint32_t graphSeverityColour(uint8_t severity) {
  switch (severity) {
    case 3: return IM_COL32(235, 60, 60, 255);
    case 2: return IM_COL32(245, 170, 40, 255);
    case 1: return IM_COL32(90, 150, 230, 255);
    default: return IM_COL32(0, 0, 0, 0);
  }
}

// ---- entry point ----
void drawGraphView(const Plan& plan, const Diagnostics& diags, GraphViewState& st, Selection& sel) {
  // The canvas is the region below the toolbar (about two rows): the overview level is picked for it.
  const ImVec2 region = ImGui::GetContentRegionAvail();
  const Vec2d viewPx{std::max(region.x, 50.f), std::max(region.y - 2 * ImGui::GetFrameHeightWithSpacing(), 50.f)};
  keepModelCurrent(plan, diags, st, viewPx);
  // A node selected elsewhere (diagnostics, search, next problem) inside a collapsed box: the box opens.
  if (sel.generation != st.selectionSeen && sel.node >= 0 && revealNode(st, sel.node)) keepOverviewCurrent(plan, diags, st);
  drawToolbar(plan, st, sel);
  keepModelCurrent(plan, diags, st, viewPx);  // the toolbar may have changed filter, search or level

  ImVec2 origin = ImGui::GetCursorScreenPos();
  ImVec2 avail = ImGui::GetContentRegionAvail();
  avail.x = std::max(avail.x, 50.f);
  avail.y = std::max(avail.y, 50.f);
  if (!st.model) {
    ImGui::Text("Laying out %d nodes...", plan.graph.size());
    ImGui::ProgressBar(st.layoutProgress(), ImVec2(std::min(avail.x, 400.f), 0));
    return;
  }
  st.canvas.origin = {origin.x, origin.y};
  st.canvas.size = {avail.x, avail.y};
  if (st.fitRequested && fitOverview(plan, diags, st)) st.fitRequested = false;
  if (!st.model) return;  // Fit asked for another level: its layout runs
  if (st.zoomRequest != 1.0) st.canvas.zoomAt(st.canvas.origin + st.canvas.size * 0.5, st.zoomRequest);
  if (st.panRequest.x != 0 || st.panRequest.y != 0) st.canvas.pan(st.panRequest);
  st.zoomRequest = 1.0;
  st.panRequest = {0, 0};
  if (sel.generation != st.selectionSeen) {
    st.selectionSeen = sel.generation;
    if (sel.centreRequested) { centreOnSelection(st, sel.node, sel.input); sel.centreRequested = false; }
  }

  ImGui::InvisibleButton("graph-canvas", avail, ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight |
                                                    ImGuiButtonFlags_MouseButtonMiddle);
  ImGui::SetItemUsingMouseWheel();
  const bool hovered = ImGui::IsItemHovered();
  const bool active = ImGui::IsItemActive();
  ImGuiIO& io = ImGui::GetIO();
  const Vec2d mouse{io.MousePos.x, io.MousePos.y};
  if (hovered && io.MouseWheel != 0.f) st.canvas.zoomAt(mouse, std::pow(1.2, io.MouseWheel));
  if (active && (ImGui::IsMouseDragging(0, 2.f) || ImGui::IsMouseDragging(1, 2.f) || ImGui::IsMouseDragging(2, 2.f)) &&
      !st.draggingMinimap)
    st.canvas.pan({io.MouseDelta.x, io.MouseDelta.y});
  if (hovered && !io.WantTextInput && keys::actionPressed(keys::Action::Fit)) st.fitRequested = true;

  // E opens the box under the mouse (else the selection's); Shift+E closes the group around the selection.
  if (hovered && !io.WantTextInput) {
    if (keys::actionPressed(keys::Action::CloseBox)) collapseAround(st, sel.node);
    else if (keys::actionPressed(keys::Action::OpenBox) && !expandBox(st, st.hoveredBox)) expandBox(st, collapsedBoxOf(st, sel.node));
  }

  // Records for this frame. Text is drawn at st.minLabelPx or more (13 px per zoom unit), never smaller.
  RecordOptions ro = st.recordOptions;
  ro.titleAbovePx = std::max({ro.titleAbovePx, 20.f, static_cast<float>(st.model->layout.nodeHeight * readableZoom(st)) - 0.01f});
  ro.selectedNode = sel.node;
  ro.divergentNode = st.divergentNode;
  ro.selectedEdge = sel.hasEdge() ? st.model->findEdge(sel.node, sel.input) : -1;
  const auto t0 = std::chrono::steady_clock::now();
  buildGraphRecords(*st.model, st.canvas, ro, st.records);
  st.lastRecordMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  // Hover and clicks.
  st.hoveredNode = -1;
  st.hoveredEdge = -1;
  st.hoveredBox = -1;
  if (hovered) {
    const int v = st.model->layout.hitTest(st.canvas.toWorld(mouse));
    const int b = v >= 0 ? st.model->blockOf[v] : -1;
    if (v >= 0 && st.model->visible[v] && !(b >= 0 && st.model->collapsed[b])) st.hoveredNode = v;
    else st.hoveredEdge = edgeUnder(st.records, io.MousePos, ro.stubPx);
    if (st.hoveredNode < 0 && st.hoveredEdge < 0)
      for (const auto& rec : st.records.blocks)
        if (rec.collapsed && io.MousePos.x >= rec.x0 && io.MousePos.x <= rec.x1 && io.MousePos.y >= rec.y0 &&
            io.MousePos.y <= rec.y1) {
          st.hoveredBox = rec.block;
          drawBoxTooltip(*st.model, rec.block);
        }
  }
  if (hovered && ImGui::IsMouseDoubleClicked(0) && st.hoveredBox >= 0) expandBox(st, st.hoveredBox);
  if (hovered && ImGui::IsMouseReleased(0) && ImGui::GetMouseDragDelta(0, 2.f).x == 0.f &&
      ImGui::GetMouseDragDelta(0, 2.f).y == 0.f && !st.draggingMinimap) {
    if (st.hoveredNode >= 0) sel.selectNode(st.hoveredNode);
    else if (st.hoveredEdge >= 0) {
      const auto& e = st.model->layout.edges[st.hoveredEdge];
      sel.selectEdge(e.dst, e.input);
    }
    st.selectionSeen = sel.generation;
  }
  if (hovered && ImGui::IsMouseDoubleClicked(0) && st.hoveredEdge >= 0 && st.model->layout.longEdge[st.hoveredEdge]) {
    // Jump to the end of the long edge farther from the mouse.
    const auto& e = st.model->layout.edges[st.hoveredEdge];
    const Rectd rs = st.model->layout.nodeRect(e.src), rd = st.model->layout.nodeRect(e.dst);
    const Vec2d w = st.canvas.toWorld(mouse);
    const double ds = std::abs(rs.center().y - w.y), dd = std::abs(rd.center().y - w.y);
    st.canvas.centerOn(ds > dd ? rs.center() : rd.center());
  }

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 canvasMax = v2(origin.x + avail.x, origin.y + avail.y);
  dl->PushClipRect(origin, canvasMax, true);
  dl->AddRectFilled(origin, canvasMax, palette().canvas);
  drawRecords(dl, plan, st);
  if (st.diff != nullptr) {
    buildGraphDiffRecords(*st.diff, *st.model, st.canvas, sel.node, st.diffRecords);
    drawGraphDiff(dl, *st.diff, st.diffRecords);
  } else {
    st.diffRecords.clear();
  }
  if (st.showMinimap) drawMinimap(dl, st, origin, canvasMax);
  dl->PopClipRect();
  if (hovered) drawTooltip(plan, diags, st);
}

}  // namespace ss::views
