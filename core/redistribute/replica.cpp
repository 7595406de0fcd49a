// Replica classes (core/redistribute/replica.h): the rules, one pass over the graph in order.
#include "core/redistribute/replica.h"

#include <algorithm>

#include "core/redistribute/redistribute.h"

namespace ss {

namespace {

MeshDims allDims(const DeviceMesh& mesh) { return mesh.ndim() >= 32 ? ~0u : (1u << mesh.ndim()) - 1; }
MeshDims bit(int d) { return 1u << d; }

// Mesh dims along which `spec` does not shard: the local shape (what the runner writes into shape arguments)
// does not depend on the coordinate there.
MeshDims unsharded(const std::optional<ShardingSpec>& spec, const DeviceMesh& mesh) {
  if (!spec) return allDims(mesh);
  MeshDims out = 0;
  for (int d = 0; d < mesh.ndim() && d < spec->meshDims(); ++d)
    if (!(*spec)[d].isShard()) out |= bit(d);
  return out;
}

MeshDims placeholderHolds(const Plan& plan, int n) {
  if (plan.tags.count(n)) return 0;
  const auto& outs = plan.specs.at(n).outputs;
  if (outs.empty() || !outs[0]) return allDims(plan.mesh);  // every rank gets the whole tensor
  MeshDims out = 0;
  for (int d = 0; d < plan.mesh.ndim() && d < outs[0]->meshDims(); ++d)
    if ((*outs[0])[d].isReplicate()) out |= bit(d);
  return out;
}

}  // namespace

bool isRandomOp(const std::string& op) {
  static const char* const kPrefixes[] = {"rand", "dropout", "native_dropout", "feature_dropout", "alpha_dropout",
                                          "bernoulli", "normal", "uniform", "multinomial", "poisson", "exponential",
                                          "cauchy", "geometric", "log_normal", "_fused_dropout", "rrelu"};
  for (const char* p : kPrefixes)
    if (op.rfind(p, 0) == 0) return true;
  return false;
}

bool writesInPlace(const Node& node) {
  if (node.kind != NodeKind::Call) return false;
  std::string name = node.opName();
  if (!name.empty() && name.back() == '_') return true;
  const std::string_view op = node.op;
  const size_t overload = op.rfind('.');
  return overload != std::string_view::npos && op.substr(overload + 1).starts_with("out");
}

bool isViewOp(const std::string& op) { return op == "view" || op == "reshape" || op == "_unsafe_view"; }

bool isFactoryOp(const std::string& op) {
  return op == "full" || op == "zeros" || op == "ones" || op == "empty" || op == "empty_strided" || op == "rand" ||
         op == "randn" || op == "new_zeros" || op == "new_ones" || op == "new_full" || op == "new_empty";
}

bool hasLocalShapeArgs(const std::string& op) {
  return isViewOp(op) || op == "expand" || isFactoryOp(op) ||
         (op.size() > 9 && op.compare(op.size() - 9, 9, "_backward") == 0);
}

int64_t ReplicaPlan::leaderOf(MeshDims dims, int64_t rank) const {
  auto c = mesh.coordOf(rank);
  for (int d = 0; d < mesh.ndim(); ++d)
    if (dims & bit(d)) c[d] = 0;
  return mesh.rankOf(c);
}

int64_t ReplicaPlan::classSize(MeshDims dims) const {
  int64_t s = 1;
  for (int d = 0; d < mesh.ndim(); ++d)
    if (dims & bit(d)) s *= mesh.dimSize(d);
  return s;
}

bool ReplicaPlan::runsEdge(int n, int k, int64_t rank) const {
  if (edgeTouched[n][k] == 0) return false;
  // The producer's sharing dims are read from the edge's start: share of the producer is not stored per edge, so
  // edgeShare keeps it in the bits the steps did not touch.
  return isLeader(edgeShare[n][k] & ~edgeTouched[n][k], rank);
}

int ReplicaPlan::edgeTakers(int n, int k, int64_t leader) const {
  const MeshDims dims = edgeShare[n][k];
  std::vector<int> members;  // dims of the class, walked as a mixed-radix counter
  for (int d = 0; d < mesh.ndim(); ++d)
    if (dims & bit(d)) members.push_back(d);
  auto base = mesh.coordOf(leader);
  std::vector<int64_t> c = base;
  int takers = 0;
  while (true) {
    int64_t r = mesh.rankOf(c);
    if (r != leader && computes(n, r) && !runsEdge(n, k, r)) ++takers;
    size_t i = 0;
    for (; i < members.size(); ++i) {
      if (++c[members[i]] < mesh.dimSize(members[i])) break;
      c[members[i]] = 0;
    }
    if (i == members.size()) break;
  }
  return takers;
}

std::string meshDimsString(MeshDims dims, const DeviceMesh& mesh) {
  std::string s = "{";
  for (int d = 0; d < mesh.ndim(); ++d)
    if (dims & bit(d)) s += (s.size() > 1 ? ", " : "") + mesh.dimName(d);
  return s + "}";
}

ReplicaPlan replicaClasses(const Plan& plan, const std::vector<bool>& recorded, const std::vector<bool>& writers) {
  const Graph& g = plan.graph;
  ReplicaPlan rp;
  rp.mesh = plan.mesh;
  const MeshDims all = allDims(plan.mesh);
  const int size = g.size();
  rp.holds.assign(size, all);
  rp.edgeHolds.resize(size);
  rp.edgeTouched.resize(size);
  for (int n = 0; n < size; ++n)
    if (writers.empty() ? writesInPlace(g.nodes[n]) : writers[n]) {
      rp.enabled = false;
      rp.whyNot = "node " + g.nodes[n].name + " writes a tensor in place";
      break;
    }
  auto isRecorded = [&](int n) { return !recorded.empty() && recorded.at(n); };
  for (int n = 0; n < size; ++n) {
    const Node& node = g.nodes[n];
    const auto& ins = g.inputs(n);
    rp.edgeHolds[n].assign(ins.size(), 0);
    rp.edgeTouched[n].assign(ins.size(), 0);
    if (node.kind == NodeKind::Placeholder) {
      rp.holds[n] = placeholderHolds(plan, n);
      continue;
    }
    MeshDims h = all;
    for (size_t k = 0; k < ins.size(); ++k) {
      MeshDims e = ins[k].node >= 0 && ins[k].node < n ? rp.holds[ins[k].node] : 0;
      MeshDims touched = 0;
      if (const Redistribute* r = plan.findRedistribute(n, static_cast<int>(k)); r && !(r->from == r->to)) {
        const TensorMeta* m = g.meta(ins[k]);
        RedistributePlan steps = m && m->known ? planRedistribute(*m, plan.mesh, r->from, r->to) : RedistributePlan{};
        if (!m || !m->known || !steps.possible) {
          e = 0;  // the runner fails there: nothing is shared
          touched = all;
        }
        for (const RedistributeStep& s : steps.steps) {
          touched |= bit(s.meshDim);
          if (s.to.isReplicate()) e |= bit(s.meshDim);
          else e &= ~bit(s.meshDim);
        }
      }
      rp.edgeHolds[n][k] = e;
      rp.edgeTouched[n][k] = touched;
      h &= e;
    }
    if (node.kind == NodeKind::Call) {
      const std::string op = node.opName();
      if (isRandomOp(op)) h = 0;
      if (hasLocalShapeArgs(op)) {
        const auto& outs = plan.specs.size() > static_cast<size_t>(n) ? plan.specs[n].outputs
                                                                       : std::vector<std::optional<ShardingSpec>>{};
        h &= unsharded(outs.empty() ? std::nullopt : outs[0], plan.mesh);
      }
    }
    rp.holds[n] = h;
  }
  // Twin dims: hold for every recorded value, touched by no redistribute into a recorded node.
  rp.twins = all;
  for (int n = 0; n < size; ++n) {
    if (!isRecorded(n)) continue;
    rp.twins &= rp.holds[n];
    for (size_t k = 0; k < rp.edgeTouched[n].size(); ++k) rp.twins &= rp.edgeHolds[n][k] & ~rp.edgeTouched[n][k];
  }
  rp.share.resize(size);
  rp.edgeShare.resize(size);
  for (int n = 0; n < size; ++n) {
    const MeshDims restrict = isRecorded(n) ? rp.twins : all;
    rp.share[n] = rp.holds[n] & restrict;
    const auto& ins = g.inputs(n);
    rp.edgeShare[n].resize(ins.size());
    for (size_t k = 0; k < ins.size(); ++k) {
      // The bits the steps leave alone are the producer's sharing dims (runsEdge reads them from here).
      const MeshDims producer = ins[k].node >= 0 && ins[k].node < n ? rp.share[ins[k].node] : 0;
      const MeshDims touched = rp.edgeTouched[n][k];
      rp.edgeShare[n][k] = touched == 0 ? producer
                                        : ((producer & ~touched) | (rp.edgeHolds[n][k] & touched)) & restrict;
    }
  }
  // The thread budget's worker count: computing ranks of the call node with the largest output.
  int64_t biggest = -1;
  for (int n = 0; n < size; ++n) {
    const Node& node = g.nodes[n];
    if (node.kind != NodeKind::Call || node.outputs.empty() || !node.outputs[0].known) continue;
    if (node.outputs[0].numel() > biggest) {
      biggest = node.outputs[0].numel();
      rp.busiest_ = plan.mesh.size() / rp.classSize(rp.share[n]);
    }
  }
  if (!rp.enabled) {
    std::fill(rp.share.begin(), rp.share.end(), 0);
    for (auto& v : rp.edgeShare) std::fill(v.begin(), v.end(), 0);
    rp.twins = 0;
    rp.busiest_ = plan.mesh.size();
  }
  return rp;
}

}  // namespace ss
