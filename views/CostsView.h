#pragma once
// Costs view: communication, compute and transition totals (the solver's when the file carries them, else
// estimated from the cost model), per phase, and the costliest edges (clicking one selects it).
// `computeCosts` is the record pass: plain C++, unit-tested.
#include <string>
#include <vector>

#include "core/diagnostics.h"
#include "core/plan.h"
#include "core/redistribute.h"
#include "views/Selection.h"

namespace ss::views {

struct EdgeCost {
  int node = -1, input = -1;
  Phase phase = Phase::Unknown;
  // inserted: the plan has this redistribute. planned: a solver's export (autoparallel JSON or placements), whose
  // apply pass inserts every transition it planned. missing: layouts differ and nothing will redistribute.
  enum class Status : uint8_t { Inserted, Planned, Missing };
  Status status = Status::Missing;
  bool inserted() const { return status == Status::Inserted; }
  std::string summary;       // "all_to_all on mesh dim 1 (dim1), 2.0 MiB, 21.4 us"
  int64_t bytes = 0;
  double timeUs = 0;
  double solverComm = -1, solverTransition = -1;  // from an autoparallel export, -1 when absent
};

struct PhaseCost {
  Phase phase = Phase::Unknown;
  int edges = 0;
  int64_t bytes = 0;
  double timeUs = 0;
  double compute = 0;        // sum of node compute costs (solver units), 0 when absent
};

struct CostReport {
  std::vector<EdgeCost> edges;      // costliest first
  std::vector<PhaseCost> phases;    // forward, backward, optimizer, unknown (only those present)
  double totalTimeUs = 0;
  int64_t totalBytes = 0;
  CostSummary solver;               // as the file reported it
};

CostReport computeCosts(const Plan& plan, const CostModel& model = {});
const char* edgeStatusName(EdgeCost::Status s);  // "inserted", "planned", "missing"

struct CostsViewState {
  uint64_t revision = ~uint64_t{0};  // cache key: the document revision the report was computed for
  CostReport report;
};

// `revision` is the document's revision: the report is recomputed only when it changes.
void drawCostsView(const Plan& plan, const Diagnostics& diags, CostsViewState& state, Selection& sel,
                   CommandQueue& cmds, uint64_t revision);

}  // namespace ss::views
