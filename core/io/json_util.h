#pragma once
// Small typed accessors for the JSON readers of this folder: every wrong type or missing key becomes an Error
// with the JSON pointer of the offending value. Internal to core/io.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/limits.h"
#include "core/model/placement_parse.h"
#include "core/model/plan_builder.h"
#include "core/model/result.h"

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

// The one set of getters and the one wording of each error, for every nlohmann reader (native, autoparallel,
// placements); the fast simdjson readers decline instead and leave the wording to these:
//   a missing key:  "FILE: /ptr: missing required key 'name'"
//   a wrong type:   "FILE: /ptr/key: expected a string, got integer"
//   out of range:   "FILE: /ptr/key: value -11 is out of range [0, 2147483647]"
// A key that is absent and a key whose value is null read the same (the default / nullopt).

// "integer" and "number" apart (nlohmann calls both "number"), so a message says which one it found.
inline std::string typeName(const nlohmann::json& j) {
  if (j.is_number_integer()) return "integer";
  if (j.is_number_float()) return "number";
  return j.type_name();
}

inline Error typeError(const std::string& ptr, std::string_view want, const nlohmann::json& got) {
  return Error::atPointer("expected " + std::string(want) + ", got " + typeName(got), ptr);
}

inline Error missingKey(const std::string& ptr, std::string_view key) {
  return Error::atPointer("missing required key '" + std::string(key) + "'", ptr);
}

// Optional member access: nullptr when absent or null.
inline const nlohmann::json* member(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

// A required member (any type): the missing-key error at ptr when absent or null.
inline Result<const nlohmann::json*> required(const nlohmann::json& obj, const char* key, const std::string& ptr) {
  if (const nlohmann::json* v = member(obj, key)) return v;
  return missingKey(ptr, key);
}

inline Result<std::string> getString(const nlohmann::json& obj, const char* key, const std::string& ptr, bool required,
                                     std::string def = {}) {
  const nlohmann::json* v = member(obj, key);
  if (!v) {
    if (required) return missingKey(ptr, key);
    return def;
  }
  if (!v->is_string()) return typeError(ptr + "/" + key, "a string", *v);
  return v->get<std::string>();
}

inline Result<std::optional<double>> getNumber(const nlohmann::json& obj, const char* key, const std::string& ptr) {
  const nlohmann::json* v = member(obj, key);
  if (!v) return std::optional<double>();
  if (!v->is_number()) return typeError(ptr + "/" + key, "a number", *v);
  return std::optional<double>(v->get<double>());
}

inline Result<double> getNumber(const nlohmann::json& obj, const char* key, const std::string& ptr, double def) {
  auto v = getNumber(obj, key, ptr);
  if (!v) return v.error();
  return v->value_or(def);
}

// An integer within [lo, hi]; nullopt when absent. Integers beyond int64 read as INT64_MAX (and so fail a range
// that ends lower), so what an importer loads also saves and reloads natively.
inline Result<std::optional<int64_t>> getIntIn(const nlohmann::json& obj, const char* key, const std::string& ptr,
                                               int64_t lo, int64_t hi) {
  const nlohmann::json* v = member(obj, key);
  if (!v) return std::optional<int64_t>();
  if (!v->is_number_integer()) return typeError(ptr + "/" + key, "an integer", *v);
  const int64_t x = v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)
                        ? INT64_MAX
                        : v->get<int64_t>();
  if (x < lo || x > hi)
    return Error::atPointer("value " + std::to_string(x) + " is out of range [" + std::to_string(lo) + ", " +
                                std::to_string(hi) + "]",
                            ptr + "/" + key);
  return std::optional<int64_t>(x);
}

inline Result<std::optional<int64_t>> getInt(const nlohmann::json& obj, const char* key, const std::string& ptr) {
  return getIntIn(obj, key, ptr, INT64_MIN, INT64_MAX);
}

inline Result<int64_t> getInt(const nlohmann::json& obj, const char* key, const std::string& ptr, int64_t def,
                              int64_t lo, int64_t hi) {
  auto v = getIntIn(obj, key, ptr, lo, hi);
  if (!v) return v.error();
  return v->value_or(def);
}

// A placement string of an autoparallel export or placements file (one spec, a tuple, or "None"), parsed once per
// distinct text by the builder.
inline Result<const SpecTuple*> readPlacementTuple(const nlohmann::json& v, PlanBuilder& b, const Where& w) {
  if (!v.is_string()) return typeError(w.pointer(), "a placement string like \"RS(0)\"", v);
  return b.parseTuple(v.get_ref<const std::string&>(), w);
}

// The one JSON mesh reader (native {"mesh": {"shape", "dim_names"}}, autoparallel's export, placements files'
// "mesh_shape" / "mesh_dim_names"): an array of integer sizes and an optional array of names (null = none).
// DeviceMesh's own refusals (rank limits, names) are reported at meshW.
inline Result<bool> readMesh(const nlohmann::json* shape, const nlohmann::json* names, const Where& meshW,
                             const Where& shapeW, const Where& namesW, PlanBuilder& b) {
  auto got = [](const nlohmann::json& v) { return ", got " + typeName(v); };
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
