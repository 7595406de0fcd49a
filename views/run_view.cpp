#include "views/run_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <imgui.h>

#include "views/theme.h"
#include "views/toolbar.h"
#include "views/ui_probe.h"

namespace ss::views {

const char* runStatusName(RunStatus s) {
  switch (s) {
    case RunStatus::Idle: return "idle";
    case RunStatus::Running: return "running";
    case RunStatus::Passed: return "passed: losses match the reference";
    case RunStatus::Mismatch: return "MISMATCH: losses differ from the reference";
    case RunStatus::Failed: return "FAILED";
    case RunStatus::Cancelled: return "cancelled";
  }
  return "?";
}

std::vector<std::pair<float, float>> plotPoints(const std::vector<double>& values, double lo, double hi, float x0,
                                                float y0, float x1, float y1) {
  std::vector<std::pair<float, float>> pts;
  const size_t n = values.size();
  const double span = hi > lo ? hi - lo : 1.0;
  for (size_t i = 0; i < n; ++i) {
    const float t = n > 1 ? static_cast<float>(i) / static_cast<float>(n - 1) : 0.5f;
    const double v = std::isfinite(values[i]) ? values[i] : lo;
    const float y = y1 - static_cast<float>((v - lo) / span) * (y1 - y0);
    pts.emplace_back(x0 + t * (x1 - x0), y);
  }
  return pts;
}

namespace {

void drawPlot(const RunViewModel& m, float width, float height) {
  const Palette& pal = palette();
  std::vector<double> ref, got;
  for (const RunBatchRow& r : m.batches) {
    ref.push_back(r.reference);
    got.push_back(r.mean);
  }
  double lo = 1e300, hi = -1e300;
  for (double v : ref) if (std::isfinite(v)) { lo = std::min(lo, v); hi = std::max(hi, v); }
  for (double v : got) if (std::isfinite(v)) { lo = std::min(lo, v); hi = std::max(hi, v); }
  if (lo > hi) { lo = 0; hi = 1; }
  const double pad = std::max((hi - lo) * 0.15, std::max(std::abs(hi), 1e-6) * 1e-3);
  lo -= pad;
  hi += pad;
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(width, height));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float axisW = ImGui::CalcTextSize("-0.0000e+00").x, lh = ImGui::GetTextLineHeight();
  const float x0 = o.x + axisW + 6, y0 = o.y + 4, x1 = o.x + width - 10, y1 = o.y + height - lh - 6;
  dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y1), withAlpha(pal.background, 0.6f));
  dl->AddRect(ImVec2(x0, y0), ImVec2(x1, y1), pal.grid);
  char buf[32];
  for (int k = 0; k <= 2; ++k) {
    const double v = hi - (hi - lo) * k / 2.0;
    const float y = y0 + (y1 - y0) * static_cast<float>(k) / 2.0f;
    std::snprintf(buf, sizeof(buf), "%.5g", v);
    dl->AddText(ImVec2(o.x, y - lh * 0.5f), pal.textDim, buf);
    dl->AddLine(ImVec2(x0, y), ImVec2(x1, y), withAlpha(pal.grid, 0.6f));
  }
  const auto pr = plotPoints(ref, lo, hi, x0 + 10, y0, x1 - 10, y1);
  const auto pg = plotPoints(got, lo, hi, x0 + 10, y0, x1 - 10, y1);
  for (size_t i = 0; i < pr.size(); ++i) {
    std::snprintf(buf, sizeof(buf), "%zu", i);
    dl->AddText(ImVec2(pr[i].first - 3, y1 + 2), pal.textDim, buf);
  }
  const ImU32 refC = pal.info, gotC = pal.warning;
  for (size_t i = 0; i + 1 < pr.size(); ++i) {
    // Reference wide and soft underneath, sharded thin on top: both stay visible when they coincide.
    dl->AddLine(ImVec2(pr[i].first, pr[i].second), ImVec2(pr[i + 1].first, pr[i + 1].second), withAlpha(refC, 0.6f), 6.0f);
    dl->AddLine(ImVec2(pg[i].first, pg[i].second), ImVec2(pg[i + 1].first, pg[i + 1].second), gotC, 1.5f);
  }
  for (size_t i = 0; i < pr.size(); ++i) {
    dl->AddCircleFilled(ImVec2(pr[i].first, pr[i].second), 6.0f, refC);
    dl->AddRect(ImVec2(pg[i].first - 3.5f, pg[i].second - 3.5f), ImVec2(pg[i].first + 3.5f, pg[i].second + 3.5f), gotC, 0, 0, 2.0f);
  }
  dl->AddCircleFilled(ImVec2(x1 - 150, y0 + 10), 4.5f, refC);
  dl->AddText(ImVec2(x1 - 142, y0 + 10 - lh * 0.5f), pal.text, "reference");
  dl->AddRect(ImVec2(x1 - 73.5f, y0 + 6.5f), ImVec2(x1 - 66.5f, y0 + 13.5f), gotC, 0, 0, 2.0f);
  dl->AddText(ImVec2(x1 - 62, y0 + 10 - lh * 0.5f), pal.text, "sharded");
}

}  // namespace

