// autoparallel's solution export (`ShardingOptimizer.get_json()`, autoparallel/export_json.py):
//   {"mesh": {"shape": [2, 4], "dim_names": ["dp", "tp"] | null},
//    "nodes": [{"name", "op", "phase", "placement", "inputs": [{"name", "src_placement", "dst_placement",
//               "comm_cost"[, "transition_cost"]}], "compute_cost"[, "transition_cost"], "dtype", "shape",
//               "placeholder_kind", "source": {file, line, func, code}, "module_path",
//               "ac_region": {"id", "type"}, "cluster_id", "cluster_root"}, ...,
//              {"name": "output", "op": "output", "inputs": [{"name"}]}],
//    "summary": {"total", "comm", "compute", "transition"}}
// The export has no op arguments: call nodes get their inputs as plain tensor args (input index = position in
// "inputs"), so the plan checks and shows but does not run. Keys other than these are refused (a misspelt key
// would silently drop what it holds), except at the top level, where a newer export may add sections. dst_placement
// becomes the input spec (null or absent = as produced, and written back as null); no
// Redistribute is invented (the export does not say which transitions were applied: that is the bug class the
// checker finds). getitem's tuple index is recovered by matching src_placement against the tuple's outputs.
#include <limits>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/io/autoparallel/keys.h"
#include "core/io/formats.h"
#include "core/io/json_util.h"
#include "core/io/native/plan_json.h"
#include "core/model/limits.h"
#include "core/model/placement_parse.h"
#include "core/model/plan_builder.h"

namespace ss {

namespace ak = autoparallel_keys;
namespace {

using nlohmann::json;
using namespace jsonutil;

std::string specString(const std::optional<ShardingSpec>& s) { return s ? s->toMeshString() : "None"; }

std::string outputsString(const std::vector<std::optional<ShardingSpec>>& outs) {
  if (outs.size() == 1) return specString(outs[0]);
  std::string s = "(";
  for (size_t i = 0; i < outs.size(); ++i) s += (i ? ", " : "") + specString(outs[i]);
  return s + ")";
}


// The keys of autoparallel/export_json.py (plus this writer's transition_cost and placeholder_kind). Any other key
// is refused: a misspelt one would silently drop what it holds (K6 in docs/reliability.md).
constexpr const char* kNodeKeys[] = {ak::name, ak::op, ak::phase, ak::placement, ak::inputs, ak::compute_cost, ak::transition_cost,
                                     ak::dtype, ak::shape, ak::placeholder_kind, ak::source, ak::module_path, ak::ac_region,
                                     ak::cluster_id, ak::cluster_root};
constexpr const char* kEdgeKeys[] = {ak::name, ak::src_placement, ak::dst_placement, ak::comm_cost, ak::transition_cost};
constexpr const char* kMeshKeys[] = {ak::shape, ak::dim_names};
constexpr const char* kSourceKeys[] = {ak::file, ak::line, ak::func, ak::code};
constexpr const char* kAcRegionKeys[] = {ak::id, ak::type};
constexpr const char* kSummaryKeys[] = {ak::total, ak::comm, ak::compute, ak::transition};

template <size_t N>
Result<bool> checkKeys(const json& obj, const char* const (&keys)[N], const std::string& ptr) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool known = false;
    for (const char* k : keys) known |= it.key() == k;
    if (known) continue;
    std::string expected;
    for (const char* k : keys) expected += (expected.empty() ? "" : ", ") + std::string(k);
    return Error::atPointer("unknown key (expected " + expected + ")", ptr + "/" + escapePointerToken(it.key()));
  }
  return true;
}

}  // namespace

