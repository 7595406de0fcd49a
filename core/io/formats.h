#pragma once
// Readers and writers of the formats users already have (autoparallel JSON export, autoparallel placements
// file, FX graph text). core/io/load.cpp dispatches to these after detecting the kind by content.
// Every reader is total: bad input gives an Error with line:col (text) or a JSON pointer (JSON).
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "core/plan.h"

namespace ss {

// autoparallel `get_json()` export: mesh, nodes with placements, per-edge src/dst placements and costs.
Result<Plan> readAutoparallelJson(const nlohmann::json& j);
nlohmann::json writeAutoparallelJson(const Plan& plan);

// autoparallel `save_placements` file applied to a graph (node names must match).
Result<Plan> applyPlacementsJson(const Plan& graphPlan, const nlohmann::json& placements);
nlohmann::json writePlacementsJson(const Plan& plan);

// FX graph text: `print_readable` output or a repro script with `load_args`.
Result<Plan> readFxText(std::string_view text);
std::string writeFxText(const Plan& plan);

}  // namespace ss
