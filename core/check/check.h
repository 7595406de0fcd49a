#pragma once
// The checker: runs the per-op rules (core/rules/) over a Plan and reports Diagnostics.
//
// Contract: total (never throws on a loaded plan); deterministic order (by node, then input); each op without
// a rule is reported once per op as "unchecked-op" (info). `Checker` keeps per-node results so an edit re-checks
// only the touched nodes and their consumers.
#include <map>
#include <utility>
#include <vector>

#include "core/model/diagnostics.h"
#include "core/model/plan.h"
#include "core/redistribute/redistribute.h"

namespace ss {

struct CheckOptions {
  CostModel cost;
  bool reportUnevenShards = true;
  // Threads for a full run(): 0 = one per core for large graphs (>= 4096 nodes), 1 = serial. Results are
  // identical either way; update() is always serial (it touches a handful of nodes).
  int threads = 0;
};

Diagnostics checkPlan(const Plan& plan, const CheckOptions& opts = {});

// The redistribute on each (consumer, input) edge, as offsets per consumer into one array: looked up once per edge
// by the checker (a std::map here was its top cost at 100k nodes). When a plan has two on one edge the last wins.
class RedistIndex {
 public:
  void build(const Plan& plan);
  int find(int node, int input) const;  // index into plan.redistributes; -1 when the edge has none

 private:
  std::vector<int> first_;                   // node n's entries: [first_[n], first_[n + 1])
  std::vector<std::pair<int, int>> entries_;  // (input, redistribute index), in plan order per node
};

class Checker {
 public:
  explicit Checker(CheckOptions opts = {}) : opts_(std::move(opts)) {}
  const Diagnostics& run(const Plan& plan);  // full check
  // Re-checks after an edit that touched `nodes` (and, through them, their consumers).
  const Diagnostics& update(const Plan& plan, const std::vector<int>& nodes);
  const Diagnostics& diagnostics() const { return merged_; }
  // A full check whose result is moved out (checkPlan): the checker keeps no per-node results, so a later
  // update() runs a full check.
  Diagnostics runOnce(const Plan& plan);

 private:
  CheckOptions opts_;
  std::vector<std::vector<Diagnostic>> perNode_;
  std::vector<Diagnostic> planWide_;
  Diagnostics merged_;
  // The redistribute on each (consumer, input) edge, built by run() and update(). Tensor inputs and users are
  // the graph's own index (Graph::inputs, Graph::users): the plan must be indexed (Graph::reindex), as every
  // reader and Document leave it.
  RedistIndex redist_;
  void checkAll(const Plan& plan);
  void merge(bool consume = false);  // consume: moves the per-node results instead of copying them
};

}  // namespace ss
