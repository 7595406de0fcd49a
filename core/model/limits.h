#pragma once
// Every limit a reader, the plan builder or the model applies, in one place. They guard memory and keep what any
// reader accepts inside what the native format writes and reads back (a plan that loads also saves and reloads).
// A limit is named here and used by name everywhere else: never write one of these numbers twice.
#include <cstdint>

namespace ss::limits {

// Files (core/io/load/load.cpp): larger files and deeper JSON are refused before parsing.
inline constexpr int64_t kMaxFileBytes = int64_t{2} << 30;  // 2 GiB
inline constexpr int kMaxJsonDepth = 256;

// Graphs.
inline constexpr int64_t kMaxGraphNodes = 20'000'000;
inline constexpr int kMaxArgDepth = 32;             // nested argument lists
inline constexpr int64_t kMaxOutputIndex = 1 << 16; // a tensor argument's output index ({"t": x, "i": k})
inline constexpr int64_t kMaxInputIndex = 1 << 20;  // an input index (redistributes, edge costs)

// Tensors: at most 64 dims, each size in [0, 2^53], at most 2^62 elements.
inline constexpr int kMaxTensorRank = 64;
inline constexpr int64_t kMaxTensorDimSize = int64_t{1} << 53;
inline constexpr int kMaxTensorElementsLog2 = 62;

// Meshes. A mesh dim size past kMaxMeshDimRead is read as that (DeviceMesh then reports kMaxRanks).
inline constexpr int kMaxMeshDims = 8;
inline constexpr int64_t kMaxRanks = 1 << 20;
inline constexpr int64_t kMaxMeshDimRead = int64_t{1} << 40;

// Placement text: a shard dim, split factor or shard order entry.
inline constexpr int64_t kMaxPlacementNumber = 1 << 20;

// Run settings.
inline constexpr int kMinBatches = 1;
inline constexpr int kMaxBatches = 1000;
inline constexpr int64_t kMaxSpSize = 1 << 20;
inline constexpr int64_t kMaxFormatVersion = 1 << 20;  // a version number past it is refused as out of range

// Runs (runner/): one thread per rank in a process, each with Gloo pairs to every other rank of its groups
// (descriptors grow with the square of the ranks); intra-op threads per rank thread.
inline constexpr int64_t kMaxRunRanks = 128;
inline constexpr int kMaxThreadsPerRank = 64;

}  // namespace ss::limits
