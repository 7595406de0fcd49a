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

}  // namespace ss
