// Native plan format reader/writer (version 1). See docs/plan-format.md.
//
// Sections: writer (ordered keys, one node per line); reader helpers (typed getters with JSON pointers);
// args; nodes; plan.
#include "core/io/native/plan_keys.h"
#include "core/io/native/plan_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/io/json_util.h"
#include "core/model/limits.h"
#include "core/model/placement_parse.h"
#include "core/model/plan_builder.h"

namespace ss {

namespace pk = plan_keys;

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

namespace {

constexpr int64_t kMaxDimSize = limits::kMaxTensorDimSize;

// ---- Writer --------------------------------------------------------------------------------------------------
template <class J>
J specJ(const std::optional<ShardingSpec>& s) {
  return s ? J(s->toMeshString()) : J(nullptr);
}

template <class J>
J argJ(const Arg& a, const Graph& g) {
  switch (a.kind) {
    case Arg::Kind::None: return J(nullptr);
    case Arg::Kind::Bool: return J(a.b);
    case Arg::Kind::Int: return J(a.i);
    case Arg::Kind::Float:
      if (std::isnan(a.f)) return J{{pk::float_, "nan"}};
      if (std::isinf(a.f)) return J{{pk::float_, a.f > 0 ? "inf" : "-inf"}};
      return J(a.f);
    case Arg::Kind::String: return J(a.s);
    case Arg::Kind::Tensor: {
      J t = J::object();
      t[pk::t] = a.t.node >= 0 && a.t.node < g.size() ? g.nodes[a.t.node].name : std::string("?");
      if (a.t.output != 0) t[pk::i] = a.t.output;
      return t;
    }
    case Arg::Kind::List: {
      J l = J::array();
      for (const auto& x : a.items) l.push_back(argJ<J>(x, g));
      return l;
    }
    case Arg::Kind::DType: return J{{pk::dtype, dtypeName(a.dt)}};
    case Arg::Kind::Device: return J{{pk::device, a.s}};
    case Arg::Kind::Symbol: return J{{pk::sym, a.s}};
  }
  return J(nullptr);
}

ojson nodeJ(const Plan& p, int i) {
  const Node& n = p.graph.nodes[i];
  ojson j = ojson::object();
  j[pk::name] = n.name;
  j[pk::op] = n.op;
  if (n.kind == NodeKind::Placeholder && n.placeholderKind != PlaceholderKind::None)
    j[pk::placeholder_kind] = placeholderKindName(n.placeholderKind);
  if (n.phase != Phase::Unknown) j[pk::phase] = phaseName(n.phase);
  if (!n.args.empty() || n.kind == NodeKind::Call) {
    ojson a = ojson::array();
    for (const auto& x : n.args) a.push_back(argJ<ojson>(x, p.graph));
    j[pk::args] = a;
  }
  if (!n.kwargs.empty()) {
    ojson k = ojson::object();
    for (const auto& [key, v] : n.kwargs) k[key] = argJ<ojson>(v, p.graph);
    j[pk::kwargs] = k;
    // JSON objects are unordered; the call's own order matters (tensor inputs are numbered through kwargs).
    if (!std::is_sorted(n.kwargs.begin(), n.kwargs.end(), [](const auto& a, const auto& b) { return a.first < b.first; })) {
      ojson order = ojson::array();
      for (const auto& kv : n.kwargs) order.push_back(kv.first);
      j[pk::kwarg_order] = order;
    }
  }
  if (n.kind != NodeKind::Output) {
    ojson m = ojson::array();
    for (const auto& t : n.outputs) {
      if (!t.known) m.push_back(nullptr);
      else m.push_back(ojson{{pk::shape, t.shape}, {pk::dtype, dtypeName(t.dtype)}});
    }
    j[pk::meta] = m;
  }
  if (i < static_cast<int>(p.specs.size())) {
    const auto& s = p.specs[i];
    bool anyOut = false, anyIn = false;
    for (const auto& x : s.outputs) anyOut |= x.has_value();
    for (const auto& x : s.inputs) anyIn |= x.has_value();
    if (anyOut) {
      ojson o = ojson::array();
      for (const auto& x : s.outputs) o.push_back(specJ<ojson>(x));
      j[pk::spec] = o;
    }
    if (anyIn) {
      ojson o = ojson::array();
      for (const auto& x : s.inputs) o.push_back(specJ<ojson>(x));
      j[pk::input_specs] = o;
    }
  }
  if (auto it = p.tags.find(i); it != p.tags.end()) {
    ojson t{{pk::key, it->second.key}};
    if (it->second.seqDim) t[pk::seq_dim] = *it->second.seqDim;
    j[pk::tag] = t;
  }
  if (!n.modulePath.empty()) j[pk::module_] = n.modulePath;
  if (!(n.source == SourceLoc{})) {
    ojson s = ojson::object();
    if (!n.source.file.empty()) s[pk::file] = n.source.file;
    if (n.source.line) s[pk::line] = n.source.line;
    if (!n.source.func.empty()) s[pk::func] = n.source.func;
    if (!n.source.code.empty()) s[pk::code] = n.source.code;
    j[pk::source] = s;
  }
  if (n.computeCost >= 0) j[pk::compute_cost] = n.computeCost;
  if (n.transitionCost >= 0) j[pk::transition_cost] = n.transitionCost;
  if (n.clusterId >= 0) j[pk::cluster_id] = n.clusterId;
  if (!n.acRegion.empty()) j[pk::ac_region] = n.acRegion;
  ojson ec = ojson::array();
  for (const auto& [key, v] : p.edgeCosts)
    if (key.first == i) ec.push_back(ojson{{pk::input, key.second}, {pk::comm, v.first}, {pk::transition, v.second}});
  if (!ec.empty()) j[pk::edge_costs] = ec;
  return j;
}

ojson headerJ(const Plan& p) {
  ojson j = ojson::object();
  j[pk::format] = "shardscope-plan";
  j[pk::version] = kPlanFormatVersion;
  if (!p.name.empty()) j[pk::name] = p.name;
  if (!p.description.empty()) j[pk::description] = p.description;
  if (!p.torchVersion.empty()) j[pk::torch_version] = p.torchVersion;
  ojson mesh{{pk::shape, p.mesh.shape()}};
  if (p.mesh.hasNames()) mesh[pk::dim_names] = p.mesh.dimNames();
  j[pk::mesh] = mesh;
  ojson run = ojson::object();
  run[pk::seed] = p.run.seed;
  if (!p.run.lossNode.empty()) run[pk::loss] = p.run.lossNode;
  run[pk::batches] = p.run.batches;
  run[pk::rtol] = p.run.rtol;
  if (p.run.spSize) run[pk::sp_size] = p.run.spSize;
  j[pk::run] = run;
  if (!(p.summary == CostSummary{})) {
    ojson s = ojson::object();
    if (p.summary.total >= 0) s[pk::total] = p.summary.total;
    if (p.summary.comm >= 0) s[pk::comm] = p.summary.comm;
    if (p.summary.compute >= 0) s[pk::compute] = p.summary.compute;
    if (p.summary.transition >= 0) s[pk::transition] = p.summary.transition;
    j[pk::summary] = s;
  }
  return j;
}

// The plan's redistributes, then, for a solver solution, the transitions it plans (Plan::plannedTransitions): a
// native plan has no other way to say that its apply pass inserts them, and without them every planned edge
// would read back as a missing redistribute.
ojson redistributesJ(const Plan& p) {
  ojson r = ojson::array();
  const std::vector<Redistribute> planned = p.plannedTransitions();
  for (const auto* list : {&p.redistributes, &planned})
    for (const auto& rd : *list)
      r.push_back(ojson{{pk::node, rd.node >= 0 && rd.node < p.graph.size() ? p.graph.nodes[rd.node].name : "?"},
                        {pk::input, rd.input},
                        {pk::from, rd.from.toMeshString()},
                        {pk::to, rd.to.toMeshString()}});
  return r;
}

// ---- Reader helpers ---------------------------------------------------------------------------------------
struct Ctx {
  std::string ptr;
};

// The getters and their error wording are jsonutil's (json_util.h), shared with the other JSON readers.
using jsonutil::getInt;
using jsonutil::getNumber;
using jsonutil::getString;
using jsonutil::missingKey;
using jsonutil::typeError;
using jsonutil::typeName;

// A spec value: a placement string (syntax only: its fit to the tensor and mesh is Plan::validate's) or null.
Result<std::optional<ShardingSpec>> specFromJ(const json& j, PlanBuilder& b, const Where& w) {
  if (j.is_null()) return std::optional<ShardingSpec>{};
  if (!j.is_string()) return typeError(w.pointer(), "a placement string like \"RS(0)\" or null", j);
  auto s = b.parseSpec(j.get_ref<const std::string&>(), w);
  if (!s) return s.error();
  return std::optional<ShardingSpec>(**s);
}

Result<TensorMeta> metaFromJ(const json& j, const std::string& ptr) {
  TensorMeta m;
  if (j.is_null()) {
    m.known = false;
    return m;
  }
  if (!j.is_object()) return typeError(ptr, "an object {\"shape\", \"dtype\"} or null", j);
  auto it = j.find(pk::shape);
  if (it == j.end()) return missingKey(ptr, pk::shape);
  auto shape = shapeFromJson(*it, ptr + "/shape");
  if (!shape) return shape.error();
  m.shape = std::move(*shape);
  auto dt = getString(j, pk::dtype, ptr, false, "f32");
  if (!dt) return dt.error();
  m.dtype = dtypeFromName(*dt);
  // "unknown" is how the writer spells DType::Unknown (an FX `Sym(s0)` placeholder has no dtype).
  if (m.dtype == DType::Unknown && *dt != "unknown") return Error::atPointer("unknown dtype '" + *dt + "'", ptr + "/dtype");
  return m;
}

// ---- Args ----------------------------------------------------------------------------------------------------
// Tensor references name earlier nodes through the graph's name index (g.find: the builder's graph, indexed as
// its nodes come).
Result<Arg> argFromJImpl(const json& j, const Graph& g, const std::string& ptr, int depth) {
  if (depth > limits::kMaxArgDepth)
    return Error::atPointer("arguments nest deeper than " + std::to_string(limits::kMaxArgDepth) + " levels", ptr);
  switch (j.type()) {
    case json::value_t::null: return Arg::none();
    case json::value_t::boolean: return Arg::boolean(j.get<bool>());
    case json::value_t::number_integer: return Arg::integer(j.get<int64_t>());
    case json::value_t::number_unsigned:
      if (j.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return Error::atPointer("integer is too large", ptr);
      return Arg::integer(j.get<int64_t>());
    case json::value_t::number_float: return Arg::real(j.get<double>());
    case json::value_t::string: return Arg::string(j.get<std::string>());
    case json::value_t::array: {
      std::vector<Arg> items;
      items.reserve(j.size());
      for (size_t i = 0; i < j.size(); ++i) {
        auto a = argFromJImpl(j[i], g, ptr + "/" + std::to_string(i), depth + 1);
        if (!a) return a.error();
        items.push_back(std::move(*a));
      }
      return Arg::list(std::move(items));
    }
    case json::value_t::object: {
      if (auto it = j.find(pk::t); it != j.end()) {
        if (!it->is_string()) return typeError(ptr + "/t", "a node name", *it);
        const int srcIndex = g.find(it->get_ref<const std::string&>());
        if (srcIndex < 0)
          return Error::atPointer("unknown tensor '" + it->get<std::string>() +
                                      "' (a node can only use nodes listed before it)",
                                  ptr + "/t");
        auto out = getInt(j, pk::i, ptr, 0, 0, limits::kMaxOutputIndex);
        if (!out) return out.error();
        const Node& src = g.nodes[srcIndex];
        if (src.kind == NodeKind::Output) return Error::atPointer("the output node is not a tensor", ptr + "/t");
        if (*out >= static_cast<int64_t>(std::max<size_t>(1, src.outputs.size())))
          return Error::atPointer("'" + src.name + "' has " + std::to_string(src.outputs.size()) + " outputs, not " +
                                      std::to_string(*out + 1),
                                  ptr + "/i");
        return Arg::tensor(TensorRef{srcIndex, static_cast<int>(*out)});
      }
      if (auto it = j.find(pk::dtype); it != j.end()) {
        if (!it->is_string()) return typeError(ptr + "/dtype", "a dtype name", *it);
        DType d = dtypeFromName(it->get<std::string>());
        if (d == DType::Unknown && it->get_ref<const std::string&>() != "unknown")
          return Error::atPointer("unknown dtype '" + it->get<std::string>() + "'", ptr + "/dtype");
        return Arg::dtype(d);
      }
      if (auto it = j.find(pk::device); it != j.end()) {
        if (!it->is_string()) return typeError(ptr + "/device", "a device string", *it);
        return Arg::device(it->get<std::string>());
      }
      if (auto it = j.find(pk::sym); it != j.end()) {
        if (!it->is_string()) return typeError(ptr + "/sym", "a symbol name", *it);
        return Arg::symbol(it->get<std::string>());
      }
      if (auto it = j.find(pk::float_); it != j.end()) {
        std::string v = it->is_string() ? it->get<std::string>() : "";
        if (v == "inf") return Arg::real(std::numeric_limits<double>::infinity());
        if (v == "-inf") return Arg::real(-std::numeric_limits<double>::infinity());
        if (v == "nan") return Arg::real(std::numeric_limits<double>::quiet_NaN());
        return Error::atPointer("expected \"inf\", \"-inf\" or \"nan\"", ptr + "/float");
      }
      return Error::atPointer("unknown argument object (expected {\"t\"}, {\"dtype\"}, {\"device\"}, {\"sym\"} or {\"float\"})", ptr);
    }
    default: return Error::atPointer("unsupported argument value", ptr);
  }
}

// ---- Nodes ---------------------------------------------------------------------------------------------------
Result<bool> readNode(const json& jn, int i, PlanBuilder& b, std::vector<const json*>& specJ,
                      std::vector<const json*>& inSpecJ) {
  const std::string ptr = "/nodes/" + std::to_string(i);
  const Where where(pk::nodes, i);
  if (!jn.is_object()) return typeError(ptr, "a node object", jn);
  Plan& p = b.plan();
  Node n;
  auto name = getString(jn, pk::name, ptr, true);
  if (!name) return name.error();
  n.name = std::move(*name);
  if (auto ok = b.checkName(n.name, where); !ok) return ok.error();
  auto op = getString(jn, pk::op, ptr, true);
  if (!op) return op.error();
  n.op = std::move(*op);
  n.kind = PlanBuilder::kindOfOp(n.op);
  auto pk = getString(jn, pk::placeholder_kind, ptr, false);
  if (!pk) return pk.error();
  n.placeholderKind = placeholderKindFromName(*pk);
  auto ph = getString(jn, pk::phase, ptr, false);
  if (!ph) return ph.error();
  n.phase = phaseFromName(*ph);
  if (auto it = jn.find(pk::meta); it != jn.end() && !it->is_null()) {
    if (!it->is_array()) return typeError(ptr + "/meta", "an array of tensor metas", *it);
    for (size_t k = 0; k < it->size(); ++k) {
      auto m = metaFromJ((*it)[k], ptr + "/meta/" + std::to_string(k));
      if (!m) return m.error();
      n.outputs.push_back(std::move(*m));
    }
  } else if (n.kind != NodeKind::Output) {
    n.outputs.push_back(TensorMeta{{}, DType::F32, false});
  }
  // Args may not refer to the node itself (its name is registered at endNode); pushed first for output counts.
  Node& node = b.beginNode();
  node = std::move(n);
  if (auto it = jn.find(pk::args); it != jn.end() && !it->is_null()) {
    if (!it->is_array()) return typeError(ptr + "/args", "an array", *it);
    for (size_t k = 0; k < it->size(); ++k) {
      auto a = argFromJImpl((*it)[k], p.graph, ptr + "/args/" + std::to_string(k), 0);
      if (!a) return a.error();
      node.args.push_back(std::move(*a));
    }
  }
  if (auto it = jn.find(pk::kwargs); it != jn.end() && !it->is_null()) {
    if (!it->is_object()) return typeError(ptr + "/kwargs", "an object", *it);
    for (auto kv = it->begin(); kv != it->end(); ++kv) {
      auto a = argFromJImpl(kv.value(), p.graph, ptr + "/kwargs/" + kv.key(), 0);
      if (!a) return a.error();
      node.kwargs.emplace_back(kv.key(), std::move(*a));
    }
    if (auto o = jn.find(pk::kwarg_order); o != jn.end() && !o->is_null()) {
      if (!o->is_array() || o->size() != node.kwargs.size())
        return Error::atPointer("expected the list of this node's kwarg names, in call order", ptr + "/kwarg_order");
      std::vector<std::pair<std::string, Arg>> ordered;
      for (size_t k = 0; k < o->size(); ++k) {
        const json& name = (*o)[k];
        auto it = name.is_string() ? std::find_if(node.kwargs.begin(), node.kwargs.end(),
                                                  [&](const auto& kv) { return kv.first == name.get_ref<const std::string&>(); })
                                   : node.kwargs.end();
        if (it == node.kwargs.end())
          return Error::atPointer("not one of this node's kwargs (or named twice)", ptr + "/kwarg_order/" + std::to_string(k));
        ordered.push_back(std::move(*it));
        node.kwargs.erase(it);
      }
      node.kwargs = std::move(ordered);
    }
  }
  auto mod = getString(jn, pk::module_, ptr, false);
  if (!mod) return mod.error();
  node.modulePath = std::move(*mod);
  if (auto it = jn.find(pk::source); it != jn.end() && !it->is_null()) {
    if (!it->is_object()) return typeError(ptr + "/source", "an object", *it);
    const std::string sp = ptr + "/source";
    auto f = getString(*it, pk::file, sp, false);
    auto fn = getString(*it, pk::func, sp, false);
    auto code = getString(*it, pk::code, sp, false);
    auto line = getInt(*it, pk::line, sp, 0, 0, std::numeric_limits<int>::max());
    for (auto* r : {&f, &fn, &code})
      if (!*r) return r->error();
    if (!line) return line.error();
    node.source = SourceLoc{*f, static_cast<int>(*line), *fn, *code};
  }
  auto cc = getNumber(jn, pk::compute_cost, ptr, -1);
  auto tc = getNumber(jn, pk::transition_cost, ptr, -1);
  auto cl = getInt(jn, pk::cluster_id, ptr, -1, -1, std::numeric_limits<int>::max());
  auto ac = getString(jn, pk::ac_region, ptr, false);
  if (!cc) return cc.error();
  if (!tc) return tc.error();
  if (!cl) return cl.error();
  if (!ac) return ac.error();
  node.computeCost = *cc;
  node.transitionCost = *tc;
  node.clusterId = static_cast<int>(*cl);
  node.acRegion = *ac;
  if (auto it = jn.find(pk::tag); it != jn.end() && !it->is_null()) {
    AutoSpTag tag;  // off a placeholder, or on a dim its tensor lacks: a finding (Plan::validatePlanWide)
    if (it->is_string()) {
      tag.key = it->get<std::string>();
    } else if (it->is_object()) {
      auto key = getString(*it, pk::key, ptr + "/tag", true);
      if (!key) return key.error();
      tag.key = *key;
      if (auto sd = it->find(pk::seq_dim); sd != it->end() && !sd->is_null()) {
        if (!sd->is_number_integer()) return typeError(ptr + "/tag/seq_dim", "an integer", *sd);
        auto v = getInt(*it, pk::seq_dim, ptr + "/tag", 0, 0, limits::kMaxTensorRank);
        if (!v) return v.error();
        tag.seqDim = static_cast<int>(*v);
      }
    } else {
      return typeError(ptr + "/tag", "a key string or {\"key\", \"seq_dim\"}", *it);
    }
    if (tag.key.empty()) return Error::atPointer("an AutoSP tag needs a key", ptr + "/tag");
    b.setTag(i, std::move(tag));
  }
  if (auto it = jn.find(pk::edge_costs); it != jn.end() && !it->is_null()) {
    if (!it->is_array()) return typeError(ptr + "/edge_costs", "an array", *it);
    for (size_t k = 0; k < it->size(); ++k) {
      const std::string ep = ptr + "/edge_costs/" + std::to_string(k);
      const json& e = (*it)[k];
      if (!e.is_object()) return typeError(ep, "an object", e);
      auto in = getInt(e, pk::input, ep, 0, 0, limits::kMaxInputIndex);
      auto c = getNumber(e, pk::comm, ep, 0);
      auto t = getNumber(e, pk::transition, ep, 0);
      if (!in) return in.error();
      if (!c) return c.error();
      if (!t) return t.error();
      p.edgeCosts[{i, static_cast<int>(*in)}] = {*c, *t};
    }
  }
  auto sIt = jn.find(pk::spec);
  specJ.push_back(sIt != jn.end() && !sIt->is_null() ? &*sIt : nullptr);
  auto iIt = jn.find(pk::input_specs);
  inSpecJ.push_back(iIt != jn.end() && !iIt->is_null() ? &*iIt : nullptr);
  auto done = b.endNode(where);
  if (!done) return done.error();
  return true;
}

}  // namespace

// ---- Plan ----------------------------------------------------------------------------------------------------
nlohmann::json specToJson(const std::optional<ShardingSpec>& s) { return specJ<json>(s); }
nlohmann::json argToJson(const Arg& a, const Graph& g) { return argJ<json>(a, g); }
Result<std::vector<int64_t>> shapeFromJson(const nlohmann::json& j, const std::string& pointer) {
  if (!j.is_array()) return typeError(pointer, "an array of sizes", j);
  if (j.size() > static_cast<size_t>(kMaxTensorRank))
    return Error::atPointer("a tensor has at most " + std::to_string(kMaxTensorRank) + " dims", pointer);
  std::vector<int64_t> shape;
  shape.reserve(j.size());
  __int128 numel = 1;
  for (size_t d = 0; d < j.size(); ++d) {
    const auto& v = j[d];
    std::string p = pointer + "/" + std::to_string(d);
    if (!v.is_number_integer()) return typeError(p, "an integer size", v);
    if (v.is_number_unsigned() ? v.get<uint64_t>() > static_cast<uint64_t>(kMaxDimSize) : (v.get<int64_t>() < 0 || v.get<int64_t>() > kMaxDimSize))
      return Error::atPointer("size " + v.dump() + " is out of range [0, 2^53]", p);
    shape.push_back(v.get<int64_t>());
    numel *= shape.back();
    if (numel > (__int128{1} << limits::kMaxTensorElementsLog2))
      return Error::atPointer("the tensor has more than 2^" + std::to_string(limits::kMaxTensorElementsLog2) + " elements", pointer);
  }
  return shape;
}


nlohmann::json planToJson(const Plan& plan) { return json::parse(writePlanString(plan)); }

// Text that is not valid UTF-8 (a name or source line from a broken file) is written with U+FFFD instead of
// throwing: saving must never fail on what a reader accepted.
static std::string dumpJ(const ojson& j) { return j.dump(-1, ' ', false, ojson::error_handler_t::replace); }

std::string writePlanString(const Plan& p) {
  ojson head = headerJ(p);
  std::string out = "{\n";
  for (auto it = head.begin(); it != head.end(); ++it) out += "  " + dumpJ(ojson(it.key())) + ": " + dumpJ(it.value()) + ",\n";
  out += "  \"nodes\": [\n";
  for (int i = 0; i < p.graph.size(); ++i) {
    out += "    " + dumpJ(nodeJ(p, i));
    out += i + 1 < p.graph.size() ? ",\n" : "\n";
  }
  out += "  ],\n  \"redistributes\": [";
  ojson r = redistributesJ(p);
  for (size_t i = 0; i < r.size(); ++i) out += std::string(i ? "," : "") + "\n    " + dumpJ(r[i]);
  out += r.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

Result<Plan> planFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return typeError("", "a JSON object", j);
  PlanBuilder b(PlanFormat::Native);
  Plan& p = b.plan();
  auto fmt = getString(j, pk::format, "", false);
  if (!fmt) return fmt.error();
  if (!fmt->empty() && *fmt != "shardscope-plan")
    return Error::atPointer("not a shardscope plan (format is '" + *fmt + "')", "/format");
  auto ver = getInt(j, pk::version, "", kPlanFormatVersion, 0, limits::kMaxFormatVersion);
  if (!ver) return ver.error();
  if (*ver != kPlanFormatVersion)
    return Error::atPointer("unsupported plan version " + std::to_string(*ver) + " (this build reads version " +
                                std::to_string(kPlanFormatVersion) + ")",
                            "/version");
  auto name = getString(j, pk::name, "", false);
  auto desc = getString(j, pk::description, "", false);
  auto torch = getString(j, pk::torch_version, "", false);
  if (!name) return name.error();
  if (!desc) return desc.error();
  if (!torch) return torch.error();
  p.name = *name;
  p.description = *desc;
  p.torchVersion = *torch;

  auto mIt = j.find(pk::mesh);
  if (mIt == j.end()) return missingKey("", pk::mesh);
  if (!mIt->is_object()) return typeError("/mesh", "an object {\"shape\", \"dim_names\"}", *mIt);
  if (!mIt->contains(pk::shape)) return missingKey("/mesh", pk::shape);
  if (auto m = jsonutil::readMesh(&(*mIt)[pk::shape], jsonutil::member(*mIt, pk::dim_names), Where(pk::mesh),
                                  Where(pk::mesh)(pk::shape), Where(pk::mesh)(pk::dim_names), b);
      !m)
    return m.error();

  if (auto rIt = j.find(pk::run); rIt != j.end() && !rIt->is_null()) {
    if (!rIt->is_object()) return typeError("/run", "an object", *rIt);
    auto seed = getInt(*rIt, pk::seed, "/run", 0, 0, std::numeric_limits<int64_t>::max());
    auto loss = getString(*rIt, pk::loss, "/run", false);
    auto batches = getInt(*rIt, pk::batches, "/run", 3, limits::kMinBatches, limits::kMaxBatches);
    auto rtol = getNumber(*rIt, pk::rtol, "/run", 1e-4);
    auto sp = getInt(*rIt, pk::sp_size, "/run", 0, 0, limits::kMaxSpSize);
    if (!seed) return seed.error();
    if (!loss) return loss.error();
    if (!batches) return batches.error();
    if (!rtol) return rtol.error();
    if (!sp) return sp.error();
    if (!(*rtol > 0)) return Error::atPointer("rtol must be positive", "/run/rtol");
    b.setRun(RunSettings{static_cast<uint64_t>(*seed), *loss, static_cast<int>(*batches), *rtol, static_cast<int>(*sp)});
  }
  if (auto sIt = j.find(pk::summary); sIt != j.end() && !sIt->is_null()) {
    if (!sIt->is_object()) return typeError("/summary", "an object", *sIt);
    auto t = getNumber(*sIt, pk::total, "/summary", -1);
    auto c = getNumber(*sIt, pk::comm, "/summary", -1);
    auto co = getNumber(*sIt, pk::compute, "/summary", -1);
    auto tr = getNumber(*sIt, pk::transition, "/summary", -1);
    for (auto* r : {&t, &c, &co, &tr})
      if (!*r) return r->error();
    p.summary = CostSummary{*t, *c, *co, *tr};
  }

  auto nIt = j.find(pk::nodes);
  if (nIt == j.end()) return missingKey("", pk::nodes);
  if (!nIt->is_array()) return typeError("/nodes", "an array of nodes", *nIt);
  if (static_cast<int64_t>(nIt->size()) > limits::kMaxGraphNodes) return Error::atPointer("too many nodes", "/nodes");
  b.reserveNodes(nIt->size());
  std::vector<const json*> specJs, inSpecJs;
  for (size_t i = 0; i < nIt->size(); ++i) {
    auto r = readNode((*nIt)[i], static_cast<int>(i), b, specJs, inSpecJs);
    if (!r) return r.error();
  }
  if (auto g = b.finishGraph(); !g) return g.error();
  for (int i = 0; i < p.graph.size(); ++i) {
    const std::string ptr = "/nodes/" + std::to_string(i);
    const Where where(pk::nodes, i);
    const Node& n = p.graph.nodes[i];
    if (const json* s = specJs[i]) {
      if (!s->is_array()) return typeError(ptr + "/spec", "an array with one spec per output", *s);
      if (s->size() != n.outputs.size())
        return Error::atPointer("'" + n.name + "' has " + std::to_string(n.outputs.size()) + " outputs but " +
                                    std::to_string(s->size()) + " specs",
                                ptr + "/spec");
      for (size_t k = 0; k < s->size(); ++k) {
        auto sp = specFromJ((*s)[k], b, where(pk::spec, static_cast<int64_t>(k)));
        if (!sp) return sp.error();
        b.setOutputSpec(i, static_cast<int>(k), std::move(*sp));
      }
    }
    if (const json* s = inSpecJs[i]) {
      const auto& ins = p.graph.inputs(i);
      if (!s->is_array()) return typeError(ptr + "/input_specs", "an array with one spec per tensor input", *s);
      if (s->size() != ins.size())
        return Error::atPointer("'" + n.name + "' has " + std::to_string(ins.size()) + " tensor inputs but " +
                                    std::to_string(s->size()) + " input specs",
                                ptr + "/input_specs");
      for (size_t k = 0; k < s->size(); ++k) {
        auto sp = specFromJ((*s)[k], b, where(pk::input_specs, static_cast<int64_t>(k)));
        if (!sp) return sp.error();
        b.setInputSpec(i, static_cast<int>(k), std::move(*sp));
      }
    }
  }
  if (auto rIt = j.find(pk::redistributes); rIt != j.end() && !rIt->is_null()) {
    if (!rIt->is_array()) return typeError("/redistributes", "an array", *rIt);
    for (size_t k = 0; k < rIt->size(); ++k) {
      const std::string ptr = "/redistributes/" + std::to_string(k);
      const Where where(pk::redistributes, static_cast<int64_t>(k));
      const json& e = (*rIt)[k];
      if (!e.is_object()) return typeError(ptr, "an object {\"node\", \"input\", \"from\", \"to\"}", e);
      auto node = getString(e, pk::node, ptr, true);
      if (!node) return node.error();
      int ni = b.find(*node);
      if (ni < 0) return Error::atPointer("unknown node '" + *node + "'", ptr + "/node");
      auto in = getInt(e, pk::input, ptr, 0, 0, limits::kMaxInputIndex);
      if (!in) return in.error();
      auto fIt = e.find(pk::from);
      auto tIt = e.find(pk::to);
      if (fIt == e.end()) return missingKey(ptr, pk::from);
      if (tIt == e.end()) return missingKey(ptr, pk::to);
      auto from = specFromJ(*fIt, b, where(pk::from));
      if (!from) return from.error();
      auto to = specFromJ(*tIt, b, where(pk::to));
      if (!to) return to.error();
      if (!*from || !*to) return Error::atPointer("a redistribute needs both 'from' and 'to' specs", ptr);
      if (auto ok = b.addRedistribute(ni, *in, std::move(**from), std::move(**to), where); !ok) return ok.error();
    }
  }
  return b.finish();
}

}  // namespace ss
