#pragma once
// Costs view: communication, compute and transition totals (the solver's when the file carries them, else
// estimated from the cost model), per phase, and the costliest edges (clicking one selects it).
// The record pass is ss::computeCosts (core/costs.h): plain C++, unit-tested.
#include <string>
#include <vector>

#include "core/costs.h"
#include "core/diagnostics.h"
#include "core/plan.h"
#include "core/redistribute.h"
#include "views/Selection.h"

namespace ss::views {

// The cost records live in core (core/costs.h): the diff reuses them.
using ss::CostReport;
using ss::EdgeCost;
using ss::PhaseCost;
using ss::computeCosts;
using ss::edgeStatusName;

struct CostsViewState {
  uint64_t revision = ~uint64_t{0};  // cache key: the document revision the report was computed for
  CostReport report;
};

// `revision` is the document's revision: the report is recomputed only when it changes.
void drawCostsView(const Plan& plan, const Diagnostics& diags, CostsViewState& state, Selection& sel,
                   CommandQueue& cmds, uint64_t revision);

}  // namespace ss::views
