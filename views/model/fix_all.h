#pragma once
// "Fix all": one undoable Batch command from the fix planner (core/plan/fix.h), for the inspector's button and the
// Edit menu.
#include <optional>

#include "core/model/diagnostics.h"
#include "core/plan/edit.h"
#include "core/model/plan.h"

namespace ss::views {

// Cheap, for enabling the button every frame: the plan has errors the planner may fix.
bool fixAllMayHelp(const Diagnostics& diags);
// Runs the planner (re-checks copies of the plan: call on demand, not every frame). nullopt when it finds
// nothing to change.
std::optional<Command> fixAllCommand(const Plan& plan);

}  // namespace ss::views