// A node's output specs (its placement; the count of outputs) and the first output's meta.
Result<bool> readNodeOutputs(const json& nj, const std::string& ptr, const Where& where, PlanBuilder& b, Node& n,
                             NodeSpecs& specs) {
  // placement -> output specs (also fixes the output count)
  if (n.kind == NodeKind::Output) return true;
  if (const json* pl = member(nj, ak::placement)) {
    auto s = readPlacementTuple(*pl, b, where(ak::placement));
    if (!s) return s.error();
    specs.outputs = **s;
  } else {
    specs.outputs = {std::nullopt};
  }
  TensorMeta meta{{}, DType::Unknown, false};
  if (const json* sh = member(nj, ak::shape)) {
    if (!sh->is_array()) return typeError(ptr + "/shape", "an array of sizes", *sh);
    for (size_t k = 0; k < sh->size(); ++k)
      if (!(*sh)[k].is_number_integer())
        return typeError(ptr + "/shape/" + std::to_string(k), "an integer size (symbolic sizes are not supported)",
                         (*sh)[k]);
    // The native reader's limits (rank, sizes, elements), so the plan also saves and reloads natively.
    auto shape = shapeFromJson(*sh, ptr + "/shape");
    if (!shape) return shape.error();
    meta.known = true;
    meta.shape = std::move(*shape);
  }
  auto dt = getString(nj, ak::dtype, ptr, false);
  if (!dt) return dt.error();
  if (!dt->empty()) {
    meta.dtype = dtypeFromName(*dt);
    if (meta.dtype == DType::Unknown) return Error::atPointer("unknown dtype '" + *dt + "'", ptr + "/dtype");
  }
  n.outputs.assign(specs.outputs.size(), TensorMeta{{}, DType::Unknown, false});
  n.outputs[0] = meta;  // the export gives the first tensor's shape for tuple outputs
  return true;
}

// A node's input edges: tensor references into `refs`, their src_placement strings into `srcs`, the declared
// dst_placement as input specs, and the solver's per-edge costs.
Result<bool> readNodeInputs(const json& nj, const std::string& ptr, const Where& where, size_t i, PlanBuilder& b,
                            std::vector<Arg>& refs, std::vector<std::string>& srcs, NodeSpecs& specs) {
  Plan& plan = b.plan();
  if (const json* ins = member(nj, ak::inputs)) {
    if (!ins->is_array()) return typeError(ptr + "/inputs", "an array of input edges", *ins);
    // The edges list every input node, also those without a strategy, which the export does not list as nodes:
    // symbolic scalars (`sym_size_int`, SymInt getitems) and higher-order ops' subgraph get_attr nodes
    // (`sdpa_score0`, `local_map_body0`); their src_placement is null. They are no tensor edge of the plan.
    // autoparallel (a54c252, export_json.py) takes edge k's dst_placement and costs from the solver's k-th
    // decision, but the solver numbers only the inputs that have a strategy (ShardingOptimizer._all_input_nodes):
    // with such an input in the list, the k-th kept edge's dst and costs are those written at position k.
    size_t kept = 0;  // edges from listed nodes (their names and src_placement, in order)
    for (size_t k = 0; k < ins->size(); ++k) {
      const json& e = (*ins)[k];
      std::string eptr = ptr + "/inputs/" + std::to_string(k);
      if (!e.is_object()) return typeError(eptr, "an input edge object", e);
      if (auto ok = checkKeys(e, kEdgeKeys, eptr); !ok) return ok.error();
      auto src = getString(e, ak::name, eptr, true);
      if (!src) return src.error();
      auto sp = getString(e, ak::src_placement, eptr, false);
      if (!sp) return sp.error();
      const int srcNode = b.find(*src);
      if (srcNode < 0) {
        if (sp->empty()) continue;
        return Error::atPointer("unknown node '" + *src + "' (inputs must name nodes listed before)", eptr + "/name");
      }
      ++kept;
      refs.push_back(Arg::tensor({srcNode, 0}));
      srcs.push_back(*sp);
    }
    for (size_t k = 0; k < kept; ++k) {  // the k-th kept edge: its decision is written at position k
      const json& e = (*ins)[k];
      std::string eptr = ptr + "/inputs/" + std::to_string(k);
      std::optional<ShardingSpec> dst;
      if (const json* d = member(e, ak::dst_placement)) {
        auto s = readPlacementTuple(*d, b, where(ak::inputs, static_cast<int64_t>(k))(ak::dst_placement));
        if (!s) return s.error();
        if ((*s)->size() != 1) return Error::atPointer("an input takes one spec, not a tuple", eptr + "/dst_placement");
        dst = (**s)[0];
      }
      specs.inputs.push_back(dst);
      auto comm = getNumber(e, ak::comm_cost, eptr);
      if (!comm) return comm.error();
      auto trans = getNumber(e, ak::transition_cost, eptr);
      if (!trans) return trans.error();
      if (*comm || *trans)
        plan.edgeCosts[{static_cast<int>(i), static_cast<int>(k)}] = {comm->value_or(0.0), trans->value_or(0.0)};
    }
  }
  return true;
}

