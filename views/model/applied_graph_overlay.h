#pragma once
// What an applied graph (core/applied) says about the graphs the graph view draws, as GraphOverlays
// (views/model/graph_records.h). Plain C++, no ImGui. Everything comes from core/applied's results (AppliedGraph's
// transitions, unplanned collectives, collectives, node matching): nothing is matched or judged again here.
//
// - planOverlay: on the plan graph, each planned transition's edge gets a pill saying what the applied graph did
//   (Applied: its collectives' kind, mesh dim, bytes per rank, time; Missing: "missing <kind> <dim> <bytes>";
//   not judged: Plan), and each unplanned collective a warning pill on the plan edge it feeds. Several ranks: a
//   rank's pill is added when no other rank gave the same one on that edge.
// - appliedGraphOverlay: on the applied graph, collectives and their waits are marked as collectives (Applied when
//   they perform a planned transition, else Unplanned), and each missing transition is a ghost pill on the
//   applied edge where the plan says it belongs (the consumer's input).
// - aloneOverlay: an applied graph opened alone: its collectives and waits marked (state Plan).
#include <vector>

#include "core/applied/applied.h"
#include "core/model/diagnostics.h"
#include "views/model/graph_records.h"

namespace ss::views {

GraphOverlay planOverlay(const std::vector<AppliedGraph>& applied, const DeviceMesh& mesh);
GraphOverlay appliedGraphOverlay(const AppliedGraph& a, const DeviceMesh& mesh);
GraphOverlay aloneOverlay(const AppliedAlone& alone);

// The plan's diagnostics at the applied counterparts of their nodes (input dropped: the overlay draws the edges),
// so the applied graph shows the severity and tooltips of what it implements. transition-not-applied and
// unplanned-collective are left out (the overlay draws them), and another rank's local-shape-mismatch.
Diagnostics appliedGraphDiagnostics(const Diagnostics& planDiags, const AppliedGraph& a);

}  // namespace ss::views
