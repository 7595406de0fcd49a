#include "views/NodeListView.h"

#include <cctype>

#include <imgui.h>

#include "core/layout.h"
#include "views/Theme.h"
#include "views/UiProbe.h"

namespace ss::views {
namespace {
std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

std::vector<int> searchNodes(const Plan& plan, const Diagnostics& diags, const std::string& needle, bool onlyProblems) {
  std::vector<int> out;
  const std::string n = lower(needle);
  std::vector<int> worst(static_cast<size_t>(plan.graph.size()), -1);
  for (const Diagnostic& d : diags.items) {
    if (d.node >= 0 && d.node < plan.graph.size()) {
      worst[static_cast<size_t>(d.node)] = std::max(worst[static_cast<size_t>(d.node)], static_cast<int>(d.severity));
    }
  }
  for (int i = 0; i < plan.graph.size(); ++i) {
    const Node& node = plan.graph.nodes[static_cast<size_t>(i)];
    if (onlyProblems && worst[static_cast<size_t>(i)] < static_cast<int>(Severity::Warning)) continue;
    if (!n.empty() && lower(node.name).find(n) == std::string::npos && lower(node.op).find(n) == std::string::npos) continue;
    out.push_back(i);
  }
  return out;
}

void drawNodeListView(const Plan& plan, const Diagnostics& diags, NodeListViewState& state, Selection& sel,
                      CommandQueue& /*cmds*/) {
  if (state.focusSearch) {
    ImGui::SetKeyboardFocusHere();
    state.focusSearch = false;
  }
  ImGui::SetNextItemWidth(std::max(120.0f, ImGui::GetContentRegionAvail().x * 0.5f));
  const bool enter = ImGui::InputTextWithHint("##nodesearch", "search nodes by name or op (Ctrl+F)", state.search,
                                              sizeof(state.search), ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  ImGui::Checkbox("only problems", &state.onlyProblems);
  const std::vector<int> rows = searchNodes(plan, diags, state.search, state.onlyProblems);
  state.rowsShown = static_cast<int>(rows.size());
  if (enter && !rows.empty()) sel.selectNode(rows.front(), true);
  const bool scrollToSel = state.seenGeneration != sel.generation;
  state.seenGeneration = sel.generation;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##nodes", 4, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("node", ImGuiTableColumnFlags_WidthStretch, 1.2f);
  ImGui::TableSetupColumn("op", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("shape", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("placement", ImGuiTableColumnFlags_WidthStretch, 0.7f);
  ImGui::TableHeadersRow();
  int selRow = -1;
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r] == sel.node) selRow = static_cast<int>(r);
  }
  if (scrollToSel && selRow >= 0) {
    ImGui::SetScrollY(static_cast<float>(selRow) * ImGui::GetTextLineHeightWithSpacing() -
                      ImGui::GetWindowHeight() * 0.4f);
  }
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(rows.size()));
  while (clipper.Step()) {
    for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
      const int i = rows[static_cast<size_t>(r)];
      const Node& node = plan.graph.nodes[static_cast<size_t>(i)];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(i);
      const auto mine = diags.forNode(i);
      Severity worst = Severity::Info;
      for (const Diagnostic* d : mine) worst = std::max(worst, d->severity);
      const bool problem = !mine.empty() && worst != Severity::Info;
      if (problem) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(severityColor(worst)));
      const std::string label = (problem ? "! " : "  ") + node.name;
      if (ImGui::Selectable(label.c_str(), sel.node == i, ImGuiSelectableFlags_SpanAllColumns)) sel.selectNode(i);
      probeItem("nodes.row" + std::to_string(r));
      if (problem) ImGui::PopStyleColor();
      ImGui::PopID();
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", node.opName().c_str());
      ImGui::TableNextColumn();
      if (!node.outputs.empty()) ImGui::TextUnformatted(node.outputs[0].known ? shapeToString(node.outputs[0].shape).c_str() : "?");
      ImGui::TableNextColumn();
      const auto& specs = plan.specs[static_cast<size_t>(i)].outputs;
      if (!specs.empty() && specs[0]) {
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(specColor(*specs[0])), "%s", specs[0]->toMeshString().c_str());
      }
    }
  }
  ImGui::EndTable();
}

}  // namespace ss::views
