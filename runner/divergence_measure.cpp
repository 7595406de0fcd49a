// ReferenceStore and measureNode: see runner/divergence_measure.h and runner/divergence.h.
#include "runner/divergence_measure.h"

#include <cmath>

namespace ss::runner {

namespace {

// Norms in double (integer and bool values included); 0 for empty tensors.
double norm2(const at::Tensor& t) {
  if (t.numel() == 0) return 0.0;
  at::Tensor x = t.is_floating_point() && t.scalar_type() != at::kBFloat16 && t.scalar_type() != at::kHalf
                     ? t
                     : t.to(at::kDouble);
  return x.norm().item<double>();
}

}  // namespace

at::Tensor sliceToShard(const at::Tensor& whole, const RankShard& shard) {
  at::Tensor t = whole;
  for (int d = 0; d < whole.dim() && d < static_cast<int>(shard.slices.size()); ++d) {
    const auto& parts = shard.slices[d].parts;
    if (parts.size() == 1) {
      t = t.narrow(d, parts[0].start, parts[0].length);
    } else {
      std::vector<int64_t> idx;
      for (const auto& p : parts)
        for (int64_t i = 0; i < p.length; ++i) idx.push_back(p.start + i);
      t = t.index_select(d, at::tensor(idx, at::kLong).to(whole.device()));
    }
  }
  return t;
}

ReferenceStore::ReferenceStore(const Plan& plan, int batches, int consumers)
    : plan_(plan), values_(batches), passed_(batches), consumers_(consumers) {
  const Graph& g = plan.graph;
  for (auto& b : passed_) b = std::vector<std::atomic<int>>(g.size());
  measured_.resize(g.size());
  for (int n = 0; n < g.size(); ++n) {
    const Node& node = g.nodes[n];
    const auto& specs = plan.specs.at(n).outputs;
    measured_[n].assign(node.outputs.size(), false);
    bool tagged = node.kind == NodeKind::Placeholder && plan.tags.count(n);
    if (node.kind != NodeKind::Call && !tagged) continue;
    std::vector<bool> read(node.outputs.size(), node.outputs.size() == 1);
    for (const auto& [user, input] : g.users(n)) {
      int k = g.inputs(user).at(input).output;
      if (k >= 0 && k < static_cast<int>(read.size())) read[k] = true;
    }
    for (size_t k = 0; k < node.outputs.size(); ++k)
      measured_[n][k] = read[k] && node.outputs[k].known && k < specs.size() && specs[k].has_value();
  }
}

bool ReferenceStore::measured(int node, int output) const {
  return node >= 0 && node < static_cast<int>(measured_.size()) && output >= 0 &&
         output < static_cast<int>(measured_[node].size()) && measured_[node][output];
}

void ReferenceStore::keep(int batch, int node, const std::vector<at::Tensor>& outputs) {
  auto& kept = values_.at(batch);
  if (kept.size() < measured_.size()) kept.resize(measured_.size());
  if (node < 0 || node >= static_cast<int>(kept.size())) return;
  kept[node].resize(outputs.size());
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (!measured(node, static_cast<int>(k)) || !outputs[k].defined()) continue;
    at::Tensor t = outputs[k].detach();
    kept[node][k] = t;
    ReferenceFacts f;
    f.shape = t.sizes().vec();
    f.numel = t.numel();
    f.norm = norm2(t);
    facts_[{batch, node, static_cast<int>(k)}] = std::move(f);
    bytes_ += static_cast<int64_t>(t.numel()) * static_cast<int64_t>(t.element_size());
  }
}

void ReferenceStore::done(int batch, int node) {
  if (batch < 0 || batch >= static_cast<int>(passed_.size()) || node < 0 ||
      node >= static_cast<int>(passed_[batch].size()))
    return;
  if (passed_[batch][node].fetch_add(1) + 1 < consumers_) return;
  auto& b = values_[batch];
  if (node < static_cast<int>(b.size())) b[node].clear();  // nobody reads this node any more
}

const at::Tensor& ReferenceStore::value(int batch, int node, int output) const {
  if (batch < 0 || batch >= static_cast<int>(values_.size())) return none_;
  const auto& b = values_[batch];
  if (node < 0 || node >= static_cast<int>(b.size()) || output < 0 || output >= static_cast<int>(b[node].size()))
    return none_;
  return b[node][output];
}

std::optional<BlockMeasure> measureBlock(const Plan& plan, const at::Tensor& ref, const ShardingSpec& spec,
                                         const at::Tensor& value, int64_t rank, RankComm* comm, const std::string& where) {
  auto shard = shardOnRank(ref.sizes().vec(), plan.mesh, spec, rank);
  if (!shard) return std::nullopt;
  at::NoGradGuard noGrad;
  BlockMeasure m;
  at::Tensor expected = sliceToShard(ref, *shard);
  m.numel = expected.numel();
  at::Tensor v = value.defined() ? value.detach() : at::Tensor();
  m.shapeOk = v.defined() && v.sizes() == expected.sizes();
  if (!m.shapeOk) m.shape = v.defined() ? v.sizes().vec() : std::vector<int64_t>{};
  // Partial mesh dims: reduce over their groups first (every rank of the group takes part, whatever it holds).
  bool partial = false;
  for (int d = 0; d < plan.mesh.ndim(); ++d) partial = partial || spec[d].isPartial();
  if (partial && comm) {
    // On the rank's own device (its collectives' backend may not take another's).
    const c10::Device device = v.defined() ? v.device() : expected.device();
    at::Tensor x = m.shapeOk ? v.to(device, expected.scalar_type())
                             : at::zeros(expected.sizes(), expected.options().device(device));
    for (int d = 0; d < plan.mesh.ndim(); ++d)
      if (spec[d].isPartial()) x = comm->reduceAlong(x, d, spec[d].reduce, where);
    v = x;
  }
  if (m.shapeOk) {
    at::Tensor e = expected;
    at::Tensor x = v.device() == e.device() && v.scalar_type() == e.scalar_type() ? v : v.to(e.device(), e.scalar_type());
    if (!e.is_floating_point() || e.scalar_type() == at::kBFloat16 || e.scalar_type() == at::kHalf) {
      e = e.to(at::kDouble);
      x = x.to(at::kDouble);
    }
    m.diff = norm2(x - e);  // the temporary's pages come back from runner/reuse_allocator.h
    m.self = norm2(x);
    m.expected = norm2(e);
  }
  return m;
}

void measureNode(const Plan& plan, const ReferenceStore& refs, int batch, int node,
                 const std::vector<at::Tensor>& outputs, int64_t rank, RankComm* comm, std::vector<BlockMeasure>& out) {
  const auto& specs = plan.specs.at(node).outputs;
  for (int k = 0; k < static_cast<int>(specs.size()); ++k) {
    if (!refs.measured(node, k)) continue;
    const at::Tensor& ref = refs.value(batch, node, k);
    if (!ref.defined()) continue;  // the same on every rank: the reference decides
    const at::Tensor none;
    auto m = measureBlock(plan, ref, *specs[k], k < static_cast<int>(outputs.size()) ? outputs[k] : none, rank, comm,
                          "localising node " + plan.graph.nodes[node].name);
    if (!m) continue;  // the spec does not fit the reference's shape: the same on every rank
    m->batch = batch;
    m->node = node;
    m->output = k;
    out.push_back(std::move(*m));
  }
}

}  // namespace ss::runner
