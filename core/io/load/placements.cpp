// Loading a graph plus an autoparallel placements file (two files, each error naming its own). The readers
// themselves live in core/io/{fx,autoparallel}.
#include <nlohmann/json.hpp>

#include "core/io/formats.h"
#include "core/io/load/load.h"

namespace ss {
namespace {
// An error whose message already names its file and place (two files are involved).
Error located(std::string msg) {
  Error e;
  e.message = std::move(msg);
  return e;
}
}  // namespace

Result<Plan> loadPlanWithPlacements(const std::string& graphPath, const std::string& placementsPath) {
  auto graph = loadPlanFile(graphPath);
  if (!graph) return located(graph.error().toString(graphPath));
  auto text = readFileText(placementsPath);
  if (!text) return located(text.error().toString(placementsPath));
  if (detectFileKind(*text) != FileKind::AutoparallelPlacements)
    return located(placementsPath + ": not a placements file (expected {\"version\": 1, \"mesh_shape\": [...], "
                                  "\"placements\": {...}})");
  auto j = parseJsonText(*text);
  if (!j) return located(j.error().toString(placementsPath));
  auto plan = applyPlacementsJson(*graph, *j);
  if (!plan) return located(plan.error().toString(placementsPath));
  return plan;
}

}  // namespace ss
