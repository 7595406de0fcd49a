#pragma once
// Placement and ShardingSpec: how one tensor is laid out on a DeviceMesh, with DTensor's semantics.
//
// A Placement says what one mesh dim does to a tensor: Replicate (every rank on that mesh dim holds the same
// data), Shard(dim) (tensor dim `dim` is split with torch.chunk semantics), StridedShard(dim, split_factor)
// (DTensor's _StridedShard: the dim is cut into split_factor pieces, each into k, and rank i holds piece i of each),
// Partial(op) (every rank holds a partial value; the global value is the reduction over that mesh dim).
// A ShardingSpec holds exactly one placement per mesh dim, plus an optional shard order: when several mesh dims
// shard the same tensor dim, they split it in ascending `order` (default: mesh-dim order). Both are small values
// with ==, hashing and printing; parsing of every notation lives in core/model/placement_parse.h.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/mesh.h"

namespace ss {

enum class PlacementKind : uint8_t { Replicate, Shard, StridedShard, Partial };
enum class ReduceOp : uint8_t { Sum, Avg, Product, Max, Min };

const char* reduceOpName(ReduceOp op);  // "sum", "avg", "product", "max", "min"
// Those names and the aliases the placement parser takes ("mean", "prod", "SUM", ...); nullopt for any other.
std::optional<ReduceOp> reduceOpFromName(std::string_view s);

struct Placement {
  PlacementKind kind = PlacementKind::Replicate;
  int32_t dim = 0;           // tensor dim, for Shard and StridedShard (normalised to >= 0 by the parser)
  int32_t splitFactor = 1;   // StridedShard only, >= 1
  ReduceOp reduce = ReduceOp::Sum;  // Partial only

  static Placement replicate() { return {}; }
  static Placement shard(int dim) { return {PlacementKind::Shard, dim, 1, ReduceOp::Sum}; }
  static Placement strided(int dim, int sf) { return {PlacementKind::StridedShard, dim, sf, ReduceOp::Sum}; }
  static Placement partial(ReduceOp op = ReduceOp::Sum) { return {PlacementKind::Partial, 0, 1, op}; }

  bool isReplicate() const { return kind == PlacementKind::Replicate; }
  bool isShard() const { return kind == PlacementKind::Shard || kind == PlacementKind::StridedShard; }
  bool isShard(int d) const { return isShard() && dim == d; }
  bool isPartial() const { return kind == PlacementKind::Partial; }

  std::string shortString() const;  // S(0), R, P(sum), _S(0, 2)
  std::string longString() const;   // Shard(dim=0), Replicate(), Partial(sum), _StridedShard(dim=0, sf=2)

  bool operator==(const Placement& o) const;  // compares only the fields that matter for the kind
  size_t hash() const;
};

struct ShardingSpec {
  std::vector<Placement> placements;  // one per mesh dim
  std::vector<int> order;             // empty, or one per mesh dim: shard order index (-1 for non-shards)

  ShardingSpec() = default;
  explicit ShardingSpec(std::vector<Placement> p, std::vector<int> o = {})
      : placements(std::move(p)), order(std::move(o)) {}
  static ShardingSpec replicated(int meshDims) { return ShardingSpec(std::vector<Placement>(meshDims)); }

  int meshDims() const { return static_cast<int>(placements.size()); }
  const Placement& operator[](int d) const { return placements.at(d); }
  bool isReplicated() const;
  bool hasPartial() const;
  bool hasShardOn(int tensorDim) const;
  // Every sharded tensor dim is split in mesh-dim order (no order given, or one that changes nothing).
  bool defaultOrder() const;
  // Mesh dims that shard `tensorDim`, in the order they split it (shard order, else mesh-dim order).
  std::vector<int> meshDimsSharding(int tensorDim) const;

  std::string toMeshString() const;     // "RS(0)", "S(0)S(1)", "P(sum)S(0)", "S(1)[1]S(1)[0]R"
  std::string toLongString() const;     // "(Replicate(), Shard(dim=0))"
  // Tensor-centric, one entry per tensor dim: "[R, S0]", "[S01, R]"; Partial mesh dims are appended
  // as " + P(sum)@1". `tensorRank` < 0 uses the highest shard dim + 1.
  std::string toTensorString(int tensorRank) const;
  // JAX PartitionSpec with mesh dim names: "P(None, 'tp')", "P(('dp', 'tp'), None)".
  std::string toJaxString(int tensorRank, const DeviceMesh& mesh) const;

  bool operator==(const ShardingSpec& o) const;  // an absent order equals the default order
  bool operator!=(const ShardingSpec& o) const { return !(*this == o); }
  size_t hash() const;
};

// Checks a spec against a mesh and a tensor rank: one placement per mesh dim, shard dims in [0, rank),
// split factors >= 1, order entries consistent. Returns an empty string when valid, else the reason.
std::string validateSpec(const ShardingSpec& spec, const DeviceMesh& mesh, int tensorRank);

}  // namespace ss

template <>
struct std::hash<ss::Placement> {
  size_t operator()(const ss::Placement& p) const noexcept { return p.hash(); }
};
template <>
struct std::hash<ss::ShardingSpec> {
  size_t operator()(const ss::ShardingSpec& s) const noexcept { return s.hash(); }
};
