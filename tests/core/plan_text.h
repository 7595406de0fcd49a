#pragma once
// Test helper: builds a native plan from a few JSON lines and loads it through the real reader.
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "core/io/load/load.h"

namespace ss::test {

inline nlohmann::json ph(const std::string& name, nlohmann::json shape, const std::string& spec,
                         const std::string& kind = "input") {
  return {{"name", name}, {"op", "placeholder"}, {"placeholder_kind", kind},
          {"meta", {{{"shape", shape}, {"dtype", "f32"}}}}, {"spec", {spec}}};
}
inline nlohmann::json call(const std::string& name, const std::string& op, nlohmann::json args, nlohmann::json shape,
                           nlohmann::json spec, nlohmann::json inputSpecs = nullptr) {
  nlohmann::json n = {{"name", name}, {"op", op}, {"args", args}, {"meta", {{{"shape", shape}, {"dtype", "f32"}}}},
                      {"spec", {spec}}};
  if (!inputSpecs.is_null()) n["input_specs"] = inputSpecs;
  return n;
}
inline nlohmann::json ref(const std::string& name) { return {{"t", name}}; }

inline Plan planOf(nlohmann::json mesh, nlohmann::json nodes, nlohmann::json redistributes = nlohmann::json::array(),
                   const std::string& output = "") {
  if (!output.empty()) nodes.push_back({{"name", "output"}, {"op", "output"}, {"args", {{ref(output)}}}});
  nlohmann::json j = {{"format", "shardscope-plan"}, {"version", 1}, {"name", "test"},
                      {"mesh", {{"shape", mesh}}}, {"nodes", nodes}, {"redistributes", redistributes}};
  auto p = loadPlanText(j.dump(), "test.plan.json");
  if (!p.ok()) throw std::runtime_error(p.error().toString("test.plan.json"));
  return std::move(p.value());
}

}  // namespace ss::test
