#pragma once
// Small typed accessors for the JSON readers of this folder: every wrong type or missing key becomes an Error
// with the JSON pointer of the offending value. Internal to core/io.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/limits.h"
#include "core/placement_parse.h"
#include "core/plan_builder.h"
#include "core/result.h"

namespace ss::jsonutil {

inline std::string escapePointerToken(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

inline std::string typeName(const nlohmann::json& j) { return j.type_name(); }

// Optional member access: nullptr when absent or null.
inline const nlohmann::json* member(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

inline Result<std::string> getString(const nlohmann::json& obj, const char* key, const std::string& ptr, bool required) {
  const nlohmann::json* v = member(obj, key);
  if (!v) {
    if (required) return Error::atPointer(std::string("missing \"") + key + "\" (a string)", ptr);
    return std::string();
  }
  if (!v->is_string()) return Error::atPointer("expected a string, found " + typeName(*v), ptr + "/" + key);
  return v->get<std::string>();
}

inline Result<std::optional<double>> getNumber(const nlohmann::json& obj, const char* key, const std::string& ptr) {
  const nlohmann::json* v = member(obj, key);
  if (!v) return std::optional<double>();
  if (!v->is_number()) return Error::atPointer("expected a number, found " + typeName(*v), ptr + "/" + key);
  return std::optional<double>(v->get<double>());
}

inline Result<std::optional<int64_t>> getInt(const nlohmann::json& obj, const char* key, const std::string& ptr) {
  const nlohmann::json* v = member(obj, key);
  if (!v) return std::optional<int64_t>();
  if (!v->is_number_integer()) return Error::atPointer("expected an integer, found " + typeName(*v), ptr + "/" + key);
  return std::optional<int64_t>(v->get<int64_t>());
}

// getInt within [lo, hi] (the native reader's ranges and wording: "value -11 is out of range [0, 2147483647]"), so
// what an importer loads also saves and reloads natively. Integers beyond int64 read as INT64_MAX.
inline Result<std::optional<int64_t>> getIntIn(const nlohmann::json& obj, const char* key, const std::string& ptr,
                                               int64_t lo, int64_t hi) {
  const nlohmann::json* v = member(obj, key);
  if (!v) return std::optional<int64_t>();
  if (!v->is_number_integer()) return Error::atPointer("expected an integer, found " + typeName(*v), ptr + "/" + key);
  const int64_t x = v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)
                        ? INT64_MAX
                        : v->get<int64_t>();
  if (x < lo || x > hi)
    return Error::atPointer("value " + std::to_string(x) + " is out of range [" + std::to_string(lo) + ", " +
                                std::to_string(hi) + "]",
                            ptr + "/" + key);
  return std::optional<int64_t>(x);
}

// The one JSON mesh reader (native {"mesh": {"shape", "dim_names"}}, autoparallel's export, placements files'
// "mesh_shape" / "mesh_dim_names"): an array of integer sizes and an optional array of names (null = none).
// DeviceMesh's own refusals (rank limits, names) are reported at meshW.
inline Result<bool> readMesh(const nlohmann::json* shape, const nlohmann::json* names, const Where& meshW,
                             const Where& shapeW, const Where& namesW, PlanBuilder& b) {
  auto got = [](const nlohmann::json& v) {
    return std::string(", got ") + (v.is_number_integer() ? "integer" : v.is_number() ? "number" : v.type_name());
  };
  if (!shape || !shape->is_array())
    return shapeW.error("expected an array of mesh dim sizes" + (shape ? got(*shape) : std::string()));
  std::vector<int64_t> sizes;
  sizes.reserve(shape->size());
  for (size_t d = 0; d < shape->size(); ++d) {
    const auto& v = (*shape)[d];
    if (!v.is_number_integer()) return shapeW.item(static_cast<int64_t>(d)).error("expected an integer size" + got(v));
    sizes.push_back(v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(limits::kMaxMeshDimRead)
                        ? limits::kMaxMeshDimRead
                        : v.get<int64_t>());
  }
  std::vector<std::string> dimNames;
  if (names && !names->is_null()) {
    if (!names->is_array()) return namesW.error("expected an array of names or null" + got(*names));
    for (size_t d = 0; d < names->size(); ++d) {
      if (!(*names)[d].is_string()) return namesW.item(static_cast<int64_t>(d)).error("expected a string" + got((*names)[d]));
      dimNames.push_back((*names)[d].get<std::string>());
    }
  }
  return b.setMesh(std::move(sizes), std::move(dimNames), meshW);
}

}  // namespace ss::jsonutil
