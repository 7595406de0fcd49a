// `shardscope export`: writes a loaded plan in the formats other tools read back (autoparallel's placements
// file for load_placements, its get_json() layout, FX text, the native plan).
#include <iostream>
#include <set>

#include <nlohmann/json.hpp>

#include "app/cli/args.h"
#include "app/cli/verbs.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"
#include "core/check/check.h"
#include "core/model/placement_parse.h"
#include "core/plan/edit.h"

namespace ss::app {
namespace {

const VerbHelp kHelp{
    "Usage: shardscope export FILE [--with-placements P.json] [--placement NODE=SPEC]... [--placements OUT]\n"
    "                         [--autoparallel OUT] [--fx OUT] [--native OUT] [--placements-style inputs|output-only]",
    "Loads FILE (any format; plus a placements file with --with-placements), applies the --placement edits, and\n"
    "writes it in each form asked for. --placements writes what autoparallel's save_placements() writes for the\n"
    "plan, which its load_placements() reads back.",
    "Exit codes: 0 written, 1 written, but a node's input specs do not give its output spec (no strategy autoparallel\n"
    "offers: load_placements would refuse it; `shardscope fix` first), 2 unusable input or bad flags."};

const std::vector<FlagSpec> kFlags{
    option("with-placements", "P.json", "apply an autoparallel placements file to FILE's graph first"),
    repeatable("placement", "NODE=SPEC", "choose NODE's strategy with output SPEC: its output spec, and its inputs in\n"
                                         "SPEC where the op's rule then gives SPEC (as autoparallel's strategies do)"),
    option("placements", "OUT", R"(autoparallel placements file: {"version": 1, "mesh_shape", "mesh_dim_names",
"placements": {node: {"output": spec, "inputs": [spec|null, ...]}}})"),
    option("placements-style", "STYLE", "inputs (default), or output-only: {node: spec}, as save_solution writes"),
    option("autoparallel", "OUT", "autoparallel get_json() layout (mesh, nodes with placements and edge costs, summary)"),
    option("fx", "OUT", "FX print_readable() text (graph only)"),
    option("native", "OUT", "shardscope plan JSON")};

// --placement NODE=SPEC: the strategy of NODE whose output is SPEC, through the edit commands. An autoparallel
// strategy lists an input spec per input; where the op's rule gives SPEC from inputs in SPEC (pointwise ops,
// reductions over other dims: `sum_1=RS(0)` takes its input in RS(0)), those are its input specs, each a
// transition the plan now has on that edge. Elsewhere the inputs stay, and the check before writing says so.
int applyPlacementEdit(Plan& plan, const std::string& file, const std::string& edit) {
  auto parsed = parseNodeSpecEdit(plan, edit, file);
  if (!parsed) {
    std::cerr << "shardscope export: " << parsed.error().message << "\n";
    return 2;
  }
  const int node = parsed->node;
  const ShardingSpec* spec = &parsed->spec;
  plan.normalizeSpecs();
  Batch b{"choose " + edit, {SetOutputSpec{node, 0, *spec}}};
  for (int k = 0; k < static_cast<int>(plan.graph.inputs(node).size()); ++k)
    if (plan.producerSpecPtr(node, k)) b.commands.push_back(SetInputSpec{node, k, *spec});
  Plan tried = plan;
  if (!applyCommand(tried, b)) b.commands.resize(1);
  else {
    bool ok = true;
    const Diagnostics d = checkPlan(tried);
    for (const Diagnostic* x : d.forNode(node)) ok &= x->severity != Severity::Error;
    if (!ok) b.commands.resize(1);
  }
  if (auto r = applyCommand(plan, b); !r) {
    std::cerr << "shardscope export: --placement " << edit << ": " << r.error().toString() << "\n";
    return 2;
  }
  return 0;
}

int runExport(const ParsedArgs& args) {
  if (args.positionals.size() != 1) {
    std::cerr << "shardscope export: expected one input FILE (see shardscope export --help)\n";
    return 2;
  }
  const std::string& in = args.positionals[0];
  if (!args.get("placements") && !args.get("autoparallel") && !args.get("fx") && !args.get("native")) {
    std::cerr << "shardscope export: nothing to write: give --placements, --autoparallel, --fx or --native\n";
    return 2;
  }
  PlacementsStyle style = PlacementsStyle::WithInputs;
  if (auto s = args.get("placements-style")) {
    if (*s == "output-only") style = PlacementsStyle::OutputOnly;
    else if (*s != "inputs") {
      std::cerr << "shardscope export: --placements-style '" << *s << "': expected inputs or output-only\n";
      return 2;
    }
  }
  Result<Plan> plan = Error{};
  if (auto p = args.get("with-placements")) {
    plan = loadPlanWithPlacements(in, *p);
    if (!plan) {
      std::cerr << plan.error().toString() << "\n";
      return 2;
    }
  } else {
    plan = loadPlanFile(in);
    if (!plan) {
      std::cerr << plan.error().toString(in) << "\n";
      return 2;
    }
  }
  for (const std::string& e : args.all("placement"))
    if (int rc = applyPlacementEdit(*plan, in, e)) return rc;
  // A placements file is a list of strategies; a node whose input specs do not give its output spec is none.
  int notOffered = 0;
  if (args.get("placements")) {
    const Diagnostics d = checkPlan(*plan);
    std::set<int> said;
    for (const Diagnostic& x : d.items)
      if (x.severity == Severity::Error && x.node >= 0 && said.insert(x.node).second && ++notOffered)
        std::cerr << "shardscope export: " << plan->graph.nodes[x.node].name << ": " << x.message
                  << " (no strategy autoparallel offers; run shardscope fix first)\n";
  }
  // A writer may refuse a plan it cannot write verbatim (FX text: a name that is not a Python name).
  using Written = Result<std::string>;
  struct Out { const char* flag; Written (*write)(const Plan&, PlacementsStyle); };
  const Out outs[] = {
      {"placements", [](const Plan& p, PlacementsStyle s) -> Written { return writePlacementsJson(p, s).dump(2) + "\n"; }},
      {"autoparallel", [](const Plan& p, PlacementsStyle) -> Written { return writeAutoparallelJson(p).dump(1) + "\n"; }},
      {"fx", [](const Plan& p, PlacementsStyle) -> Written { return writeFxText(p); }},
      {"native", [](const Plan& p, PlacementsStyle) -> Written { return writePlanString(p); }},
  };
  for (const Out& o : outs) {
    auto path = args.get(o.flag);
    if (!path) continue;
    Written text = o.write(*plan, style);
    if (!text) {
      std::cerr << "shardscope export: " << text.error().toString(in) << "\n";
      return 2;
    }
    auto w = writeFileAtomic(*path, *text);
    if (!w) {
      std::cerr << "shardscope export: " << w.error().toString(*path) << "\n";
      return 2;
    }
    std::cout << "wrote " << *path << " (" << o.flag << ")\n";
  }
  return notOffered ? 1 : 0;
}

const VerbRegistrar kExport{Verb{"export", "write a plan as autoparallel placements, autoparallel JSON, FX text or native",
                                 kHelp, kFlags, runExport}};

}  // namespace
}  // namespace ss::app
