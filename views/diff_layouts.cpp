// Compare mode in the Edge and Mesh views; see views/diff_layouts.h.
#include "views/diff_layouts.h"

#include <imgui.h>

#include <algorithm>

#include "views/model/focus.h"
#include "views/graph_diff.h"
#include "views/model/mesh_layout.h"
#include "views/mesh_view.h"
#include "views/theme.h"
#include "views/toolbar.h"

namespace ss::views {

namespace {

const std::string& nameOf(const Plan& p, int n) { return p.graph.nodes[static_cast<size_t>(n)].name; }

// What consumer `node` receives on `input` in `p`.
LayoutSide receivedLayout(const Plan& p, int node, int input) {
  LayoutSide s;
  const auto& ins = p.graph.inputs(node);
  if (input < 0 || input >= static_cast<int>(ins.size())) {
    s.why = nameOf(p, node) + " has no tensor input " + std::to_string(input);
    return s;
  }
  const TensorMeta* meta = p.graph.meta(ins[static_cast<size_t>(input)]);
  if (meta == nullptr || !meta->known) {
    s.why = "the shape is unknown";
    return s;
  }
  s.meta = *meta;
  const std::optional<ShardingSpec> have = p.producerSpec(node, input), want = p.consumerSpec(node, input);
  if (const Redistribute* r = p.findRedistribute(node, input)) {
    s.spec = r->to;
    s.caption = "receives " + r->to.toMeshString() + " after its redistribute " + r->from.toMeshString() + " -> " +
                r->to.toMeshString();
  } else if (!have || !want) {
    s.why = "the plan gives no placement for this edge";
    return s;
  } else if (*have == *want) {
    s.spec = *have;
    s.caption = "receives " + have->toMeshString() + " as produced";
  } else if (p.isSolverSolution()) {
    s.spec = *want;
    s.caption = "receives " + want->toMeshString() + " (the solver plans " + have->toMeshString() + " -> " +
                want->toMeshString() + ")";
  } else {
    s.spec = *have;
    s.caption = "receives " + have->toMeshString() + ": no redistribute, " + p.graph.nodes[static_cast<size_t>(node)].opName() +
                " wants " + want->toMeshString();
  }
  s.valid = validateSpec(s.spec, p.mesh, s.meta.rank()).empty();
  if (!s.valid) s.why = "cannot lay out " + s.spec.toMeshString();
  else s.shapes = localShapeSummary(p, s.meta, s.spec);
  return s;
}

LayoutSide outputLayout(const Plan& p, int node, int output) {
  LayoutSide s;
  const Node& n = p.graph.nodes[static_cast<size_t>(node)];
  const auto& outs = p.specs[static_cast<size_t>(node)].outputs;
  if (output < 0 || output >= static_cast<int>(n.outputs.size()) || output >= static_cast<int>(outs.size())) {
    s.why = n.name + " has no output " + std::to_string(output);
    return s;
  }
  if (!n.outputs[static_cast<size_t>(output)].known) {
    s.why = "the shape is unknown";
    return s;
  }
  if (!outs[static_cast<size_t>(output)]) {
    s.why = "the plan gives no placement for " + n.name;
    return s;
  }
  s.meta = n.outputs[static_cast<size_t>(output)];
  s.spec = *outs[static_cast<size_t>(output)];
  s.caption = n.name + " outputs " + s.spec.toMeshString();
  s.valid = validateSpec(s.spec, p.mesh, s.meta.rank()).empty();
  if (!s.valid) s.why = "cannot lay out " + s.spec.toMeshString();
  else s.shapes = localShapeSummary(p, s.meta, s.spec);
  return s;
}

void finish(const Plan& a, const Plan& b, LayoutPair& p) {
  p.differs = p.a.valid && p.b.valid &&
              (p.a.spec != p.b.spec || !(a.mesh == b.mesh) || !(p.a.meta == p.b.meta));
}

}  // namespace

LayoutPair edgeLayoutsAB(const Plan& a, const Plan& b, const PlanDiff& d, int nodeA, int input) {
  LayoutPair p;
  if (nodeA < 0 || nodeA >= a.graph.size()) {
    p.a.why = p.b.why = "no node selected";
    return p;
  }
  const auto& ins = a.graph.inputs(nodeA);
  p.title = (input >= 0 && input < static_cast<int>(ins.size()) ? nameOf(a, ins[static_cast<size_t>(input)].node) + " -> " : std::string()) +
            nameOf(a, nodeA) + " (input " + std::to_string(input) + ") in A and in B";
  p.a = receivedLayout(a, nodeA, input);
  const int m = nodeA < static_cast<int>(d.aToB.size()) ? d.aToB[static_cast<size_t>(nodeA)] : -1;
  if (m < 0) p.b.why = nameOf(a, nodeA) + " is not in B";
  else p.b = receivedLayout(b, m, input);
  finish(a, b, p);
  return p;
}

LayoutPair outputLayoutsAB(const Plan& a, const Plan& b, const PlanDiff& d, int nodeA, int output) {
  LayoutPair p;
  if (nodeA < 0 || nodeA >= a.graph.size()) {
    p.a.why = p.b.why = "no node selected";
    return p;
  }
  p.title = nameOf(a, nodeA) + (output > 0 ? " output " + std::to_string(output) : std::string()) + " in A and in B";
  p.a = outputLayout(a, nodeA, output);
  const int m = nodeA < static_cast<int>(d.aToB.size()) ? d.aToB[static_cast<size_t>(nodeA)] : -1;
  if (m < 0) p.b.why = nameOf(a, nodeA) + " is not in B";
  else p.b = outputLayout(b, m, output);
  finish(a, b, p);
  return p;
}

namespace {

void drawSide(const char* label, const DeviceMesh& mesh, const LayoutSide& s, float width, float height, int64_t pinned) {
  const Palette& pal = palette();
  ImGui::BeginGroup();
  ToolbarFlow row("compare.side");  // the side's header wraps at its width (views/toolbar.h)
  row.setRight(ImGui::GetCursorScreenPos().x + width);
  row.text(label, kDiffColour);
  if (!s.valid) {
    row.text(s.why, ImGui::GetColorU32(ImGuiCol_TextDisabled));
    ImGui::Dummy(ImVec2(width, 1));
    ImGui::EndGroup();
    return;
  }
  row.text(s.spec.toMeshString(), specColor(s.spec), "spec");
  row.text("local " + s.shapes, pal.text, "local");
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
  ImGui::TextDisabled("%s", s.caption.c_str());
  ImGui::PopTextWrapPos();
  MeshGridOptions o;
  o.width = width;
  o.height = std::max(height - ImGui::GetTextLineHeightWithSpacing() * 3.f, 40.0f);
  o.labelLeft = mesh.ndim() >= 2 ? ImGui::CalcTextSize((mesh.dimName(mesh.ndim() - 2) + "=0").c_str()).x + 6 : 0;
  o.labelTop = ImGui::GetTextLineHeightWithSpacing();
  o.minCellH = 12;
  o.maxCellH = ImGui::GetTextLineHeight() * 2 + 14;
  o.minCellW = 14;
  const MeshGridLayout grid = layoutMeshGrid(mesh, s.meta, s.spec, o);
  if (!grid.error.empty()) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.error), "cannot lay out: %s", grid.error.c_str());
  } else {
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(grid.width, grid.height));
    drawMeshGrid(ImGui::GetWindowDrawList(), origin, grid, mesh, s.meta, s.spec, pinned, true);
  }
  ImGui::EndGroup();
}

}  // namespace

void drawLayoutPair(const Plan& a, const Plan& b, const LayoutPair& p, float height, int64_t pinnedRank) {
  const Palette& pal = palette();
  {
    // A row that wraps, pieces elided when a line is too narrow (views/toolbar.h).
    ToolbarFlow row("compare");
    row.text("Compare", kDiffColour);
    row.text(p.title);
    if (p.differs) row.text("layouts differ", pal.warning, "verdict");
    else if (p.a.valid && p.b.valid) row.text("same layout", pal.ok, "verdict");
  }
  const float avail = ImGui::GetContentRegionAvail().x;
  const float w = std::max((avail - 20) * 0.5f, 60.0f);
  const float h = std::max(height - ImGui::GetTextLineHeightWithSpacing(), 60.0f);
  drawSide("A", a.mesh, p.a, w, h, pinnedRank);
  ImGui::SameLine(0, 20);
  drawSide("B", b.mesh, p.b, w, h, pinnedRank);
}

}  // namespace ss::views
