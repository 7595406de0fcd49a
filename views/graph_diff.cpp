// Compare-mode badges over the graph; see views/graph_diff.h.
#include "views/graph_diff.h"

#include <imgui.h>

#include <algorithm>

namespace ss::views {

void buildGraphDiffRecords(const GraphDiffMarks& marks, const GraphModel& model, const Canvas& canvas, int selectedNode,
                           std::vector<DiffBadgeRecord>& out) {
  out.clear();
  const GraphLayout& L = model.layout;
  const double sx0 = canvas.origin.x, sy0 = canvas.origin.y;
  const double sx1 = sx0 + canvas.size.x, sy1 = sy0 + canvas.size.y;
  const bool readable = L.nodeHeight * canvas.zoom >= 12.0;
  auto shown = [&](int n) {
    return n >= 0 && n < L.nodeCount() && (model.visible.empty() || model.visible[static_cast<size_t>(n)]);
  };
  const double pad = 80;  // a badge sticks out of its node: keep marks just off screen too
  for (size_t k = 0; k < marks.nodes.size(); ++k) {
    const NodeDiffMark& m = marks.nodes[k];
    if (!shown(m.node)) continue;
    const Rectd r = canvas.rectToScreen(L.nodeRect(m.node));
    if (r.max.x < sx0 - pad || r.min.x > sx1 + pad || r.max.y < sy0 - pad || r.min.y > sy1 + pad) continue;
    DiffBadgeRecord rec;
    rec.mark = static_cast<int>(k);
    rec.x0 = static_cast<float>(r.min.x);
    rec.y0 = static_cast<float>(r.min.y);
    rec.x1 = static_cast<float>(r.max.x);
    rec.y1 = static_cast<float>(r.max.y);
    rec.kind = m.kind;
    rec.readable = readable;
    rec.selected = m.node == selectedNode;
    out.push_back(rec);
  }
  for (size_t k = 0; k < marks.edges.size(); ++k) {
    const EdgeDiffMark& m = marks.edges[k];
    const int e = model.findEdge(m.node, m.input);
    if (e < 0 || !shown(m.node)) continue;
    const LayoutEdge& le = L.edges[static_cast<size_t>(e)];
    const Rectd rs = canvas.rectToScreen(L.nodeRect(le.src)), rd = canvas.rectToScreen(L.nodeRect(le.dst));
    const float frac = static_cast<size_t>(e) < model.entryFraction.size() ? model.entryFraction[static_cast<size_t>(e)] : 0.5f;
    const double bx = rd.min.x + (rd.max.x - rd.min.x) * frac, by = rd.min.y;
    const double ax = (rs.min.x + rs.max.x) * 0.5, ay = rs.max.y;
    // Long edges are stubs: put the badge just above the consumer; short ones at the middle of the edge.
    const bool longEdge = static_cast<size_t>(e) < L.longEdge.size() && L.longEdge[static_cast<size_t>(e)];
    const double x = longEdge ? bx : (ax + bx) * 0.5, y = longEdge ? by - 18 : (ay + by) * 0.5;
    if (x < sx0 - pad || x > sx1 + pad || y < sy0 - pad || y > sy1 + pad) continue;
    DiffBadgeRecord rec;
    rec.edge = true;
    rec.mark = static_cast<int>(k);
    rec.x0 = rec.x1 = static_cast<float>(x);
    rec.y0 = rec.y1 = static_cast<float>(y);
    rec.readable = readable;
    rec.selected = m.node == selectedNode;
    if (auto it = model.badge.find(e); it != model.badge.end()) rec.graphBadgeChars = static_cast<int>(it->second.size());
    out.push_back(rec);
  }
}

namespace {

// "A before" (dim) and "B after" (bright) as two joined pills, vertically centred on cy; horizontally centred on cx,
// or starting at cx when `fromLeft` (edge badges: beside the edge, so the graph's own badge on it stays visible).
void drawPair(ImDrawList* dl, float cx, float cy, const std::string& before, const std::string& after, bool selected,
              bool fromLeft) {
  const std::string left = "A " + (before.empty() ? std::string("none") : before);
  const std::string right = "B " + (after.empty() ? std::string("none") : after);
  const ImVec2 ls = ImGui::CalcTextSize(left.c_str()), rs = ImGui::CalcTextSize(right.c_str());
  const float h = std::max(ls.y, rs.y) + 4, w = ls.x + rs.x + 16;
  const ImVec2 a(fromLeft ? cx : cx - w * 0.5f, cy - h * 0.5f), mid(a.x + ls.x + 8, a.y + h), b(a.x + w, a.y + h);
  dl->AddRectFilled(a, mid, IM_COL32(60, 40, 64, 240), 5.f, ImDrawFlags_RoundCornersLeft);
  dl->AddRectFilled(ImVec2(mid.x, a.y), b, kDiffColour, 5.f, ImDrawFlags_RoundCornersRight);
  if (selected) dl->AddRect(ImVec2(a.x - 2, a.y - 2), ImVec2(b.x + 2, b.y + 2), IM_COL32(255, 255, 255, 255), 6.f, 0, 2.f);
  dl->AddText(ImVec2(a.x + 4, a.y + 2), IM_COL32(235, 210, 240, 255), left.c_str());
  dl->AddText(ImVec2(mid.x + 4, a.y + 2), IM_COL32(20, 10, 20, 255), right.c_str());
}

}  // namespace

void drawGraphDiff(ImDrawList* dl, const GraphDiffMarks& marks, const std::vector<DiffBadgeRecord>& records) {
  // Outlines first, so every badge sits above every outline.
  for (const DiffBadgeRecord& r : records) {
    if (r.edge) continue;
    const float o = 5.f;
    const ImU32 col = r.kind == DiffMarkKind::Removed ? IM_COL32(150, 150, 150, 255) : kDiffColour;
    dl->AddRect(ImVec2(r.x0 - o, r.y0 - o), ImVec2(r.x1 + o, r.y1 + o), col, 4.f, 0, 2.5f);
  }
  for (const DiffBadgeRecord& r : records) {
    if (!r.readable) {
      dl->AddCircleFilled(ImVec2(r.edge ? r.x0 : r.x1, r.y0), 4.f, kDiffColour);
      continue;
    }
    if (r.edge) {
      const EdgeDiffMark& m = marks.edges[static_cast<size_t>(r.mark)];
      // Beside the graph's own badge on this edge (centred on the same point); with none, a dot and a short leader.
      const float skip = r.graphBadgeChars > 0 ? ImGui::CalcTextSize("x").x * 1.15f * r.graphBadgeChars * 0.5f + 16 : 14;
      if (r.graphBadgeChars == 0) {
        dl->AddCircleFilled(ImVec2(r.x0, r.y0), 4.f, kDiffColour);
        dl->AddLine(ImVec2(r.x0, r.y0), ImVec2(r.x0 + skip, r.y0), kDiffColour, 2.f);
      }
      drawPair(dl, r.x0 + skip, r.y0, m.before, m.after, r.selected, true);
    } else {
      const NodeDiffMark& m = marks.nodes[static_cast<size_t>(r.mark)];
      if (m.kind == DiffMarkKind::Removed) {
        const char* label = "only in A (removed in B)";
        const ImVec2 s = ImGui::CalcTextSize(label);
        const ImVec2 a(r.x0, r.y0 - s.y - 10), b(r.x0 + s.x + 8, r.y0 - 6);
        dl->AddRectFilled(a, b, IM_COL32(90, 90, 90, 240), 5.f);
        dl->AddText(ImVec2(a.x + 4, a.y + 2), IM_COL32(240, 240, 240, 255), label);
      } else if (!m.before.empty() || !m.after.empty()) {
        const float h = ImGui::GetTextLineHeight() + 4;
        drawPair(dl, (r.x0 + r.x1) * 0.5f, r.y0 - h * 0.5f - 7, m.before, m.after, r.selected, false);
      }
    }
  }
}

}  // namespace ss::views
