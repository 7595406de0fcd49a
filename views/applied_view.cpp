#include "views/applied_view.h"

#include <algorithm>

#include <imgui.h>

#include "core/model/layout.h"
#include "views/theme.h"
#include "views/ui_probe.h"

namespace ss::views {
namespace {

std::string shapeOf(const Node& n) {
  if (n.outputs.empty()) return "";
  if (n.outputs.size() > 1) return "(" + std::to_string(n.outputs.size()) + " outputs)";
  return n.shapeText();
}

AppliedRow collectiveRow(const Graph& g, const AppliedCollective& c, const DeviceMesh& mesh, int planNode) {
  AppliedRow r;
  r.kind = AppliedRow::Kind::Collective;
  r.appliedNode = c.node;
  r.planNode = c.planConsumer >= 0 ? c.planConsumer : planNode;
  r.planInput = c.planInput;
  r.name = g.nodes[c.node].name;
  r.op = g.nodes[c.node].op;
  r.shape = shapeOf(g.nodes[c.node]);
  r.detail = c.toString(mesh);
  return r;
}

}  // namespace

const char* appliedRowKindName(AppliedRow::Kind k) {
  switch (k) {
    case AppliedRow::Kind::Node: return "node";
    case AppliedRow::Kind::Collective: return "collective";
    case AppliedRow::Kind::Missing: return "missing";
  }
  return "node";
}

std::vector<AppliedRow> buildAppliedRows(const Plan& plan, const AppliedGraph& a) {
  const Graph& g = a.graph.graph;
  std::vector<int> collectiveOf(g.size(), -1);
  for (size_t k = 0; k < a.collectives.size(); ++k) collectiveOf[a.collectives[k].node] = static_cast<int>(k);
  // Missing transitions (core/applied's records), keyed by the applied consumer they belong before.
  std::vector<std::vector<const AppliedTransition*>> missingBefore(g.size());
  for (const AppliedTransition& t : a.transitions)
    if (t.state == TransitionState::Missing && t.appliedConsumer >= 0 && t.appliedConsumer < g.size())
      missingBefore[static_cast<size_t>(t.appliedConsumer)].push_back(&t);
  std::vector<AppliedRow> rows;
  rows.reserve(g.size() + 4);
  for (int j = 0; j < g.size(); ++j) {
    for (const AppliedTransition* t : missingBefore[static_cast<size_t>(j)]) {
      AppliedRow m;
      m.kind = AppliedRow::Kind::Missing;
      m.planNode = t->consumer;
      m.planInput = t->input;
      m.name = "missing";
      m.op = t->from && t->to ? t->from->toMeshString() + " -> " + t->to->toMeshString() : "transition";
      m.detail = t->fix.empty() ? t->label(a.collectives, plan.mesh) : t->fix;
      rows.push_back(std::move(m));
    }
    const Node& n = g.nodes[j];
    if (collectiveOf[j] >= 0) {
      rows.push_back(collectiveRow(g, a.collectives[collectiveOf[j]], plan.mesh, -1));
      continue;
    }
    AppliedRow r;
    r.appliedNode = j;
    r.planNode = a.planOf[j];
    r.name = n.name;
    r.op = n.op;
    r.shape = shapeOf(n);
    if (r.planNode >= 0 && r.planNode < plan.graph.size() && plan.graph.nodes[r.planNode].name != n.name)
      r.detail = "plan: " + plan.graph.nodes[r.planNode].name;
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<AppliedRow> buildAppliedRows(const AppliedAlone& alone) {
  const Graph& g = alone.plan.graph;
  std::vector<int> collectiveOf(g.size(), -1);
  for (size_t k = 0; k < alone.collectives.size(); ++k) collectiveOf[alone.collectives[k].node] = static_cast<int>(k);
  std::vector<AppliedRow> rows;
  rows.reserve(g.size());
  for (int j = 0; j < g.size(); ++j) {
    if (collectiveOf[j] >= 0) {
      rows.push_back(collectiveRow(g, alone.collectives[collectiveOf[j]], alone.plan.mesh, j));
      continue;
    }
    AppliedRow r;
    r.appliedNode = j;
    r.planNode = j;
    r.name = g.nodes[j].name;
    r.op = g.nodes[j].op;
    r.shape = shapeOf(g.nodes[j]);
    rows.push_back(std::move(r));
  }
  return rows;
}

int appliedRowFor(const std::vector<AppliedRow>& rows, const Selection& sel) {
  if (sel.node < 0) return -1;
  int found = -1;
  for (size_t i = 0; i < rows.size(); ++i) {
    const AppliedRow& r = rows[i];
    if (r.planNode != sel.node) continue;
    if (r.kind == AppliedRow::Kind::Missing && sel.input >= 0 && r.planInput == sel.input) return static_cast<int>(i);
    if (r.kind == AppliedRow::Kind::Node && found < 0) found = static_cast<int>(i);
  }
  return found;
}

void appliedRankCombo(const std::vector<AppliedGraph>& applied, int& rank) {
  rank = std::clamp(rank, 0, std::max(0, static_cast<int>(applied.size()) - 1));
  if (applied.size() <= 1) return;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  const std::string cur = "rank " + std::to_string(applied[static_cast<size_t>(rank)].rank);
  if (ImGui::BeginCombo("##appliedrank", cur.c_str())) {
    for (size_t i = 0; i < applied.size(); ++i) {
      const std::string label = "rank " + std::to_string(applied[i].rank);
      if (ImGui::Selectable(label.c_str(), static_cast<int>(i) == rank)) rank = static_cast<int>(i);
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
}

void drawAppliedView(const Plan& plan, const std::vector<AppliedGraph>& applied,
                     const AppliedAlone* alone, AppliedViewState& state, Selection& sel, uint64_t revision) {
  if (applied.empty() && !alone) {
    ImGui::TextWrapped("No applied graph. Open a TORCH_TRACE log of an autoparallel run (or `shardscope check "
                       "JOINT --solution SOLUTION --applied APPLIED`) to check the applied graph against the plan.");
    return;
  }
  appliedRankCombo(applied, state.rank);
  if (state.revision != revision || state.rowsFor != state.rank) {
    state.rows = alone ? buildAppliedRows(*alone) : buildAppliedRows(plan, applied[static_cast<size_t>(state.rank)]);
    state.revision = revision;
    state.rowsFor = state.rank;
  }
  if (alone) {
    ImGui::Text("Applied graph alone: %d nodes, mesh %s%s, %d collectives", alone->plan.graph.size(),
                alone->plan.mesh.toString().c_str(), alone->meshInferred ? " (inferred from its collectives)" : "",
                static_cast<int>(alone->collectives.size()));
  } else {
    ImGui::TextWrapped("%s", applied[static_cast<size_t>(state.rank)].summary(plan.mesh).c_str());
  }
  const int hl = appliedRowFor(state.rows, sel);
  state.highlighted = hl;
  const bool scroll = sel.generation != state.seenGeneration;
  state.seenGeneration = sel.generation;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##applied", 4, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("applied node", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("shard_dim_alltoall_10").x + 8);
  ImGui::TableSetupColumn("op", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("_c10d_functional.wait_tensor").x);
  ImGui::TableSetupColumn("local shape", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("[4, 128, 73, 64]").x + 8);
  ImGui::TableSetupColumn("collective / plan", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  const float rowH = ImGui::GetTextLineHeightWithSpacing();
  if (scroll && hl >= 0) ImGui::SetScrollY(std::max(0.0f, hl * rowH - ImGui::GetWindowHeight() * 0.4f));
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(state.rows.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const AppliedRow& r = state.rows[static_cast<size_t>(i)];
      ImGui::TableNextRow();
      if (r.kind == AppliedRow::Kind::Missing)
        ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, withAlpha(palette().error, 0.45f));
      else if (r.kind == AppliedRow::Kind::Collective)
        ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, withAlpha(palette().partial, 0.30f));
      ImGui::TableNextColumn();
      ImGui::PushID(i);
      if (ImGui::Selectable(r.name.c_str(), i == hl, ImGuiSelectableFlags_SpanAllColumns) && r.planNode >= 0) {
        if (r.planInput >= 0) sel.selectEdge(r.planNode, r.planInput, true);
        else sel.selectNode(r.planNode, true);
      }
      probeItem("applied.row" + std::to_string(i));
      if (!r.detail.empty() && ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
        ImGui::TextUnformatted(r.detail.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
      }
      ImGui::PopID();
      ImGui::TableNextColumn();
      if (r.kind == AppliedRow::Kind::Missing) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().error), "%s", r.op.c_str());
      else ImGui::TextUnformatted(r.op.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.shape.c_str());
      ImGui::TableNextColumn();
      if (r.kind == AppliedRow::Kind::Node) ImGui::TextDisabled("%s", r.detail.c_str());
      else ImGui::TextUnformatted(r.detail.c_str());
    }
  }
  ImGui::EndTable();
}

}  // namespace ss::views
