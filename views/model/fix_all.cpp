#include "views/model/fix_all.h"

#include "core/plan/fix.h"

namespace ss::views {

bool fixAllMayHelp(const Diagnostics& diags) { return diags.hasErrors(); }

std::optional<Command> fixAllCommand(const Plan& plan) {
  FixPlan fp = planFix(plan);
  if (fp.batch.commands.empty()) return std::nullopt;
  if (fp.batch.label.empty()) fp.batch.label = "Fix all";
  return Command{std::move(fp.batch)};
}

}  // namespace ss::views
