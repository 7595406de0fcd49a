// PlanBuilder: see plan_builder.h. Sections: places; mesh; nodes; specs; redistributes; finish.
#include "core/model/plan_builder.h"

#include <algorithm>

#include "core/model/placement_parse.h"

namespace ss {

// ---- Places --------------------------------------------------------------------------------------------------
std::string Where::pointer() const {
  std::string p;
  for (int k = 0; k < depth; ++k) {
    if (!steps[k].key.empty()) {
      p += '/';
      for (char c : steps[k].key) {
        if (c == '~') p += "~0";
        else if (c == '/') p += "~1";
        else p += c;
      }
    }
    if (steps[k].index >= 0) p += "/" + std::to_string(steps[k].index);
  }
  return p;
}

Error Where::error(std::string message) const {
  if (line > 0) return Error::atLine(std::move(message), line, col);
  return Error::atPointer(std::move(message), pointer());
}

PlanBuilder::PlanBuilder(PlanFormat format) { plan_.sourceFormat = format; }

PlanBuilder::PlanBuilder(Plan base, PlanFormat format) : plan_(std::move(base)) {
  plan_.sourceFormat = format;
  plan_.graph.reindex();
  plan_.normalizeSpecs();
  graphDone_ = true;
}

// ---- Mesh ----------------------------------------------------------------------------------------------------
Result<bool> PlanBuilder::setMesh(std::vector<int64_t> shape, std::vector<std::string> dimNames, const Where& w) {
  for (auto& d : shape) d = std::min(d, limits::kMaxMeshDimRead);  // DeviceMesh::make reports the rank limit
  auto m = DeviceMesh::make(std::move(shape), std::move(dimNames));
  if (!m) return w.error(m.error().message);
  if (plan_.mesh.ndim() != m->ndim() && graphDone_) {
    // Specs written for another mesh mean nothing on this one (a placements file for another mesh shape).
    plan_.specs.clear();
    plan_.redistributes.clear();
    plan_.normalizeSpecs();
  }
  plan_.mesh = std::move(*m);
  return true;
}

// ---- Nodes ---------------------------------------------------------------------------------------------------
NodeKind PlanBuilder::kindOfOp(std::string_view op) {
  // get_attr (a module constant the FX reader keeps as a buffer placeholder) is a placeholder too, so a plan
  // imported from FX text saves and loads back unchanged.
  if (op == "placeholder" || op == "get_attr") return NodeKind::Placeholder;
  if (op == "output") return NodeKind::Output;
  return NodeKind::Call;
}

void PlanBuilder::reserveNodes(size_t n) {
  plan_.graph.nodes.reserve(n);
  plan_.specs.reserve(n);
}

Node& PlanBuilder::beginNode(int* index) {
  auto& nodes = plan_.graph.nodes;
  nodes.emplace_back();
  pendingNode_ = static_cast<int>(nodes.size()) - 1;
  if (index) *index = pendingNode_;
  return nodes.back();
}

Result<bool> PlanBuilder::checkName(std::string_view name, const Where& w) const {
  if (name.empty()) return w("name").error("node names must not be empty");
  if (find(name) >= 0) return usedTwice(name, w);
  return true;
}

Error PlanBuilder::usedTwice(std::string_view name, const Where& w) {
  return w("name").error("node name '" + std::string(name) + "' is used twice");
}

Result<int> PlanBuilder::endNode(const Where& w) {
  const int i = pendingNode_;
  pendingNode_ = -1;
  const Node& n = plan_.graph.nodes[static_cast<size_t>(i)];
  if (n.name.empty()) return w("name").error("node names must not be empty");
  // Indexes the node (one probe for its name: or the earlier node that has it), its args final now.
  if (plan_.graph.indexNext() >= 0) return usedTwice(n.name, w);
  return i;
}

void PlanBuilder::setGraph(Graph g, const Where& w) {
  plan_.graph = std::move(g);
  namesIndexed_ = false;
  graphWhere_ = w;
  graphDone_ = false;
}

NodeSpecs& PlanBuilder::specsOf(int node) {
  if (static_cast<int>(plan_.specs.size()) <= node) plan_.specs.resize(static_cast<size_t>(node) + 1);
  return plan_.specs[static_cast<size_t>(node)];
}

// ---- Specs ---------------------------------------------------------------------------------------------------
namespace {
bool hasNegativeDim(const ShardingSpec& s) {
  for (const auto& p : s.placements)
    if (p.isShard() && p.dim < 0) return true;
  return false;
}
Error specError(std::string_view text, const Error& e, const Where& w) {
  return w.error("\"" + std::string(text) + "\": " + e.toString());
}
}  // namespace

void PlanBuilder::noteNegative(const ShardingSpec& s) { anyNegative_ = anyNegative_ || hasNegativeDim(s); }

Result<const ShardingSpec*> PlanBuilder::parseSpec(std::string_view text, const Where& w) {
  if (auto it = specCache_.find(text); it != specCache_.end()) return &it->second;
  ParseContext ctx{&plan_.mesh, -1, true};
  auto s = ss::parseSpec(text, ctx);
  if (!s) return specError(text, s.error(), w);
  noteNegative(*s);
  return &specCache_.emplace(text, std::move(*s)).first->second;
}

Result<const SpecTuple*> PlanBuilder::parseTuple(std::string_view text, const Where& w) {
  if (auto it = tupleCache_.find(text); it != tupleCache_.end()) return &it->second;
  SpecTuple parsed;
  if (text == "None") {
    parsed = {std::nullopt};
  } else {
    ParseContext ctx{&plan_.mesh, -1, true};
    auto r = parseSpecTuple(text, ctx);
    if (!r) return specError(text, r.error(), w);
    parsed = std::move(*r);
    for (const auto& s : parsed)
      if (s) noteNegative(*s);
  }
  return &tupleCache_.emplace(text, std::move(parsed)).first->second;
}

void PlanBuilder::setOutputSpec(int node, int k, std::optional<ShardingSpec> s) {
  auto& outs = specsOf(node).outputs;
  if (static_cast<int>(outs.size()) <= k) outs.resize(static_cast<size_t>(k) + 1);
  outs[static_cast<size_t>(k)] = std::move(s);
}

void PlanBuilder::setInputSpec(int node, int k, std::optional<ShardingSpec> s) {
  auto& ins = specsOf(node).inputs;
  if (static_cast<int>(ins.size()) <= k) ins.resize(static_cast<size_t>(k) + 1);
  ins[static_cast<size_t>(k)] = std::move(s);
}

// ---- Redistributes -------------------------------------------------------------------------------------------
Result<bool> PlanBuilder::addRedistribute(int node, int64_t input, ShardingSpec from, ShardingSpec to, const Where& w) {
  if (node < 0 || node >= plan_.graph.size()) return w("node").error("unknown node");
  const size_t inputs = plan_.graph.inputs(node).size();
  if (input < 0 || input >= static_cast<int64_t>(inputs))
    return w("input").error("'" + plan_.graph.nodes[static_cast<size_t>(node)].name + "' has " + std::to_string(inputs) +
                            " tensor inputs");
  noteNegative(from);
  noteNegative(to);
  plan_.redistributes.push_back(Redistribute{node, static_cast<int>(input), std::move(from), std::move(to)});
  return true;
}

// ---- Finish --------------------------------------------------------------------------------------------------
Result<bool> PlanBuilder::finishGraph() {
  if (graphDone_) return true;
  // Indexed as the nodes came (endNode), unless the graph was handed over whole or changed since.
  if (!namesIndexed_ || !plan_.graph.indexed()) plan_.graph.reindex();
  if (std::string bad = plan_.graph.validate(); !bad.empty())
    return graphWhere_.error("the graph is not valid: " + bad);
  plan_.normalizeSpecs();
  graphDone_ = true;
  return true;
}

// A negative shard dim counts from the end of its tensor's dims (DTensor's Shard(-1)); one that stays negative
// (rank unknown, or past the rank) is a finding (validateSpec: "is negative").
void PlanBuilder::resolveNegative() {
  auto fix = [](std::optional<ShardingSpec>& s, int rank) {
    if (!s || rank < 0) return;
    for (auto& p : s->placements)
      if (p.isShard() && p.dim < 0 && p.dim + rank >= 0) p.dim += rank;
  };
  const Graph& g = plan_.graph;
  for (int i = 0; i < g.size(); ++i) {
    const Node& n = g.nodes[static_cast<size_t>(i)];
    auto& sp = plan_.specs[static_cast<size_t>(i)];
    for (size_t k = 0; k < sp.outputs.size(); ++k)
      fix(sp.outputs[k], k < n.outputs.size() && n.outputs[k].known ? n.outputs[k].rank() : -1);
    const auto& ins = g.inputs(i);
    for (size_t k = 0; k < sp.inputs.size() && k < ins.size(); ++k) {
      const TensorMeta* m = g.meta(ins[k]);
      fix(sp.inputs[k], m && m->known ? m->rank() : -1);
    }
  }
  for (auto& r : plan_.redistributes) {
    const TensorMeta* m = g.meta(g.inputs(r.node)[static_cast<size_t>(r.input)]);
    const int rank = m && m->known ? m->rank() : -1;
    std::optional<ShardingSpec> from = std::move(r.from), to = std::move(r.to);
    fix(from, rank);
    fix(to, rank);
    r.from = std::move(*from);
    r.to = std::move(*to);
  }
}

Result<Plan> PlanBuilder::finish() {
  if (auto g = finishGraph(); !g) return g.error();
  plan_.normalizeSpecs();
  plan_.deriveGradientOutputs();
  if (anyNegative_) resolveNegative();
  std::stable_sort(plan_.redistributes.begin(), plan_.redistributes.end(),
                   [](const Redistribute& a, const Redistribute& b) { return std::pair(a.node, a.input) < std::pair(b.node, b.input); });
  // finishGraph validated the graph, which nothing changes after it; a spec count off is a builder bug, never input.
  if (std::string bad = plan_.validateSpecCounts(); !bad.empty()) return Error{bad};
  return std::move(plan_);
}

}  // namespace ss
