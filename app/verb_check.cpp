// `shardscope check`: load a plan of any supported format, run the checker, print the diagnostics.
#include <nlohmann/json.hpp>

#include <iostream>

#include "app/cli_args.h"
#include "app/verbs.h"
#include "core/check.h"
#include "core/io/formats.h"
#include "core/io/load.h"

namespace ss::app {
namespace {

const char* kHelp = R"HELP(Usage: shardscope check FILE [--placements PLACEMENTS.json] [--json]

Loads FILE (a shardscope plan, an autoparallel JSON export, or FX graph text; detected by content), checks every
op's input placements against its sharding rule and every edge for a missing redistribute, and prints the
diagnostics with the collective that fixes each problem and its cost.
  --placements FILE   apply an autoparallel placements file (save_placements) to the graph in FILE first
  --json              {"diagnostics": [{"severity", "kind", "node", "input", "message", ...}], "summary": {...}}
Exit codes: 0 no errors (warnings and infos allowed), 1 errors found, 2 the input is unusable.
)HELP";

int runCheck(const std::vector<std::string>& argv) {
  auto args = parseArgs(argv, {{"placements"}, {"json", false}});
  if (!args) {
    std::cerr << "shardscope check: " << args.error().message << "\n";
    return 2;
  }
  if (args->positionals.size() != 1) {
    std::cerr << "shardscope check: expected one FILE (see shardscope check --help)\n";
    return 2;
  }
  const std::string file = args->positionals[0];
  auto plan = loadPlanFileWithPlacements(file, args->get("placements").value_or(""));
  if (!plan) {
    std::cerr << plan.error().toString() << "\n";
    return 2;
  }
  Diagnostics d = checkPlan(*plan);
  if (args->has("json")) std::cout << diagnosticsToJson(*plan, d).dump(2) << "\n";
  else std::cout << diagnosticsToText(*plan, d);
  std::cout.flush();
  // The process ends here: the plan (millions of small allocations at 100k nodes) is left to the OS instead of
  // being freed piece by piece, about a tenth of `check` on a 95k-node export (scripts/bench_check_vs_json.sh).
  // Held by a static, so it stays reachable (no leak for LeakSanitizer).
  static Plan* const kept = new Plan(std::move(*plan));
  (void)kept;
  return d.hasErrors() ? 1 : 0;
}

VerbRegistrar reg({"check", "check a plan: incompatible inputs, missing redistributes, seq_dim tags", kHelp, runCheck});

}  // namespace
}  // namespace ss::app
