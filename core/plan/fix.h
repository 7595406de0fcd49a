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
//   - seq-dim-mismatch: tag the input with the dimension the plan shards; on a real AutoSP graph (no tags, the
//     slice AutoSP's passes wrote), move the slice to the sequence dim (autoSpSliceFix);
//   - invalid-spec at an input: drop the input spec, so what the producer delivers arrives.
// Errors it cannot fix (invalid output specs, tags and loss nodes, shape mismatches) stay in `remaining`.
//
// Pinned outputs (FixOptions::pinned: the specs a user set, `fix --placement`, the app's own edits) are kept:
// no edit changes them. Where a pinned output disagrees with what its op makes from its inputs, the planner
// looks for the cheapest input specs from which the op makes the pinned spec and redistributes into them; where
// none exists (or an error next to the pin remains), `blocked` says which edge and why.
//
// A solver solution (Plan::isSolverSolution) is fixed in its own terms: a consumer's declared input spec that
// differs from its producer's is a transition the solver plans (the checker's redistribute-required), kept as it
// is; written natively, it becomes a redistribute (Plan::plannedTransitions).
#include <optional>
#include <string>
#include <vector>

#include "core/check/check.h"
#include "core/plan/edit.h"

namespace ss {

// An output a user set: (node, output index).
struct PinnedOutput {
  int node = -1;
  int output = 0;
  auto operator<=>(const PinnedOutput&) const = default;
};

struct FixOptions {
  CheckOptions check;
  int maxRounds = 32;
  std::vector<PinnedOutput> pinned;  // outputs no edit may change
};

struct FixPlan {
  Batch batch;                     // apply with applyCommand or EditHistory::apply
  std::vector<std::string> steps;  // one line per edit, for the CLI and the UI
  Diagnostics remaining;           // what the fixed plan still reports
  // One line per error the planner left because of a pinned output: "sum_1 input 0 (alias_default): ... ".
  std::vector<std::string> blocked;
  int64_t totalBytes = 0;          // of the inserted redistributes, per rank
  double totalTimeUs = 0;
};

FixPlan planFix(const Plan& plan, const FixOptions& opts = {});

// DeepSpeed's seq_dim fix at `node` of a real AutoSP graph (the slice AutoSP's passes wrote, or the input it
// slices): the move of that slice to the input's sequence dim, when the graph says both (the all-to-all's gathered
// symbol) and the dims differ, and the log names the input (its size symbols' source, L['input_ids']); nullopt
// otherwise. The app offers it at the flagged slice; planFix applies it at each seq-dim-mismatch there.
std::optional<MoveAutoSpSlice> autoSpSliceFix(const Plan& plan, int node);

}  // namespace ss
