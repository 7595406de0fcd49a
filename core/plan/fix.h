#pragma once
// The fix planner: the edits that make every edge of a plan consistent, as one undoable Batch command.
//
// Contract: planFix never changes `plan`; it works on a copy, round by round, until the checker reports no
// error it knows how to fix (or maxRounds). Per round, at most one edit group per node:
//   - missing-redistribute: insert the redistribute producer -> declared input spec (when none can reach it,
//     drop the declared spec so the producer's arrives, and let the rule speak next round);
//   - bad-redistribute: remove it (the next round re-plans the edge from the producer);
//   - incompatible-inputs / partial-into-nonlinear: among the input assignments the op's rule accepts, the one
//     whose redistributes cost least (estimated time, then bytes); set those input specs and insert the
//     redistributes from the producers;
//   - output-spec-mismatch (and a factory declared in a layout it cannot make): declare the output the op
//     really makes, and keep what each consumer expected by declaring it as that consumer's input spec (the
//     next round inserts the redistribute);
//   - seq-dim-mismatch: tag the input with the dimension the plan shards;
//   - invalid-spec at an input: drop the input spec, so what the producer delivers arrives.
// Errors it cannot fix (invalid output specs, tags and loss nodes, shape mismatches) stay in `remaining`.
#include <string>
#include <vector>

#include "core/check/check.h"
#include "core/plan/edit.h"

namespace ss {

struct FixOptions {
  CheckOptions check;
  int maxRounds = 32;
};

struct FixPlan {
  Batch batch;                     // apply with applyCommand or EditHistory::apply
  std::vector<std::string> steps;  // one line per edit, for the CLI and the UI
  Diagnostics remaining;           // what the fixed plan still reports
  int64_t totalBytes = 0;          // of the inserted redistributes, per rank
  double totalTimeUs = 0;
};

FixPlan planFix(const Plan& plan, const FixOptions& opts = {});

}  // namespace ss