// getitem: which tuple element? Match src_placement against the tuple's outputs, in order after the previous
// getitem of the same tuple; else the next index. Gives the tuple the getitem's meta for that element.
Result<bool> resolveGetitem(const std::string& ptr, const std::vector<std::string>& srcs, Plan& plan,
                            std::unordered_map<int, int>& lastGetitem, Node& n) {
  Graph& g = plan.graph;
  if (n.args.size() != 1) return Error::atPointer("getitem takes exactly one input", ptr + "/inputs");
  int src = n.args[0].t.node;
  const auto& outs = plan.specs[src].outputs;
  int idx = -1;
  auto last = lastGetitem.find(src);
  int start = last == lastGetitem.end() ? 0 : last->second + 1;
  for (int pass = 0; pass < 2 && idx < 0; ++pass)
    for (int k = pass == 0 ? start : 0; k < static_cast<int>(outs.size()); ++k)
      if (!srcs[0].empty() && specString(outs[k]) == srcs[0]) {
        idx = k;
        break;
      }
  if (idx < 0) idx = std::min<int>(start, std::max<int>(0, static_cast<int>(outs.size()) - 1));
  n.args[0].t.output = idx;
  n.args.push_back(Arg::integer(idx));
  lastGetitem[src] = idx;
  Node& tuple = g.nodes[src];
  if (static_cast<int>(tuple.outputs.size()) <= idx) tuple.outputs.resize(idx + 1, TensorMeta{{}, DType::Unknown, false});
  if (!tuple.outputs[idx].known && !n.outputs.empty()) tuple.outputs[idx] = n.outputs[0];
  return true;
}

