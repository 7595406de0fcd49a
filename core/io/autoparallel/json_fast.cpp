// Fast autoparallel export reader: builds the Plan straight from a simdjson DOM, no nlohmann DOM.
//
// Contract (formats.h): for every input it either returns exactly the Plan readAutoparallelJson(json::parse(text))
// returns, or an Error without location. loadPlanText then falls back to the nlohmann reader, which words the
// located message. So this reader is strict: an unknown key anywhere (the DOM reader refuses them in nodes and
// edges, and ignores them elsewhere: declining covers both), a duplicate key, a type or number it is not sure
// nlohmann reads the same, an invalid graph or a shard dim past a tensor's rank make it give up, never guess.
//
// Both readers make the Plan through one PlanBuilder (node names and kinds, the mesh, specs, every rule of a valid
// plan: a shard dim past its tensor's rank is a finding there, not a refusal). What stays here is the export's
// syntax, read as autoparallel_json.cpp reads it (fuzz_autoparallel_json holds the two readers to each other):
// null means absent for every key; an output node's placement, shape and dtype are not read; a getitem's tuple
// index is matched on src_placement; edge costs are kept when either is present; the output node's phase follows
// the graph.
#include <limits>
#include <optional>
#include <unordered_map>

#include "core/io/autoparallel/keys.h"
#include "core/io/formats.h"
#include "core/io/native/plan_json.h"
#include "core/io/native/simdjson_util.h"
#include "core/model/limits.h"
#include "core/model/plan_builder.h"

namespace ss {

namespace ak = autoparallel_keys;

namespace {

using namespace sjutil;

constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

using SpecTuple = std::vector<std::optional<ShardingSpec>>;

std::string specString(const std::optional<ShardingSpec>& s) { return s ? s->toMeshString() : "None"; }

class ApFastReader {
 public:
  bool read(element root, Plan& out);

 private:
  bool readMesh(element e, Plan& p);
  bool readNode(element e, int i, Plan& p);
  bool readEdges(element e, int i, Node& n, NodeSpecs& specs, std::string_view& firstSrc, Plan& p);
  bool readSource(element e, Node& n);
  bool readAcRegion(element e, Node& n);
  bool readSummary(element e, Plan& p);
  bool specs(element e, const SpecTuple*& out);

