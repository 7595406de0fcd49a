#include "core/io/autoparallel/artifacts.h"

#include <map>
#include <unordered_map>
#include <unordered_set>

#include "core/io/formats.h"
#include "core/io/file.h"
#include "core/model/placement_parse.h"

namespace ss {

Error ArtifactText::locate(const Error& e) const {
  if (columnShift == 0) return Error{e.toString(file)};  // a separate file: the message names it
  if (e.line > 0) return Error{e.message + " (in " + name + ")", firstLine + e.line - 1, (e.column > 0 ? e.column : 1) + columnShift};
  if (!e.pointer.empty()) return Error{name + " " + e.pointer + ": " + e.message, firstLine, 1 + columnShift};
  return Error{name + ": " + e.message, firstLine, 1 + columnShift};
}

Result<AutoparallelArtifacts> artifactsFromTraceLog(const TraceLog& log) {
  AutoparallelArtifacts a;
  a.rank = log.rank;
  a.source = log.file;
  auto take = [&](const char* name, std::optional<ArtifactText>& slot) {
    if (const TraceRecord* r = log.artifact(name); r && r->kept)
      slot = ArtifactText{r->payload, log.file, r->payloadLine, 1, name};
  };
  take(kJointGraphArtifact, a.joint);
  take(kOptimizerLogArtifact, a.optimizerLog);
  take(kSolutionArtifact, a.solution);
  take(kAppliedGraphArtifact, a.applied);
  if (const TraceRecord* r = log.artifact(kTorchVersionArtifact); r && r->kept) {
    const nlohmann::json v = nlohmann::json::parse(r->payload, nullptr, false);
    if (!v.is_object() || !v.contains("pytorch_version") || !v["pytorch_version"].is_string())
      return Error{std::string(kTorchVersionArtifact) + ": expected {\"pytorch_version\": \"...\"}", r->payloadLine, 1};
    a.torchVersion = v["pytorch_version"].get<std::string>();
  }
  // A log of a compile without autoparallel (DeepSpeed AutoSP's, say): the aten joint graph AOT autograd
  // compiled is the graph, checked alone (the last such record: a recompile writes it again).
  if (!a.joint && !a.optimizerLog && !a.solution && !a.applied) {
    const TraceRecord* last = nullptr;
    for (const TraceRecord& r : log.records)
      if (r.kind == kAotJointGraphRecord && r.kept) last = &r;
    if (last) a.joint = ArtifactText{last->payload, log.file, last->payloadLine, 1, kAotJointGraphRecord};
  }
  if (!a.joint && !a.optimizerLog && !a.solution && !a.applied)
    return Error{std::string("a TORCH_TRACE log with no graph to read (expected autoparallel's ") + kJointGraphArtifact +
                 ", " + kSolutionArtifact + ", " + kOptimizerLogArtifact + " or " + kAppliedGraphArtifact +
                 ", or torch's " + kAotJointGraphRecord + "; " + std::to_string(log.records.size()) +
                 " records of other kinds)"};
  return a;
}

bool placementsNotInLog(const AutoparallelArtifacts& a) {
  return a.joint && a.joint->name == kJointGraphArtifact && !a.solution && !a.optimizerLog;
}

std::string placementsNotInLogMessage(const std::string& log) {
  return log + ": holds no plan (autoparallel's joint graph without " + kSolutionArtifact + " or " +
         kOptimizerLogArtifact + ": a run that loaded its placements with load_placements); give the placements "
         "file it loaded: shardscope check " + log + " --placements FILE";
}

namespace {

void copyNodeExtras(Node& to, const Node& from) {
  if (to.phase == Phase::Unknown) to.phase = from.phase;
  if (to.kind == NodeKind::Placeholder && from.placeholderKind != PlaceholderKind::None) to.placeholderKind = from.placeholderKind;
  if (to.modulePath.empty()) to.modulePath = from.modulePath;
  if (to.source.file.empty()) to.source = from.source;
  to.computeCost = from.computeCost;
  to.transitionCost = from.transitionCost;
  to.clusterId = from.clusterId;
  if (to.acRegion.empty()) to.acRegion = from.acRegion;
}

}  // namespace

Result<Plan> mergeJointAndSolution(const Plan& joint, const Plan& solution) {
  Plan p = joint;
  p.mesh = solution.mesh;
  p.sourceFormat = PlanFormat::AutoparallelJson;
  p.summary = solution.summary;
  p.edgeCosts.clear();
  p.redistributes.clear();
  if (p.name.empty()) p.name = solution.name;
  p.graph.reindex();
  p.normalizeSpecs();
  const Graph& sg = solution.graph;
  const Graph& jg = p.graph;
  std::vector<char> matched(jg.size(), 0);
  for (int j = 0; j < sg.size(); ++j) {
    const Node& sn = sg.nodes[j];
    const int i = jg.find(sn.name);
    if (i < 0) {
      if (sn.kind == NodeKind::Output) {
        if (jg.outputNode() >= 0) matched[jg.outputNode()] = 1;
        continue;
      }
      return Error{"the solution's node '" + sn.name + "' (" + sn.op + ") is not in the joint graph: the two are not of one run"};
    }
    matched[i] = 1;
    Node& jn = p.graph.nodes[i];
    copyNodeExtras(jn, sn);
    const NodeSpecs& ss = solution.specs[j];
    NodeSpecs& js = p.specs[i];
    for (size_t k = 0; k < js.outputs.size() && k < ss.outputs.size(); ++k) js.outputs[k] = ss.outputs[k];
    if (js.outputs.size() == 1 && ss.outputs.size() > 1 && jn.op == "operator.getitem") js.outputs[0] = ss.outputs[0];
    // Inputs: the k-th solution edge from producer X is the k-th joint input reading X.
    const auto& sIns = sg.inputs(j);
    const auto& jIns = jg.inputs(i);
    std::unordered_map<std::string, std::vector<int>> jByProducer;  // producer name -> joint input indices
    for (size_t m = 0; m < jIns.size(); ++m) jByProducer[jg.nodes[jIns[m].node].name].push_back(static_cast<int>(m));
    std::unordered_map<std::string, size_t> used;
    for (size_t k = 0; k < sIns.size(); ++k) {
      const std::string& prod = sg.nodes[sIns[k].node].name;
      auto it = jByProducer.find(prod);
      const size_t nth = used[prod]++;
      if (it == jByProducer.end() || nth >= it->second.size()) {
        if (sn.kind == NodeKind::Output) continue;  // an output the joint graph returns differently
        return Error{"the solution gives node '" + sn.name + "' an input from '" + prod +
                     "' that the joint graph's node does not read: the two are not of one run"};
      }
      const int m = it->second[nth];
      if (k < ss.inputs.size() && static_cast<size_t>(m) < js.inputs.size()) js.inputs[m] = ss.inputs[k];
      if (auto c = solution.edgeCosts.find({j, static_cast<int>(k)}); c != solution.edgeCosts.end())
        p.edgeCosts[{i, m}] = c->second;
    }
  }
  // Joint nodes the solution leaves out: a getitem takes its tuple element's spec.
  for (int i = 0; i < jg.size(); ++i) {
    if (matched[i]) continue;
    const Node& n = jg.nodes[i];
    if (n.op == "operator.getitem" && !n.args.empty() && n.args[0].isTensor()) {
      const TensorRef r = n.args[0].t;
      if (r.node >= 0 && r.node < i && r.output < static_cast<int>(p.specs[r.node].outputs.size()) && !p.specs[i].outputs.empty())
        p.specs[i].outputs[0] = p.specs[r.node].outputs[r.output];
    }
  }
  if (std::string v = p.validateStructure(); !v.empty()) return Error{"the solution does not fit the joint graph: " + v};
  return p;
}

namespace {

// The text of the graph in an optimizer log: up to the totals (which follow the code at indent 0).
std::string_view optimizerLogCode(std::string_view text) {
  size_t at = text.find("\ntotal_cost:");
  return at == std::string_view::npos ? text : text.substr(0, at + 1);
}

struct PlacementComment {
  std::string node;
  std::string strategy;
  int line = 0, column = 0;
};

// Every `# placement=<strategy> , cost=[...]` annotation: the node is the line's first name (or the name of a
// `# name:` placeholder comment).
std::vector<PlacementComment> placementComments(std::string_view code) {
  std::vector<PlacementComment> out;
  size_t pos = 0;
  int line = 0;
  while (pos < code.size()) {
    size_t end = code.find('\n', pos);
    if (end == std::string_view::npos) end = code.size();
    std::string_view l = code.substr(pos, end - pos);
    ++line;
    const size_t base = pos;
    pos = end + 1;
    const size_t at = l.find("# placement=");
    if (at == std::string_view::npos) continue;
    size_t s = l.find_first_not_of(' ');
    if (l.substr(s, 2) == "# ") s += 2;
    size_t e = s;
    while (e < l.size() && (std::isalnum(static_cast<unsigned char>(l[e])) || l[e] == '_')) ++e;
    if (e == s) continue;
    const size_t st = at + 12;
    size_t stEnd = l.find(" , cost=", st);
    if (size_t so = l.find(" shard_order=", st); so != std::string_view::npos && so < stEnd) stEnd = so;
    if (stEnd == std::string_view::npos) stEnd = l.size();
    out.push_back({std::string(l.substr(s, e - s)), std::string(l.substr(st, stEnd - st)), line, static_cast<int>(st + 1)});
    (void)base;
  }
  return out;
}

}  // namespace

Result<int> optimizerLogMeshDims(std::string_view text) {
  for (const auto& c : placementComments(optimizerLogCode(text))) {
    const size_t arrow = c.strategy.find("->");
    auto outs = parseSpecTuple(arrow == std::string::npos ? c.strategy : c.strategy.substr(arrow + 2));
    if (!outs) continue;
    for (const auto& o : *outs)
      if (o) return o->meshDims();
  }
  return Error::atLine("the optimizer log has no '# placement=' annotation", 1, 1);
}

Result<Plan> readOptimizerLog(std::string_view text, const DeviceMesh& mesh) {
  std::string_view code = optimizerLogCode(text);
  auto g = readFxText(code);
  if (!g) return g.error();
  Plan p = std::move(*g);
  p.mesh = mesh;
  p.sourceFormat = PlanFormat::AutoparallelJson;
  p.graph.reindex();
  p.normalizeSpecs();
  ParseContext ctx;
  ctx.mesh = &p.mesh;
  const std::vector<PlacementComment> comments = placementComments(code);
  // The nodes the solver placed. A strategy lists input specs for inputs from these only: an input from a node
  // without a placement (a symbolic scalar such as `sym_size_int` in `view(x, [sym_size_int, 64, -1, 48])`) has
  // none.
  std::unordered_set<std::string> placed;
  for (const auto& c : comments) placed.insert(c.node);
  for (const auto& c : comments) {
    const int i = p.graph.find(c.node);
    if (i < 0) continue;  // a name the reader folded away
    // A placeholder's strategy is its output spec alone ("RR"); an op's is "(in, ...) -> out".
    Result<StrategyLine> s = StrategyLine{};
    if (c.strategy.find("->") == std::string::npos) {
      auto outs = parseSpecTuple(c.strategy, ctx);
      if (outs) s = StrategyLine{{}, std::move(*outs)};
      else s = outs.error();
    } else {
      s = parseStrategy(c.strategy, ctx);
    }
    if (!s) return Error::atLine("placement of '" + c.node + "': " + s.error().message, c.line, c.column + std::max(0, s.error().column - 1));
    NodeSpecs& ns = p.specs[i];
    for (size_t k = 0; k < ns.outputs.size() && k < s->outputs.size(); ++k) ns.outputs[k] = s->outputs[k];
    std::vector<size_t> fromPlaced;  // input indices whose producer has a placement
    const auto& ins = p.graph.inputs(i);
    for (size_t k = 0; k < ins.size() && k < ns.inputs.size(); ++k)
      if (placed.count(p.graph.nodes[ins[k].node].name)) fromPlaced.push_back(k);
    // Placeholders, get_attr nodes and factories (no tensor input, or only symbolic scalars) carry one dummy
    // input spec equal to their output: `# placement=(RR) -> RR`.
    if (fromPlaced.empty() && s->inputs.size() == 1 && s->outputs.size() == 1 && s->inputs[0] == s->outputs[0]) continue;
    if (!s->inputs.empty()) {
      if (s->inputs.size() == ns.inputs.size()) {
        for (size_t k = 0; k < ns.inputs.size(); ++k) ns.inputs[k] = s->inputs[k];
      } else if (s->inputs.size() == fromPlaced.size()) {
        for (size_t k = 0; k < fromPlaced.size(); ++k) ns.inputs[fromPlaced[k]] = s->inputs[k];
      } else {
        return Error::atLine("placement of '" + c.node + "' lists " + std::to_string(s->inputs.size()) +
                                 " input specs; the node has " + std::to_string(ns.inputs.size()) + " tensor inputs",
                             c.line, c.column);
      }
    }
  }
  if (std::string v = p.validateStructure(); !v.empty()) return Error::atLine("the placements do not fit the graph: " + v, 1, 1);
  return p;
}

Result<Plan> planFromArtifacts(const AutoparallelArtifacts& a, const std::optional<DeviceMesh>& mesh) {
  std::optional<Plan> solution;
  if (a.solution) {
    auto j = parseJsonText(a.solution->text);
    if (!j) return a.solution->locate(j.error());
    auto s = readAutoparallelJson(*j);
    if (!s) return a.solution->locate(s.error());
    solution = std::move(*s);
  }
  if (a.joint && solution) {
    auto g = readFxText(a.joint->text);
    if (!g) return a.joint->locate(g.error());
    auto p = mergeJointAndSolution(*g, *solution);
    if (!p) {
      if (a.joint->columnShift) return Error{p.error().message, a.joint->firstLine - 1, 1};
      return Error{a.joint->file + " + " + a.solution->file + ": " + p.error().message};
    }
    return p;
  }
  if (a.optimizerLog && !solution) {
    std::optional<DeviceMesh> m = mesh;
    if (!m) {
      auto nd = optimizerLogMeshDims(a.optimizerLog->text);
      if (!nd) return a.optimizerLog->locate(nd.error());
      return a.optimizerLog->locate(Error{"the optimizer log gives placements on a " + std::to_string(*nd) +
                                          "-dim mesh but not its sizes: pass --mesh (e.g. --mesh 2x4)"});
    }
    auto p = readOptimizerLog(a.optimizerLog->text, *m);
    if (!p) return a.optimizerLog->locate(p.error());
    return p;
  }
  if (solution) return std::move(*solution);
  if (a.joint) {
    auto g = readFxText(a.joint->text);
    if (!g) return a.joint->locate(g.error());
    return g;
  }
  return Error{"no plan: the log has an applied graph but neither a joint graph, a solution nor an optimizer log"};
}

}  // namespace ss
