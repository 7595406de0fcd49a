#pragma once
// The native plan format (*.plan.json), version 1. docs/plan-format.md and docs/plan.schema.json describe it.
// Reader and writer round-trip exactly: write(read(x)) == x for every plan the writer produced.
// A solver solution (Plan::isSolverSolution) is written as the native plan it amounts to: the transitions it plans
// become redistributes (Plan::plannedTransitions), so it reads back with the same edges and the same errors.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/model/plan.h"

namespace ss {

inline constexpr int kPlanFormatVersion = 1;

nlohmann::json planToJson(const Plan& plan);
// Errors carry a JSON pointer into `j`.
Result<Plan> planFromJson(const nlohmann::json& j);
std::string writePlanString(const Plan& plan);
// Fast path for loadPlanText (core/io/native/plan_json_fast.cpp, simdjson): the same Plan as planFromJson on the parsed
// `text` (sourceFormat left Native), or an Error without location whenever it cannot be sure of that (any error,
// unexpected type, duplicate key, integer beyond int64, ...). Callers fall back to planFromJson on error, which
// reports the located message. Expects a {"format": "shardscope-plan"} document.
// `paddedTail`: at least kJsonTailPadding readable bytes follow the text (loadPlanFile reads files so), which
// spares simdjson a copy of the whole text into its own padded buffer.
inline constexpr size_t kJsonTailPadding = 64;  // simdjson's SIMDJSON_PADDING
Result<Plan> planFromJsonTextFast(std::string_view text, bool paddedTail = false);  // pretty, stable key order, trailing newline

// Specs, args and metas in the native format, reused by other readers/writers.
nlohmann::json specToJson(const std::optional<ShardingSpec>& s);  // "RS(0)" or null
nlohmann::json argToJson(const Arg& a, const Graph& g);
// A tensor shape within the native reader's limits (at most 64 dims, each size in [0, 2^53], at most 2^62
// elements), errors at `pointer` (the shape array's) or below it. Other readers use it so that every plan they
// load also saves and reloads natively.
Result<std::vector<int64_t>> shapeFromJson(const nlohmann::json& j, const std::string& pointer);

}  // namespace ss
