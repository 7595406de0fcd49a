#include "core/model/placement.h"

#include <algorithm>

#include "core/model/enum_names.h"

namespace ss {

namespace {
// The names reduceOpName prints, and the further spellings the placement parser takes (DTensor's upper case,
// torch's "mean" and "prod").
constexpr EnumName<ReduceOp> kReduceOpNames[] = {
    {ReduceOp::Sum, "sum"}, {ReduceOp::Avg, "avg"}, {ReduceOp::Product, "product"}, {ReduceOp::Max, "max"},
    {ReduceOp::Min, "min"}};
constexpr EnumName<ReduceOp> kReduceOpAliases[] = {
    {ReduceOp::Sum, "SUM"},         {ReduceOp::Avg, "mean"}, {ReduceOp::Avg, "AVG"}, {ReduceOp::Product, "prod"},
    {ReduceOp::Product, "PRODUCT"}, {ReduceOp::Max, "MAX"},  {ReduceOp::Min, "MIN"}};
static_assert(enumTableCovers(kReduceOpNames, ReduceOp::Min) && enumNamesValid(kReduceOpNames, kReduceOpAliases));
}  // namespace

const char* reduceOpName(ReduceOp op) { return enumName(kReduceOpNames, op, "sum"); }

std::optional<ReduceOp> reduceOpFromName(std::string_view s) {
  return enumFromName(kReduceOpNames, kReduceOpAliases, s);
}

std::string Placement::shortString() const {
  switch (kind) {
    case PlacementKind::Replicate: return "R";
    case PlacementKind::Shard: return "S(" + std::to_string(dim) + ")";
    case PlacementKind::StridedShard: return "_S(" + std::to_string(dim) + ", " + std::to_string(splitFactor) + ")";
    case PlacementKind::Partial: return std::string("P(") + reduceOpName(reduce) + ")";
  }
  return "?";
}

std::string Placement::longString() const {
  switch (kind) {
    case PlacementKind::Replicate: return "Replicate()";
    case PlacementKind::Shard: return "Shard(dim=" + std::to_string(dim) + ")";
    case PlacementKind::StridedShard:
      return "_StridedShard(dim=" + std::to_string(dim) + ", sf=" + std::to_string(splitFactor) + ")";
    case PlacementKind::Partial: return std::string("Partial(") + reduceOpName(reduce) + ")";
  }
  return "?";
}

bool Placement::operator==(const Placement& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case PlacementKind::Replicate: return true;
    case PlacementKind::Shard: return dim == o.dim;
    case PlacementKind::StridedShard: return dim == o.dim && splitFactor == o.splitFactor;
    case PlacementKind::Partial: return reduce == o.reduce;
  }
  return false;
}

size_t Placement::hash() const {
  size_t h = static_cast<size_t>(kind) * 1000003u;
  switch (kind) {
    case PlacementKind::Replicate: break;
    case PlacementKind::Shard: h ^= static_cast<size_t>(dim) * 31u; break;
    case PlacementKind::StridedShard: h ^= static_cast<size_t>(dim) * 31u + static_cast<size_t>(splitFactor) * 7919u; break;
    case PlacementKind::Partial: h ^= static_cast<size_t>(reduce) * 131u; break;
  }
  return h;
}

bool ShardingSpec::isReplicated() const {
  return std::all_of(placements.begin(), placements.end(), [](const Placement& p) { return p.isReplicate(); });
}
bool ShardingSpec::hasPartial() const {
  return std::any_of(placements.begin(), placements.end(), [](const Placement& p) { return p.isPartial(); });
}
bool ShardingSpec::hasShardOn(int d) const {
  return std::any_of(placements.begin(), placements.end(), [d](const Placement& p) { return p.isShard(d); });
}

std::vector<int> ShardingSpec::meshDimsSharding(int tensorDim) const {
  std::vector<int> dims;
  for (int m = 0; m < meshDims(); ++m)
    if (placements[m].isShard(tensorDim)) dims.push_back(m);
  if (order.size() == placements.size()) {  // an order of the wrong size (validateSpec refuses it) is ignored
    std::stable_sort(dims.begin(), dims.end(), [this](int a, int b) { return order[a] < order[b]; });
  }
  return dims;
}

bool ShardingSpec::defaultOrder() const {
  if (order.size() != placements.size()) return true;  // absent, or malformed (validateSpec says so)
  for (int m = 0; m < meshDims(); ++m) {
    if (!placements[m].isShard()) continue;
    for (int m2 = m + 1; m2 < meshDims(); ++m2)
      if (placements[m2].isShard(placements[m].dim) && order[m2] < order[m]) return false;
  }
  return true;
}

std::string ShardingSpec::toMeshString() const {
  std::string s;
  bool withOrder = !defaultOrder();
  for (int m = 0; m < meshDims(); ++m) {
    s += placements[m].shortString();
    if (withOrder && placements[m].isShard()) s += "[" + std::to_string(order[m]) + "]";
  }
  return s;
}