RunStatusLines runStatusLines(const RunViewModel& m) {
  RunStatusLines out;
  const bool running = m.status == RunStatus::Running;
  if (running || m.elapsedS > 0) {
    char head[64];
    std::snprintf(head, sizeof head, "  %.1f s", m.elapsedS);
    out.progress = m.stage + head;
    if (running && m.etaS >= 0) {
      char eta[48];
      std::snprintf(eta, sizeof eta, ", ETA %.0f s", m.etaS);
      out.progress += eta;
    }
    if (m.scale > 1) out.progress += ", sizes / " + std::to_string(m.scale);
  }
  if (!m.blas.empty()) out.blas = "BLAS: " + m.blas;
  if (m.referenceS > 0 && m.shardedS > 0) {
    char cost[128];
    std::snprintf(cost, sizeof cost, "reference %.2f s, sharded %.2f s (%.2fx)", m.referenceS, m.shardedS,
                  m.shardedS / m.referenceS);
    out.cost = cost;
    if (m.peakRssBytes > 0) {
      std::snprintf(cost, sizeof cost, ", peak memory %.0f MiB", static_cast<double>(m.peakRssBytes) / (1 << 20));
      out.cost += cost;
    }
  }
  for (const SandboxLayer& l : m.sandbox) {
    if (l.active) out.sandbox += (out.sandbox.empty() ? "sandbox: " : ", ") + l.name;
    else out.sandboxMissing += (out.sandboxMissing.empty() ? "not contained: " : "; ") + l.name + " (" + l.detail + ")";
  }
  return out;
}

std::string runVerdictLine(const RunViewModel& m, Freshness fresh) {
  std::string line = runStatusName(m.status);
  const bool finished = m.status != RunStatus::Idle && m.status != RunStatus::Running;
  if (fresh == Freshness::Stale && (finished || m.status == RunStatus::Running))
    line += std::string(" - stale: the plan was edited since this run ") + (finished ? "(its result is of the plan before); run again" : "started");
  return line;
}

RunErrorLines runErrorLines(const RunViewModel& m) {
  RunErrorLines out;
  std::vector<int> same;
  for (const std::string& note : m.notes) {
    if (const std::optional<int> r = sameErrorNoteRank(note); r && !m.error.empty()) same.push_back(*r);
    else out.notes.push_back(note);
  }
  if (m.error.empty()) return out;
  out.error = m.errorRank >= 0 ? "rank " + std::to_string(m.errorRank) + ": " + m.error : m.error;
  if (!same.empty()) out.sameRanks = rankRanges(same) + ": same error";
  return out;
}

std::string runRefusalLine(const RunViewModel& m, const std::string& refusal) {
  if (!m.available) return "Runs are not available: " + m.unavailableReason;
  return refusal;
}