  PlanBuilder b_{PlanFormat::AutoparallelJson};
  std::unordered_map<int, int> lastGetitem_;  // tuple node -> index its latest getitem took
};

// A placement string: one spec, a tuple "(RS(0), None)" or "None" (the builder parses each distinct one once).
bool ApFastReader::specs(element e, const SpecTuple*& out) {
  std::string_view text;
  if (!asString(e, text)) return false;
  auto r = b_.parseTuple(text, Where{});
  if (!r) return false;
  out = *r;
  return true;
}

bool ApFastReader::readMesh(element e, Plan& p) {
  static constexpr std::string_view keys[] = {ak::shape, ak::dim_names};
  const element* f[2];
  element store[2];
  if (!members(e, keys, f, store, /*refuseUnknown=*/true)) return false;
  if (!f[0] || f[0]->type() != element_type::ARRAY) return false;
  std::vector<int64_t> shape;
  for (element v : sj::dom::array(*f[0])) {
    int64_t d = 0;
    if (!optInt(&v, d, 0, kI64Min, kI64Max) || isNull(v)) return false;
    shape.push_back(d);
  }
  std::vector<std::string> names;
  if (f[1] && !isNull(*f[1])) {
    if (f[1]->type() != element_type::ARRAY) return false;
    for (element v : sj::dom::array(*f[1])) {
      std::string_view s;
      if (!asString(v, s)) return false;
      names.emplace_back(s);
    }
  }
  (void)p;
  return static_cast<bool>(b_.setMesh(std::move(shape), std::move(names), Where{}));
}

bool ApFastReader::readSource(element e, Node& n) {
  static constexpr std::string_view keys[] = {ak::file, ak::func, ak::code, ak::line};
  const element* f[4];
  element store[4];
  if (!members(e, keys, f, store, /*refuseUnknown=*/true)) return false;
  int64_t line = 0;
  if (!optString(f[0], n.source.file) || !optString(f[1], n.source.func) || !optString(f[2], n.source.code) ||
      !optInt(f[3], line, 0, 0, std::numeric_limits<int>::max()))
    return false;
  n.source.line = static_cast<int>(line);
  return true;
}

// {"id": 3, "type": "PREFER_RECOMPUTE"} -> "3:PREFER_RECOMPUTE"; an integer or a string as it is.
bool ApFastReader::readAcRegion(element e, Node& n) {
  switch (e.type()) {
    case element_type::OBJECT: {
      static constexpr std::string_view keys[] = {ak::id, ak::type};
      const element* f[2];
      element store[2];
      if (!members(e, keys, f, store, /*refuseUnknown=*/true)) return false;
      int64_t id = 0;
      std::string type;
      if (!optInt(f[0], id, 0, kI64Min, kI64Max) || !optString(f[1], type)) return false;
      const bool hasId = f[0] && !isNull(*f[0]);
      n.acRegion = (hasId ? std::to_string(id) : std::string()) + (type.empty() ? "" : ":" + type);
      return true;
    }
    case element_type::INT64: {
      int64_t v = 0;
      if (e.get_int64().get(v)) return false;
      n.acRegion = std::to_string(v);
      return true;
    }
    case element_type::STRING: return optString(&e, n.acRegion);
    default: return false;
  }
}

bool ApFastReader::readEdges(element e, int i, Node& n, NodeSpecs& sp, std::string_view& firstSrc, Plan& p) {
  if (e.type() != element_type::ARRAY) return false;
  const size_t edges = sj::dom::array(e).size();
  static constexpr std::string_view keys[] = {ak::name, ak::src_placement, ak::dst_placement, ak::comm_cost, ak::transition_cost};
  std::vector<Arg> refs;
  refs.reserve(edges);
  sp.inputs.reserve(edges);
  // As the DOM reader (json.cpp, readNodeInputs): an edge from a node the export does not list, with no
  // src_placement, is no tensor edge; the k-th kept edge's decision (dst_placement, costs) is written at position k.
  struct EdgeFields {
    const element* f[5];
    element store[5];
  };
  EdgeFields small[8];  // no allocation for the usual few edges (this runs once per node of a 100k-node export)
  std::vector<EdgeFields> large(edges > 8 ? edges : 0);
  EdgeFields* fields = edges > 8 ? large.data() : small;
  size_t kept = 0, pos = 0;
  for (element edge : sj::dom::array(e)) {
    auto& f = fields[pos].f;
    if (!members(edge, keys, f, fields[pos].store, /*refuseUnknown=*/true)) return false;
    ++pos;
    for (auto& x : f)
      if (x && isNull(*x)) x = nullptr;
    std::string_view src;
    if (!f[0] || !asString(*f[0], src)) return false;
    std::string_view srcPlacement;  // a view into the document, which outlives the read
    if (f[1] && !asString(*f[1], srcPlacement)) return false;
    const int srcIndex = b_.find(src);
    if (srcIndex < 0) {
      if (srcPlacement.empty()) continue;
      return false;
    }
    refs.push_back(Arg::tensor({srcIndex, 0}));
    if (kept++ == 0) firstSrc = srcPlacement;
  }
  for (size_t k = 0; k < kept; ++k) {
    const auto& f = fields[k].f;
    std::optional<ShardingSpec> dst;
    if (f[2]) {
      const SpecTuple* s = nullptr;
      if (!specs(*f[2], s) || s->size() != 1) return false;
      dst = (*s)[0];
    }
    sp.inputs.push_back(std::move(dst));
    double comm = 0, trans = 0;
    if (!optNumber(f[3], comm, 0) || !optNumber(f[4], trans, 0)) return false;
    if (f[3] || f[4]) p.edgeCosts[{i, static_cast<int>(k)}] = {comm, trans};  // in edge order: appended
  }
  if (n.kind == NodeKind::Output) n.args = {Arg::list(std::move(refs))};
  else if (n.kind == NodeKind::Call) n.args = std::move(refs);
  else if (!refs.empty()) return false;  // a placeholder has no inputs
  return true;
}

bool ApFastReader::readNode(element e, int i, Plan& p) {
  enum K { Name, Op, PhaseK, Placement, Inputs, CCost, TCost, DTypeK, Shape, PKind, Source, Module, AcRegion,
           Cluster, ClusterRoot, KCount };
  static constexpr std::string_view keys[KCount] = {
      ak::name,  ak::op,    ak::phase,            ak::placement, ak::inputs,      ak::compute_cost, ak::transition_cost, ak::dtype,
      ak::shape, ak::placeholder_kind, ak::source, ak::module_path, ak::ac_region, ak::cluster_id,   ak::cluster_root};
  const element* f[KCount];
  element store[KCount];
  if (!members(e, keys, f, store, /*refuseUnknown=*/true)) return false;
  for (auto& x : f)
    if (x && isNull(*x)) x = nullptr;  // null means absent

  std::string_view name, op;
  if (!f[Name] || !asString(*f[Name], name) || !f[Op] || !asString(*f[Op], op)) return false;
  p.graph.prefetchName(name);  // endNode indexes it, after the rest of the node
  Node& n = b_.beginNode();  // dropped with the Plan on any failure
  NodeSpecs& sp = b_.specsOf(i);
  n.name.assign(name);
  n.kind = PlanBuilder::kindOfOp(op);
  n.op = ak::opFromExport(op);
  if (n.kind != NodeKind::Output) {
    if (f[Placement]) {
      const SpecTuple* s = nullptr;
      if (!specs(*f[Placement], s)) return false;
      if (s->empty()) return false;
      sp.outputs = *s;
    } else {
      sp.outputs = {std::nullopt};
    }
    TensorMeta meta{{}, DType::Unknown, false};
    if (f[Shape]) {
      if (!readShape(*f[Shape], meta.shape)) return false;  // the native limits, as the DOM reader applies them
      meta.known = true;
    }
    std::string_view dt;
    if (f[DTypeK]) {
      if (!asString(*f[DTypeK], dt)) return false;
      if (!dt.empty()) {
        meta.dtype = dtypeFromName(dt);
        if (meta.dtype == DType::Unknown) return false;
      }
    }
    n.outputs.assign(sp.outputs.size(), TensorMeta{{}, DType::Unknown, false});
    n.outputs[0] = std::move(meta);  // the export gives the first tensor's shape for tuple outputs
  }
  std::string_view firstSrc;
  if (f[Inputs]) {
    if (!readEdges(*f[Inputs], i, n, sp, firstSrc, p)) return false;
  } else if (n.kind == NodeKind::Output) {
    n.args = {Arg::list({})};
  }
  if (n.op == "operator.getitem") {
    if (n.args.size() != 1) return false;
    const int src = n.args[0].t.node;
    const auto& outs = p.specs[src].outputs;
    int idx = -1;
    auto last = lastGetitem_.find(src);
    const int start = last == lastGetitem_.end() ? 0 : last->second + 1;
    for (int pass = 0; pass < 2 && idx < 0; ++pass)
      for (int k = pass == 0 ? start : 0; k < static_cast<int>(outs.size()); ++k)
        if (!firstSrc.empty() && specString(outs[k]) == firstSrc) {
          idx = k;
          break;
        }
    if (idx < 0) idx = std::min<int>(start, std::max<int>(0, static_cast<int>(outs.size()) - 1));
    n.args[0].t.output = idx;
    n.args.push_back(Arg::integer(idx));
    lastGetitem_[src] = idx;
    Node& tuple = p.graph.nodes[src];
    if (static_cast<int>(tuple.outputs.size()) <= idx) tuple.outputs.resize(idx + 1, TensorMeta{{}, DType::Unknown, false});
    if (!tuple.outputs[idx].known && !n.outputs.empty()) tuple.outputs[idx] = n.outputs[0];
  }
  std::string_view phase, pk;
  if ((f[PhaseK] && !asString(*f[PhaseK], phase)) || (f[PKind] && !asString(*f[PKind], pk)) ||
      !optString(f[Module], n.modulePath))
    return false;
  n.phase = phase.empty() ? Phase::Unknown : phaseFromName(phase);
  if (n.kind == NodeKind::Placeholder) {
    if (!pk.empty()) {
      n.placeholderKind = placeholderKindFromName(pk);
    } else {
      const DType d = n.outputs[0].dtype;
      const bool intLike = d == DType::I64 || d == DType::I32 || d == DType::Bool;
      n.placeholderKind = n.name.rfind(ak::tangents, 0) == 0 ? PlaceholderKind::Tangent
                          : intLike                        ? PlaceholderKind::Input
                                                           : PlaceholderKind::Param;
    }
  }
  if (f[Source] && !readSource(*f[Source], n)) return false;
  int64_t cluster = -1;
  if (!optNumber(f[CCost], n.computeCost, -1) || !optNumber(f[TCost], n.transitionCost, -1) ||
      !optInt(f[Cluster], cluster, -1, -1, std::numeric_limits<int>::max()))
    return false;
  n.clusterId = static_cast<int>(cluster);
  if (f[AcRegion] && !readAcRegion(*f[AcRegion], n)) return false;
  // cluster_root: allowed, not read (the writer derives it from cluster_id).
  return static_cast<bool>(b_.endNode(Where{}));
}

bool ApFastReader::readSummary(element e, Plan& p) {
  static constexpr std::string_view keys[] = {ak::total, ak::comm, ak::compute, ak::transition};
  const element* f[4];
  element store[4];
  if (!members(e, keys, f, store, /*refuseUnknown=*/true)) return false;
  return optNumber(f[0], p.summary.total, -1) && optNumber(f[1], p.summary.comm, -1) &&
         optNumber(f[2], p.summary.compute, -1) && optNumber(f[3], p.summary.transition, -1);
}

bool ApFastReader::read(element root, Plan& out) {
  Plan& p = b_.plan();
  static constexpr std::string_view keys[] = {ak::mesh, ak::nodes, ak::summary};
  const element* f[3];
  element store[3];
  if (!members(root, keys, f, store, /*refuseUnknown=*/true)) return false;
  if (!f[0] || !readMesh(*f[0], p)) return false;
  if (!f[1] || f[1]->type() != element_type::ARRAY) return false;
  p.name = ak::autoparallel;
  sj::dom::array nodes = *f[1];
  const size_t count = nodes.size();
  if (static_cast<int64_t>(count) > limits::kMaxGraphNodes) return false;
  b_.reserveNodes(count);
  int i = 0;
  for (element n : nodes)
    if (!readNode(n, i++, p)) return false;
  if (f[2] && !isNull(*f[2]) && !readSummary(*f[2], p)) return false;
  bool anyBackward = false;
  for (const auto& n : p.graph.nodes) anyBackward |= n.phase == Phase::Backward;
  for (auto& n : p.graph.nodes)
    if (n.kind == NodeKind::Output && n.phase == Phase::Unknown) n.phase = anyBackward ? Phase::Backward : Phase::Forward;
  auto plan = b_.finish();
  if (!plan) return false;
  out = std::move(*plan);
  return true;
}

}  // namespace

Result<Plan> readAutoparallelJsonTextFast(std::string_view text, bool paddedTail) {
  return parseAndRead(text, paddedTail,
                      "the fast autoparallel reader cannot read this input exactly (use readAutoparallelJson)",
                      [](element root, Plan& p) { return ApFastReader().read(root, p); });
}

}  // namespace ss
