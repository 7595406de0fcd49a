#include "core/model/plan.h"

#include <algorithm>
#include <stdexcept>

#include "core/model/enum_names.h"

namespace ss {

std::string AutoSpTag::toString() const {
  if (!seqDim) return key;
  return "(" + key + ", " + std::to_string(*seqDim) + ")";
}

namespace {
constexpr EnumName<PlanFormat> kPlanFormatNames[] = {
    {PlanFormat::Native, "shardscope plan"},
    {PlanFormat::AutoparallelJson, "autoparallel JSON"},
    {PlanFormat::AutoparallelPlacements, "autoparallel placements"},
    {PlanFormat::FxText, "FX graph text"}};
static_assert(enumTableCovers(kPlanFormatNames, PlanFormat::FxText) && enumNamesValid(kPlanFormatNames));
}  // namespace

const char* planFormatName(PlanFormat f) { return enumName(kPlanFormatNames, f, "?"); }

EdgeCostTable::Value& EdgeCostTable::operator[](const Key& k) {
  if (items_.empty() || items_.back().first < k) return items_.emplace_back(k, Value{0.0, 0.0}).second;
  auto it = std::lower_bound(items_.begin(), items_.end(), k, [](const value_type& e, const Key& key) { return e.first < key; });
  if (it == items_.end() || it->first != k) it = items_.insert(it, value_type{k, Value{0.0, 0.0}});
  return it->second;
}

EdgeCostTable::const_iterator EdgeCostTable::find(const Key& k) const {
  auto it = std::lower_bound(items_.begin(), items_.end(), k, [](const value_type& e, const Key& key) { return e.first < key; });
  return it != items_.end() && it->first == k ? it : items_.end();
}

const EdgeCostTable::Value& EdgeCostTable::at(const Key& k) const {
  auto it = find(k);
  if (it == items_.end()) throw std::out_of_range("no costs on this edge");
  return it->second;
}

bool Plan::executable() const {
  if (!run.lossNode.empty() && graph.find(run.lossNode) < 0) return false;
  if (run.lossNode.empty()) {  // the verdict is the graph's outputs: it must return a floating tensor
    const int o = graph.outputNode();
    bool returns = false;
    for (const TensorRef& r : o >= 0 ? graph.inputs(o) : std::vector<TensorRef>{})
      if (const TensorMeta* m = graph.meta(r); m && m->known &&
          (m->dtype == DType::F32 || m->dtype == DType::F16 || m->dtype == DType::BF16 || m->dtype == DType::F64))
        returns = true;
    if (!returns) return false;
  }
  for (const auto& n : graph.nodes) {
    if (n.kind == NodeKind::Output) continue;
    if (n.kind == NodeKind::Call && n.args.empty() && n.kwargs.empty()) return false;
    for (const auto& m : n.outputs)
      if (!m.known) return false;
  }
  return true;
}

std::optional<std::string> Plan::shapelessPlaceholder() const {
  for (const auto& n : graph.nodes) {
    if (n.kind != NodeKind::Placeholder || (!n.outputs.empty() && n.outputs[0].known)) continue;
    return "placeholder '" + n.name + "' has no shape" +
           (n.symbolicShape.empty() ? std::string() : " (its sizes are symbolic: " + n.shapeText() + ")") +
           ": the plan is not executable";
  }
  return std::nullopt;
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

std::vector<Redistribute> Plan::plannedTransitions() const {
  std::vector<Redistribute> out;
  if (!isSolverSolution()) return out;
  std::vector<std::pair<int, int>> explicitEdges;
  explicitEdges.reserve(redistributes.size());
  for (const Redistribute& r : redistributes) explicitEdges.push_back({r.node, r.input});
  std::sort(explicitEdges.begin(), explicitEdges.end());
  for (int n = 0; n < graph.size(); ++n) {
    const auto& ins = graph.inputs(n);
    for (int i = 0; i < static_cast<int>(ins.size()); ++i) {
      const ShardingSpec* from = producerSpecPtr(n, i);
      const ShardingSpec* to = consumerSpecPtr(n, i);
      if (!from || !to || *from == *to) continue;
      if (std::binary_search(explicitEdges.begin(), explicitEdges.end(), std::pair<int, int>{n, i})) continue;
      const TensorMeta* meta = graph.meta(ins[i]);
      const int rank = meta && meta->known ? meta->rank() : -1;
      if (!validateSpec(*from, mesh, rank).empty() || !validateSpec(*to, mesh, rank).empty()) continue;
      out.push_back(Redistribute{n, i, *from, *to});
    }
  }
  return out;
}

void Plan::adoptPlannedTransitions() {
  if (!isSolverSolution()) return;
  std::vector<Redistribute> planned = plannedTransitions();
  redistributes.insert(redistributes.end(), planned.begin(), planned.end());
  sourceFormat = PlanFormat::Native;
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
  if (node >= 0 && node == graph.outputNode() && !gradientOf.empty())
    if (const ShardingSpec* target = gradientTargetSpec(input)) return target;
  return producerSpecPtr(node, input);
}

int Plan::gradientParamOf(int input) const {
  const int out = graph.outputNode();
  if (out < 0 || input < 0 || gradientOf.empty()) return -1;
  const Node& o = graph.nodes[out];
  if (o.args.empty() || !o.args[0].isList()) return -1;
  // The output's tensor inputs are its returned list's tensors in order (None entries are not inputs).
  int tensor = 0;
  const auto& items = o.args[0].items;
  for (size_t k = 0; k < items.size(); ++k) {
    if (!items[k].isTensor()) continue;
    if (tensor++ != input) continue;
    if (k >= gradientOf.size() || gradientOf[k].empty()) return -1;
    return graph.find(gradientOf[k]);
  }
  return -1;
}

const ShardingSpec* Plan::gradientTargetSpec(int input) const {
  const int p = gradientParamOf(input);
  if (p < 0 || p >= static_cast<int>(specs.size()) || specs[p].outputs.empty() || !specs[p].outputs[0]) return nullptr;
  return &*specs[p].outputs[0];
}

void Plan::deriveGradientOutputs() {
  if (!gradientOf.empty()) return;
  const int out = graph.outputNode();
  if (out < 0) return;
  const Node& o = graph.nodes[out];
  if (o.args.empty() || !o.args[0].isList()) return;
  std::vector<int> primals;
  bool joint = false;
  for (int n = 0; n < graph.size(); ++n) {
    const Node& x = graph.nodes[n];
    if (x.kind != NodeKind::Placeholder || x.op == "get_attr") continue;  // a module attribute is no primal
    if (x.placeholderKind == PlaceholderKind::Tangent) joint = true;
    else primals.push_back(n);
  }
  const auto& items = o.args[0].items;
  if (!joint || primals.empty() || items.size() <= primals.size()) return;
  const size_t forward = items.size() - primals.size();
  std::vector<std::string> of(items.size());
  bool any = false;
  for (size_t i = 0; i < primals.size(); ++i) {
    const Node& p = graph.nodes[primals[i]];
    if (p.placeholderKind != PlaceholderKind::Param || !items[forward + i].isTensor()) continue;
    of[forward + i] = p.name;
    any = true;
  }
  if (any) gradientOf = std::move(of);
}

std::optional<ShardingSpec> Plan::producerSpec(int node, int input) const {
  const ShardingSpec* s = producerSpecPtr(node, input);
  return s ? std::optional<ShardingSpec>(*s) : std::nullopt;
}

std::optional<ShardingSpec> Plan::consumerSpec(int node, int input) const {
  const ShardingSpec* s = consumerSpecPtr(node, input);
  return s ? std::optional<ShardingSpec>(*s) : std::nullopt;
}

std::string Plan::validateStructure() const {
  if (auto g = graph.validate(); !g.empty()) return g + " (/nodes)";
  return validateSpecCounts();
}

std::string Plan::validateSpecCounts() const {
  if (specs.size() != graph.nodes.size()) return "specs do not match the graph (/nodes)";
  for (int i = 0; i < graph.size(); ++i)
    if (specs[i].outputs.size() != graph.nodes[i].outputs.size() || specs[i].inputs.size() != graph.inputs(i).size())
      return "the specs of node '" + graph.nodes[i].name + "' do not match its outputs and inputs (/nodes/" +
             std::to_string(i) + ")";
  return {};
}

namespace {
Diagnostic finding(DiagKind kind, int node, int input, std::string message) {
  Diagnostic d;
  d.severity = Severity::Error;
  d.kind = kind;
  d.node = node;
  d.input = input;
  d.message = std::move(message);
  return d;
}
int rankOf(const TensorMeta* m) { return m && m->known ? m->rank() : -1; }
}  // namespace

std::vector<Diagnostic> Plan::validateNode(int n, std::span<const int> redistributeOf) const {
  std::vector<Diagnostic> out;
  if (n < 0 || n >= graph.size() || n >= static_cast<int>(specs.size())) return out;
  const Node& node = graph.nodes[n];
  for (size_t o = 0; o < specs[n].outputs.size(); ++o) {
    const auto& s = specs[n].outputs[o];
    if (!s) continue;
    const int rank = o < node.outputs.size() ? rankOf(&node.outputs[o]) : -1;
    if (auto why = validateSpec(*s, mesh, rank); !why.empty())
      out.push_back(finding(DiagKind::InvalidSpec, n, -1, "output spec " + s->toMeshString() + ": " + why));
  }
  const auto& ins = graph.inputs(n);
  for (size_t k = 0; k < ins.size(); ++k) {
    const int rank = rankOf(graph.meta(ins[k]));
    if (k < specs[n].inputs.size() && specs[n].inputs[k]) {
      const ShardingSpec& s = *specs[n].inputs[k];
      if (auto why = validateSpec(s, mesh, rank); !why.empty())
        out.push_back(finding(DiagKind::InvalidSpec, n, static_cast<int>(k), "input spec " + s.toMeshString() + ": " + why));
    }
    const Redistribute* r = nullptr;
    if (redistributeOf.empty()) r = findRedistribute(n, static_cast<int>(k));
    else if (k < redistributeOf.size() && redistributeOf[k] >= 0) r = &redistributes[static_cast<size_t>(redistributeOf[k])];
    if (!r) continue;
    std::string why = validateSpec(r->from, mesh, rank);
    if (why.empty()) why = validateSpec(r->to, mesh, rank);
    if (!why.empty())
      out.push_back(finding(DiagKind::BadRedistribute, n, static_cast<int>(k),
                            "the redistribute " + r->from.toMeshString() + " -> " + r->to.toMeshString() +
                                " does not fit this tensor: " + why));
  }
  return out;
}

std::vector<Diagnostic> Plan::validatePlanWide() const {
  std::vector<Diagnostic> out;
  std::vector<std::pair<int, int>> edges;
  edges.reserve(redistributes.size());
  for (const auto& r : redistributes) {
    if (r.node < 0 || r.node >= graph.size() || r.input < 0 || r.input >= static_cast<int>(graph.inputs(r.node).size())) {
      out.push_back(finding(DiagKind::BadRedistribute, -1, -1,
                            "a redistribute sits on node " + std::to_string(r.node) + " input " + std::to_string(r.input) +
                                ", which is not an edge of the graph"));
      continue;
    }
    edges.emplace_back(r.node, r.input);
  }
  std::sort(edges.begin(), edges.end());
  for (size_t k = 1; k < edges.size(); ++k)
    if (edges[k] == edges[k - 1] && (k + 1 == edges.size() || edges[k + 1] != edges[k]))
      out.push_back(finding(DiagKind::BadRedistribute, edges[k].first, edges[k].second,
                            "two redistributes on input " + std::to_string(edges[k].second) + " of '" +
                                graph.nodes[edges[k].first].name + "' (one edge takes one)"));
  for (const auto& [n, tag] : tags) {
    if (n < 0 || n >= graph.size()) continue;  // not representable by the readers (tags are keyed by node)
    const Node& node = graph.nodes[n];
    if (node.kind != NodeKind::Placeholder) {
      out.push_back(finding(DiagKind::InvalidTag, n, -1,
                            "the AutoSP tag " + tag.toString() + " sits on " + node.name + ", which is not a placeholder"));
      continue;
    }
    const int rank = node.outputs.empty() ? -1 : rankOf(&node.outputs[0]);
    if (tag.seqDim && (*tag.seqDim < 0 || (rank >= 0 && *tag.seqDim >= rank)))
      out.push_back(finding(DiagKind::InvalidTag, n, -1,
                            "the AutoSP tag " + tag.toString() + " names dim " + std::to_string(*tag.seqDim) +
                                " of a tensor with " + std::to_string(rank) + " dims"));
  }
  if (!run.lossNode.empty() && graph.find(run.lossNode) < 0)
    out.push_back(finding(DiagKind::UnknownLossNode, -1, -1, "the loss node '" + run.lossNode + "' is not in the graph"));
  return out;
}

std::vector<Diagnostic> Plan::validate() const {
  std::vector<Diagnostic> out;
  if (!validateStructure().empty()) return out;  // the rules below need the structure
  // The same per-input index the checker builds: the last redistribute listed on an edge.
  std::vector<std::vector<int>> redistOf(static_cast<size_t>(graph.size()));
  for (size_t r = 0; r < redistributes.size(); ++r) {
    const auto& rd = redistributes[r];
    if (rd.node < 0 || rd.node >= graph.size() || rd.input < 0 || rd.input >= static_cast<int>(graph.inputs(rd.node).size()))
      continue;
    auto& v = redistOf[static_cast<size_t>(rd.node)];
    v.resize(graph.inputs(rd.node).size(), -1);
    v[static_cast<size_t>(rd.input)] = static_cast<int>(r);
  }
  for (int n = 0; n < graph.size(); ++n) {
    const auto& v = redistOf[static_cast<size_t>(n)];
    auto f = v.empty() ? validateNode(n, std::vector<int>(graph.inputs(n).size(), -1)) : validateNode(n, v);
    out.insert(out.end(), std::make_move_iterator(f.begin()), std::make_move_iterator(f.end()));
  }
  auto w = validatePlanWide();
  out.insert(out.end(), std::make_move_iterator(w.begin()), std::make_move_iterator(w.end()));
  return out;
}

bool Plan::operator==(const Plan& o) const {
  return name == o.name && description == o.description && graph == o.graph && mesh == o.mesh && specs == o.specs &&
         redistributes == o.redistributes && tags == o.tags && run == o.run && summary == o.summary &&
         edgeCosts == o.edgeCosts;
}

}  // namespace ss
