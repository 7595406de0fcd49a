#include "core/model/mesh.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <set>

namespace ss {

namespace {
std::string validateMesh(const std::vector<int64_t>& shape, const std::vector<std::string>& names) {
  if (shape.empty()) return "a device mesh needs at least one dim";
  if (static_cast<int>(shape.size()) > kMaxMeshDims)
    return "a device mesh has at most " + std::to_string(kMaxMeshDims) + " dims, got " + std::to_string(shape.size());
  int64_t total = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 1) return "mesh dim " + std::to_string(d) + " has size " + std::to_string(shape[d]) + "; sizes must be >= 1";
    if (shape[d] > kMaxRanks || total > kMaxRanks / shape[d])
      return "the mesh has more than " + std::to_string(kMaxRanks) + " ranks";
    total *= shape[d];
  }
  if (!names.empty()) {
    if (names.size() != shape.size())
      return "the mesh has " + std::to_string(shape.size()) + " dims but " + std::to_string(names.size()) + " dim names";
    std::set<std::string> seen;
    for (const auto& n : names) {
      if (n.empty()) return "mesh dim names must not be empty";
      if (!seen.insert(n).second) return "mesh dim name '" + n + "' is used twice";
    }
  }
  return {};
}
}  // namespace

DeviceMesh::DeviceMesh(std::vector<int64_t> shape, std::vector<std::string> dimNames)
    : shape_(std::move(shape)), names_(std::move(dimNames)) {
  if (auto why = validateMesh(shape_, names_); !why.empty()) throw std::invalid_argument(why);
}

Result<DeviceMesh> DeviceMesh::make(std::vector<int64_t> shape, std::vector<std::string> dimNames) {
  if (auto why = validateMesh(shape, dimNames); !why.empty()) return Error{why};
  return DeviceMesh(std::move(shape), std::move(dimNames));
}

Result<DeviceMesh> DeviceMesh::parse(std::string_view text, std::string_view names) {
  std::vector<int64_t> shape;
  size_t i = 0;
  while (true) {
    size_t start = i;
    while (i < text.size() && text[i] == ' ') ++i;
    int64_t v = 0;
    auto [p, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
    if (ec != std::errc() || p == text.data() + i)
      return Error::at("expected a mesh dim size (mesh shapes look like 2x4)", static_cast<int>(start + 1));
    i = static_cast<size_t>(p - text.data());
    shape.push_back(v);
    while (i < text.size() && text[i] == ' ') ++i;
    if (i == text.size()) break;
    if (text[i] != 'x' && text[i] != 'X' && text[i] != ',' && text[i] != '*')
      return Error::at(std::string("unexpected '") + text[i] + "' in mesh shape (mesh shapes look like 2x4)",
                       static_cast<int>(i + 1));
    ++i;
  }
  std::vector<std::string> nm;
  if (!names.empty()) {
    std::string cur;
    for (char c : names) {
      if (c == ',') { nm.push_back(cur); cur.clear(); }
      else if (c != ' ') cur += c;
    }
    nm.push_back(cur);
  }
  return make(std::move(shape), std::move(nm));
}

int64_t DeviceMesh::size() const {
  int64_t n = 1;
  for (auto s : shape_) n *= s;
  return n;
}

std::string DeviceMesh::dimName(int d) const {
  if (!names_.empty() && d >= 0 && d < ndim()) return names_[d];
  return "dim" + std::to_string(d);
}

int DeviceMesh::dimIndex(std::string_view name) const {
  for (int d = 0; d < static_cast<int>(names_.size()); ++d)
    if (names_[d] == name) return d;
  return -1;
}

std::vector<int64_t> DeviceMesh::coordOf(int64_t rank) const {
  if (rank < 0 || rank >= size()) throw std::out_of_range("rank " + std::to_string(rank) + " is not on mesh " + toString());
  std::vector<int64_t> c(shape_.size());
  for (int d = ndim() - 1; d >= 0; --d) {
    c[d] = rank % shape_[d];
    rank /= shape_[d];
  }
  return c;
}

int64_t DeviceMesh::rankOf(std::span<const int64_t> coord) const {
  if (static_cast<int>(coord.size()) != ndim()) throw std::out_of_range("coordinate has the wrong number of dims");
  int64_t r = 0;
  for (int d = 0; d < ndim(); ++d) {
    if (coord[d] < 0 || coord[d] >= shape_[d]) throw std::out_of_range("coordinate out of the mesh");
    r = r * shape_[d] + coord[d];
  }
  return r;
}

std::vector<int64_t> DeviceMesh::groupAlong(int64_t rank, int d) const {
  auto c = coordOf(rank);
  std::vector<int64_t> out;
  out.reserve(shape_.at(d));
  for (int64_t i = 0; i < shape_[d]; ++i) {
    c[d] = i;
    out.push_back(rankOf(c));
  }
  return out;
}

std::string DeviceMesh::toString() const {
  std::string s;
  for (size_t d = 0; d < shape_.size(); ++d) s += (d ? "x" : "") + std::to_string(shape_[d]);
  if (!names_.empty()) {
    s += " (";
    for (size_t d = 0; d < names_.size(); ++d) s += (d ? ", " : "") + names_[d];
    s += ")";
  }
  return s;
}

void to_json(nlohmann::json& j, const DeviceMesh& m) {
  j = nlohmann::json{{"shape", m.shape()}};
  if (m.hasNames()) j["dim_names"] = m.dimNames();
}


}  // namespace ss
