// `shardscope check`: load a plan of any supported format, run the checker, print the diagnostics. With
// autoparallel's artifacts (a TORCH_TRACE log, JOINT --solution SOLUTION [--applied APPLIED], an optimizer log,
// an applied graph alone) the applied graph is checked against the plan too (core/applied/).
#include <nlohmann/json.hpp>

#include <iostream>

#include "app/cli/args.h"
#include "app/cli/verbs.h"
#include "core/check/report.h"
#include "core/applied/session.h"
#include "core/check/check.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/model/layout.h"

namespace ss::app {
namespace {

const VerbHelp kHelp{
    R"(Usage: shardscope check FILE [--placements PLACEMENTS.json] [--json]
       shardscope check LOG|LOGDIR [--group NAME=MESHDIM]... [--json]
       shardscope check JOINT.txt --solution SOLUTION.json [--applied APPLIED.txt] [--rank N] [--json]
       shardscope check OPTIMIZER_LOG.txt [--mesh 2x4 [--names dp,tp]] [--applied APPLIED.txt]
       shardscope check APPLIED.txt [--mesh 2x4 [--names dp,tp]])",
    R"(Loads FILE (a shardscope plan, an autoparallel JSON export, FX graph text, or a TORCH_TRACE log; detected by
content), checks every op's input placements against its sharding rule and every edge for a missing
redistribute, and prints the diagnostics with the collective that fixes each problem and its cost.
With an applied (post-sharding) graph, from the log or --applied, every planned transition must be performed on
its consumer's input path: transition-not-applied (error), unplanned-collective (warning), local-shape-mismatch
(error). A folder of per-rank logs checks each rank's applied graph at its mesh coordinate.)",
    R"(The text ends with the summary and how many op nodes a sharding rule checked.
Exit codes: 0 no errors (warnings and infos allowed), 1 errors found, 2 the input is unusable.)"};

