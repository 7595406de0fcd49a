#include "views/diagnostics_view.h"

#include <algorithm>
#include <cctype>

#include <imgui.h>

#include "views/theme.h"
#include "views/toolbar.h"
#include "views/ui_probe.h"

namespace ss::views {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string nodeName(const Plan& plan, int node) {
  if (node < 0 || node >= plan.graph.size()) return "(plan)";
  return plan.graph.nodes[static_cast<size_t>(node)].name;
}

}  // namespace

std::string diagnosticCountsText(const Diagnostics& diags) {
  const DiagnosticSummary s = diags.summary();
  auto part = [](int n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
  return part(s.errors, "error") + ", " + part(s.warnings, "warning") + ", " + part(s.infos, "info");
}

std::vector<int> filterDiagnostics(const Plan& plan, const Diagnostics& diags, const DiagnosticsViewState& state) {
  std::vector<int> out;
  const std::string needle = lower(state.filter);
  for (size_t i = 0; i < diags.items.size(); ++i) {
    const Diagnostic& d = diags.items[i];
    if (d.severity == Severity::Error && !state.showErrors) continue;
    if (d.severity == Severity::Warning && !state.showWarnings) continue;
    if (d.severity == Severity::Info && !state.showInfos) continue;
    if (!needle.empty()) {
      const std::string hay = lower(std::string(diagKindName(d.kind)) + " " + nodeName(plan, d.node) + " " + d.message);
      if (hay.find(needle) == std::string::npos) continue;
    }
    out.push_back(static_cast<int>(i));
  }
  // Errors first, then warnings, then infos; stable within a severity (the checker's node order).
  std::stable_sort(out.begin(), out.end(), [&](int a, int b) {
    return static_cast<int>(diags.items[static_cast<size_t>(a)].severity) >
           static_cast<int>(diags.items[static_cast<size_t>(b)].severity);
  });
  return out;
}

int stepProblem(const Plan& plan, const Diagnostics& diags, const DiagnosticsViewState& state, const Selection& sel,
                int step) {
  // The stops: each listed target (node, input) once, at its first diagnostic.
  std::vector<int> stops;
  for (const int i : filterDiagnostics(plan, diags, state)) {
    const Diagnostic& d = diags.items[static_cast<size_t>(i)];
    if (d.node < 0 || d.node >= plan.graph.size()) continue;
    bool seen = false;
    for (const int j : stops) {
      const Diagnostic& e = diags.items[static_cast<size_t>(j)];
      seen = seen || (e.node == d.node && e.input == d.input);
    }
    if (!seen) stops.push_back(i);
  }
  if (stops.empty()) return -1;
  const int n = static_cast<int>(stops.size());
  int at = -1;
  for (int k = 0; k < n && at < 0; ++k) {
    const Diagnostic& d = diags.items[static_cast<size_t>(stops[static_cast<size_t>(k)])];
    if (d.node == sel.node && d.input == sel.input) at = k;
  }
  if (at < 0) return stops[static_cast<size_t>(step > 0 ? 0 : n - 1)];
  return stops[static_cast<size_t>(((at + step) % n + n) % n)];
}

void drawDiagnosticsView(const Plan& plan, const Diagnostics& diags, DiagnosticsViewState& state, Selection& sel,
                         CommandQueue& /*cmds*/) {
  const DiagnosticSummary sum = diags.summary();
  // The filter and the severity toggles: one row that wraps in a narrow pane (views/toolbar.h).
  ToolbarFlow row("diagnostics");
  const float filterW = std::max(120.0f, ImGui::GetContentRegionAvail().x * 0.35f);
  row.next(filterW);
  ImGui::SetNextItemWidth(filterW);
  ImGui::InputTextWithHint("##diagfilter", "filter (kind, node, text)", state.filter, sizeof(state.filter));
  row.probe("filter");
  const std::string e = "errors " + std::to_string(sum.errors), w = "warnings " + std::to_string(sum.warnings),
                    n = "infos " + std::to_string(sum.infos);
  row.next(ToolbarFlow::checkboxWidth(e.c_str()));
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().error));
  ImGui::Checkbox(e.c_str(), &state.showErrors);
  ImGui::PopStyleColor();
  row.probe("errors");
  row.next(ToolbarFlow::checkboxWidth(w.c_str()));
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().warning));
  ImGui::Checkbox(w.c_str(), &state.showWarnings);
  ImGui::PopStyleColor();
  row.probe("warnings");
  row.next(ToolbarFlow::checkboxWidth(n.c_str()));
  ImGui::Checkbox(n.c_str(), &state.showInfos);
  row.probe("infos");

  const std::vector<int> rows = filterDiagnostics(plan, diags, state);
  state.rowsShown = static_cast<int>(rows.size());
  if (rows.empty()) {
    ImGui::TextDisabled(diags.items.empty() ? "No problems found." : "Nothing matches the filter.");
    return;
  }
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("##diags", 4, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("sev", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("warning").x + 4);
  ImGui::TableSetupColumn("kind", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize(diagKindName(DiagKind::MissingRedistribute)).x + 4);
  ImGui::TableSetupColumn("node", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("index_put (in 2)").x + 4);
  ImGui::TableSetupColumn("message", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(rows.size()));
  while (clipper.Step()) {
    for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
      const int idx = rows[static_cast<size_t>(r)];
      const Diagnostic& d = diags.items[static_cast<size_t>(idx)];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(idx);
      const bool selected = d.node >= 0 && d.node == sel.node && (d.input < 0 || d.input == sel.input);
      if (ImGui::Selectable("##row", selected, ImGuiSelectableFlags_SpanAllColumns)) {
        if (d.input >= 0) sel.selectEdge(d.node, d.input, true);
        else if (d.node >= 0) sel.selectNode(d.node, true);
      }
      probeItem("diagnostics.row" + std::to_string(r));
      if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
        ImGui::TextUnformatted(d.message.c_str());
        if (!d.fix.empty()) ImGui::Text("fix: %s", d.fix.c_str());
        for (const std::string& note : d.notes) ImGui::BulletText("%s", note.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
      }
      ImGui::PopID();
      ImGui::SameLine();
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(severityColor(d.severity)), "%s", severityName(d.severity));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(diagKindName(d.kind));
      ImGui::TableNextColumn();
      const std::string where = nodeName(plan, d.node) + (d.input >= 0 ? " (in " + std::to_string(d.input) + ")" : "");
      ImGui::TextUnformatted(where.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(d.message.c_str());
    }
  }
  ImGui::EndTable();
}

}  // namespace ss::views
