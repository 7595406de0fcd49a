// `shardscope diff A B [--json]`: compares two plans (core/plan/diff.h). Exit 0 same, 1 different, 2 unusable input.
#include <nlohmann/json.hpp>

#include <iostream>

#include "app/cli/args.h"
#include "app/cli/verbs.h"
#include "core/applied/compare.h"

namespace ss::app {
namespace {

const VerbHelp kHelp{
    "Usage: shardscope diff A B [--placements-a FILE] [--placements-b FILE] [--json]",
    R"(Compares plan B (after) with plan A (before). A and B are any files shardscope reads (a shardscope plan, an
autoparallel JSON export, FX graph text, a TORCH_TRACE log or folder with its applied graphs; detected by content),
each optionally with an autoparallel placements file. It compares what the app's Compare mode compares (one
definition: core/applied/compare.h): the plans, their applied graphs and their diagnostics.
Nodes are matched by name, then by structure (op, input structure and shapes, in graph order). Every change is
listed: output spec, input spec, redistribute added / removed / changed, AutoSP tag, node added / removed, mesh,
an applied graph that communicates differently;
with its communication cost delta (bytes per rank and estimated time), the totals per phase, and the diagnostics
that appear and disappear (the checker runs on both).)",
    "Exit codes: 0 the plans are the same, 1 they differ, 2 an input is unusable."};

const std::vector<FlagSpec> kFlags{
    option("placements-a", "FILE", "apply an autoparallel placements file to A's graph first"),
    option("placements-b", "FILE", "apply an autoparallel placements file to B's graph first"),
    toggle("json", R"({"changes": [{"kind", "node", "input", "before", "after", "bytes_delta", "cost_delta_us", ...}],
"diagnostics": {"added": [...], "removed": [...]}, "match": {...}, "summary": {...}})")};

int runDiff(const ParsedArgs& args) {
  if (args.positionals.size() != 2) {
    std::cerr << "shardscope diff: expected two files A and B (see shardscope diff --help)\n";
    return 2;
  }
  const std::string fileA = args.positionals[0], fileB = args.positionals[1];
  Result<CompareSide> sa = loadCompareSide(fileA, args.get("placements-a").value_or(""));
  if (!sa) {
    std::cerr << sa.error().toString() << "\n";
    return 2;
  }
  Result<CompareSide> sb = loadCompareSide(fileB, args.get("placements-b").value_or(""));
  if (!sb) {
    std::cerr << sb.error().toString() << "\n";
    return 2;
  }
  const PlanDiff d = compareSides(viewOf(*sa), viewOf(*sb));
  const Plan* a = &sa->plan;
  const Plan* b = &sb->plan;
  if (args.has("json")) {
    nlohmann::json j = diffToJson(*a, *b, d);
    j["a"] = Error::oneLine(fileA);
    j["b"] = Error::oneLine(fileB);
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "A: " << fileA << " (" << a->graph.size() << " nodes, mesh " << a->mesh.toString() << ")\n"
              << "B: " << fileB << " (" << b->graph.size() << " nodes, mesh " << b->mesh.toString() << ")\n"
              << diffToText(*a, *b, d);
  }
  return d.same() ? 0 : 1;
}

VerbRegistrar reg({"diff", "compare two plans: changed specs, redistributes, tags, cost deltas, diagnostics", kHelp,
                   kFlags, runDiff});

}  // namespace
}  // namespace ss::app
