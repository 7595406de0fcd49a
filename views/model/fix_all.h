#pragma once
// "Fix all": one undoable Batch command from the fix planner (core/plan/fix.h), for the inspector's button and the
// Edit menu.
#include <optional>
#include <string>
#include <vector>

#include "core/model/diagnostics.h"
#include "core/plan/edit.h"
#include "core/plan/fix.h"
#include "core/model/plan.h"

namespace ss::views {

// Cheap, for enabling the button every frame: the plan has errors the planner may fix.
bool fixAllMayHelp(const Diagnostics& diags);
// The outputs the user set by hand: each SetOutputSpec applied on its own (not inside a Batch, which is the fix
// planner's) and not undone. Fix all keeps them, as `shardscope fix --placement` does.
std::vector<PinnedOutput> pinnedByEdits(const EditHistory& history);
// Runs the planner with `pinned` kept (re-checks copies of the plan: call on demand, not every frame). nullopt when
// it finds nothing to change. `blocked`, when given: what it cannot fix around a pinned output (the edge and why,
// one sentence each, "; "-joined), empty when nothing is blocked.
std::optional<Command> fixAllCommand(const Plan& plan, const std::vector<PinnedOutput>& pinned = {},
                                     std::string* blocked = nullptr);

}  // namespace ss::views