// The rest of a node: phase, placeholder kind (guessed from the name and dtype when absent), module path, source,
// costs, cluster and activation-checkpointing region.
Result<bool> readNodeFacts(const json& nj, const std::string& ptr, Node& n) {
  auto phase = getString(nj, ak::phase, ptr, false);
  if (!phase) return phase.error();
  n.phase = phase->empty() ? Phase::Unknown : phaseFromName(*phase);
  auto pk = getString(nj, ak::placeholder_kind, ptr, false);
  if (!pk) return pk.error();
  if (n.kind == NodeKind::Placeholder) {
    if (!pk->empty()) {
      n.placeholderKind = placeholderKindFromName(*pk);
    } else {
      DType d = n.outputs[0].dtype;
      bool intLike = d == DType::I64 || d == DType::I32 || d == DType::Bool;
      n.placeholderKind = n.name.rfind(ak::tangents, 0) == 0 ? PlaceholderKind::Tangent
                          : intLike                        ? PlaceholderKind::Input
                                                           : PlaceholderKind::Param;
    }
  }
  auto mp = getString(nj, ak::module_path, ptr, false);
  if (!mp) return mp.error();
  n.modulePath = *mp;
  if (const json* src = member(nj, ak::source)) {
    if (!src->is_object()) return typeError(ptr + "/source", "an object", *src);
    if (auto ok = checkKeys(*src, kSourceKeys, ptr + "/source"); !ok) return ok.error();
    auto f = getString(*src, ak::file, ptr + "/source", false);
    auto fn = getString(*src, ak::func, ptr + "/source", false);
    auto code = getString(*src, ak::code, ptr + "/source", false);
    auto line = getIntIn(*src, ak::line, ptr + "/source", 0, std::numeric_limits<int>::max());
    if (!f) return f.error();
    if (!fn) return fn.error();
    if (!code) return code.error();
    if (!line) return line.error();
    n.source = SourceLoc{*f, static_cast<int>(line->value_or(0)), *fn, *code};
  }
  auto cc = getNumber(nj, ak::compute_cost, ptr);
  if (!cc) return cc.error();
  n.computeCost = cc->value_or(-1);
  auto tc = getNumber(nj, ak::transition_cost, ptr);
  if (!tc) return tc.error();
  n.transitionCost = tc->value_or(-1);
  auto cid = getIntIn(nj, ak::cluster_id, ptr, -1, std::numeric_limits<int>::max());
  if (!cid) return cid.error();
  n.clusterId = static_cast<int>(cid->value_or(-1));
  if (const json* ac = member(nj, ak::ac_region)) {
    // {"id": 3, "type": "PREFER_RECOMPUTE"} -> "3:PREFER_RECOMPUTE"
    if (ac->is_object()) {
      if (auto ok = checkKeys(*ac, kAcRegionKeys, ptr + "/ac_region"); !ok) return ok.error();
      auto id = getInt(*ac, ak::id, ptr + "/ac_region");
      if (!id) return id.error();
      auto type = getString(*ac, ak::type, ptr + "/ac_region", false);
      if (!type) return type.error();
      n.acRegion = (*id ? std::to_string(**id) : std::string()) + (type->empty() ? "" : ":" + *type);
    } else if (ac->is_number_integer()) {
      n.acRegion = std::to_string(ac->get<int64_t>());
    } else if (ac->is_string()) {
      n.acRegion = ac->get<std::string>();
    } else {
      return typeError(ptr + "/ac_region", "an object {\"id\", \"type\"}, an integer or a string", *ac);
    }
  }
  return true;
}

// The solver's cost summary, when the export has one.
Result<bool> readSummary(const json& j, Plan& plan) {
  if (const json* s = member(j, ak::summary)) {
    if (!s->is_object()) return typeError("/summary", "an object", *s);
    if (auto ok = checkKeys(*s, kSummaryKeys, "/summary"); !ok) return ok.error();
    auto t = getNumber(*s, ak::total, "/summary");
    auto c = getNumber(*s, ak::comm, "/summary");
    auto cp = getNumber(*s, ak::compute, "/summary");
    auto tr = getNumber(*s, ak::transition, "/summary");
    if (!t) return t.error();
    if (!c) return c.error();
    if (!cp) return cp.error();
    if (!tr) return tr.error();
    plan.summary = CostSummary{t->value_or(-1), c->value_or(-1), cp->value_or(-1), tr->value_or(-1)};
  }
  return true;
}

