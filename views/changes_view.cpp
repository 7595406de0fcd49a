// Compare mode: the comparison, its records and the Changes list; see views/changes_view.h.
#include "views/changes_view.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "core/check/report.h"
#include "core/io/load/load.h"
#include "views/model/document.h"
#include "views/model/text_fit.h"
#include "views/theme.h"
#include "views/toolbar.h"
#include "views/ui_probe.h"

namespace ss::views {

// ---- records ----

namespace {

// The checker's own one-line text of a diagnostic: "error: index_put (input 2) [incompatible-inputs]: ...".
std::string diagnosticLine(const Plan& p, const Diagnostic& d) {
  Diagnostics one;
  one.items.push_back(d);
  const std::string text = diagnosticsToText(p, one);
  return text.substr(0, text.find('\n'));
}

uint8_t severityLevel(Severity s) {
  switch (s) {
    case Severity::Info: return 1;
    case Severity::Warning: return 2;
    case Severity::Error: return 3;
  }
  return 3;
}

// A node only in B: select where it sits in A, i.e. the A match of its first matched producer.
int anchorInA(const Plan& b, const PlanDiff& d, int nodeB) {
  if (nodeB < 0 || nodeB >= b.graph.size()) return -1;
  for (const TensorRef& r : b.graph.inputs(nodeB)) {
    if (r.node >= 0 && r.node < static_cast<int>(d.bToA.size()) && d.bToA[static_cast<size_t>(r.node)] >= 0)
      return d.bToA[static_cast<size_t>(r.node)];
  }
  return -1;
}

}  // namespace

std::vector<ChangeRow> changeRows(const Plan& a, const Plan& b, const PlanDiff& d) {
  std::vector<ChangeRow> rows;
  rows.reserve(d.changes.size() + d.diagnosticsAdded.size() + d.diagnosticsRemoved.size());
  for (size_t k = 0; k < d.changes.size(); ++k) {
    const PlanChange& c = d.changes[k];
    ChangeRow r;
    r.index = static_cast<int>(k);
    r.label = changeKindName(c.kind);
    r.title = changeTitle(a, b, c);
    if (c.bytesDelta() != 0 || c.timeDeltaUs() != 0) r.delta = formatCostDelta(c.bytesDelta(), c.timeDeltaUs());
    r.node = c.nodeA >= 0 ? c.nodeA : anchorInA(b, d, c.nodeB);
    r.input = c.nodeA >= 0 ? c.input : -1;
    rows.push_back(std::move(r));
  }
  for (size_t k = 0; k < d.diagnosticsRemoved.size(); ++k) {
    const Diagnostic& x = d.diagnosticsA.items[static_cast<size_t>(d.diagnosticsRemoved[k])];
    ChangeRow r;
    r.kind = ChangeRowKind::DiagnosticRemoved;
    r.index = static_cast<int>(k);
    r.label = std::string(severityName(x.severity)) + " gone";
    r.title = diagnosticLine(a, x);
    r.node = x.node;
    r.input = x.node >= 0 ? x.input : -1;
    r.severity = severityLevel(x.severity);
    rows.push_back(std::move(r));
  }
  for (size_t k = 0; k < d.diagnosticsAdded.size(); ++k) {
    const Diagnostic& x = d.diagnosticsB.items[static_cast<size_t>(d.diagnosticsAdded[k])];
    ChangeRow r;
    r.kind = ChangeRowKind::DiagnosticAdded;
    r.index = static_cast<int>(k);
    r.label = std::string(severityName(x.severity)) + " new";
    r.title = diagnosticLine(b, x);
    const int nodeA = x.node >= 0 && x.node < static_cast<int>(d.bToA.size()) ? d.bToA[static_cast<size_t>(x.node)] : -1;
    r.node = nodeA >= 0 ? nodeA : anchorInA(b, d, x.node);
    r.input = nodeA >= 0 ? x.input : -1;
    r.severity = severityLevel(x.severity);
    rows.push_back(std::move(r));
  }
  return rows;
}

GraphDiffMarks graphDiffMarks(const Plan& a, const Plan& /*b*/, const PlanDiff& d) {
  std::map<int, NodeDiffMark> nodes;
  std::map<std::pair<int, int>, EdgeDiffMark> edges;
  auto join = [](std::string& into, const std::string& s) {
    if (s.empty()) return;
    if (!into.empty()) into += "; ";
    into += s;
  };
  for (const PlanChange& c : d.changes) {
    if (c.nodeA < 0 || c.nodeA >= a.graph.size()) continue;  // mesh, or a node only in B (listed, not drawn)
    // Node-level changes mark the node; input-side changes mark only their edge.
    auto node = [&]() -> NodeDiffMark& {
      NodeDiffMark& n = nodes[c.nodeA];
      n.node = c.nodeA;
      return n;
    };
    switch (c.kind) {
      case ChangeKind::NodeRemoved: {
        NodeDiffMark& n = node();
        n.kind = DiffMarkKind::Removed;
        n.before = c.before;
        break;
      }
      case ChangeKind::OutputSpec: {
        NodeDiffMark& n = node();
        const std::string out = c.output > 0 ? "out" + std::to_string(c.output) + " " : "out ";
        join(n.before, out + (c.before.empty() ? "none" : c.before));
        join(n.after, out + (c.after.empty() ? "none" : c.after));
        break;
      }
      case ChangeKind::AutoSpTag: {
        NodeDiffMark& n = node();
        join(n.before, "tag " + (c.before.empty() ? std::string("none") : c.before));
        join(n.after, "tag " + (c.after.empty() ? std::string("none") : c.after));
        break;
      }
      case ChangeKind::InputSpec:
      case ChangeKind::RedistributeAdded:
      case ChangeKind::RedistributeRemoved:
      case ChangeKind::RedistributeChanged: {
        EdgeDiffMark& e = edges[{c.nodeA, c.input}];
        e.node = c.nodeA;
        e.input = c.input;
        const bool spec = c.kind == ChangeKind::InputSpec;
        join(e.before, c.before.empty() ? std::string(spec ? "wants none" : "no redistribute") : (spec ? "wants " : "") + c.before);
        join(e.after, c.after.empty() ? std::string(spec ? "wants none" : "no redistribute") : (spec ? "wants " : "") + c.after);
        break;
      }
      default: break;
    }
  }
  GraphDiffMarks m;
  for (auto& [k, v] : nodes) m.nodes.push_back(std::move(v));
  for (auto& [k, v] : edges) m.edges.push_back(std::move(v));
  return m;
}

// ---- comparison ----

Result<bool> Comparison::open(const std::string& path, const CompareView& a, uint64_t revision) {
  Result<CompareSide> loaded = loadCompareSide(path);
  if (!loaded.ok()) return Error{loaded.error().toString(path)};
  Comparison next;
  next.active = true;
  next.pathB = path;
  next.b = std::move(loaded->plan);
  next.appliedB = std::move(loaded->applied);
  next.diagnosticsB = std::move(loaded->diagnostics);
  *this = std::move(next);
  refresh(a, revision);
  return true;
}

void Comparison::refresh(const CompareView& a, uint64_t revision) {
  if (!active || revision == revisionA) return;
  const auto t0 = std::chrono::steady_clock::now();
  if (!diagnosticsB) diagnosticsB = checkPlan(b);
  diff = compareSides(a, CompareView{b, appliedB, *diagnosticsB});
  marks = graphDiffMarks(a.plan, b, diff);
  rows = changeRows(a.plan, b, diff);
  revisionA = revision;
  diffMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// ---- drawing ----

void drawChangesView(const Plan& /*a*/, const Comparison& cmp, ChangesViewState& state, Selection& sel) {
  const Palette& pal = palette();
  if (!cmp.active) {
    ImGui::TextWrapped("No comparison. File > Compare with... opens a second plan (B) against this one (A): every "
                       "change, its cost and the diagnostics that appear or disappear are listed here and marked "
                       "on the graph.");
    return;
  }
  const PlanDiff& d = cmp.diff;
  // The summary: rows that wrap, pieces elided when a line is too narrow (views/toolbar.h).
  const unsigned dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  char buf[200];
  {
    ToolbarFlow row("changes");
    row.text("B: " + baseName(cmp.pathB));
    std::snprintf(buf, sizeof buf, "matched %d by name, %d by structure; %d only in A, %d only in B", d.matchedByName,
                  d.matchedByStructure, d.onlyA, d.onlyB);
    row.text(buf, dim);
  }
  {
    ToolbarFlow row("changes.counts");
    std::snprintf(buf, sizeof buf, "%zu changes, %zu diagnostics gone, %zu new.", d.changes.size(),
                  d.diagnosticsRemoved.size(), d.diagnosticsAdded.size());
    row.text(buf);
    const int64_t db = d.bytesAfter - d.bytesBefore;
    const double dt = d.timeAfterUs - d.timeBeforeUs;
    row.text("communication " + formatCostDelta(db, dt), dt > 0 ? pal.warning : dt < 0 ? pal.ok : pal.textDim);
  }
  if (d.same()) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.ok), "The plans are the same.");
    return;
  }
  if (sel.generation != state.seenGeneration) {
    // Follow a selection made elsewhere: the first row on the selected node (and edge).
    state.seenGeneration = sel.generation;
    if (state.selectedRow < 0 || state.selectedRow >= static_cast<int>(cmp.rows.size()) ||
        cmp.rows[static_cast<size_t>(state.selectedRow)].node != sel.node ||
        cmp.rows[static_cast<size_t>(state.selectedRow)].input != sel.input) {
      state.selectedRow = -1;
      for (size_t i = 0; i < cmp.rows.size(); ++i)
        if (cmp.rows[i].node == sel.node && cmp.rows[i].input == sel.input && sel.node >= 0) {
          state.selectedRow = static_cast<int>(i);
          break;
        }
    }
  }
  // Two lines per row: the kind and the cost delta, then what changed (the whole pane width, so titles fit).
  state.rowsDrawn = 0;
  ImGui::BeginChild("##changerows", ImVec2(0, 0), false);
  const float line = ImGui::GetTextLineHeight();
  const float rowH = line * 2 + ImGui::GetStyle().ItemSpacing.y + 4;
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(cmp.rows.size()), rowH + ImGui::GetStyle().ItemSpacing.y);
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const ChangeRow& r = cmp.rows[static_cast<size_t>(i)];
      ++state.rowsDrawn;
      ImGui::PushID(i);
      const ImVec2 top = ImGui::GetCursorScreenPos();
      const float rowRight = top.x + ImGui::GetContentRegionAvail().x;
      if (ImGui::Selectable("##row", state.selectedRow == i, ImGuiSelectableFlags_AllowItemOverlap, ImVec2(0, rowH))) {
        state.selectedRow = i;
        if (r.node >= 0) {
          if (r.input >= 0) sel.selectEdge(r.node, r.input, true);
          else sel.selectNode(r.node, true);
        }
        state.seenGeneration = sel.generation;
      }
      if (i == 0) probeItem("changes.row0");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.title.c_str());
      const ImVec2 after = ImGui::GetCursorScreenPos();
      const ImU32 col = r.kind == ChangeRowKind::DiagnosticRemoved ? pal.ok
                        : r.kind == ChangeRowKind::DiagnosticAdded ? (r.severity >= 3 ? pal.error : pal.warning)
                                                                   : kDiffColour;
      ImDrawList* dl = ImGui::GetWindowDrawList();
      dl->AddText(ImVec2(top.x + 4, top.y + 2), col, r.label.c_str());
      if (!r.delta.empty()) {
        const float x = top.x + 4 + ImGui::CalcTextSize(r.label.c_str()).x + 12;
        dl->AddText(ImVec2(x, top.y + 2), pal.text, r.delta.c_str());
      }
      // The title elided to the row (the row's tooltip has all of it).
      const std::string title = elideToWidth(r.title, rowRight - (top.x + 16) - 4,
                                             [](const std::string& t) { return ImGui::CalcTextSize(t.c_str(), nullptr, false).x; });
      dl->AddText(ImVec2(top.x + 16, top.y + 2 + line + 2), pal.textDim, title.c_str());
      ImGui::SetCursorScreenPos(after);
      ImGui::PopID();
    }
  }
  ImGui::EndChild();
}

}  // namespace ss::views
