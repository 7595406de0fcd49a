// The graph view's drawing helpers; see views/graph_view_draw.h.
#include "views/graph_view_draw.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "views/graph_view.h"  // graphSeverityColour

namespace ss::views::graphdraw {

ImU32 pillColour(PillState s) {
  switch (s) {
    case PillState::Applied: return kAppliedColour;
    case PillState::Missing: return kNeedsColour;
    case PillState::Unplanned: return kUnplannedColour;
    case PillState::Plan: break;
  }
  return kRedistributeColour;
}

// A dashed edge: the straight line or the same cubic the solid edges use, sampled, every other piece drawn.
// `phase` (0..1) shifts the dashes (a second pass with 0.5 fills the gaps).
void drawDashed(ImDrawList* dl, const EdgeRecord& e, bool curved, ImU32 col, float thick, float phase) {
  constexpr int kSamples = 24;
  ImVec2 pts[kSamples + 1];
  const float dy = (e.by - e.ay) * 0.5f;
  for (int i = 0; i <= kSamples; ++i) {
    const float t = static_cast<float>(i) / kSamples, u = 1.f - t;
    if (!curved) {
      pts[i] = v2(e.ax + (e.bx - e.ax) * t, e.ay + (e.by - e.ay) * t);
    } else {  // B(t) with control points (a, a + dy, b - dy, b)
      const float w0 = u * u * u, w1 = 3 * u * u * t, w2 = 3 * u * t * t, w3 = t * t * t;
      pts[i] = v2(w0 * e.ax + w1 * e.ax + w2 * e.bx + w3 * e.bx, w0 * e.ay + w1 * (e.ay + dy) + w2 * (e.by - dy) + w3 * e.by);
    }
  }
  // Dashes of ~7 px along the arc length.
  float along = phase * 14.f;
  for (int i = 0; i < kSamples; ++i) {
    const float len = std::hypot(pts[i + 1].x - pts[i].x, pts[i + 1].y - pts[i].y);
    const int pieces = std::max(1, static_cast<int>(len / 3.5f));
    for (int k = 0; k < pieces; ++k) {
      const float t0 = static_cast<float>(k) / pieces, t1 = static_cast<float>(k + 1) / pieces;
      const float mid = along + len * (t0 + t1) * 0.5f;
      if (std::fmod(mid, 14.f) < 7.f)
        dl->AddLine(v2(pts[i].x + (pts[i + 1].x - pts[i].x) * t0, pts[i].y + (pts[i + 1].y - pts[i].y) * t0),
                    v2(pts[i].x + (pts[i + 1].x - pts[i].x) * t1, pts[i].y + (pts[i + 1].y - pts[i].y) * t1), col, thick);
    }
    along += len;
  }
}

// A dashed rectangle outline (a ghost node's frame).
static void dashedRect(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, float thick) {
  const ImVec2 corners[5] = {a, v2(b.x, a.y), b, v2(a.x, b.y), a};
  for (int s = 0; s < 4; ++s) {
    const ImVec2 p = corners[s], q = corners[s + 1];
    const float len = std::hypot(q.x - p.x, q.y - p.y);
    for (float d = 0; d < len; d += 10.f) {
      const float t0 = d / len, t1 = std::min(d + 6.f, len) / len;
      dl->AddLine(v2(p.x + (q.x - p.x) * t0, p.y + (q.y - p.y) * t0), v2(p.x + (q.x - p.x) * t1, p.y + (q.y - p.y) * t1), col, thick);
    }
  }
}

// A check mark of height h whose left end is at (x, y).
static void checkMark(ImDrawList* dl, float x, float y, float h, ImU32 col) {
  const ImVec2 pts[3] = {v2(x, y), v2(x + h * 0.35f, y + h * 0.35f), v2(x + h, y - h * 0.55f)};
  dl->AddPolyline(pts, 3, col, 0, 2.f);
}

// A collective node: a chamfered box in its state's colour, kind and mesh dim, then bytes and time.
void drawCollectiveNode(ImDrawList* dl, const NodeRecord& n, const NodeMark& mark, ImFont* font, float fontPx, float zoom) {
  const float c = std::min({8.f * zoom, (n.x1 - n.x0) * 0.25f, (n.y1 - n.y0) * 0.4f});
  const ImVec2 pts[8] = {v2(n.x0 + c, n.y0), v2(n.x1 - c, n.y0), v2(n.x1, n.y0 + c), v2(n.x1, n.y1 - c),
                         v2(n.x1 - c, n.y1), v2(n.x0 + c, n.y1), v2(n.x0, n.y1 - c), v2(n.x0, n.y0 + c)};
  const ImU32 col = pillColour(mark.state);
  dl->AddConvexPolyFilled(pts, 8, withAlpha(col, 235));
  dl->AddPolyline(pts, 8, IM_COL32(255, 255, 255, 200), ImDrawFlags_Closed, 1.5f);
  if (n.severity >= 2) dl->AddPolyline(pts, 8, graphSeverityColour(n.severity), ImDrawFlags_Closed, 3.f);
  if (n.selected) dl->AddRect(v2(n.x0 - 3, n.y0 - 3), v2(n.x1 + 3, n.y1 + 3), kSelectColour, 3.f, 0, 2.5f);
  if (n.match) dl->AddRect(v2(n.x0 - 2, n.y0 - 2), v2(n.x1 + 2, n.y1 + 2), kMatchColour, 3.f, 0, 2.f);
  if (n.detail == NodeDetail::Box) return;
  dl->AddText(font, fontPx, v2(n.x0 + c + 2 * zoom, n.y0 + 3 * zoom), IM_COL32(10, 10, 10, 255), mark.title.c_str());
  if (n.detail == NodeDetail::Full)
    dl->AddText(font, fontPx, v2(n.x0 + c + 2 * zoom, n.y0 + 3 * zoom + fontPx), IM_COL32(20, 20, 20, 255), mark.detail.c_str());
}

// The overlay's pills: laid out first (each edge's pills stacked upwards from its badge position; a pill that
// would cover one already placed moves up, then down, a pill's height at a time; missing pills are placed first
// so they keep their spot on the edge), then drawn with the missing ones on top. A ghost pill is a node-sized
// dashed box (the collective that should be there); a missing pill is outlined in the error colour.
void drawOverlayPills(ImDrawList* dl, const GraphRecords& r, const GraphModel& m, bool readable, float nodePx,
                      float fontPx, ImFont* font) {
  struct Placed { const EdgePill* pill; ImVec2 a, c, text; float px, padX, check; };
  std::vector<Placed> placed;
  std::vector<std::pair<const BadgeRecord*, const std::vector<EdgePill>*>> todo;
  for (const auto& b : r.badges)
    if (auto p = m.pills.find(b.edge); p != m.pills.end()) todo.push_back({&b, &p->second});
  if (!readable) {
    for (const auto& [b, pills] : todo) {
      float y = b->y;
      for (const EdgePill& p : *pills) {
        dl->AddCircleFilled(v2(b->x, y), p.state == PillState::Missing ? 5.f : 4.f, pillColour(p.state));
        y -= 10.f;
      }
    }
    return;
  }
  auto missingFirst = [](const std::pair<const BadgeRecord*, const std::vector<EdgePill>*>& t) {
    return std::any_of(t.second->begin(), t.second->end(), [](const EdgePill& p) { return p.state == PillState::Missing; });
  };
  std::stable_partition(todo.begin(), todo.end(), missingFirst);
  auto overlaps = [&](ImVec2 a, ImVec2 c) {
    for (const Placed& q : placed)
      if (a.x < q.c.x + 2 && c.x > q.a.x - 2 && a.y < q.c.y + 2 && c.y > q.a.y - 2) return true;
    return false;
  };
  for (const auto& [b, pills] : todo) {
    float y = b->y;
    for (const EdgePill& p : *pills) {
      const float px = p.ghost ? std::clamp(fontPx, 11.f, 16.f) : std::clamp(fontPx, 10.f, 14.f);
      const ImVec2 size = font->CalcTextSizeA(px, 1e9f, 0.f, p.text.c_str());
      const float padX = p.ghost ? 8.f : 4.f, check = p.state == PillState::Applied ? size.y + 2.f : 0.f;
      const float h = p.ghost ? std::max(size.y + 8.f, nodePx * 0.8f) : size.y + 4.f;
      const float w = size.x + 2 * padX + check;
      float cy = y;
      for (int k = 1; k <= 6; ++k) {
        if (!overlaps(v2(b->x - w * 0.5f, cy - h * 0.5f), v2(b->x + w * 0.5f, cy + h * 0.5f))) break;
        cy = y + (k % 2 ? -1.f : 1.f) * static_cast<float>((k + 1) / 2) * (h + 3.f);
      }
      const ImVec2 a = v2(b->x - w * 0.5f, cy - h * 0.5f), c = v2(b->x + w * 0.5f, cy + h * 0.5f);
      placed.push_back({&p, a, c, v2(a.x + padX + check, a.y + (h - size.y) * 0.5f), px, padX, check});
      y = cy - h - 3.f;
    }
  }
  for (int pass = 0; pass < 2; ++pass)
    for (const Placed& q : placed) {
      const EdgePill& p = *q.pill;
      if ((p.state == PillState::Missing) != (pass == 1)) continue;
      if (p.state == PillState::Missing) {
        dl->AddRectFilled(q.a, q.c, kMissingFill, p.ghost ? 3.f : 6.f);
        if (p.ghost) dashedRect(dl, q.a, q.c, kNeedsColour, 2.f);
        else dl->AddRect(q.a, q.c, kNeedsColour, 6.f, 0, 2.f);
        dl->AddText(font, q.px, q.text, IM_COL32(255, 120, 110, 255), p.text.c_str());
      } else {
        dl->AddRectFilled(q.a, q.c, withAlpha(pillColour(p.state), 235), 6.f);
        if (q.check > 0) {
          const float th = q.c.y - q.a.y - 4.f;
          checkMark(dl, q.a.x + q.padX, q.text.y + th * 0.55f, th * 0.7f, IM_COL32(10, 60, 20, 255));
        }
        dl->AddText(font, q.px, q.text, IM_COL32(10, 10, 10, 255), p.text.c_str());
      }
    }
}

// ---- module overview ----
std::string elide(ImFont* font, float fontPx, const std::string& text, float maxWidth) {
  if (font->CalcTextSizeA(fontPx, FLT_MAX, 0.f, text.c_str()).x <= maxWidth) return text;
  std::string cut = text;
  while (!cut.empty() && font->CalcTextSizeA(fontPx, FLT_MAX, 0.f, (cut + "...").c_str()).x > maxWidth) cut.pop_back();
  return cut.empty() ? std::string() : cut + "...";
}

namespace {

// "97 nodes, 2 errors, 5 collectives" (what a box holds).
std::string boxSummary(const GraphModel& m, int block) {
  const auto& blk = m.layout.blocks[static_cast<size_t>(block)];
  std::string s = std::to_string(blk.nodeCount) + " nodes";
  if (blk.instances > 1) s = std::to_string(blk.instances) + " blocks, " + s;
  auto count = [&](const std::vector<int>& v, const char* one, const char* many) {
    const int k = block < static_cast<int>(v.size()) ? v[static_cast<size_t>(block)] : 0;
    if (k > 0) s += ", " + std::to_string(k) + " " + (k == 1 ? one : many);
  };
  count(m.blockErrors, "error", "errors");
  count(m.blockWarnings, "warning", "warnings");
  count(m.blockComm, "collective", "collectives");
  return s;
}

ImU32 darken(ImU32 c, float f) {
  const auto ch = [&](int shift) { return static_cast<ImU32>(static_cast<float>((c >> shift) & 0xFF) * f) << shift; };
  return ch(IM_COL32_R_SHIFT) | ch(IM_COL32_G_SHIFT) | ch(IM_COL32_B_SHIFT) | (c & IM_COL32_A_MASK);
}

}  // namespace

void drawCollapsedBox(ImDrawList* dl, const BlockRecord& b, const GraphModel& m, ImFont* font, float fontPx, float minFontPx) {
  const auto& blk = m.layout.blocks[static_cast<size_t>(b.block)];
  const int16_t colour = b.block < static_cast<int>(m.blockColour.size()) ? m.blockColour[static_cast<size_t>(b.block)] : -1;
  const ImU32 fill = darken(colour >= 0 ? kSpecPalette[colour % static_cast<int>(sizeof kSpecPalette / sizeof kSpecPalette[0])] : kNoSpec, 0.55f);
  const float round = 6.f;
  dl->AddRectFilled(v2(b.x0, b.y0), v2(b.x1, b.y1), fill, round);
  // A stack of boxes behind a family box: it holds several blocks.
  if (blk.instances > 1) dl->AddRect(v2(b.x0 + 4, b.y0 - 4), v2(b.x1 + 4, b.y1 - 4), withAlpha(fill, 200), round, 0, 1.5f);
  if (b.severity >= 2) dl->AddRect(v2(b.x0, b.y0), v2(b.x1, b.y1), graphSeverityColour(b.severity), round, 0, 3.f);
  else dl->AddRect(v2(b.x0, b.y0), v2(b.x1, b.y1), IM_COL32(200, 200, 220, 160), round, 0, 1.5f);
  if (fontPx < minFontPx || b.y1 - b.y0 < fontPx + 4) return;
  const float pad = 6.f, width = b.x1 - b.x0 - 2 * pad;
  const std::string name = blk.name + (blk.instances > 1 ? "  x" + std::to_string(blk.instances) : std::string());
  dl->AddText(font, fontPx, v2(b.x0 + pad, b.y0 + 3), IM_COL32(255, 255, 255, 255), elide(font, fontPx, name, width).c_str());
  if (b.y1 - b.y0 >= 2 * fontPx + 6)
    dl->AddText(font, fontPx, v2(b.x0 + pad, b.y0 + 3 + fontPx), IM_COL32(225, 225, 235, 230),
                elide(font, fontPx, boxSummary(m, b.block), width).c_str());
}

void drawBoxTooltip(const GraphModel& m, int block) {
  const auto& blk = m.layout.blocks[static_cast<size_t>(block)];
  ImGui::BeginTooltip();
  ImGui::Text("%s", blk.name.c_str());
  ImGui::Text("%s", boxSummary(m, block).c_str());
  ImGui::TextDisabled(blk.instances > 1 ? "collapsed module: double-click or E shows its blocks"
                                        : "collapsed block: double-click or E shows its nodes");
  ImGui::EndTooltip();
}

void drawBundleCount(ImDrawList* dl, const EdgeRecord& e, ImFont* font, float fontPx) {
  if (e.bundled <= 1) return;
  const std::string label = "x" + std::to_string(e.bundled);
  const ImVec2 size = font->CalcTextSizeA(fontPx, FLT_MAX, 0.f, label.c_str());
  const ImVec2 at = v2((e.ax + e.bx) * 0.5f + 4, (e.ay + e.by) * 0.5f - size.y * 0.5f);
  dl->AddRectFilled(v2(at.x - 2, at.y - 1), v2(at.x + size.x + 2, at.y + size.y + 1), IM_COL32(30, 30, 38, 220), 3.f);
  dl->AddText(font, fontPx, at, IM_COL32(230, 230, 240, 255), label.c_str());
}

}  // namespace ss::views::graphdraw
