#pragma once
// A checker's verdict as the CLI and the GUI print it: JSON for tools, text for people. Node names come from the
// plan, specs in the mesh-centric short form.
#include <string>

#include <nlohmann/json.hpp>

#include "core/model/diagnostics.h"
#include "core/model/plan.h"

namespace ss {

// {"diagnostics": [{"severity","kind","node","input","have","want","message","fix","notes"}], "summary": {...}}
// "node" is the node's name (null when plan-wide), specs in mesh-centric short form.
nlohmann::json diagnosticsToJson(const Plan& plan, const Diagnostics& d);
// "error: index_put (input 2): message" one line per diagnostic, plus a summary line.
std::string diagnosticsToText(const Plan& plan, const Diagnostics& d);

// How much of a graph the checker's rules cover: its op nodes (calls), how many of them have a sharding rule
// (replicate-only ones among them) and how many none (each an unchecked-op info, once per op).
struct CheckCoverage {
  int opNodes = 0;
  int checked = 0;
  int replicateOnly = 0;
  int unchecked() const { return opNodes - checked; }
};
CheckCoverage checkCoverage(const Plan& plan);
// "40 of 42 op nodes checked by a sharding rule (1 of them replicate-only); 2 have none (unchecked-op)"
std::string coverageText(const CheckCoverage& c);
// {"op_nodes", "checked", "replicate_only", "unchecked"}
nlohmann::json coverageJson(const CheckCoverage& c);

}  // namespace ss
