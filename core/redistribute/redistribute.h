#pragma once
// Redistribute planning and its cost, as DTensor plans a redistribute: one transform per mesh dim.
//
// Transforms: S->R all_gather; P->R all_reduce; P->S reduce_scatter; S(i)->S(j) all_to_all; R->S local chunk;
// R->P local divide (no communication); S->P(sum) local embed (the shard written into zeros of the unsharded
// size, no communication; DTensor 2.14's Shard._to_partial_tensor). Refused, as DTensor refuses them at run time:
// S->P of another reduce op or from a _StridedShard, R->P(product), and changing a Partial's reduce op.
// Bytes are per rank, for the tensor's dtype, exact for uneven shards (the largest rank's share is reported).
// The time model (alpha-beta with a link table) is documented in docs/cost-model.md.
#include <string>
#include <vector>

#include "core/model/graph.h"
#include "core/model/placement.h"
#include "core/model/units.h"  // formatBytes / formatTimeUs: the steps print their costs with them

namespace ss {

enum class CollectiveKind : uint8_t { None, AllGather, AllReduce, ReduceScatter, AllToAll, LocalChunk, LocalDivide, LocalEmbed };
// "all_gather", "all_reduce", "reduce_scatter", "all_to_all", "chunk", "divide", "embed"
const char* collectiveName(CollectiveKind k);

struct Link {
  std::string name;          // "nvlink", "infiniband"
  double alphaUs = 0;        // latency per step, microseconds
  double betaGBps = 0;       // bandwidth per rank, GB/s
};

struct CostModel {
  Link intraNode{"nvlink", 3.0, 150.0};     // NVLink-class defaults
  Link interNode{"infiniband", 10.0, 25.0}; // InfiniBand-class defaults
  std::vector<bool> interNodeDims;          // per mesh dim: true = crosses nodes (default: none)
  const Link& linkFor(int meshDim) const;
};

struct RedistributeStep {
  int meshDim = 0;
  std::string meshDimName;    // the mesh's name for meshDim ("dim1", "tp"): lets toString() stand alone
  CollectiveKind kind = CollectiveKind::None;
  Placement from, to;         // as the user wrote them at the ends of the path (a decoded _StridedShard shows)
  // Split factors of the ends the transform acts on as _StridedShards (DTensor's greedy fallback for one that
  // is no shard order); 1: a Shard, Replicate or Partial. A _StridedShard decoded into a shard order is a Shard
  // here, so its `from` may show _S(d, sf) with fromSplit 1.
  int64_t fromSplit = 1, toSplit = 1;
  int64_t groupSize = 1;
  int64_t bytesSent = 0;      // per rank (largest share)
  int64_t bytesReceived = 0;  // per rank (largest share)
  double timeUs = 0;
  std::string toString() const;  // "mesh dim 1 (dim1): all_to_all S(1) -> S(0), 2.0 MiB, 21.4 us"
};

struct RedistributePlan {
  bool possible = true;
  std::string whyNot;            // when impossible: "DTensor cannot redistribute S(0) -> P(max) ..."
  std::vector<RedistributeStep> steps;
  int64_t totalBytes() const;   // sum of bytesSent over the steps (per rank, largest share)
  double totalTimeUs() const;
  std::string summary() const;   // "all_to_all on mesh dim 1 (dim1), 2.0 MiB, 21.4 us" or "no communication"
};

RedistributePlan planRedistribute(const TensorMeta& meta, const DeviceMesh& mesh, const ShardingSpec& from,
                                  const ShardingSpec& to, const CostModel& cost = {});


}  // namespace ss
