#include "views/CostsView.h"

#include <imgui.h>

#include "views/Theme.h"

namespace ss::views {

void drawCostsView(const Plan& plan, const Diagnostics& /*diags*/, CostsViewState& state, Selection& sel,
                   CommandQueue& /*cmds*/, uint64_t revision) {
  if (state.revision != revision) {
    state.report = computeCosts(plan);
    state.revision = revision;
  }
  const CostReport& r = state.report;
  if (r.solver.total >= 0 || r.solver.comm >= 0) {
    ImGui::Text("Solver: total %.4g  comm %.4g  compute %.4g  transition %.4g", r.solver.total, r.solver.comm,
                r.solver.compute, r.solver.transition);
  }
  ImGui::Text("Estimated communication: %s, %s over %zu edges", formatBytes(r.totalBytes).c_str(),
              formatTimeUs(r.totalTimeUs).c_str(), r.edges.size());
  if (!r.phases.empty() && ImGui::BeginTable("##phases", 4, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("phase");
    ImGui::TableSetupColumn("edges");
    ImGui::TableSetupColumn("comm");
    ImGui::TableSetupColumn("compute (solver)");
    ImGui::TableHeadersRow();
    for (const PhaseCost& p : r.phases) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(p.phase == Phase::Unknown ? "other" : phaseName(p.phase));
      ImGui::TableNextColumn();
      ImGui::Text("%d", p.edges);
      ImGui::TableNextColumn();
      ImGui::Text("%s, %s", formatBytes(p.bytes).c_str(), formatTimeUs(p.timeUs).c_str());
      ImGui::TableNextColumn();
      if (p.compute > 0) ImGui::Text("%.4g", p.compute);
      else ImGui::TextDisabled("-");
    }
    ImGui::EndTable();
  }
  if (r.edges.empty()) {
    ImGui::TextDisabled("No edge changes layout: no communication.");
    return;
  }
  ImGui::TextUnformatted("Costliest edges");
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##edges", 3, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("edge", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("status", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("missing").x + 6);
  ImGui::TableSetupColumn("collectives", ImGuiTableColumnFlags_WidthStretch, 2.0f);
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(r.edges.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const EdgeCost& e = r.edges[static_cast<size_t>(i)];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(i);
      const std::string label = plan.graph.nodes[static_cast<size_t>(e.node)].name + " (in " + std::to_string(e.input) + ")";
      if (ImGui::Selectable(label.c_str(), sel.node == e.node && sel.input == e.input, ImGuiSelectableFlags_SpanAllColumns)) {
        sel.selectEdge(e.node, e.input, true);
      }
      ImGui::PopID();
      ImGui::TableNextColumn();
      const ImU32 color = e.status == EdgeCost::Status::Inserted  ? palette().ok
                          : e.status == EdgeCost::Status::Planned ? palette().info
                                                                  : palette().error;
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color), "%s", edgeStatusName(e.status));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(e.summary.c_str());
    }
  }
  ImGui::EndTable();
}

}  // namespace ss::views
