// Fast native plan reader: builds the Plan straight from a simdjson DOM, no nlohmann DOM.
//
// Contract (see plan_json.h): for every input it either returns exactly the Plan planFromJson(json::parse(text))
// returns, or an Error. It never produces a located message: the caller (loadPlanText) falls back to the
// nlohmann reader on any error, which reports the same located message as before. Hence this reader is strict:
// any error, unexpected type, duplicate known key, number simdjson and nlohmann could see differently (integers
// beyond int64) or anything else it is not sure about makes it give up rather than guess.
//
// Both readers make the Plan through one PlanBuilder (core/model/plan_builder.h): node names, node kinds, the mesh,
// specs, redistributes, tags, run settings and every rule of a valid plan are the builder's. What stays here is
// syntax, read as planFromJson reads it (fuzz_native_fast holds the two readers to each other):
// - nlohmann's `json` keeps object keys sorted (std::map, byte order): kwargs come out sorted by key.
// - A null value means "absent" for every optional key; required keys (name, op, mesh, nodes, shape, from/to)
//   must be present with the right type.
// - Argument objects: "t" wins over "dtype", over "device", over "sym", over "float"; other keys are ignored.
#include <simdjson.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "core/io/native/plan_keys.h"
#include "core/io/native/plan_json.h"
#include "core/io/native/simdjson_util.h"
#include "core/model/limits.h"
#include "core/model/plan_builder.h"

namespace ss {

namespace pk = plan_keys;

namespace {

using namespace sjutil;

// Every helper below returns false to mean "cannot read this exactly: fall back"; nothing throws on bad input.

class FastReader {
 public:
  bool read(element root, Plan& out);

 private:
  bool readMesh(element e, Plan& p);
  bool readRun(element e, Plan& p);
  bool readSummary(element e, Plan& p);
  bool readNode(element e, int i, Plan& p);
  bool readMeta(element e, TensorMeta& m);
  bool readArg(element e, const Graph& g, int depth, Arg& out);
  bool readTag(element e, const Node& node, AutoSpTag& tag);
  bool readSpecs(Plan& p);
  bool readRedistributes(element e, Plan& p);
  bool spec(element e, std::optional<ShardingSpec>& out);

