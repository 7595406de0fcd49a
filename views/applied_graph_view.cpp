// The applied graph view; see views/applied_graph_view.h.
#include "views/applied_graph_view.h"

#include <algorithm>

#include <imgui.h>

#include "views/model/applied_graph_overlay.h"
#include "views/applied_view.h"
#include "views/graph_view_draw.h"

namespace ss::views {
namespace {

bool hasInput(const Graph& g, int node, int input) {
  return node >= 0 && node < g.size() && input >= 0 && input < static_cast<int>(g.inputs(node).size());
}

void legendChip(ImU32 col, const char* label) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  dl->AddRectFilled(ImVec2(p.x, p.y + 3), ImVec2(p.x + 10, p.y + 13), col, 2.f);
  ImGui::Dummy(ImVec2(12, 14));
  ImGui::SameLine();
  ImGui::TextUnformatted(label);
  ImGui::SameLine();
}

}  // namespace

LinkedPick appliedCounterpart(const AppliedGraph& a, int planNode, int planInput) {
  if (planNode < 0 || planNode >= static_cast<int>(a.appliedOf.size())) return {};
  if (planInput >= 0)
    if (const AppliedTransition* t = a.transitionAt(planNode, planInput); t && t->appliedConsumer >= 0)
      return {t->appliedConsumer, planInput};
  const int j = a.appliedOf[static_cast<size_t>(planNode)];
  if (j < 0) return {};
  return {j, hasInput(a.graph.graph, j, planInput) ? planInput : -1};
}

LinkedPick planCounterpart(const AppliedGraph& a, int appliedNode, int appliedInput) {
  if (appliedNode < 0 || appliedNode >= static_cast<int>(a.planOf.size())) return {};
  for (const AppliedCollective& c : a.collectives) {
    if (c.node != appliedNode && c.wait != appliedNode) continue;
    if (c.planConsumer >= 0) return {c.planConsumer, c.planInput};
    for (const UnplannedCollective& u : a.unplanned)
      if (&a.collectives[static_cast<size_t>(u.collective)] == &c && u.consumer >= 0) return {u.consumer, u.input};
    return {};
  }
  const int p = a.planOf[static_cast<size_t>(appliedNode)];
  if (p < 0) return {};
  // The plan's input numbering is the applied consumer's (core/applied/applied.h's matching contract).
  return {p, appliedInput >= 0 && a.transitionAt(p, appliedInput) ? appliedInput : -1};
}

void AppliedGraphViewState::reset() {
  graph.relayoutRequested = true;
  graph.fitRequested = true;
  local.clear();
  revisionSeen = ~uint64_t{0};
  overlayFor = -1;
  planSelSeen = localSelSeen = ~uint64_t{0};
}

void drawAppliedGraphView(const Plan& plan, const Diagnostics& diags, const std::vector<AppliedGraph>& applied,
                          const AppliedAlone* alone, AppliedGraphViewState& st, Selection& sel, uint64_t revision) {
  if (applied.empty() && !alone) {
    ImGui::TextWrapped("No applied graph. Open a TORCH_TRACE log of an autoparallel run, or an applied graph "
                       "(a repro script, a print_readable dump), to see it here with its collectives.");
    return;
  }
  if (alone) {
    // The document's plan is the applied graph: one selection, the Graph view's.
    if (st.revisionSeen != revision || st.overlayFor != 0) {
      st.overlay = aloneOverlay(*alone);
      st.revisionSeen = revision;
      st.overlayFor = 0;
      ++st.graph.revision;
    }
    ImGui::Text("Applied graph alone: %d nodes, mesh %s%s, %d collectives", plan.graph.size(), plan.mesh.toString().c_str(),
                alone->meshInferred ? " (inferred)" : "", static_cast<int>(alone->collectives.size()));
    st.graph.overlay = &st.overlay;
    drawGraphView(plan, diags, st.graph, sel);
    return;
  }
  appliedRankCombo(applied, st.rank);
  const AppliedGraph& a = applied[static_cast<size_t>(st.rank)];
  if (st.revisionSeen != revision || st.overlayFor != st.rank) {
    st.overlay = appliedGraphOverlay(a, plan.mesh);
    st.diags = appliedGraphDiagnostics(diags, a);
    if (st.overlayFor != st.rank) st.planSelSeen = ~uint64_t{0};  // another rank: select the counterpart there
    st.revisionSeen = revision;
    st.overlayFor = st.rank;
    ++st.graph.revision;
  }
  int missing = 0;
  for (const auto& t : a.transitions) missing += t.state == TransitionState::Missing;
  ImGui::Text("rank %d: %d of %d plan nodes matched, %d collectives, %d of %d planned transitions applied", a.rank,
              a.matched, a.planNodes, static_cast<int>(a.collectives.size()), a.transitionsFound, a.transitionsPlanned);
  ImGui::SameLine();
  legendChip(graphdraw::pillColour(PillState::Applied), "applied");
  legendChip(graphdraw::pillColour(PillState::Unplanned), "unplanned");
  legendChip(graphdraw::pillColour(PillState::Missing), missing ? ("missing (" + std::to_string(missing) + ")").c_str() : "missing");
  ImGui::NewLine();

  // Plan selection -> applied counterpart (centred), unless it came from this view.
  if (sel.generation != st.planSelSeen) {
    st.planSelSeen = sel.generation;
    const LinkedPick p = appliedCounterpart(a, sel.node, sel.input);
    if (p.node >= 0 && !(p.node == st.local.node && p.input == st.local.input)) {
      if (p.input >= 0) st.local.selectEdge(p.node, p.input, true);
      else st.local.selectNode(p.node, true);
    }
    st.localSelSeen = st.local.generation;
  }
  st.graph.overlay = &st.overlay;
  drawGraphView(a.graph, st.diags, st.graph, st.local);
  // A click here -> the plan selection.
  if (st.local.generation != st.localSelSeen) {
    st.localSelSeen = st.local.generation;
    const LinkedPick p = planCounterpart(a, st.local.node, st.local.input);
    if (p.node >= 0) {
      if (p.input >= 0) sel.selectEdge(p.node, p.input);
      else sel.selectNode(p.node);
      st.planSelSeen = sel.generation;
    }
  }
}

}  // namespace ss::views
