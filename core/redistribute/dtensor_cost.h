#pragma once
// DTensor's own cost of a redistribute: torch.distributed.tensor._collective_utils.redistribute_cost of
// PyTorch 2.14, which its sharding propagation uses to pick strategies, beside core's own estimate
// (RedistributePlan::totalTimeUs, docs/cost-model.md). Both are in microseconds; they differ on purpose (DTensor's
// model is a fixed ring model with its own bandwidths, no all_to_all and one size for uneven shards), and
// tests/core/test_dtensor_oracle.cpp holds this function to DTensor's own numbers on every oracle redistribute.
//
// DTensor's model: per mesh dim, `devicesPerHost` decides whether it crosses hosts (the dims are walked from the
// last; once the running product of their sizes exceeds devicesPerHost, that dim and every earlier one are
// inter-host: 87.7 * 0.22 GB/s and 2.7 us per hop, else 87.7 GB/s and 0.6 us). The bytes start at the global
// tensor's bytes divided by its number of shards; each step of DTensor's plan (the same steps core plans) costs
//   S -> R   all_gather on the bytes times the group size;  S -> S   all_gather + 1.0 (a penalty);
//   P -> R   all_reduce (2x the hops);  P -> S   reduce_scatter, then the bytes divide by the group size;
//   R -> S   free, the bytes divide by the group size;  R -> P   free;
//   S -> P and P -> P   infinite (never picked implicitly);
// each collective 6.6 us + hops x latency + bytes x hops / group / bandwidth (so 6.6 us on a mesh dim of size
// 1, where core plans no step and DTensor still prices one). A source that is replicated costs
// 0; a _StridedShard on either side is infinite (DTensor: no shard order).
#include <optional>

#include "core/model/graph.h"
#include "core/model/mesh.h"
#include "core/model/placement.h"
#include "core/redistribute/redistribute.h"

namespace ss {

// DTensor's redistribute_cost, microseconds; +infinity where DTensor's is; nullopt when core cannot plan the
// redistribute (DTensor then raises too). `plan` is core's plan of the same redistribute.
std::optional<double> dtensorRedistributeCost(const TensorMeta& meta, const DeviceMesh& mesh, const ShardingSpec& from,
                                              const ShardingSpec& to, const RedistributePlan& plan,
                                              int devicesPerHost);

}  // namespace ss