  PlanBuilder b_{PlanFormat::Native};
  std::vector<std::pair<element, bool>> specJ_, inSpecJ_;  // (value, present and not null)
  std::vector<std::pair<std::string_view, element>> kwargScratch_;
};

bool FastReader::spec(element e, std::optional<ShardingSpec>& out) {
  if (isNull(e)) {
    out.reset();
    return true;
  }
  std::string_view text;
  if (!asString(e, text)) return false;
  auto s = b_.parseSpec(text, Where{});
  if (!s) return false;
  out = **s;
  return true;
}

bool FastReader::readMeta(element e, TensorMeta& m) {
  if (isNull(e)) {
    m = TensorMeta{{}, DType::F32, false};
    return true;
  }
  static constexpr std::string_view keys[] = {pk::shape, pk::dtype};
  const element* f[2];
  element store[2];
  if (!members(e, keys, f, store)) return false;
  if (!f[0] || !readShape(*f[0], m.shape)) return false;  // required; null is not an array
  std::string_view dt = "f32";
  if (f[1] && !isNull(*f[1]) && !asString(*f[1], dt)) return false;
  m.dtype = dtypeFromName(dt);
  m.known = true;
  return m.dtype != DType::Unknown;
}

bool FastReader::readArg(element e, const Graph& g, int depth, Arg& out) {
  if (depth > limits::kMaxArgDepth) return false;
  switch (e.type()) {
    case element_type::NULL_VALUE: out = Arg::none(); return true;
    case element_type::BOOL: {
      bool b = false;
      if (e.get_bool().get(b)) return false;
      out = Arg::boolean(b);
      return true;
    }
    case element_type::INT64: {
      int64_t v = 0;
      if (e.get_int64().get(v)) return false;
      out = Arg::integer(v);
      return true;
    }
    case element_type::DOUBLE: {
      double v = 0;
      if (e.get_double().get(v)) return false;
      out = Arg::real(v);
      return true;
    }
    case element_type::STRING: {
      std::string_view v;
      if (!asString(e, v)) return false;
      out = Arg::string(std::string(v));
      return true;
    }
    case element_type::ARRAY: {
      sj::dom::array a = e;
      std::vector<Arg> items(a.size());
      size_t k = 0;
      for (element x : a)
        if (!readArg(x, g, depth + 1, items[k++])) return false;
      out = Arg::list(std::move(items));
      return true;
    }
    case element_type::OBJECT: {
      static constexpr std::string_view keys[] = {pk::t, pk::i, pk::dtype, pk::device, pk::sym, pk::float_};
      const element* f[6];
      element store[6];
      if (!members(e, keys, f, store)) return false;
      std::string_view s;
      if (f[0]) {
        if (!asString(*f[0], s)) return false;
        const int srcIndex = b_.find(s);
        if (srcIndex < 0) return false;
        int64_t idx = 0;
        if (!optInt(f[1], idx, 0, 0, limits::kMaxOutputIndex)) return false;
        const Node& src = g.nodes[srcIndex];
        if (src.kind == NodeKind::Output) return false;
        if (idx >= static_cast<int64_t>(std::max<size_t>(1, src.outputs.size()))) return false;
        out = Arg::tensor(TensorRef{srcIndex, static_cast<int>(idx)});
        return true;
      }
      if (f[2]) {
        if (!asString(*f[2], s)) return false;
        DType d = dtypeFromName(s);
        if (d == DType::Unknown) return false;
        out = Arg::dtype(d);
        return true;
      }
      if (f[3]) {
        if (!asString(*f[3], s)) return false;
        out = Arg::device(std::string(s));
        return true;
      }
      if (f[4]) {
        if (!asString(*f[4], s)) return false;
        out = Arg::symbol(std::string(s));
        return true;
      }
      if (f[5]) {
        if (!asString(*f[5], s)) return false;
        if (s == "inf") out = Arg::real(std::numeric_limits<double>::infinity());
        else if (s == "-inf") out = Arg::real(-std::numeric_limits<double>::infinity());
        else if (s == "nan") out = Arg::real(std::numeric_limits<double>::quiet_NaN());
        else return false;
        return true;
      }
      return false;
    }
    default: return false;  // UINT64: beyond int64, an error in planFromJson
  }
}

bool FastReader::readTag(element e, const Node&, AutoSpTag& tag) {
  std::string_view key;
  if (e.type() == element_type::STRING) {
    if (!asString(e, key)) return false;
  } else {
    static constexpr std::string_view keys[] = {pk::key, pk::seq_dim};
    const element* f[2];
    element store[2];
    if (!members(e, keys, f, store)) return false;  // also: neither string nor object
    if (!f[0] || !asString(*f[0], key)) return false;
    if (f[1] && !isNull(*f[1])) {
      int64_t v = 0;  // past the tensor's rank: a finding
      if (!optInt(f[1], v, 0, 0, limits::kMaxTensorRank)) return false;
      tag.seqDim = static_cast<int>(v);
    }
  }
  if (key.empty()) return false;
  tag.key.assign(key);
  return true;
}

bool FastReader::readNode(element e, int i, Plan& p) {
  enum K { Name, Op, PKind, PhaseK, Meta, Args, Kwargs, Module, Source, CCost, TCost, Cluster, AcRegion, Tag, EdgeCosts,
           Spec, InSpecs, KwargOrder, KCount };
  static constexpr std::string_view keys[KCount] = {
      pk::name,         pk::op,       pk::placeholder_kind, pk::phase,      pk::meta,       pk::args,
      pk::kwargs,       pk::module_,  pk::source,           pk::compute_cost, pk::transition_cost, pk::cluster_id,
      pk::ac_region,    pk::tag,      pk::edge_costs,       pk::spec,       pk::input_specs, pk::kwarg_order};
  const element* f[KCount];
  element store[KCount];
  if (!members(e, keys, f, store)) return false;
  // Null means absent for every optional key.
  for (int k = 0; k < KCount; ++k)
    if (f[k] && isNull(*f[k])) f[k] = nullptr;

  // Kwargs in call order other than key order are rare (FX imports): the nlohmann reader restores them.
  if (f[KwargOrder]) return false;
  // Built in place (a Node is large to move); pushed before its args are read, as planFromJson does. On any
  // failure the whole Plan is dropped, so a half-read node never escapes.
  Node& n = b_.beginNode();
  std::string_view name, op;
  if (!f[Name] || !asString(*f[Name], name)) return false;  // endNode checks the name
  if (!f[Op] || !asString(*f[Op], op)) return false;
  n.name.assign(name);
  n.op.assign(op);
  n.kind = PlanBuilder::kindOfOp(n.op);
  std::string tmp;
  if (!optString(f[PKind], tmp)) return false;
  n.placeholderKind = placeholderKindFromName(tmp);
  if (!optString(f[PhaseK], tmp)) return false;
  n.phase = phaseFromName(tmp);
  if (f[Meta]) {
    if (f[Meta]->type() != element_type::ARRAY) return false;
    sj::dom::array metas = *f[Meta];
    n.outputs.resize(metas.size());
    size_t k = 0;
    for (element m : metas)
      if (!readMeta(m, n.outputs[k++])) return false;
  } else if (n.kind != NodeKind::Output) {
    n.outputs.push_back(TensorMeta{{}, DType::F32, false});
  }
  Node& node = n;
  if (f[Args]) {
    if (f[Args]->type() != element_type::ARRAY) return false;
    sj::dom::array args = *f[Args];
    node.args.resize(args.size());
    size_t k = 0;
    for (element a : args)
      if (!readArg(a, p.graph, 0, node.args[k++])) return false;
  }
  if (f[Kwargs]) {
    if (f[Kwargs]->type() != element_type::OBJECT) return false;
    kwargScratch_.clear();
    for (auto field : sj::dom::object(*f[Kwargs])) kwargScratch_.emplace_back(field.key, field.value);
    // nlohmann's json sorts keys (std::map): same order here. std::string_view's < is std::string's.
    std::sort(kwargScratch_.begin(), kwargScratch_.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t k = 1; k < kwargScratch_.size(); ++k)
      if (kwargScratch_[k].first == kwargScratch_[k - 1].first) return false;  // duplicate key: nlohmann keeps the last
    node.kwargs.reserve(kwargScratch_.size());
    for (const auto& [key, value] : kwargScratch_) {
      Arg a;
      if (!readArg(value, p.graph, 0, a)) return false;
      node.kwargs.emplace_back(std::string(key), std::move(a));
    }
  }
  if (!optString(f[Module], node.modulePath)) return false;
  if (f[Source]) {
    static constexpr std::string_view skeys[] = {pk::file, pk::func, pk::code, pk::line};
    const element* s[4];
    element sstore[4];
    if (!members(*f[Source], skeys, s, sstore)) return false;
    int64_t line = 0;
    if (!optString(s[0], node.source.file) || !optString(s[1], node.source.func) || !optString(s[2], node.source.code) ||
        !optInt(s[3], line, 0, 0, std::numeric_limits<int>::max()))
      return false;
    node.source.line = static_cast<int>(line);
  }
  int64_t cluster = -1;
  if (!optNumber(f[CCost], node.computeCost, -1) || !optNumber(f[TCost], node.transitionCost, -1) ||
      !optInt(f[Cluster], cluster, -1, -1, std::numeric_limits<int>::max()) || !optString(f[AcRegion], node.acRegion))
    return false;
  node.clusterId = static_cast<int>(cluster);
  if (f[Tag]) {
    AutoSpTag tag;
    if (!readTag(*f[Tag], node, tag)) return false;
    b_.setTag(i, std::move(tag));
  }
  if (f[EdgeCosts]) {
    if (f[EdgeCosts]->type() != element_type::ARRAY) return false;
    static constexpr std::string_view ekeys[] = {pk::input, pk::comm, pk::transition};
    for (element ec : sj::dom::array(*f[EdgeCosts])) {
      const element* c[3];
      element cstore[3];
      int64_t in = 0;
      double comm = 0, trans = 0;
      if (!members(ec, ekeys, c, cstore) || !optInt(c[0], in, 0, 0, limits::kMaxInputIndex) || !optNumber(c[1], comm, 0) ||
          !optNumber(c[2], trans, 0))
        return false;
      p.edgeCosts[{i, static_cast<int>(in)}] = {comm, trans};  // a repeated input overwrites, as planFromJson
    }
  }
  specJ_.emplace_back(f[Spec] ? *f[Spec] : element{}, f[Spec] != nullptr);
  inSpecJ_.emplace_back(f[InSpecs] ? *f[InSpecs] : element{}, f[InSpecs] != nullptr);
  return static_cast<bool>(b_.endNode(Where{}));
}

bool FastReader::readMesh(element e, Plan& p) {
  static constexpr std::string_view keys[] = {pk::shape, pk::dim_names};
  const element* f[2];
  element store[2];
  if (!members(e, keys, f, store)) return false;
  if (!f[0] || f[0]->type() != element_type::ARRAY) return false;
  std::vector<int64_t> shape;
  for (element v : sj::dom::array(*f[0])) {
    int64_t d = 0;
    if (v.type() != element_type::INT64 || v.get_int64().get(d)) return false;
    shape.push_back(d);
  }
  std::vector<std::string> dimNames;
  if (f[1] && !isNull(*f[1])) {
    if (f[1]->type() != element_type::ARRAY) return false;
    for (element v : sj::dom::array(*f[1])) {
      std::string_view s;
      if (!asString(v, s)) return false;
      dimNames.emplace_back(s);
    }
  }
  (void)p;
  return static_cast<bool>(b_.setMesh(std::move(shape), std::move(dimNames), Where{}));
}

bool FastReader::readRun(element e, Plan& p) {
  static constexpr std::string_view keys[] = {pk::seed, pk::loss, pk::batches, pk::rtol, pk::sp_size};
  const element* f[5];
  element store[5];
  if (!members(e, keys, f, store)) return false;
  int64_t seed = 0, batches = 3, sp = 0;
  double rtol = 1e-4;
  std::string loss;
  if (!optInt(f[0], seed, 0, 0, std::numeric_limits<int64_t>::max()) || !optString(f[1], loss) ||
      !optInt(f[2], batches, 3, limits::kMinBatches, limits::kMaxBatches) || !optNumber(f[3], rtol, 1e-4) ||
      !optInt(f[4], sp, 0, 0, limits::kMaxSpSize))
    return false;
  if (!(rtol > 0)) return false;
  (void)p;
  b_.setRun(RunSettings{static_cast<uint64_t>(seed), std::move(loss), static_cast<int>(batches), rtol, static_cast<int>(sp)});
  return true;
}

bool FastReader::readSummary(element e, Plan& p) {
  static constexpr std::string_view keys[] = {pk::total, pk::comm, pk::compute, pk::transition};
  const element* f[4];
  element store[4];
  if (!members(e, keys, f, store)) return false;
  CostSummary s;
  if (!optNumber(f[0], s.total, -1) || !optNumber(f[1], s.comm, -1) || !optNumber(f[2], s.compute, -1) ||
      !optNumber(f[3], s.transition, -1))
    return false;
  p.summary = s;
  return true;
}

bool FastReader::readSpecs(Plan& p) {
  for (int i = 0; i < p.graph.size(); ++i) {
    const Node& n = p.graph.nodes[i];
    if (auto [e, present] = specJ_[i]; present) {
      if (e.type() != element_type::ARRAY) return false;
      sj::dom::array a = e;
      if (a.size() != n.outputs.size()) return false;
      size_t k = 0;
      for (element s : a)
        if (!spec(s, p.specs[i].outputs[k++])) return false;
    }
    if (auto [e, present] = inSpecJ_[i]; present) {
      const auto& ins = p.graph.inputs(i);
      if (e.type() != element_type::ARRAY) return false;
      sj::dom::array a = e;
      if (a.size() != ins.size()) return false;
      size_t k = 0;
      for (element s : a)
        if (!spec(s, p.specs[i].inputs[k++])) return false;
    }
  }
  return true;
}

bool FastReader::readRedistributes(element e, Plan& p) {
  if (e.type() != element_type::ARRAY) return false;
  static constexpr std::string_view keys[] = {pk::node, pk::input, pk::from, pk::to};
  for (element r : sj::dom::array(e)) {
    const element* f[4];
    element store[4];
    if (!members(r, keys, f, store)) return false;
    std::string_view node;
    if (!f[0] || !asString(*f[0], node)) return false;
    const int ni = b_.find(node);
    if (ni < 0) return false;
    int64_t in = 0;
    if (!optInt(f[1], in, 0, 0, limits::kMaxInputIndex)) return false;
    if (!f[2] || !f[3]) return false;
    std::optional<ShardingSpec> from, to;
    if (!spec(*f[2], from) || !spec(*f[3], to) || !from || !to) return false;
    if (!b_.addRedistribute(ni, in, std::move(*from), std::move(*to), Where{})) return false;
    (void)p;
  }
  return true;
}

bool FastReader::read(element root, Plan& out) {
  Plan& p = b_.plan();
  enum K { Format, Version, Name, Description, TorchVersion, Mesh, Run, Summary, Nodes, Redistributes, KCount };
  static constexpr std::string_view keys[KCount] = {pk::format, pk::version, pk::name,  pk::description,
                                                    pk::torch_version, pk::mesh, pk::run, pk::summary,
                                                    pk::nodes,  pk::redistributes};
  const element* f[KCount];
  element store[KCount];
  if (!members(root, keys, f, store)) return false;
  // loadPlanText only comes here for {"format": "shardscope-plan"}; anything else is the DOM reader's business.
  std::string_view fmt;
  if (!f[Format] || !asString(*f[Format], fmt) || fmt != "shardscope-plan") return false;
  int64_t version = 0;
  if (!optInt(f[Version], version, kPlanFormatVersion, 0, limits::kMaxFormatVersion) || version != kPlanFormatVersion)
    return false;
  if (!optString(f[Name], p.name) || !optString(f[Description], p.description) ||
      !optString(f[TorchVersion], p.torchVersion))
    return false;
  if (!f[Mesh] || !readMesh(*f[Mesh], p)) return false;
  if (f[Run] && !isNull(*f[Run]) && !readRun(*f[Run], p)) return false;
  if (f[Summary] && !isNull(*f[Summary]) && !readSummary(*f[Summary], p)) return false;

  if (!f[Nodes] || f[Nodes]->type() != element_type::ARRAY) return false;
  sj::dom::array nodes = *f[Nodes];
  const size_t count = nodes.size();
  if (static_cast<int64_t>(count) > limits::kMaxGraphNodes) return false;
  b_.reserveNodes(count);
  specJ_.reserve(count);
  inSpecJ_.reserve(count);
  int i = 0;
  for (element n : nodes)
    if (!readNode(n, i++, p)) return false;
  if (!b_.finishGraph()) return false;
  if (!readSpecs(p)) return false;
  if (f[Redistributes] && !isNull(*f[Redistributes]) && !readRedistributes(*f[Redistributes], p)) return false;
  auto plan = b_.finish();
  if (!plan) return false;
  out = std::move(*plan);
  return true;
}

}  // namespace

Result<Plan> planFromJsonTextFast(std::string_view text, bool paddedTail) {
  return parseAndRead(text, paddedTail, "the fast plan reader cannot read this input exactly (use planFromJson)",
                      [](element root, Plan& p) { return FastReader().read(root, p); });
}

}  // namespace ss
