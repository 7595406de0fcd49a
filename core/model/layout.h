#pragma once
// Exact layout of a tensor on every rank: which global indices each rank holds along each tensor dim.
//
// Contract: Shard splits with torch.chunk semantics (chunks of ceil(n/k); trailing ranks may get 0; an empty
// shard's offset is clamped to n). Several mesh dims sharding one tensor dim split it one after another in the
// spec's shard order (default: mesh-dim order), each splitting what the previous left, so offsets accumulate.
// StridedShard(dim, sf) on a mesh dim of size k cuts what is left into sf chunks (torch.chunk), each of those
// into k chunks, and the rank at coordinate i keeps chunk i of every one (DTensor 2.14's
// _StridedShard._split_tensor; for sizes k*sf divides, the same as 2.6's k*sf chunks i, i+k, ...): its slice
// may be several intervals. Replicate and Partial
// do not split. Nothing here allocates tensor data: a 10^12-element tensor is just numbers.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/placement.h"

namespace ss {

struct Interval {
  int64_t start = 0;
  int64_t length = 0;
  bool operator==(const Interval&) const = default;
};

// The global indices one rank holds along one tensor dim: an ordered list of disjoint intervals (usually one).
struct DimSlice {
  std::vector<Interval> parts;
  int64_t size() const;
  int64_t offset(int64_t dimSize) const;  // start of the first part; dimSize when empty (clamped)
  bool operator==(const DimSlice&) const = default;
};

struct RankShard {
  int64_t rank = 0;
  std::vector<int64_t> coord;
  std::vector<int64_t> localShape;
  std::vector<int64_t> offset;        // global offset of the first element on each dim (clamped to the size)
  std::vector<DimSlice> slices;       // exact global indices per tensor dim
  bool empty = false;                 // some dim has 0 elements
  bool partial = false;               // some mesh dim is Partial: the values are partial sums/etc.
  int64_t numel() const;  // saturates at INT64_MAX
};

// Listing every rank's slices is bounded: ranks x intervals per rank (a StridedShard multiplies a rank's
// intervals by its split factor) above this is refused with a message, never a hang or an 8 GiB allocation.
inline constexpr int64_t kMaxLayoutIntervals = int64_t{1} << 24;

// torch.chunk sizes: n split into k chunks of ceil(n/k); trailing chunks may be 0.
std::vector<int64_t> chunkSizes(int64_t n, int64_t k);

Result<RankShard> shardOnRank(const std::vector<int64_t>& globalShape, const DeviceMesh& mesh,
                              const ShardingSpec& spec, int64_t rank);
Result<std::vector<RankShard>> layoutAllRanks(const std::vector<int64_t>& globalShape, const DeviceMesh& mesh,
                                              const ShardingSpec& spec);
// Convenience: local shape on one rank (error when the spec is invalid for the shape).
Result<std::vector<int64_t>> localShape(const std::vector<int64_t>& globalShape, const DeviceMesh& mesh,
                                        const ShardingSpec& spec, int64_t rank);

std::string shapeToString(const std::vector<int64_t>& shape);  // "[16, 32, 1, 64]"
// The inverse, as users type it: "8,6", "[8, 6]", "(8, 6)", "8x6"; "" or "[]" is a scalar. Errors carry the
// 1-based column; sizes are non-negative, at most 64 dims.
Result<std::vector<int64_t>> parseShape(std::string_view text);

}  // namespace ss
