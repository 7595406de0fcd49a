#pragma once
// What `shardscope diff` and the app's Compare mode compare: one definition for both, so the CLI and the app
// never disagree.
//
// A side is a file as the app opens it: a plan file (optionally with an autoparallel placements file), or
// autoparallel's artifacts (a TORCH_TRACE log, a folder, ...: loadSession) with their applied graphs. Its
// diagnostics are the checker's followed by each applied graph's (checkSession). The comparison is the plan diff
// (core/plan/diff.h) with those diagnostics, plus one "applied-graph" change per rank whose applied graph
// communicates differently (collective kinds and counts per mesh dim): two logs of one plan whose applied graphs
// differ (seed 1: the planned all_to_all missing in one) differ.
#include <string>
#include <vector>

#include "core/applied/session.h"
#include "core/plan/diff.h"

namespace ss {

struct CompareSide {
  Plan plan;
  std::vector<AppliedGraph> applied;  // one per rank, by rank; empty for a plan file
  Diagnostics diagnostics;            // the checker's, then each applied graph's
};

// Loads a side; errors are one located line. `placementsPath` (optional) is applied to a plan file's graph.
Result<CompareSide> loadCompareSide(const std::string& path, const std::string& placementsPath = "");

// What one side is, by reference (the app's document holds A's parts).
struct CompareView {
  const Plan& plan;
  const std::vector<AppliedGraph>& applied;
  const Diagnostics& diagnostics;
};
inline CompareView viewOf(const CompareSide& s) { return {s.plan, s.applied, s.diagnostics}; }

PlanDiff compareSides(const CompareView& a, const CompareView& b, const CheckOptions& check = {});

// "rank 0: 2 all_gather on mesh dim 0 (dp), 1 all_to_all on mesh dim 1 (tp)"; "rank 0: no collectives".
std::string appliedCommunication(const AppliedGraph& g, const DeviceMesh& mesh);

}  // namespace ss