std::string ShardingSpec::toLongString() const {
  std::string s = "(";
  for (int m = 0; m < meshDims(); ++m) s += (m ? ", " : "") + placements[m].longString();
  return s + (meshDims() == 1 ? ",)" : ")");
}

namespace {
int inferRank(const ShardingSpec& s, int tensorRank) {
  if (tensorRank >= 0) return tensorRank;
  int r = 0;
  for (const auto& p : s.placements)
    if (p.isShard()) r = std::max(r, p.dim + 1);
  return r;
}
}  // namespace

std::string ShardingSpec::toTensorString(int tensorRank) const {
  int rank = inferRank(*this, tensorRank);
  std::string s = "[";
  for (int d = 0; d < rank; ++d) {
    if (d) s += ", ";
    auto dims = meshDimsSharding(d);
    if (dims.empty()) {
      s += "R";
      continue;
    }
    s += "S";
    for (int m : dims) s += std::to_string(m);
    for (int m : dims)
      if (placements[m].kind == PlacementKind::StridedShard) s += "~" + std::to_string(placements[m].splitFactor);
  }
  s += "]";
  for (int m = 0; m < meshDims(); ++m)
    if (placements[m].isPartial()) s += " + " + placements[m].shortString() + "@" + std::to_string(m);
  return s;
}

std::string ShardingSpec::toJaxString(int tensorRank, const DeviceMesh& mesh) const {
  int rank = inferRank(*this, tensorRank);
  std::string s = "P(";
  for (int d = 0; d < rank; ++d) {
    if (d) s += ", ";
    auto dims = meshDimsSharding(d);
    if (dims.empty()) s += "None";
    else if (dims.size() == 1) s += "'" + mesh.dimName(dims[0]) + "'";
    else {
      s += "(";
      for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + ("'" + mesh.dimName(dims[i]) + "'");
      s += ")";
    }
  }
  return s + ")";
}

bool ShardingSpec::operator==(const ShardingSpec& o) const {
  if (placements != o.placements) return false;
  bool a = defaultOrder(), b = o.defaultOrder();
  if (a && b) return true;
  if (a != b) return false;
  // Both explicit: compare the relative order per tensor dim.
  for (int m = 0; m < meshDims(); ++m) {
    if (!placements[m].isShard()) continue;
    if (meshDimsSharding(placements[m].dim) != o.meshDimsSharding(placements[m].dim)) return false;
  }
  return true;
}

size_t ShardingSpec::hash() const {
  size_t h = 1469598103934665603ull;
  for (const auto& p : placements) h = (h ^ p.hash()) * 1099511628211ull;
  return h;
}

std::string validateSpec(const ShardingSpec& spec, const DeviceMesh& mesh, int tensorRank) {
  if (spec.meshDims() != mesh.ndim())
    return "the spec " + spec.toMeshString() + " has " + std::to_string(spec.meshDims()) +
           " placements but the mesh has " + std::to_string(mesh.ndim()) + " dims";
  if (!spec.order.empty() && static_cast<int>(spec.order.size()) != spec.meshDims())
    return "the shard order must give one entry per mesh dim";
  for (int m = 0; m < spec.meshDims(); ++m) {
    const auto& p = spec.placements[m];
    if (!p.isShard()) continue;
    if (p.dim < 0) return "shard dim " + std::to_string(p.dim) + " on mesh dim " + std::to_string(m) + " is negative";
    if (tensorRank >= 0 && p.dim >= tensorRank)
      return p.shortString() + " on mesh dim " + std::to_string(m) + " shards dim " + std::to_string(p.dim) +
             " of a tensor with " + std::to_string(tensorRank) + " dims";
    if (p.kind == PlacementKind::StridedShard && p.splitFactor < 1)
      return "split factor of " + p.shortString() + " must be >= 1";
  }
  // DTensor 2.14 refuses Partials of different reduce ops in one placement list (their order would matter when
  // reduced; _utils.py's validate of from_local / distribute_tensor), except sum with avg, which commute.
  std::optional<ReduceOp> first;
  for (const Placement& p : spec.placements) {
    if (!p.isPartial()) continue;
    if (!first) first = p.reduce;
    const bool sumAvg = (*first == ReduceOp::Sum || *first == ReduceOp::Avg) &&
                        (p.reduce == ReduceOp::Sum || p.reduce == ReduceOp::Avg);
    if (p.reduce != *first && !sumAvg)
      return "the spec " + spec.toMeshString() + " mixes Partial(" + reduceOpName(*first) + ") and Partial(" +
             reduceOpName(p.reduce) + "): DTensor allows one Partial reduce op per placement list (sum with avg " +
             "excepted)";
  }
  return {};
}

}  // namespace ss
