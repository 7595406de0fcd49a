#pragma once
// DeviceMesh: an N-dimensional grid of ranks, row-major (the last mesh dim varies fastest), as DTensor's
// DeviceMesh(torch.arange(n).reshape(shape)).
//
// Invariants: 1 <= ndim <= kMaxMeshDims; every dim size >= 1; size() <= kMaxRanks; dim names are either all
// empty or one per dim, unique and non-empty. Constructors throw std::invalid_argument; `make` returns an Error.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/model/limits.h"
#include "core/model/result.h"

namespace ss {

using limits::kMaxMeshDims;  // core/model/limits.h
using limits::kMaxRanks;

class DeviceMesh {
 public:
  DeviceMesh() : shape_{1} {}
  explicit DeviceMesh(std::vector<int64_t> shape, std::vector<std::string> dimNames = {});
  static Result<DeviceMesh> make(std::vector<int64_t> shape, std::vector<std::string> dimNames = {});
  // "2x4", "8", "2x2x2"; names given separately ("dp,tp").
  static Result<DeviceMesh> parse(std::string_view shape, std::string_view names = {});

  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t size() const;
  int64_t dimSize(int d) const { return shape_.at(d); }
  const std::vector<int64_t>& shape() const { return shape_; }
  const std::vector<std::string>& dimNames() const { return names_; }
  bool hasNames() const { return !names_.empty(); }
  std::string dimName(int d) const;          // its name, else "dim<d>"
  int dimIndex(std::string_view name) const;  // -1 when absent

  std::vector<int64_t> coordOf(int64_t rank) const;
  int64_t rankOf(std::span<const int64_t> coord) const;
  // Ranks that differ from `rank` only along mesh dim `d` (its process group on that dim), in coord order.
  std::vector<int64_t> groupAlong(int64_t rank, int d) const;

  std::string toString() const;  // "2x4 (dim0, dim1)" or "2x4"
  bool operator==(const DeviceMesh&) const = default;

 private:
  std::vector<int64_t> shape_;
  std::vector<std::string> names_;
};

void to_json(nlohmann::json& j, const DeviceMesh& m);    // {"shape": [...], "dim_names": [...]}

}  // namespace ss