const std::vector<FlagSpec> kFlags = withFlags(
    {option("placements", "FILE", "apply an autoparallel placements file (save_placements) to the graph in FILE first")},
    withFlags(sessionFlags(),
              {toggle("json", R"({"diagnostics": [{"severity", "kind", "node", "input", "message", ...}], "summary": {...},
"coverage": {"op_nodes", "checked", "replicate_only", "unchecked"}})")}));


nlohmann::json appliedJson(const AppliedGraph& a, const DeviceMesh& mesh) {
  nlohmann::json j;
  j["rank"] = a.rank;
  j["coord"] = a.coord;
  j["plan_nodes"] = a.planNodes;
  j["matched"] = a.matched;
  j["transitions_planned"] = a.transitionsPlanned;
  j["transitions_found"] = a.transitionsFound;
  nlohmann::json gs = nlohmann::json::array();
  for (const auto& g : a.groups) gs.push_back({{"group", g.group}, {"size", g.size}, {"mesh_dim", g.meshDim}, {"how", g.how}});
  j["groups"] = gs;
  nlohmann::json cs = nlohmann::json::array();
  for (const auto& c : a.collectives)
    cs.push_back({{"node", a.graph.graph.nodes[c.node].name}, {"kind", collectiveName(c.kind)}, {"op", c.op}, {"group", c.group},
                  {"mesh_dim", c.meshDim}, {"bytes", c.bytes}, {"time_us", c.timeUs}});
  j["collectives"] = cs;
  (void)mesh;
  return j;
}

void printAloneSummary(const AppliedAlone& a) {
  std::cout << "applied graph alone: " << a.plan.graph.size() << " nodes, mesh " << a.plan.mesh.toString()
            << (a.meshInferred ? " (inferred from its collectives)" : "")
            << (a.meshProblem.empty() ? "" : " (none inferred: " + Error::oneLine(a.meshProblem) + ")") << ", " << a.collectives.size() << " collectives\n";
  std::map<std::pair<int, int>, std::tuple<int, int64_t, double>> totals;
  for (const auto& c : a.collectives) {
    auto& t = totals[{c.meshDim, static_cast<int>(c.kind)}];
    ++std::get<0>(t);
    std::get<1>(t) += c.bytes;
    std::get<2>(t) += c.timeUs;
  }
  for (const auto& [k, t] : totals)
    std::cout << "  " << collectiveName(static_cast<CollectiveKind>(k.second)) << " on "
              << (k.first >= 0 ? "mesh dim " + std::to_string(k.first) + " (" + a.plan.mesh.dimName(k.first) + ")"
                               : k.first == -2 ? std::string("the flattened mesh") : std::string("an unmapped mesh dim"))
              << ": " << std::get<0>(t) << " x, " << formatBytes(std::get<1>(t)) << " per rank, " << formatTimeUs(std::get<2>(t)) << "\n";
}

int runSession(const ParsedArgs& args) {
  auto in = sessionInputs(args);
  if (!in) {
    std::cerr << "shardscope check: " << in.error().message << "\n";
    return 2;
  }
  auto s = loadSession(*in);
  if (!s) {
    std::cerr << s.error().toString() << "\n";
    return 2;
  }
  Diagnostics d = checkSession(*s);
  if (args.has("json")) {
    nlohmann::json j = diagnosticsToJson(s->plan, d);
    nlohmann::json ap = nlohmann::json::array();
    for (const auto& a : s->applied) ap.push_back(appliedJson(a, s->plan.mesh));
    j["applied"] = ap;
    j["coverage"] = coverageJson(checkCoverage(s->plan));
    std::cout << j.dump(2) << "\n";
  } else {
    if (s->alone) printAloneSummary(*s->alone);
    if (s->program) std::cout << programSummaryText(*s->program);
    if (s->compiled) std::cout << compiledSummaryText(*s->compiled);
    for (const auto& a : s->applied) std::cout << a.summary(s->plan.mesh) << "\n";
    std::cout << diagnosticsToText(s->plan, d) << coverageText(checkCoverage(s->plan));
  }
  return d.hasErrors() ? 1 : 0;
}

int runCheck(const ParsedArgs& args) {
  if (args.positionals.size() != 1) {
    std::cerr << "shardscope check: expected one FILE (see shardscope check --help)\n";
    return 2;
  }
  const std::string file = args.positionals[0];
  if (!args.has("placements")) {
    SessionInputs probe;
    probe.primary = file;
    probe.solution = args.get("solution");
    probe.applied = args.get("applied");
    if (needsSession(probe)) return runSession(args);
  }
  for (const char* f : {"solution", "applied", "rank", "mesh", "names", "group"})
    if (args.has(f)) {
      std::cerr << "shardscope check: --" << f << " is for autoparallel artifacts, not with --placements (see shardscope check --help)\n";
      return 2;
    }
  auto plan = loadPlanFileWithPlacements(file, args.get("placements").value_or(""));
  if (!plan) {
    std::cerr << plan.error().toString() << "\n";
    return 2;
  }
  Diagnostics d = checkPlan(*plan);
  if (args.has("json")) {
    nlohmann::json j = diagnosticsToJson(*plan, d);
    j["coverage"] = coverageJson(checkCoverage(*plan));
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << diagnosticsToText(*plan, d) << coverageText(checkCoverage(*plan));
  }
  std::cout.flush();
  // The process ends here: the plan (millions of small allocations at 100k nodes) is left to the OS instead of
  // being freed piece by piece, about a tenth of `check` on a 95k-node export (scripts/bench_check_vs_json.sh).
  // Sanitizer builds free it as usual: an optimiser may drop an unread static pointer, and LeakSanitizer would
  // then report the whole plan.
#if !defined(__SANITIZE_ADDRESS__)
  static Plan* const kept = new Plan(std::move(*plan));
  (void)kept;
#endif
  return d.hasErrors() ? 1 : 0;
}

VerbRegistrar reg({"check", "check a plan: incompatible inputs, missing redistributes, seq_dim tags; an applied graph against its plan",
                   kHelp, kFlags, runCheck});

}  // namespace
}  // namespace ss::app