RunViewActions drawRunView(const Plan& plan, const RunViewModel& m, RunViewState& state, Selection& sel,
                           Freshness fresh, const std::string& refusal) {
  RunViewActions act;
  state.plotDrawn = false;
  const Palette& pal = palette();
  const bool running = m.status == RunStatus::Running;
  // Why no run can start, said above the buttons and as the disabled Run button's tooltip.
  const std::string why = runRefusalLine(m, refusal);
  if (!why.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.warning));
    ImGui::TextWrapped("%s", why.c_str());
    ImGui::PopStyleColor();
    probeItem("run.refusal");
  }
  // Run, Cancel, the scale and the run's size: one row that wraps in a narrow pane (views/toolbar.h).
  ToolbarFlow row("run");
  row.next(ToolbarFlow::buttonWidth("Run"));
  ImGui::BeginDisabled(running || !why.empty());
  if (ImGui::Button("Run")) act.start = true;
  ImGui::EndDisabled();
  row.probe("run");
  probeItem("run.start");
  if (!why.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", why.c_str());
  row.next(ToolbarFlow::buttonWidth("Cancel"));
  ImGui::BeginDisabled(!running);
  if (ImGui::Button("Cancel")) act.cancel = true;
  ImGui::EndDisabled();
  row.probe("cancel");
  const float scaleW = ImGui::CalcTextSize("0000").x + ImGui::GetFrameHeight() * 2;
  row.next(ToolbarFlow::labelledWidth(scaleW, "scale"));
  ImGui::SetNextItemWidth(scaleW);
  ImGui::BeginDisabled(running);
  if (ImGui::InputInt("scale", &state.scale)) state.scale = std::clamp(state.scale, 1, 1024);
  ImGui::EndDisabled();
  row.probe("scale");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Divide tensor sizes by this for the run (every ratio of the plan kept)");
  char size[160];
  std::snprintf(size, sizeof size, "%lld ranks on %s, %d batches, rtol %g", static_cast<long long>(plan.mesh.size()),
                m.device.c_str(), plan.run.batches, m.rtol);
  row.next(ToolbarFlow::textWidth(size));
  ImGui::TextDisabled("%s", size);
  const bool stale = fresh != Freshness::Current;
  ImU32 sc = pal.textDim;
  if (m.status == RunStatus::Passed && !stale) sc = pal.ok;
  if ((m.status == RunStatus::Mismatch || m.status == RunStatus::Failed) && !stale) sc = pal.error;
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(sc), "%s", runVerdictLine(m, fresh).c_str());
  const RunStatusLines lines = runStatusLines(m);
  if (!lines.progress.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", lines.progress.c_str());
  }
  // A failure first: the error, the ranks that share it on one line, the jump to its node; then the notes.
  const RunErrorLines failure = runErrorLines(m);
  if (!failure.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.error));
    ImGui::TextWrapped("%s", failure.error.c_str());
    probeItem("run.error");
    if (!failure.sameRanks.empty()) ImGui::TextWrapped("%s", failure.sameRanks.c_str());
    ImGui::PopStyleColor();
    if (!m.errorNode.empty()) {
      const int node = plan.graph.find(m.errorNode);
      ImGui::BeginDisabled(node < 0);
      const std::string lab = "Go to " + m.errorNode;
      if (ImGui::Button(lab.c_str())) sel.selectNode(node, true);
      probeItem("run.goto");
      ImGui::EndDisabled();
    }
  }
  if (!lines.blas.empty()) ImGui::TextDisabled("%s", lines.blas.c_str());
  if (!lines.cost.empty()) ImGui::TextDisabled("%s", lines.cost.c_str());
  if (!lines.sandbox.empty()) ImGui::TextDisabled("%s", lines.sandbox.c_str());
  if (!lines.sandboxMissing.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.warning));
    ImGui::TextWrapped("%s", lines.sandboxMissing.c_str());
    ImGui::PopStyleColor();
  }
  for (size_t i = 0; i < failure.notes.size(); ++i) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("note: %s", failure.notes[i].c_str());
    ImGui::PopStyleColor();
    probeItem("run.note" + std::to_string(i));
  }
  if (running && !m.rankProgress.empty()) {
    const float w = ImGui::GetContentRegionAvail().x;
    const int perRow = std::max(1, static_cast<int>(w / 110));
    for (size_t r = 0; r < m.rankProgress.size(); ++r) {
      if (r % static_cast<size_t>(perRow) != 0) ImGui::SameLine();
      char lab[32];
      std::snprintf(lab, sizeof(lab), "r%zu", r);
      ImGui::ProgressBar(m.rankProgress[r], ImVec2(100, 0), lab);
    }
  }
  if (m.firstDivergence) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.warning));
    ImGui::TextWrapped("first divergence: %s", m.firstDivergence->detail.c_str());
    ImGui::PopStyleColor();
    const int node = plan.graph.find(m.firstDivergence->node);
    ImGui::BeginDisabled(node < 0);
    const std::string lab = "Go to " + m.firstDivergence->node + "##divergence";
    if (ImGui::Button(lab.c_str())) sel.selectNode(node, true);
    probeItem("run.goto_divergence");
    ImGui::EndDisabled();
  }
  if (m.batches.empty()) return act;
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg;
  if (ImGui::BeginTable("##losses", 6, flags)) {
    ImGui::TableSetupColumn("batch");
    ImGui::TableSetupColumn("reference");
    ImGui::TableSetupColumn("sharded mean");
    ImGui::TableSetupColumn("rel. error");
    ImGui::TableSetupColumn("verdict");
    ImGui::TableSetupColumn("grad ratio");
    ImGui::TableHeadersRow();
    for (const RunBatchRow& r : m.batches) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d", r.batch);
      ImGui::TableNextColumn();
      ImGui::Text("%.7g", r.reference);
      ImGui::TableNextColumn();
      ImGui::Text("%.7g", r.mean);
      if (ImGui::IsItemHovered() && !r.rankLosses.empty()) {
        ImGui::BeginTooltip();
        for (size_t k = 0; k < r.rankLosses.size(); ++k) ImGui::Text("rank %zu: %.7g", k, r.rankLosses[k]);
        ImGui::EndTooltip();
      }
      ImGui::TableNextColumn();
      ImGui::Text("%.2e", r.relError);
      ImGui::TableNextColumn();
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(r.match ? pal.ok : pal.error), "%s", r.match ? "match" : "differs");
      ImGui::TableNextColumn();
      if (r.gradRatio > 0) ImGui::Text("%.3g", r.gradRatio);
      else ImGui::TextDisabled("-");
    }
    ImGui::EndTable();
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (avail.y > 60) {
    drawPlot(m, std::max(avail.x, 200.0f), std::min(avail.y, 220.0f));
    state.plotDrawn = true;
  }
  return act;
}

}  // namespace ss::views
