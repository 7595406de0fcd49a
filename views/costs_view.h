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
};
std::vector<CollectiveTotal> compareCollectives(const Plan& plan, const std::vector<AppliedCollective>* applied,
                                                const CostModel& model = {});

struct CostsViewState {
  uint64_t revision = ~uint64_t{0};  // cache key: the document revision the report was computed for
  CostReport report;
  std::vector<CollectiveTotal> collectives;  // with an applied graph
};

// `revision` is the document's revision: the report is recomputed only when it changes.
// `applied`: the collectives of the document's applied graph (nullptr when it has none).
void drawCostsView(const Plan& plan, const Diagnostics& diags, CostsViewState& state, Selection& sel,
                   CommandQueue& cmds, uint64_t revision, const std::vector<AppliedCollective>* applied = nullptr);

}  // namespace ss::views
