#include "core/plan/costs.h"

#include <algorithm>
#include <map>

#include "core/check/check.h"
#include "core/model/enum_names.h"

namespace ss {

namespace {
constexpr EnumName<EdgeCost::Status> kEdgeStatusNames[] = {
    {EdgeCost::Status::Inserted, "inserted"},
    {EdgeCost::Status::Planned, "planned"},
    {EdgeCost::Status::Missing, "missing"}};
static_assert(enumTableCovers(kEdgeStatusNames, EdgeCost::Status::Missing) && enumNamesValid(kEdgeStatusNames));
}  // namespace

const char* edgeStatusName(EdgeCost::Status s) { return enumName(kEdgeStatusNames, s, "missing"); }

std::optional<EdgeCost> edgeCost(const Plan& plan, int node, int input, const CostModel& model,
                                 const RedistIndex* redist) {
  const Graph& g = plan.graph;
  if (node < 0 || node >= g.size()) return std::nullopt;
  const auto& ins = g.inputs(node);
  if (input < 0 || input >= static_cast<int>(ins.size())) return std::nullopt;
  const TensorMeta* meta = g.meta(ins[static_cast<size_t>(input)]);
  if (meta == nullptr || !meta->known) return std::nullopt;
  const ShardingSpec *from = nullptr, *to = nullptr;
  const Redistribute* r = nullptr;
  if (redist != nullptr) {
    const int k = redist->find(node, input);
    if (k >= 0) r = &plan.redistributes[static_cast<size_t>(k)];
  } else {
    r = plan.findRedistribute(node, input);
  }
  if (r != nullptr) {
    from = &r->from;
    to = &r->to;
  } else {
    from = plan.producerSpecPtr(node, input);
    to = plan.consumerSpecPtr(node, input);
  }
  if (from == nullptr || to == nullptr || *from == *to) return std::nullopt;
  const RedistributePlan rp = planRedistribute(*meta, plan.mesh, *from, *to, model);
  EdgeCost e;
  e.node = node;
  e.input = input;
  e.phase = g.nodes[static_cast<size_t>(node)].phase;
  // A solver's export: its apply pass inserts every transition it planned (the checker reports them as
  // redistribute-required, info), so a bare edge there is planned, not missing.
  e.status = r != nullptr                ? EdgeCost::Status::Inserted
             : plan.isSolverSolution()   ? EdgeCost::Status::Planned
                                         : EdgeCost::Status::Missing;
  e.summary = rp.possible ? rp.summary() : "impossible: " + rp.whyNot;
  if (rp.possible) e.steps = rp.steps;
  e.bytes = rp.possible ? rp.totalBytes() : 0;
  e.timeUs = rp.possible ? rp.totalTimeUs() : 0;
  if (auto it = plan.edgeCosts.find({node, input}); it != plan.edgeCosts.end()) {
    e.solverComm = it->second.first;
    e.solverTransition = it->second.second;
  }
  return e;
}

CostReport computeCosts(const Plan& plan, const CostModel& model) {
  CostReport rep;
  rep.solver = plan.summary;
  RedistIndex redist;
  redist.build(plan);
  std::map<Phase, PhaseCost> phases;
  const Graph& g = plan.graph;
  for (int n = 0; n < g.size(); ++n) {
    const Node& node = g.nodes[static_cast<size_t>(n)];
    PhaseCost& pc = phases[node.phase];
    pc.phase = node.phase;
    if (node.computeCost > 0) pc.compute += node.computeCost;
    const int inputs = static_cast<int>(g.inputs(n).size());
    for (int in = 0; in < inputs; ++in) {
      std::optional<EdgeCost> e = edgeCost(plan, n, in, model, &redist);
      if (!e) continue;
      pc.edges += 1;
      pc.bytes += e->bytes;
      pc.timeUs += e->timeUs;
      rep.totalBytes += e->bytes;
      rep.totalTimeUs += e->timeUs;
      rep.edges.push_back(std::move(*e));
    }
  }
  std::stable_sort(rep.edges.begin(), rep.edges.end(), [](const EdgeCost& a, const EdgeCost& b) {
    if (a.timeUs != b.timeUs) return a.timeUs > b.timeUs;
    return a.bytes > b.bytes;
  });
  for (Phase p : {Phase::Forward, Phase::Backward, Phase::Optimizer, Phase::Unknown}) {
    auto it = phases.find(p);
    if (it != phases.end() && (it->second.edges > 0 || it->second.compute > 0)) rep.phases.push_back(it->second);
  }
  return rep;
}

}  // namespace ss