Result<Plan> readAutoparallelJson(const json& j) {
  if (!j.is_object()) return typeError("", "a JSON object (autoparallel get_json export)", j);
  const json* meshJ = member(j, ak::mesh);
  if (!meshJ) return missingKey("", ak::mesh);
  if (!meshJ->is_object()) return typeError("/mesh", "an object {\"shape\", \"dim_names\"}", *meshJ);
  if (auto ok = checkKeys(*meshJ, kMeshKeys, "/mesh"); !ok) return ok.error();
  PlanBuilder b(PlanFormat::AutoparallelJson);
  if (auto m = readMesh(member(*meshJ, ak::shape), member(*meshJ, ak::dim_names), Where(ak::mesh), Where(ak::mesh)(ak::shape),
                        Where(ak::mesh)(ak::dim_names), b);
      !m)
    return m.error();
  const json* nodesJ = member(j, ak::nodes);
  if (!nodesJ) return missingKey("", ak::nodes);
  if (!nodesJ->is_array()) return typeError("/nodes", "an array", *nodesJ);
  if (static_cast<int64_t>(nodesJ->size()) > limits::kMaxGraphNodes) return Error::atPointer("too many nodes", "/nodes");

  Plan& plan = b.plan();
  plan.name = ak::autoparallel;
  Graph& g = plan.graph;
  std::unordered_map<int, int> lastGetitem;  // tuple node -> index its latest getitem took
  b.reserveNodes(nodesJ->size());

  for (size_t i = 0; i < nodesJ->size(); ++i) {
    const json& nj = (*nodesJ)[i];
    std::string ptr = "/nodes/" + std::to_string(i);
    const Where where(ak::nodes, static_cast<int64_t>(i));
    if (!nj.is_object()) return typeError(ptr, "a node object", nj);
    if (auto ok = checkKeys(nj, kNodeKeys, ptr); !ok) return ok.error();
    auto name = getString(nj, ak::name, ptr, true);
    if (!name) return name.error();
    auto op = getString(nj, ak::op, ptr, true);
    if (!op) return op.error();
    if (auto ok = b.checkName(*name, where); !ok) return ok.error();
    Node n;
    n.name = *name;
    NodeSpecs specs;
    n.kind = PlanBuilder::kindOfOp(*op);
    n.op = ak::opFromExport(*op);
    if (auto ok = readNodeOutputs(nj, ptr, where, b, n, specs); !ok) return ok.error();
    std::vector<Arg> refs;
    std::vector<std::string> srcs;
    if (auto ok = readNodeInputs(nj, ptr, where, i, b, refs, srcs, specs); !ok) return ok.error();
    if (n.kind == NodeKind::Output) {
      n.args = {Arg::list(std::move(refs))};
    } else if (n.kind == NodeKind::Call) {
      n.args = std::move(refs);
    } else if (!refs.empty()) {
      return Error::atPointer("a placeholder has no inputs", ptr + "/inputs");
    }
    if (n.op == "operator.getitem")
      if (auto ok = resolveGetitem(ptr, srcs, plan, lastGetitem, n); !ok) return ok.error();
    if (auto ok = readNodeFacts(nj, ptr, n); !ok) return ok.error();
    b.beginNode() = std::move(n);
    if (auto done = b.endNode(where); !done) return done.error();
    b.specsOf(static_cast<int>(i)) = std::move(specs);
  }
  if (auto ok = readSummary(j, plan); !ok) return ok.error();
  // The export gives the output node no phase: it ends the backward when there is one.
  bool anyBackward = false;
  for (const auto& n : g.nodes) anyBackward |= n.phase == Phase::Backward;
  for (auto& n : g.nodes)
    if (n.kind == NodeKind::Output && n.phase == Phase::Unknown) n.phase = anyBackward ? Phase::Backward : Phase::Forward;
  // Shard dims past a tensor's rank and specs with the wrong placement count are findings (Plan::validate),
  // at the node and input, as in a native plan.
  return b.finish();
}

