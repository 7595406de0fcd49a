#pragma once
// Applied graph view: the applied (post-sharding) graph of one rank as a node graph, drawn by the graph view's
// machinery (views/graph_view.h, its own camera and layout) with an overlay (views/model/applied_graph_overlay.h):
// collectives and waits drawn as collectives (kind, mesh dim, bytes per rank, estimated time; green when they
// perform a planned transition, orange when no plan explains them), each missing collective a dashed red ghost
// node on the edge where the plan says it belongs. An applied graph opened alone is drawn with its collectives
// highlighted and costed.
//
// Linked selection: the view keeps its own selection in applied-graph node indices. Selecting a plan node
// anywhere selects (and centres on) its applied counterpart here; selecting an applied node here selects its plan
// node (a collective: the plan edge whose transition it performs; the consumer of a ghost: that edge).
// `appliedCounterpart` / `planCounterpart` are the mapping (plain C++, tested); the matching is core/applied's.
#include <cstdint>
#include <vector>

#include "core/applied/applied.h"
#include "core/model/diagnostics.h"
#include "core/model/plan.h"
#include "views/model/graph_records.h"
#include "views/graph_view.h"
#include "views/model/selection.h"

namespace ss::views {

struct LinkedPick {
  int node = -1, input = -1;  // -1: none / the node itself
  bool operator==(const LinkedPick&) const = default;
};
// The applied node (and input) for a plan selection: a planned transition's edge goes to its applied consumer's
// input; a node to its matched node. node -1 when it has no counterpart.
LinkedPick appliedCounterpart(const AppliedGraph& a, int planNode, int planInput);
// The plan node (and input) for an applied selection: a collective or its wait gives the plan edge it performs
// (or, unplanned, the plan node it feeds); a matched node its plan node (with the input, for an edge).
LinkedPick planCounterpart(const AppliedGraph& a, int appliedNode, int appliedInput);

struct AppliedGraphViewState {
  GraphViewState graph;          // camera, layout, records of the applied graph
  Selection local;               // selection in the applied graph's node indices
  int rank = 0;                  // index into the document's applied graphs
  GraphOverlay overlay;          // rebuilt when the document's revision or the rank changes
  Diagnostics diags;             // the plan's, at the applied counterparts
  uint64_t revisionSeen = ~uint64_t{0};
  int overlayFor = -1;           // rank the overlay is for
  uint64_t planSelSeen = ~uint64_t{0}, localSelSeen = ~uint64_t{0};
  void reset();                  // a new document: fresh layout, overlay and selections
};

// `applied` may be empty (then `alone` is drawn, else a hint is shown). `revision` is the document's.
void drawAppliedGraphView(const Plan& plan, const Diagnostics& diags, const std::vector<AppliedGraph>& applied,
                          const AppliedAlone* alone, AppliedGraphViewState& state, Selection& sel, uint64_t revision);

}  // namespace ss::views
