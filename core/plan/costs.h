#pragma once
// Communication costs of a plan: per edge whose layouts differ, the redistribute it needs (core/redistribute/redistribute.h's
// planner and alpha-beta model), summed per phase. The one cost computation: the Costs view shows it, the diff
// (core/plan/diff.h) subtracts two of them.
//
// Contract: plain values, deterministic. An edge is costed when the tensor's shape is known and both specs are
// known and differ: (redistribute.from -> redistribute.to) when the plan inserts one, else (producer output spec ->
// consumer input spec).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/plan.h"
#include "core/redistribute/redistribute.h"

namespace ss {

class RedistIndex;

struct EdgeCost {
  int node = -1, input = -1;
  Phase phase = Phase::Unknown;
  // inserted: the plan has this redistribute. planned: a solver's export (autoparallel JSON or placements), whose
  // apply pass inserts every transition it planned. missing: layouts differ and nothing will redistribute.
  enum class Status : uint8_t { Inserted, Planned, Missing };
  Status status = Status::Missing;
  bool inserted() const { return status == Status::Inserted; }
  // The plan performs this communication when it runs (inserted or planned); a missing redistribute is never
  // performed (the op gets the wrong layout instead), so it moves no bytes.
  bool performed() const { return status != Status::Missing; }
  std::string summary;       // "all_to_all on mesh dim 1 (dim1), 2.0 MiB, 21.4 us"
  std::vector<RedistributeStep> steps;  // the redistribute's steps, local ones included (empty when impossible)
  int64_t bytes = 0;
  double timeUs = 0;
  double solverComm = -1, solverTransition = -1;  // from an autoparallel export, -1 when absent
};
const char* edgeStatusName(EdgeCost::Status s);  // "inserted", "planned", "missing"

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

// The cost of edge (node, input), or nullopt when it needs no communication or cannot be costed (unknown shape
// or spec). `redist` (optional) is an index of plan.redistributes built for this plan, for large plans.
std::optional<EdgeCost> edgeCost(const Plan& plan, int node, int input, const CostModel& model = {},
                                 const RedistIndex* redist = nullptr);
CostReport computeCosts(const Plan& plan, const CostModel& model = {});

}  // namespace ss
