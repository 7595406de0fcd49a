// `shardscope export`: writes a loaded plan in the formats other tools read back (autoparallel's placements
// file for load_placements, its get_json() layout, FX text, the native plan).
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/cli/args.h"
#include "app/cli/verbs.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"

namespace ss::app {
namespace {

const VerbHelp kHelp{
    "Usage: shardscope export FILE [--with-placements P.json] [--placements OUT] [--autoparallel OUT]\n"
    "                         [--fx OUT] [--native OUT] [--placements-style inputs|output-only]",
    "Loads FILE (any format; plus a placements file with --with-placements) and writes it in each form asked for.",
    "Exit codes: 0 written, 2 unusable input or bad flags."};

const std::vector<FlagSpec> kFlags{
    option("with-placements", "P.json", "apply an autoparallel placements file to FILE's graph first"),
    option("placements", "OUT", R"(autoparallel placements file: {"version": 1, "mesh_shape", "mesh_dim_names",
"placements": {node: {"output": spec, "inputs": [spec|null, ...]}}})"),
    option("placements-style", "STYLE", "inputs (default), or output-only: {node: spec}, as save_solution writes"),
    option("autoparallel", "OUT", "autoparallel get_json() layout (mesh, nodes with placements and edge costs, summary)"),
    option("fx", "OUT", "FX print_readable() text (graph only)"),
    option("native", "OUT", "shardscope plan JSON")};

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
  return 0;
}

const VerbRegistrar kExport{Verb{"export", "write a plan as autoparallel placements, autoparallel JSON, FX text or native",
                                 kHelp, kFlags, runExport}};

}  // namespace
}  // namespace ss::app
