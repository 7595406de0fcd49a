#pragma once
// Small typed accessors for the JSON readers of this folder: every wrong type or missing key becomes an Error
// with the JSON pointer of the offending value. Internal to core/io.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/placement_parse.h"
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

// Checks element `k` of `specs`, parsed from the spec string `text` (one spec or a tuple "(RS(0), None)"), against
// the rank of the tensor it describes (< 0: unknown, accepted), with the parser's own shard-dim check. The error
// reads like the importers' parse errors, at `ptr`: `"S(5)R": shard dim 5 is out of range for a tensor with 3 dims
// (column 1)`; a tuple's element is named: `"(RR, S(5)R)": output 1: shard dim 5 ...`.
inline Result<bool> checkSpecRank(const std::string& text, const std::vector<std::optional<ShardingSpec>>& specs,
                                  size_t k, int rank, const std::string& ptr) {
  if (k >= specs.size() || !specs[k] || rank < 0) return true;
  const bool tuple = specs.size() > 1;
  const int column = tuple ? 0 : 1 + static_cast<int>(std::min(text.size(), text.find_first_not_of(" \t\r\n\v\f")));
  auto r = checkShardDims(*specs[k], rank, column);
  if (r) return true;
  return Error::atPointer("\"" + text + "\": " + (tuple ? "output " + std::to_string(k) + ": " : "") +
                              r.error().toString(),
                          ptr);
}

}  // namespace ss::jsonutil
