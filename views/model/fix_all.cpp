#include "views/model/fix_all.h"

#include <set>

#include "core/plan/fix.h"

namespace ss::views {

bool fixAllMayHelp(const Diagnostics& diags) { return diags.hasErrors(); }

std::vector<PinnedOutput> pinnedByEdits(const EditHistory& history) {
  std::set<PinnedOutput> pins;
  for (const Command& c : history.applied())
    if (const auto* so = std::get_if<SetOutputSpec>(&c)) pins.insert(PinnedOutput{so->node, so->output});
  return {pins.begin(), pins.end()};
}

std::optional<Command> fixAllCommand(const Plan& plan, const std::vector<PinnedOutput>& pinned, std::string* blocked) {
  FixOptions options;
  options.pinned = pinned;
  FixPlan fp = planFix(plan, options);
  if (blocked) {
    blocked->clear();
    for (const std::string& why : fp.blocked) *blocked += (blocked->empty() ? "" : "; ") + why;
  }
  if (fp.batch.commands.empty()) return std::nullopt;
  if (fp.batch.label.empty()) fp.batch.label = "Fix all";
  return Command{std::move(fp.batch)};
}

}  // namespace ss::views