json writeAutoparallelJson(const Plan& plan) {
  const Graph& g = plan.graph;
  json meshJ = {{ak::shape, plan.mesh.shape()}};
  meshJ[ak::dim_names] = plan.mesh.hasNames() ? json(plan.mesh.dimNames()) : json(nullptr);
  // cluster roots: the first node of each cluster (the export links later nodes to a root)
  std::unordered_map<int, int> clusterRoot;
  for (int i = 0; i < g.size(); ++i)
    if (g.nodes[i].clusterId >= 0) clusterRoot.emplace(g.nodes[i].clusterId, i);
  json nodes = json::array();
  double compute = 0, comm = 0, transition = 0;
  std::vector<TensorRef> refs;
  for (int i = 0; i < g.size(); ++i) {
    const Node& n = g.nodes[i];
    refs.clear();
    collectTensorRefs(n, refs);
    if (n.kind == NodeKind::Output) {
      json ins = json::array();
      for (auto& r : refs) ins.push_back({{ak::name, g.nodes[r.node].name}});
      nodes.push_back({{ak::name, n.name}, {ak::op, "output"}, {ak::inputs, ins}});
      continue;
    }
    const NodeSpecs& sp = plan.specs.at(i);
    json e;
    e[ak::name] = n.name;
    e[ak::op] = n.kind == NodeKind::Placeholder ? (n.op == "get_attr" ? "get_attr" : "placeholder")
                                              : ak::opToExport(n.op);
    e[ak::phase] = n.phase == Phase::Unknown ? "forward" : phaseName(n.phase);
    e[ak::placement] = outputsString(sp.outputs.empty() ? std::vector<std::optional<ShardingSpec>>{std::nullopt} : sp.outputs);
    json ins = json::array();
    for (size_t k = 0; k < refs.size(); ++k) {
      json edge;
      edge[ak::name] = g.nodes[refs[k].node].name;
      auto src = plan.producerSpec(i, static_cast<int>(k));
      // The input spec as read: an absent one stays null (not the producer's spec), so export and re-read give
      // the same specs.
      const auto& dst = k < sp.inputs.size() ? sp.inputs[k] : std::nullopt;
      edge[ak::src_placement] = src ? json(src->toMeshString()) : json(nullptr);
      edge[ak::dst_placement] = dst ? json(dst->toMeshString()) : json(nullptr);
      auto c = plan.edgeCosts.find({i, static_cast<int>(k)});
      double cc = c != plan.edgeCosts.end() ? c->second.first : 0.0;
      edge[ak::comm_cost] = cc;
      comm += cc;
      if (c != plan.edgeCosts.end()) edge[ak::transition_cost] = c->second.second;
      ins.push_back(std::move(edge));
    }
    e[ak::inputs] = std::move(ins);
    e[ak::compute_cost] = n.computeCost >= 0 ? n.computeCost : 0.0;
    compute += std::max(0.0, n.computeCost);
    if (n.transitionCost >= 0) {
      e[ak::transition_cost] = n.transitionCost;
      transition += n.transitionCost;
    }
    if (!n.outputs.empty() && n.outputs[0].known) {
      if (n.outputs[0].dtype != DType::Unknown) {
        std::string dt = dtypeTorchName(n.outputs[0].dtype);
        e[ak::dtype] = dt.rfind("torch.", 0) == 0 ? dt.substr(6) : dt;
      }
      e[ak::shape] = n.outputs[0].shape;
    }
    if (n.kind == NodeKind::Placeholder && n.placeholderKind != PlaceholderKind::None)
      e[ak::placeholder_kind] = placeholderKindName(n.placeholderKind);
    if (!n.source.file.empty())
      e[ak::source] = {{ak::file, n.source.file}, {ak::line, n.source.line}, {ak::func, n.source.func}, {ak::code, n.source.code}};
    if (!n.modulePath.empty()) e[ak::module_path] = n.modulePath;
    if (!n.acRegion.empty()) {
      size_t colon = n.acRegion.find(':');
      std::string id = n.acRegion.substr(0, colon);
      json ac;
      bool numeric = !id.empty() && id.find_first_not_of("0123456789") == std::string::npos;
      ac[ak::id] = numeric ? json(std::stoll(id)) : json(id);
      ac[ak::type] = colon == std::string::npos ? json(nullptr) : json(n.acRegion.substr(colon + 1));
      e[ak::ac_region] = std::move(ac);
    }
    if (n.clusterId >= 0) {
      e[ak::cluster_id] = n.clusterId;
      int root = clusterRoot.at(n.clusterId);
      if (root != i) e[ak::cluster_root] = g.nodes[root].name;
    }
    nodes.push_back(std::move(e));
  }
  json summary;
  if (plan.summary.total >= 0) {
    summary = {{ak::total, plan.summary.total}, {ak::comm, plan.summary.comm}, {ak::compute, plan.summary.compute},
               {ak::transition, plan.summary.transition}};
  } else {
    summary = {{ak::total, compute + comm + transition}, {ak::comm, comm}, {ak::compute, compute}, {ak::transition, transition}};
  }
  return json{{ak::mesh, meshJ}, {ak::nodes, std::move(nodes)}, {ak::summary, summary}};
}

}  // namespace ss
