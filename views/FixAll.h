#pragma once
// "Fix all": one undoable Batch command that repairs what the checker can repair. Uses the fix planner from
// core/fix.h when the build has it; otherwise a local planner that inserts the redistribute each edge
// diagnostic names (have -> want) and sets an AutoSP tag's seq_dim to the dim its placement shards.
#include <optional>

#include "core/diagnostics.h"
#include "core/edit.h"
#include "core/plan.h"

namespace ss::views {

// nullopt when there is nothing to fix.
std::optional<Command> fixAllCommand(const Plan& plan, const Diagnostics& diags);

}  // namespace ss::views
