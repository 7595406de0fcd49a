#include "core/plan.h"

namespace ss {

std::string AutoSpTag::toString() const {
  if (!seqDim) return key;
  return "(" + key + ", " + std::to_string(*seqDim) + ")";
}

const char* planFormatName(PlanFormat f) {
  switch (f) {
    case PlanFormat::Native: return "shardscope plan";
    case PlanFormat::AutoparallelJson: return "autoparallel JSON";
    case PlanFormat::AutoparallelPlacements: return "autoparallel placements";
    case PlanFormat::FxText: return "FX graph text";
  }
  return "?";
}

bool Plan::executable() const {
  if (run.lossNode.empty() || graph.find(run.lossNode) < 0) return false;
  for (const auto& n : graph.nodes) {
    if (n.kind == NodeKind::Output) continue;
    if (n.kind == NodeKind::Call && n.args.empty() && n.kwargs.empty()) return false;
    for (const auto& m : n.outputs)
      if (!m.known) return false;
  }
  return true;
}

void Plan::normalizeSpecs() {
  specs.resize(graph.nodes.size());
  for (int i = 0; i < graph.size(); ++i) {
    specs[i].outputs.resize(graph.nodes[i].outputs.size());
    specs[i].inputs.resize(graph.inputs(i).size());
  }
}

const Redistribute* Plan::findRedistribute(int node, int input) const {
  for (const auto& r : redistributes)
    if (r.node == node && r.input == input) return &r;
  return nullptr;
}

const ShardingSpec* Plan::producerSpecPtr(int node, int input) const {
  if (node < 0 || node >= graph.size()) return nullptr;
  const auto& ins = graph.inputs(node);
  if (input < 0 || input >= static_cast<int>(ins.size())) return nullptr;
  TensorRef r = ins[input];
  if (r.node < 0 || r.node >= static_cast<int>(specs.size())) return nullptr;
  const auto& outs = specs[r.node].outputs;
  if (r.output < 0 || r.output >= static_cast<int>(outs.size()) || !outs[r.output]) return nullptr;
  return &*outs[r.output];
}

const ShardingSpec* Plan::consumerSpecPtr(int node, int input) const {
  if (node >= 0 && node < static_cast<int>(specs.size()) && input >= 0 &&
      input < static_cast<int>(specs[node].inputs.size()) && specs[node].inputs[input])
    return &*specs[node].inputs[input];
  return producerSpecPtr(node, input);
}

std::optional<ShardingSpec> Plan::producerSpec(int node, int input) const {
  const ShardingSpec* s = producerSpecPtr(node, input);
  return s ? std::optional<ShardingSpec>(*s) : std::nullopt;
}

std::optional<ShardingSpec> Plan::consumerSpec(int node, int input) const {
  const ShardingSpec* s = consumerSpecPtr(node, input);
  return s ? std::optional<ShardingSpec>(*s) : std::nullopt;
}

std::string Plan::validate() const {
  if (auto g = graph.validate(); !g.empty()) return g + " (/nodes)";
  if (specs.size() != graph.nodes.size()) return "specs do not match the graph (/nodes)";
  for (int i = 0; i < graph.size(); ++i) {
    const std::string ptr = "/nodes/" + std::to_string(i);
    const Node& n = graph.nodes[i];
    for (size_t o = 0; o < specs[i].outputs.size(); ++o) {
      const auto& s = specs[i].outputs[o];
      if (!s) continue;
      int rank = o < n.outputs.size() && n.outputs[o].known ? n.outputs[o].rank() : -1;
      if (auto why = validateSpec(*s, mesh, rank); !why.empty()) return why + " (" + ptr + "/spec/" + std::to_string(o) + ")";
    }
    const auto& ins = graph.inputs(i);
    for (size_t k = 0; k < specs[i].inputs.size(); ++k) {
      const auto& s = specs[i].inputs[k];
      if (!s) continue;
      const TensorMeta* m = k < ins.size() ? graph.meta(ins[k]) : nullptr;
      int rank = m && m->known ? m->rank() : -1;
      if (auto why = validateSpec(*s, mesh, rank); !why.empty())
        return why + " (" + ptr + "/input_specs/" + std::to_string(k) + ")";
    }
  }
  for (size_t r = 0; r < redistributes.size(); ++r) {
    const auto& rd = redistributes[r];
    const std::string ptr = "/redistributes/" + std::to_string(r);
    if (rd.node < 0 || rd.node >= graph.size()) return "redistribute on an unknown node (" + ptr + "/node)";
    if (rd.input < 0 || rd.input >= static_cast<int>(graph.inputs(rd.node).size()))
      return "node '" + graph.nodes[rd.node].name + "' has no tensor input " + std::to_string(rd.input) + " (" + ptr + "/input)";
    const TensorMeta* m = graph.meta(graph.inputs(rd.node)[rd.input]);
    int rank = m && m->known ? m->rank() : -1;
    if (auto why = validateSpec(rd.from, mesh, rank); !why.empty()) return why + " (" + ptr + "/from)";
    if (auto why = validateSpec(rd.to, mesh, rank); !why.empty()) return why + " (" + ptr + "/to)";
  }
  for (const auto& [n, tag] : tags) {
    if (n < 0 || n >= graph.size() || graph.nodes[n].kind != NodeKind::Placeholder)
      return "an AutoSP tag sits on a node that is not a placeholder (/nodes)";
    const auto& outs = graph.nodes[n].outputs;
    if (tag.seqDim && !outs.empty() && outs[0].known && (*tag.seqDim < 0 || *tag.seqDim >= outs[0].rank()))
      return "AutoSP tag " + tag.toString() + " names dim " + std::to_string(*tag.seqDim) + " of a tensor with " +
             std::to_string(outs[0].rank()) + " dims (/nodes/" + std::to_string(n) + "/tag)";
  }
  return {};
}

bool Plan::operator==(const Plan& o) const {
  return name == o.name && description == o.description && graph == o.graph && mesh == o.mesh && specs == o.specs &&
         redistributes == o.redistributes && tags == o.tags && run == o.run && summary == o.summary &&
         edgeCosts == o.edgeCosts;
}

}  // namespace ss
