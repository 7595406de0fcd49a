#include "views/costs_view.h"

#include <algorithm>

#include <imgui.h>

#include "core/check/check.h"

#include "views/theme.h"

namespace ss::views {

std::vector<CollectiveTotal> compareCollectives(const Plan& plan, const std::vector<AppliedCollective>* applied,
                                                const AppliedGraph* judged, const CostModel& model) {
  std::vector<CollectiveTotal> out;
  auto slot = [&](CollectiveKind k, int d) -> CollectiveTotal& {
    for (auto& t : out)
      if (t.kind == k && t.meshDim == d) return t;
    out.push_back({k, d});
    return out.back();
  };
  // The plan's side: every edge whose layouts differ, as computeCosts sees it (calls and the output's gradients).
  const Graph& g = plan.graph;
  RedistIndex redist;
  redist.build(plan);
  for (int c = 0; c < g.size() && static_cast<size_t>(c) < plan.specs.size(); ++c) {
    const int inputs = static_cast<int>(g.inputs(c).size());
    for (int k = 0; k < inputs; ++k) {
      const std::optional<EdgeCost> e = edgeCost(plan, c, k, model, &redist);
      if (!e) continue;
      for (const RedistributeStep& st : e->steps) {
        if (st.kind == CollectiveKind::LocalChunk || st.kind == CollectiveKind::LocalDivide || st.kind == CollectiveKind::None) continue;
        CollectiveTotal& t = slot(st.kind, st.meshDim);
        ++t.planCount;
        t.planBytes += st.bytesSent;
        t.planUs += st.timeUs;
      }
    }
  }
  if (applied)
    for (const AppliedCollective& a : *applied) {
      CollectiveTotal& t = slot(a.kind, a.meshDim);
      ++t.appliedCount;
      t.appliedBytes += a.bytes;
      t.appliedUs += a.timeUs;
    }
  if (judged) {
    for (const AppliedTransition& tr : judged->transitions)
      if (tr.state == TransitionState::Missing)
        for (const RedistributeStep& st : tr.missing) ++slot(st.kind, st.meshDim).missing;
    for (const UnplannedCollective& u : judged->unplanned) {
      const AppliedCollective& c = judged->collectives[u.collective];
      ++slot(c.kind, c.meshDim).unplanned;
    }
  }
  std::sort(out.begin(), out.end(), [](const CollectiveTotal& a, const CollectiveTotal& b) {
    return std::make_pair(a.meshDim, static_cast<int>(a.kind)) < std::make_pair(b.meshDim, static_cast<int>(b.kind));
  });
  return out;
}

void drawCostsView(const Plan& plan, const Diagnostics& /*diags*/, CostsViewState& state, Selection& sel,
                   CommandQueue& /*cmds*/, uint64_t revision, const std::vector<AppliedCollective>* applied,
                   const AppliedGraph* judged) {
  if (state.revision != revision) {
    state.report = computeCosts(plan);
    state.collectives = applied ? compareCollectives(plan, applied, judged) : std::vector<CollectiveTotal>{};
    state.revision = revision;
  }
  const CostReport& r = state.report;
  // With no planned transition at all (an applied graph opened alone) there is nothing to compare against.
  bool planHasAny = false;
  int64_t appliedBytes = 0;
  double appliedUs = 0;
  int appliedCount = 0;
  for (const CollectiveTotal& t : state.collectives) {
    planHasAny = planHasAny || t.planCount > 0;
    appliedBytes += t.appliedBytes;
    appliedUs += t.appliedUs;
    appliedCount += t.appliedCount;
  }
  if (applied)
    ImGui::Text("Applied graph: %d collectives, %s per rank, %s", appliedCount, formatBytes(appliedBytes).c_str(),
                formatTimeUs(appliedUs).c_str());
  if (applied && !state.collectives.empty() &&
      ImGui::BeginTable("##collectives", 4, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("collective");
    ImGui::TableSetupColumn("mesh dim");
    ImGui::TableSetupColumn("plan (estimated)");
    ImGui::TableSetupColumn("applied graph (actual)");
    ImGui::TableHeadersRow();
    for (const CollectiveTotal& t : state.collectives) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(collectiveName(t.kind));
      ImGui::TableNextColumn();
      if (t.meshDim >= 0) ImGui::Text("%d (%s)", t.meshDim, plan.mesh.dimName(t.meshDim).c_str());
      else ImGui::TextUnformatted(t.meshDim == -2 ? "flattened" : "unmapped");
      ImGui::TableNextColumn();
      const ImVec4 c = ImGui::ColorConvertU32ToFloat4(t.faulty() ? palette().error : palette().text);
      const std::string missing = t.missing > 0 ? ", " + std::to_string(t.missing) + " not applied" : std::string();
      if (t.planCount > 0)
        ImGui::TextColored(c, "%d x, %s, %s%s", t.planCount, formatBytes(t.planBytes).c_str(), formatTimeUs(t.planUs).c_str(),
                           missing.c_str());
      else ImGui::TextDisabled("-");
      ImGui::TableNextColumn();
      const std::string unplanned = t.unplanned > 0 ? ", " + std::to_string(t.unplanned) + " unplanned" : std::string();
      if (t.appliedCount > 0)
        ImGui::TextColored(c, "%d x, %s, %s%s", t.appliedCount, formatBytes(t.appliedBytes).c_str(),
                           formatTimeUs(t.appliedUs).c_str(), unplanned.c_str());
      else if (t.planCount > 0) ImGui::TextColored(c, "none");
      else ImGui::TextDisabled("-");
    }
    ImGui::EndTable();
  }
  if (applied && !planHasAny) return;  // an applied graph alone: it has no planned edges to list
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
