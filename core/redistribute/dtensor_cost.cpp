#include "core/redistribute/dtensor_cost.h"

#include <limits>
#include <vector>

namespace ss {

namespace {

// DTensor's MeshTopoInfo.build_from_mesh constants.
constexpr double kBaseBandwidthGBps = 87.7;
constexpr double kInterHostBandwidthFactor = 0.22;
constexpr double kIntraHostLatencyUs = 0.6;
constexpr double kInterHostLatencyUs = 2.7;
constexpr double kCollectiveBaseLatencyUs = 6.6;
constexpr double kShardToShardPenaltyUs = 1.0;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

struct Topology {
  std::vector<int64_t> devices;
  std::vector<double> bandwidth, latency;
};

Topology topologyOf(const DeviceMesh& mesh, int devicesPerHost) {
  Topology t;
  const int n = mesh.ndim();
  t.devices.assign(n, 1);
  t.bandwidth.assign(n, kBaseBandwidthGBps);
  t.latency.assign(n, kIntraHostLatencyUs);
  int64_t total = 1;
  for (int m = n - 1; m >= 0; --m) {
    t.devices[m] = mesh.dimSize(m);
    total *= t.devices[m];
    if (total > devicesPerHost) {
      t.bandwidth[m] *= kInterHostBandwidthFactor;
      t.latency[m] = kInterHostLatencyUs;
    }
  }
  return t;
}

// One ring collective over mesh dim m with `hopsPerDevice` x (group - 1) hops.
double ringCost(const Topology& t, int m, double gib, int hopsPerDevice) {
  const double group = static_cast<double>(t.devices[m]);
  const double hops = hopsPerDevice * (group - 1);
  return kCollectiveBaseLatencyUs + hops * t.latency[m] + (gib * hops / group) / t.bandwidth[m] * 1e6;
}

}  // namespace

std::optional<double> dtensorRedistributeCost(const TensorMeta& meta, const DeviceMesh& mesh, const ShardingSpec& from,
                                              const ShardingSpec& to, const RedistributePlan& plan,
                                              int devicesPerHost) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (from.isReplicated()) return 0.0;
  if (from == to) return 0.0;
  for (const ShardingSpec* s : {&from, &to})
    for (const Placement& p : s->placements)
      if (p.kind == PlacementKind::StridedShard) return kInf;
  if (!plan.possible) return std::nullopt;
  const Topology topo = topologyOf(mesh, devicesPerHost);
  int64_t elements = 1;
  for (int64_t d : meta.shape) elements *= d;
  int64_t shards = 1;
  for (int m = 0; m < from.meshDims(); ++m)
    if (from[m].kind == PlacementKind::Shard) shards *= mesh.dimSize(m);
  double gib = static_cast<double>(elements) * dtypeBytes(meta.dtype) / static_cast<double>(shards) / kGiB;
  double cost = 0;
  for (const RedistributeStep& s : plan.steps) {
    const int m = s.meshDim;
    const double group = static_cast<double>(topo.devices[m]);
    switch (s.kind) {
      case CollectiveKind::AllGather:
        gib *= group;
        cost += ringCost(topo, m, gib, 1);
        break;
      case CollectiveKind::AllToAll:
        cost += ringCost(topo, m, gib, 1) + kShardToShardPenaltyUs;
        break;
      case CollectiveKind::AllReduce:
        cost += ringCost(topo, m, gib, 2);
        break;
      case CollectiveKind::ReduceScatter:
        cost += ringCost(topo, m, gib, 1);
        gib /= group;
        break;
      case CollectiveKind::LocalChunk:
        gib /= group;
        break;
      case CollectiveKind::LocalEmbed:
        return kInf;
      case CollectiveKind::LocalDivide:
      case CollectiveKind::None:
        break;
    }
  }
  // Mesh dims of size 1: core plans no step there (nothing moves), DTensor prices its step all the same (the base
  // latency of a collective over one device; the bytes do not change).
  for (int m = 0; m < from.meshDims() && m < to.meshDims(); ++m) {
    if (mesh.dimSize(m) != 1 || from[m] == to[m]) continue;
    const Placement& a = from[m];
    const Placement& b = to[m];
    if (a.isPartial() && b.isPartial()) return kInf;
    if (a.isShard() && b.isPartial()) return kInf;
    if (a.isShard() && b.isShard()) cost += ringCost(topo, m, gib, 1) + kShardToShardPenaltyUs;
    else if (a.isShard() || a.isPartial()) cost += ringCost(topo, m, gib, a.isPartial() && !b.isShard() ? 2 : 1);
  }
  return cost;
}

}  // namespace ss
