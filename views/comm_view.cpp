// The communication view; see views/comm_view.h.
#include "views/comm_view.h"

#include <imgui.h>

#include <algorithm>
#include <map>

#include "core/model/units.h"
#include "core/plan/costs.h"
#include "views/ui_probe.h"

namespace ss::views {
namespace {

void addTo(ModuleComm& m, Phase phase, int count, int64_t bytes, double us) {
  if (phase == Phase::Backward) {
    m.backwardCount += count;
    m.backwardBytes += bytes;
    m.backwardUs += us;
  } else {
    m.forwardCount += count;
    m.forwardBytes += bytes;
    m.forwardUs += us;
  }
}

}  // namespace

CommRecords commRows(const Plan& plan, const DTensorProgram* program) {
  CommRecords out;
  std::map<std::string, size_t> at;  // module -> row
  auto row = [&](const std::string& module) -> CommRow& {
    auto [it, fresh] = at.try_emplace(module, out.rows.size());
    if (fresh) {
      out.rows.push_back({});
      out.rows.back().comm.module = module;
    }
    return out.rows[it->second];
  };
  if (program) {
    out.source = std::string(programSourceName(program->source)) + ": what DTensor recorded";
    for (const ModuleComm& m : program->moduleComm()) row(m.module).comm = m;
    for (const ProgramRedistribute& r : program->redistributes)
      if (CommRow& x = row(r.module); x.firstNode < 0) x.firstNode = r.node;
    for (const ModuleComm& m : program->recordedComm) row(m.module).countsOnly = true;
  } else {
    out.source = "the plan's redistributes and planned transitions (estimated with the cost model)";
    const CostReport costs = computeCosts(plan);
    for (const EdgeCost& e : costs.edges) {
      if (!e.performed() || e.node < 0 || e.node >= plan.graph.size()) continue;
      CommRow& x = row(plan.graph.nodes[static_cast<size_t>(e.node)].modulePath);
      addTo(x.comm, e.phase, 1, e.bytes, e.timeUs);
      if (x.firstNode < 0 || e.node < x.firstNode) x.firstNode = e.node;
    }
  }
  for (const CommRow& r : out.rows) {
    addTo(out.total, Phase::Forward, r.comm.forwardCount, r.comm.forwardBytes, r.comm.forwardUs);
    addTo(out.total, Phase::Backward, r.comm.backwardCount, r.comm.backwardBytes, r.comm.backwardUs);
  }
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const CommRow& a, const CommRow& b) {
    const double ta = a.comm.forwardUs + a.comm.backwardUs, tb = b.comm.forwardUs + b.comm.backwardUs;
    if (ta != tb) return ta > tb;
    const int64_t ba = a.comm.forwardBytes + a.comm.backwardBytes, bb = b.comm.forwardBytes + b.comm.backwardBytes;
    if (ba != bb) return ba > bb;
    return a.comm.forwardCount + a.comm.backwardCount > b.comm.forwardCount + b.comm.backwardCount;
  });
  return out;
}

void drawCommView(const Plan& plan, const DTensorProgram* program, CommViewState& st, Selection& sel, uint64_t revision) {
  if (st.revisionSeen != revision || st.programSeen != program) {
    st.records = commRows(plan, program);
    st.revisionSeen = revision;
    st.programSeen = program;
  }
  const CommRecords& r = st.records;
  ImGui::TextDisabled("%s", r.source.c_str());
  if (r.rows.empty()) {
    ImGui::TextWrapped("No communication: no redistribute is inserted, planned or recorded.");
    return;
  }
  ImGui::Text("total: forward %d x %s, %s | backward %d x %s, %s", r.total.forwardCount,
              formatBytes(r.total.forwardBytes).c_str(), formatTimeUs(r.total.forwardUs).c_str(), r.total.backwardCount,
              formatBytes(r.total.backwardBytes).c_str(), formatTimeUs(r.total.backwardUs).c_str());
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##comm", 5, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("module", ImGuiTableColumnFlags_WidthStretch, 3.f);
  ImGui::TableSetupColumn("fwd", ImGuiTableColumnFlags_WidthStretch, 1.f);
  ImGui::TableSetupColumn("fwd time", ImGuiTableColumnFlags_WidthStretch, 1.f);
  ImGui::TableSetupColumn("bwd", ImGuiTableColumnFlags_WidthStretch, 1.f);
  ImGui::TableSetupColumn("bwd time", ImGuiTableColumnFlags_WidthStretch, 1.f);
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const CommRow& row = r.rows[i];
    const ModuleComm& m = row.comm;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::PushID(static_cast<int>(i));
    const std::string name = m.module.empty() ? "(outside any module)" : m.module;
    if (ImGui::Selectable(name.c_str(), row.firstNode >= 0 && sel.node == row.firstNode, ImGuiSelectableFlags_SpanAllColumns) &&
        row.firstNode >= 0)
      sel.selectNode(row.firstNode, true);
    probeItem("comm.row" + std::to_string(i));
    if (ImGui::IsItemHovered() && row.countsOnly)
      ImGui::SetTooltip("CommDebugMode counted these collectives without their sizes: counts only");
    ImGui::PopID();
    auto side = [&](int count, int64_t bytes, double us) {
      ImGui::TableNextColumn();
      if (count == 0) ImGui::TextDisabled("-");
      else if (bytes == 0 && row.countsOnly) ImGui::Text("%d x ?", count);
      else ImGui::Text("%d x %s", count, formatBytes(bytes).c_str());
      ImGui::TableNextColumn();
      if (count > 0 && (bytes > 0 || !row.countsOnly)) ImGui::Text("%s", formatTimeUs(us).c_str());
    };
    side(m.forwardCount, m.forwardBytes, m.forwardUs);
    side(m.backwardCount, m.backwardBytes, m.backwardUs);
  }
  ImGui::EndTable();
}

}  // namespace ss::views
