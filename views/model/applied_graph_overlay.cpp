// Overlays of an applied graph; see views/model/applied_graph_overlay.h.
#include "views/model/applied_graph_overlay.h"

#include <algorithm>

namespace ss::views {
namespace {

void addPill(GraphOverlay& o, int consumer, int input, EdgePill pill) {
  const bool seen = std::any_of(o.edges.begin(), o.edges.end(), [&](const GraphOverlay::Edge& e) {
    return e.consumer == consumer && e.input == input && e.pill.state == pill.state && e.pill.text == pill.text;
  });
  if (!seen) o.edges.push_back({consumer, input, std::move(pill)});
}

PillState stateOf(TransitionState s) {
  switch (s) {
    case TransitionState::Applied: return PillState::Applied;
    case TransitionState::Missing: return PillState::Missing;
    case TransitionState::Unjudged: break;
  }
  return PillState::Plan;
}

// Collectives and their waits as marked nodes; `state(k)` gives collective k's state.
template <typename StateOf>
void markCollectives(GraphOverlay& o, const std::vector<AppliedCollective>& cs, const DeviceMesh& mesh, StateOf state) {
  for (size_t k = 0; k < cs.size(); ++k) {
    const AppliedCollective& c = cs[k];
    const std::string kind = collectiveName(c.kind);
    NodeMark m;
    m.title = kind + " " + meshDimLabel(mesh, c.meshDim);
    m.detail = c.bytes > 0 ? formatBytes(c.bytes) + " " + formatTimeUs(c.timeUs) : c.op;
    m.state = state(k);
    o.nodes.emplace_back(c.node, m);
    if (c.wait >= 0) o.nodes.emplace_back(c.wait, NodeMark{"wait_tensor", kind, m.state});
  }
}

}  // namespace

GraphOverlay planOverlay(const std::vector<AppliedGraph>& applied, const DeviceMesh& mesh) {
  GraphOverlay o;
  for (const AppliedGraph& a : applied) {
    for (const AppliedTransition& t : a.transitions)
      addPill(o, t.consumer, t.input, {t.label(a.collectives, mesh), stateOf(t.state), false});
    for (const UnplannedCollective& u : a.unplanned) {
      if (u.consumer < 0 || u.input < 0) continue;
      addPill(o, u.consumer, u.input,
              {"unplanned " + collectiveLabel(a.collectives[static_cast<size_t>(u.collective)], mesh), PillState::Unplanned, false});
    }
  }
  return o;
}

GraphOverlay appliedGraphOverlay(const AppliedGraph& a, const DeviceMesh& mesh) {
  GraphOverlay o;
  markCollectives(o, a.collectives, mesh, [&](size_t k) {
    return a.collectives[k].planConsumer >= 0 ? PillState::Applied : PillState::Unplanned;
  });
  for (const AppliedTransition& t : a.transitions)
    if (t.state == TransitionState::Missing && t.appliedConsumer >= 0)
      addPill(o, t.appliedConsumer, t.input, {t.label(a.collectives, mesh), PillState::Missing, true});
  return o;
}

GraphOverlay aloneOverlay(const AppliedAlone& alone) {
  GraphOverlay o;
  markCollectives(o, alone.collectives, alone.plan.mesh, [](size_t) { return PillState::Plan; });
  return o;
}

Diagnostics appliedGraphDiagnostics(const Diagnostics& planDiags, const AppliedGraph& a) {
  Diagnostics out;
  const std::string thisRank = "on rank " + std::to_string(a.rank) + " ";
  for (const Diagnostic& d : planDiags.items) {
    // The overlay draws missing and unplanned collectives; a shape mismatch is one rank's (its message says which).
    if (d.kind == DiagKind::TransitionNotApplied || d.kind == DiagKind::UnplannedCollective) continue;
    if (d.kind == DiagKind::LocalShapeMismatch && d.message.find(thisRank) == std::string::npos) continue;
    if (d.node < 0 || d.node >= static_cast<int>(a.appliedOf.size()) || a.appliedOf[static_cast<size_t>(d.node)] < 0) continue;
    Diagnostic x = d;
    x.node = a.appliedOf[static_cast<size_t>(d.node)];
    x.input = -1;
    out.items.push_back(std::move(x));
  }
  return out;
}

}  // namespace ss::views
