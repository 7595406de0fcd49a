#pragma once
// Costs view: communication, compute and transition totals (the solver's when the file carries them, else
// estimated from the cost model), per phase, and the costliest edges (clicking one selects it).
// The record pass is ss::computeCosts (core/plan/costs.h): plain C++, unit-tested.
#include <string>
#include <vector>

#include "core/applied/applied.h"
#include "core/plan/costs.h"
#include "core/model/diagnostics.h"
#include "core/model/plan.h"
#include "core/redistribute/redistribute.h"
#include "views/model/selection.h"

namespace ss::views {

// The cost records live in core (core/plan/costs.h): the diff reuses them.
using ss::CostReport;
using ss::EdgeCost;
using ss::PhaseCost;
using ss::computeCosts;
using ss::edgeStatusName;

// The plan's estimated collectives beside the applied graph's actual ones, per kind and mesh dim (meshDim -2 = the
// flattened mesh, -1 unmapped). Plan side: the communicating steps of every planned transition (as planRedistribute
// gives them); applied side: the collectives found in the applied graph (bytes and time from their local shapes).
struct CollectiveTotal {
  CollectiveKind kind = CollectiveKind::None;
  int meshDim = -1;
  int planCount = 0;
  int64_t planBytes = 0;
  double planUs = 0;
  int appliedCount = 0;
  int64_t appliedBytes = 0;
  double appliedUs = 0;
  // The applied graph's verdicts on this row, as checkApplied gave them (the Applied view's and the overlays'):
  // planned steps no collective performs (transition-not-applied) and collectives no transition explains
  // (unplanned-collective). Counts alone differ where the apply pass merges steps (one all_gather over the
  // flattened mesh for a planned gather on each dim): that is no fault, and the row is not marked for it.
  int missing = 0;
  int unplanned = 0;
  bool faulty() const { return missing > 0 || unplanned > 0; }
};
// `judged`: the applied graph checkApplied judged against the plan (its transitions and unplanned collectives),
// nullptr for an applied graph alone.
std::vector<CollectiveTotal> compareCollectives(const Plan& plan, const std::vector<AppliedCollective>* applied,
                                                const AppliedGraph* judged = nullptr, const CostModel& model = {});

struct CostsViewState {
  uint64_t revision = ~uint64_t{0};  // cache key: the document revision the report was computed for
  CostReport report;
  std::vector<CollectiveTotal> collectives;  // with an applied graph
};

// `revision` is the document's revision: the report is recomputed only when it changes.
// `applied`: the collectives of the document's applied graph (nullptr when it has none); `judged`: that graph as
// checkApplied judged it against the plan (nullptr for an applied graph alone).
void drawCostsView(const Plan& plan, const Diagnostics& diags, CostsViewState& state, Selection& sel,
                   CommandQueue& cmds, uint64_t revision, const std::vector<AppliedCollective>* applied = nullptr,
                   const AppliedGraph* judged = nullptr);

}  // namespace ss::views
