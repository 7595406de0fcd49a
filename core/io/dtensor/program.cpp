// A DTensor program from DebugMode's records (core/io/dtensor/program.h): arguments, the mesh, the plan.
//
// Sections: argument text (`dt$5: f32[32]| S(0)`), the mesh sizes, the plan builder, diagnostics and summaries.
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "core/io/dtensor/program.h"
#include "core/model/placement_parse.h"
#include "core/model/plan_builder.h"
#include "core/model/units.h"

namespace ss {

namespace {

// ---- argument text ----------------------------------------------------------------------------------------------

// One leaf of an argument list: a DTensor (`dt$5: f32[32]| S(0)`), a plain tensor (`t$8: f32[8]`) or anything else.
struct ArgLeaf {
  enum class Kind : uint8_t { DTensor, Tensor, Other } kind = Kind::Other;
  std::string id;             // "dt$5", "t$8"; "" without record_ids
  TensorMeta meta;
  std::string spec;           // DTensor: the placements as printed
  std::string text;           // Other: the literal
  std::string key;            // keyword arguments: their name
};

// An argument: a leaf or a list of arguments.
struct ArgItem {
  ArgLeaf leaf;
  bool isList = false;
  std::vector<ArgItem> items;
};

// Splits at top-level ", " (brackets balanced).
std::vector<std::string_view> splitTop(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t from = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') --depth;
    else if (c == ',' && depth == 0) {
      out.push_back(s.substr(from, i - from));
      from = i + 1;
      while (from < s.size() && s[from] == ' ') ++from;
      i = from - 1;
    }
  }
  if (from < s.size()) out.push_back(s.substr(from));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// `f32[8, 16]` -> the meta; nullopt when it is not one.
std::optional<TensorMeta> parseMeta(std::string_view s) {
  const size_t lb = s.find('[');
  if (lb == std::string_view::npos || s.back() != ']') return std::nullopt;
  TensorMeta m;
  m.dtype = dtypeFromName(s.substr(0, lb));
  if (m.dtype == DType::Unknown) return std::nullopt;
  std::string_view dims = s.substr(lb + 1, s.size() - lb - 2);
  for (std::string_view d : splitTop(dims)) {
    d = trim(d);
    int64_t v = 0;
    if (d.empty()) return std::nullopt;
    for (char c : d) {
      if (c < '0' || c > '9' || v > kMaxTensorDimSize / 10) return std::nullopt;
      v = v * 10 + (c - '0');
    }
    m.shape.push_back(v);
  }
  if (!shapeWithinLimits(m.shape)) return std::nullopt;
  return m;
}

ArgItem parseArgItem(std::string_view s) {
  ArgItem a;
  s = trim(s);
  // keyword: `name=value` (a name, then '=' before any bracket or ':')
  if (const size_t eq = s.find('='); eq != std::string_view::npos && eq > 0 && s.find_first_of("([:") > eq) {
    a = parseArgItem(s.substr(eq + 1));
    a.leaf.key = std::string(s.substr(0, eq));
    return a;
  }
  if (s.size() >= 2 && ((s.front() == '[' && s.back() == ']') || (s.front() == '(' && s.back() == ')'))) {
    a.isList = true;
    for (std::string_view x : splitTop(s.substr(1, s.size() - 2))) a.items.push_back(parseArgItem(x));
    return a;
  }
  a.leaf.text = std::string(s);
  // A tensor inside a list prints as the repr of its string: `[None, None, 't: i64[1]']`.
  if (s.size() >= 2 && s.front() == '\'' && s.back() == '\'') s = s.substr(1, s.size() - 2);
  const size_t colon = s.find(": ");
  if (colon != std::string_view::npos && (s.starts_with("dt") || s.starts_with("t"))) {
    const std::string_view id = s.substr(0, colon);
    const bool dt = id.starts_with("dt");
    std::string_view rest = s.substr(colon + 2);
    std::string_view spec;
    if (const size_t bar = rest.find("| "); bar != std::string_view::npos) {
      spec = rest.substr(bar + 2);
      rest = rest.substr(0, bar);
    }
    if (auto m = parseMeta(rest); m && dt == !spec.empty()) {
      a.leaf.kind = dt ? ArgLeaf::Kind::DTensor : ArgLeaf::Kind::Tensor;
      a.leaf.meta = *m;
      a.leaf.spec = std::string(spec);
      if (id.find('$') != std::string_view::npos) a.leaf.id = std::string(id);
    }
  }
  return a;
}

void flatten(const ArgItem& a, std::vector<const ArgLeaf*>& out) {
  if (!a.isList) {
    out.push_back(&a.leaf);
    return;
  }
  for (const ArgItem& x : a.items) flatten(x, out);
}

struct ParsedArgs {
  std::vector<ArgItem> items;
  std::vector<const ArgLeaf*> leaves;     // flattened: DTensor's argument positions
  std::vector<int> tensorLeaf;            // tensor input k -> its leaf index
  int dtensors = 0;
};

ParsedArgs parseArgs(std::string_view text) {
  ParsedArgs p;
  for (std::string_view x : splitTop(text)) p.items.push_back(parseArgItem(x));
  for (const ArgItem& a : p.items) flatten(a, p.leaves);
  for (size_t i = 0; i < p.leaves.size(); ++i)
    if (p.leaves[i]->kind != ArgLeaf::Kind::Other) {
      p.tensorLeaf.push_back(static_cast<int>(i));
      if (p.leaves[i]->kind == ArgLeaf::Kind::DTensor) ++p.dtensors;
    }
  return p;
}

// "aten::addmm" -> "aten.addmm.default"; "aten::sum.dim_IntList" -> "aten.sum.dim_IntList".
std::string fxOpName(std::string_view name) {
  const size_t sep = name.find("::");
  std::string ns(name.substr(0, sep));
  std::string rest(name.substr(sep + 2));
  if (rest.find('.') == std::string::npos) rest += ".default";
  return ns + "." + rest;
}

std::string bareOpName(std::string_view name) {
  std::string_view r = name.substr(name.find("::") + 2);
  return std::string(r.substr(0, r.find('.')));
}

// "S(1)S(0)->S(1)R->S(0)R" -> its first and last layouts.
std::pair<std::string, std::string> traceEnds(std::string_view trace) {
  const size_t first = trace.find("->");
  const size_t last = trace.rfind("->");
  if (first == std::string_view::npos) return {std::string(trace), std::string(trace)};
  return {std::string(trace.substr(0, first)), std::string(trace.substr(last + 2))};
}

// ---- the mesh sizes -----------------------------------------------------------------------------------------------

// What one observation allows for a mesh dim's size: every n whose first chunk of `global` is `local`
// (ceil(global / n) == local), nullopt when that says little (more than 1024 sizes).
std::optional<std::set<int64_t>> sizesAllowed(int64_t global, int64_t local) {
  if (global <= 0 || local <= 0 || local > global) return std::nullopt;
  const int64_t lo = (global + local - 1) / local;
  const int64_t hi = local == 1 ? global : (global - 1) / (local - 1);
  if (hi - lo > 1024) return std::nullopt;
  std::set<int64_t> s;
  for (int64_t n = lo; n <= hi; ++n)
    if ((global + n - 1) / n == local) s.insert(n);
  return s;
}

struct OpEntry {
  int record = -1;      // the DTensor op's record
  int localCall = -1;   // its local call's record (same op, plain tensors), -1 when not found
  ParsedArgs args;
  ParsedArgs localArgs;
  std::map<int, std::string> movedTo;  // argument position -> the layout an outer redistribute moved it to
};

// The local call of the DTensor op at record `i`: the next Op record deeper than it with the same name and only
// plain tensors, before the next record at its own depth or shallower that is an Op with a DTensor.
int findLocalCall(const std::vector<DebugRecord>& rs, size_t i) {
  for (size_t k = i + 1; k < rs.size(); ++k) {
    const DebugRecord& r = rs[k];
    if (r.depth <= rs[i].depth && r.kind == DebugRecordKind::Op) return -1;
    if (r.kind == DebugRecordKind::Op && r.depth == rs[i].depth + 1 && r.name == rs[i].name) return static_cast<int>(k);
  }
  return -1;
}

Result<DeviceMesh> meshOf(const std::vector<DebugRecord>& rs, const std::vector<OpEntry>& ops, int ndim,
                          const ProgramOptions& opts, std::string& how) {
  if (opts.mesh) {
    if (opts.mesh->ndim() != ndim)
      return Error{"the mesh given has " + std::to_string(opts.mesh->ndim()) + " dims, the placements recorded " + std::to_string(ndim)};
    how = "given";
    return *opts.mesh;
  }
  std::vector<std::optional<std::set<int64_t>>> allowed(ndim);
  auto observe = [&](const ArgLeaf& g, const TensorMeta& local) {
    auto spec = parseSpec(g.spec);
    if (!spec || spec->meshDims() != ndim || g.meta.rank() != local.rank()) return;
    for (int d = 0; d < g.meta.rank(); ++d) {
      const auto dims = spec->meshDimsSharding(d);
      if (dims.size() != 1 || (*spec)[dims[0]].kind != PlacementKind::Shard) continue;
      const auto s = sizesAllowed(g.meta.shape[d], local.shape[d]);
      if (!s) continue;
      auto& a = allowed[dims[0]];
      if (!a) a = *s;
      else {
        std::set<int64_t> both;
        std::set_intersection(a->begin(), a->end(), s->begin(), s->end(), std::inserter(both, both.begin()));
        a = both;
      }
    }
  };
  for (const OpEntry& op : ops) {
    if (op.localCall < 0 || op.localArgs.tensorLeaf.size() != op.args.tensorLeaf.size()) continue;
    for (size_t k = 0; k < op.args.tensorLeaf.size(); ++k) {
      const ArgLeaf& g = *op.args.leaves[op.args.tensorLeaf[k]];
      const ArgLeaf& l = *op.localArgs.leaves[op.localArgs.tensorLeaf[k]];
      if (g.kind != ArgLeaf::Kind::DTensor || l.kind != ArgLeaf::Kind::Tensor) continue;
      // The local call runs on the input as DTensor moved it.
      if (auto m = op.movedTo.find(op.args.tensorLeaf[k]); m != op.movedTo.end()) {
        ArgLeaf moved = g;
        moved.spec = m->second;
        observe(moved, l.meta);
      } else {
        observe(g, l.meta);
      }
    }
  }
  (void)rs;
  std::vector<int64_t> shape(ndim, 0);
  int unknown = 0;
  for (int k = 0; k < ndim; ++k) {
    if (allowed[k] && allowed[k]->size() == 1) shape[k] = *allowed[k]->begin();
    else ++unknown;
  }
  how = "the local shapes of sharded arguments";
  // Several sizes still possible (a small dim split unevenly fits more than one): the one combination whose
  // product is the number of ranks, when exactly one is.
  if (unknown > 0 && opts.worldSize > 0 && std::all_of(allowed.begin(), allowed.end(), [](const auto& a) { return a && !a->empty(); })) {
    std::vector<std::vector<int64_t>> fits;
    std::vector<int64_t> cur;
    std::function<void(int, int64_t)> walk = [&](int k, int64_t prod) {
      if (fits.size() > 1) return;
      if (k == ndim) {
        if (prod == opts.worldSize) fits.push_back(cur);
        return;
      }
      for (int64_t n : *allowed[k]) {
        if (prod * n > opts.worldSize) break;
        cur.push_back(n);
        walk(k + 1, prod * n);
        cur.pop_back();
      }
    };
    walk(0, 1);
    if (fits.size() == 1) {
      shape = fits[0];
      unknown = 0;
      how = "the local shapes of sharded arguments and the number of ranks";
    }
  }
  if (unknown == 1 && opts.worldSize > 0) {
    int64_t known = 1;
    for (int64_t s : shape) known *= s > 0 ? s : 1;
    if (opts.worldSize % known == 0)
      for (auto& s : shape)
        if (s == 0) s = opts.worldSize / known;
    how = unknown == ndim ? "the number of ranks" : "the local shapes of sharded arguments and the number of ranks";
    unknown = 0;
  }
  if (unknown > 0) {
    std::string dims;
    for (int k = 0; k < ndim; ++k)
      if (shape[k] == 0) dims += (dims.empty() ? "" : ", ") + std::to_string(k);
    return Error{"cannot tell the size of mesh dim " + dims +
                 " (DebugMode never prints the mesh, and no argument sharded on it shows its local shape): give --mesh"};
  }
  return DeviceMesh(shape);
}

// ---- the plan -------------------------------------------------------------------------------------------------

struct Builder {
  const std::vector<DebugRecord>& rs;
  const ProgramOptions& opts;
  DTensorProgram prog;
  PlanBuilder pb{kProgramPlanFormat};
  std::set<std::string> names;
  std::unordered_map<std::string, int> valueOf;        // DTensor id -> the node whose output it is
  std::unordered_map<std::string, int> localProducer;  // local tensor id -> the node whose local result it is
  std::vector<std::optional<ShardingSpec>> outSpec;    // per node: its output spec once known
  int lastProducer = -1;

  Builder(const std::vector<DebugRecord>& r, const ProgramOptions& o) : rs(r), opts(o) {}

  std::string uniqueName(std::string base) {
    for (char& c : base)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    std::string n = base;
    for (int k = 1; names.count(n); ++k) n = base + "_" + std::to_string(k);
    names.insert(n);
    return n;
  }

  Result<ShardingSpec> spec(std::string_view text, int line) {
    auto s = parseSpec(text);
    if (!s) return Error::atLine("placement \"" + std::string(text) + "\": " + s.error().message, line, 1);
    return *s;
  }

  // A value no recorded op produced: a placeholder with the argument's global meta and placements.
  Result<int> placeholder(const std::string& base, const TensorMeta& meta, const ShardingSpec& s, int line) {
    int idx = -1;
    Node& n = pb.beginNode(&idx);
    n.name = uniqueName(base);
    n.op = "placeholder";
    n.kind = NodeKind::Placeholder;
    n.placeholderKind = PlaceholderKind::Input;
    n.outputs = {meta};
    auto r = pb.endNode(Where::at(line, 1));
    if (!r) return r.error();
    pb.setOutputSpec(*r, 0, s);
    outSpec.resize(pb.plan().graph.size());
    outSpec[*r] = s;
    return *r;
  }

  // The node an input reads: the value's producer when the records say which and its layout is the one the
  // consumer was handed, else a placeholder.
  Result<int> inputNode(const ArgLeaf& g, const ShardingSpec& s, const std::string& localId, int line) {
    if (!g.id.empty())
      if (auto it = valueOf.find(g.id); it != valueOf.end()) return it->second;
    int node = -1;
    if (auto it = localProducer.find(localId); !localId.empty() && it != localProducer.end()) {
      const int p = it->second;
      const Node& pn = pb.plan().graph.nodes[p];
      const bool fits = !pn.outputs.empty() && (!pn.outputs[0].known || pn.outputs[0].shape == g.meta.shape);
      if (fits && (!outSpec[p] || *outSpec[p] == s)) {
        node = p;
        if (!outSpec[p]) {
          outSpec[p] = s;
          pb.setOutputSpec(p, 0, s);
          pb.plan().graph.nodes[p].outputs = {g.meta};
        }
      }
    }
    if (node < 0) {
      auto ph = placeholder(g.id.empty() ? "input" : g.id, g.meta, s, line);
      if (!ph) return ph.error();
      node = *ph;
    }
    if (!g.id.empty()) valueOf[g.id] = node;
    return node;
  }

  static Arg argOf(const ArgItem& a, const std::vector<int>& nodeOfLeaf, size_t& leaf) {
    if (a.isList) {
      std::vector<Arg> items;
      for (const ArgItem& x : a.items) items.push_back(argOf(x, nodeOfLeaf, leaf));
      return Arg::list(std::move(items));
    }
    const int n = nodeOfLeaf[leaf++];
    if (n >= 0) return Arg::tensor({n, 0});
    const std::string& t = a.leaf.text;
    if (t == "None") return Arg::none();
    if (t == "True" || t == "False") return Arg::boolean(t == "True");
    char* end = nullptr;
    const long long i = std::strtoll(t.c_str(), &end, 10);
    if (!t.empty() && end && *end == '\0') return Arg::integer(i);
    const double f = std::strtod(t.c_str(), &end);
    if (!t.empty() && end && *end == '\0') return Arg::real(f);
    if (DType d = dtypeFromName(t); d != DType::Unknown && t.starts_with("torch.")) return Arg::dtype(d);
    return Arg::symbol(t);
  }

  // The collectives recorded under the redistribute record at `i` (deeper records until one at its depth or above).
  std::vector<std::string> collectivesUnder(size_t i) const {
    std::vector<std::string> out;
    for (size_t k = i + 1; k < rs.size() && rs[k].depth > rs[i].depth; ++k) {
      const DebugRecord& r = rs[k];
      if (r.kind != DebugRecordKind::Op || !r.name.starts_with("_c10d_functional::")) continue;
      const std::string op = r.name.substr(18);
      if (op != "wait_tensor" && op != "_wrap_tensor_autograd") out.push_back(op);
    }
    return out;
  }

  void cost(ProgramRedistribute& r) const {
    r.plan = planRedistribute(r.meta, prog.plan.mesh, r.from, r.to, opts.cost);
  }

  Result<bool> run(const std::vector<OpEntry>& ops, std::map<int, int>& opAtRecord) {
    std::vector<std::pair<int, std::string>> modules;  // (depth, path): record_nn_module's stack
    bool backward = false;
    int currentOp = -1;       // the plan node of the last DTensor op
    int currentOpEntry = -1;  // its OpEntry
    for (size_t i = 0; i < rs.size(); ++i) {
      const DebugRecord& r = rs[i];
      if (r.kind == DebugRecordKind::Module) {
        while (!modules.empty() && modules.back().first >= r.depth) modules.pop_back();
        modules.emplace_back(r.depth, r.name);
        continue;
      }
      // A record at depth 0 with no module open above it ends the forward's modules (the backward runs at depth 0).
      while (!modules.empty() && modules.back().first > r.depth) modules.pop_back();
      const std::string module = modules.empty() ? std::string() : modules.back().second;
      if (r.kind == DebugRecordKind::Op) {
        if (auto it = opAtRecord.find(static_cast<int>(i)); it != opAtRecord.end()) {
          const OpEntry& e = ops[it->second];
          std::vector<int> nodeOfLeaf(e.args.leaves.size(), -1);
          std::vector<std::optional<ShardingSpec>> inSpecs;
          for (size_t k = 0; k < e.args.tensorLeaf.size(); ++k) {
            const ArgLeaf& g = *e.args.leaves[e.args.tensorLeaf[k]];
            std::string localId;
            if (e.localCall >= 0 && e.localArgs.tensorLeaf.size() == e.args.tensorLeaf.size())
              localId = e.localArgs.leaves[e.localArgs.tensorLeaf[k]]->id;
            std::optional<ShardingSpec> s;
            if (g.kind == ArgLeaf::Kind::DTensor) {
              auto sp = spec(g.spec, r.line);
              if (!sp) return sp.error();
              s = *sp;
            } else {
              s = ShardingSpec::replicated(prog.plan.mesh.ndim());  // a plain tensor DTensor takes as replicated
            }
            auto in = inputNode(g, *s, localId, r.line);
            if (!in) return in.error();
            nodeOfLeaf[e.args.tensorLeaf[k]] = *in;
            inSpecs.push_back(s);
          }
          int idx = -1;
          Node& n = pb.beginNode(&idx);
          n.name = uniqueName(bareOpName(r.name));
          n.op = fxOpName(r.name);
          size_t leaf = 0;
          for (const ArgItem& a : e.args.items) {
            Arg v = argOf(a, nodeOfLeaf, leaf);
            if (!a.leaf.key.empty() && !a.isList) n.kwargs.emplace_back(a.leaf.key, std::move(v));
            else n.args.push_back(std::move(v));
          }
          TensorMeta out;
          out.known = false;
          n.outputs = {out};
          n.modulePath = module;
          n.phase = backward ? Phase::Backward : Phase::Forward;
          n.source.code = r.stack;
          auto end = pb.endNode(Where::at(r.line, 1));
          if (!end) return end.error();
          outSpec.resize(pb.plan().graph.size());
          for (size_t k = 0; k < inSpecs.size(); ++k) pb.setInputSpec(*end, static_cast<int>(k), inSpecs[k]);
          currentOp = *end;
          currentOpEntry = it->second;
          lastProducer = *end;
          continue;
        }
        if (!r.output.empty() && lastProducer >= 0) {
          const ArgItem o = parseArgItem(r.output);
          if (!o.leaf.id.empty()) localProducer[o.leaf.id] = lastProducer;
        }
        continue;
      }
      if (r.kind == DebugRecordKind::OutputPlacement && currentOp >= 0) {
        auto s = spec(r.output, r.line);
        if (!s) return s.error();
        outSpec[currentOp] = *s;
        pb.setOutputSpec(currentOp, 0, *s);
        continue;
      }
      if (r.kind != DebugRecordKind::Redistribute) continue;
      if (r.outer) {
        // DTensor moved input `args` of the current op before running it.
        if (currentOp < 0) return Error::atLine("a redistribute_input of an argument before any DTensor op", r.line, 1);
        const OpEntry& e = ops[currentOpEntry];
        char* endp = nullptr;
        const long pos = std::strtol(r.args.c_str(), &endp, 10);
        if (r.args.empty() || *endp != '\0' || pos < 0 || pos >= static_cast<long>(e.args.leaves.size()))
          return Error::atLine("redistribute_input names argument " + r.args + ", which " + rs[e.record].name + " does not have", r.line, 1);
        const auto t = std::find(e.args.tensorLeaf.begin(), e.args.tensorLeaf.end(), static_cast<int>(pos));
        if (t == e.args.tensorLeaf.end())
          return Error::atLine("redistribute_input names argument " + r.args + " of " + rs[e.record].name + ", which is not a tensor", r.line, 1);
        ProgramRedistribute pr;
        pr.tag = r.tag;
        pr.node = currentOp;
        pr.input = static_cast<int>(t - e.args.tensorLeaf.begin());
        pr.argIndex = static_cast<int>(pos);
        auto from = spec(r.src, r.line);
        if (!from) return from.error();
        auto to = spec(r.dst, r.line);
        if (!to) return to.error();
        pr.from = *from;
        pr.to = *to;
        pr.meta = e.args.leaves[pos]->meta;
        if (i + 1 < rs.size() && rs[i + 1].kind == DebugRecordKind::Redistribute && !rs[i + 1].outer) {
          pr.trace = rs[i + 1].trace;
          pr.collectives = collectivesUnder(i + 1);
        }
        pr.module = module;
        pr.phase = backward ? Phase::Backward : Phase::Forward;
        pr.line = r.line;
        cost(pr);
        pb.setInputSpec(currentOp, pr.input, pr.to);
        prog.redistributes.push_back(std::move(pr));
        continue;
      }
      // An inner record: one that an outer record announced belongs to it.
      if (i > 0 && rs[i - 1].kind == DebugRecordKind::Redistribute && rs[i - 1].outer) continue;
      // Standalone: an explicit redistribute (parallel style, .redistribute(), full_tensor()) or, untagged, the
      // backward's. The first untagged one starts the backward.
      if (r.tag == RedistributeTag::Untagged) backward = true;
      if (r.trace.find("->") == std::string::npos) continue;  // `trace: R`: nothing moved
      auto [fromText, toText] = traceEnds(r.trace);
      auto from = spec(fromText, r.line);
      if (!from) return from.error();
      auto to = spec(toText, r.line);
      if (!to) return to.error();
      const ArgItem a = parseArgItem(r.args);
      if (a.leaf.kind != ArgLeaf::Kind::Tensor)
        return Error::atLine("expected the redistributed local tensor (`t: f32[...]`), got \"" + r.args + "\"", r.line, 1);
      // The global tensor: the local one grown on every mesh dim that shards it (exact for even shards).
      TensorMeta global = a.leaf.meta;
      for (int k = 0; k < from->meshDims(); ++k)
        if ((*from)[k].isShard() && (*from)[k].dim < global.rank()) global.shape[(*from)[k].dim] *= prog.plan.mesh.dimSize(k);
      int producer = -1;
      if (auto it = localProducer.find(a.leaf.id); !a.leaf.id.empty() && it != localProducer.end()) producer = it->second;
      else if (a.leaf.id.empty() && lastProducer >= 0 && (!outSpec[lastProducer] || *outSpec[lastProducer] == *from))
        producer = lastProducer;  // without ids: the op just recorded, when it may deliver this layout
      if (producer >= 0 && outSpec[producer] && *outSpec[producer] != *from) producer = -1;
      if (producer >= 0 && !outSpec[producer]) {
        outSpec[producer] = *from;
        pb.setOutputSpec(producer, 0, *from);
        pb.plan().graph.nodes[producer].outputs = {global};
      }
      if (producer < 0) {
        auto ph = placeholder("input", global, *from, r.line);
        if (!ph) return ph.error();
        producer = *ph;
      }
      int idx = -1;
      Node& n = pb.beginNode(&idx);
      n.name = uniqueName("redistribute");
      n.op = kRedistributeNodeOp;
      n.args = {Arg::tensor({producer, 0})};
      n.outputs = {global};
      n.modulePath = module;
      n.phase = backward ? Phase::Backward : Phase::Forward;
      n.source.code = r.stack;
      auto end = pb.endNode(Where::at(r.line, 1));
      if (!end) return end.error();
      outSpec.resize(pb.plan().graph.size());
      outSpec[*end] = *to;
      pb.setOutputSpec(*end, 0, *to);
      pb.setInputSpec(*end, 0, *to);
      ProgramRedistribute pr;
      pr.tag = r.tag;
      pr.node = *end;
      pr.input = 0;
      pr.from = *from;
      pr.to = *to;
      pr.meta = global;
      pr.trace = r.trace;
      pr.collectives = collectivesUnder(i);
      pr.module = module;
      pr.phase = n.phase;
      pr.line = r.line;
      cost(pr);
      prog.redistributes.push_back(std::move(pr));
      lastProducer = *end;
    }
    return true;
  }
};

}  // namespace

std::optional<std::vector<int64_t>> parseSizeList(std::string_view body) {
  std::vector<int64_t> out;
  while (!body.empty()) {
    const size_t comma = body.find(", ");
    const std::string_view d = body.substr(0, comma);
    body = comma == std::string_view::npos ? std::string_view() : body.substr(comma + 2);
    int64_t v = 0;
    if (d.empty()) return std::nullopt;
    for (char c : d) {
      if (c < '0' || c > '9' || v > kMaxTensorDimSize / 10) return std::nullopt;
      v = v * 10 + (c - '0');
    }
    out.push_back(v);
  }
  return out;
}

const char* programSourceName(ProgramSource s) {
  switch (s) {
    case ProgramSource::DebugModeText: return "DebugMode text";
    case ProgramSource::DebugModeLogs: return "DebugMode save_logs JSON";
    case ProgramSource::CommDebugJson: return "CommDebugMode JSON dump";
  }
  return "?";
}

int DTensorProgram::implicitCount() const {
  return static_cast<int>(std::count_if(redistributes.begin(), redistributes.end(),
                                        [](const ProgramRedistribute& r) { return r.tag == RedistributeTag::Implicit; }));
}

std::vector<ModuleComm> DTensorProgram::moduleComm() const {
  std::vector<ModuleComm> out = recordedComm;
  for (const ProgramRedistribute& r : redistributes) {
    auto it = std::find_if(out.begin(), out.end(), [&](const ModuleComm& m) { return m.module == r.module; });
    if (it == out.end()) it = out.insert(out.end(), ModuleComm{r.module});
    const bool bwd = r.phase == Phase::Backward;
    (bwd ? it->backwardCount : it->forwardCount) += 1;
    (bwd ? it->backwardBytes : it->forwardBytes) += r.plan.totalBytes();
    (bwd ? it->backwardUs : it->forwardUs) += r.plan.totalTimeUs();
  }
  return out;
}

Result<DTensorProgram> programFromDebugRecords(const std::vector<DebugRecord>& rs, const ProgramOptions& opts) {
  std::vector<OpEntry> ops;
  std::map<int, int> opAtRecord;
  int ndim = -1;
  for (size_t i = 0; i < rs.size(); ++i) {
    if (rs[i].kind != DebugRecordKind::Op) continue;
    ParsedArgs a = parseArgs(rs[i].args);
    if (a.dtensors == 0) continue;
    for (const ArgLeaf* l : a.leaves) {
      if (l->kind != ArgLeaf::Kind::DTensor) continue;
      auto s = parseSpec(l->spec);
      if (!s) return Error::atLine("placement \"" + l->spec + "\": " + s.error().message, rs[i].line, 1);
      if (ndim < 0) ndim = s->meshDims();
      else if (ndim != s->meshDims())
        return Error::atLine("placement \"" + l->spec + "\" has " + std::to_string(s->meshDims()) + " mesh dims, earlier ones " +
                                 std::to_string(ndim), rs[i].line, 1);
    }
    OpEntry e;
    e.record = static_cast<int>(i);
    e.localCall = findLocalCall(rs, i);
    e.args = std::move(a);
    if (e.localCall >= 0) e.localArgs = parseArgs(rs[e.localCall].args);
    opAtRecord[static_cast<int>(i)] = static_cast<int>(ops.size());
    ops.push_back(std::move(e));
  }
  // Which arguments DTensor moved before each op ran (its outer redistribute records, after the op's record).
  {
    int last = -1;
    for (size_t i = 0; i < rs.size(); ++i) {
      if (auto it = opAtRecord.find(static_cast<int>(i)); it != opAtRecord.end()) last = it->second;
      const DebugRecord& r = rs[i];
      if (r.kind != DebugRecordKind::Redistribute || !r.outer || last < 0) continue;
      char* endp = nullptr;
      const long pos = std::strtol(r.args.c_str(), &endp, 10);
      if (!r.args.empty() && *endp == '\0' && pos >= 0) ops[last].movedTo[static_cast<int>(pos)] = r.dst;
    }
  }
  if (ops.empty()) return Error::atLine("a DebugMode trace with no DTensor op (no argument printed as `dt: f32[...]| S(0)`)", 1, 1);
  std::string how;
  auto mesh = meshOf(rs, ops, ndim, opts, how);
  if (!mesh) return Error::atLine(mesh.error().message, rs[ops.front().record].line, 1);
  Builder b(rs, opts);
  b.prog.meshFrom = how;
  b.prog.plan.mesh = *mesh;
  if (auto ok = b.pb.setMesh(mesh->shape(), mesh->dimNames(), Where::at(1, 1)); !ok) return ok.error();
  if (auto ok = b.run(ops, opAtRecord); !ok) return ok.error();
  if (auto ok = b.pb.finishGraph(); !ok) return ok.error();
  for (const ProgramRedistribute& r : b.prog.redistributes)
    if (auto ok = b.pb.addRedistribute(r.node, r.input, r.from, r.to, Where::at(r.line, 1)); !ok) return ok.error();
  auto plan = b.pb.finish();
  if (!plan) return plan.error();
  b.prog.plan = std::move(*plan);
  return std::move(b.prog);
}

Diagnostics programDiagnostics(const DTensorProgram& p) {
  Diagnostics d;
  for (const ProgramRedistribute& r : p.redistributes) {
    if (r.tag != RedistributeTag::Implicit) continue;
    const Node& n = p.plan.graph.nodes[r.node];
    Diagnostic x;
    x.severity = Severity::Warning;
    x.kind = DiagKind::ImplicitRedistribute;
    x.node = r.node;
    x.input = r.input;
    x.have = r.from;
    x.want = r.to;
    std::string shape;
    for (size_t k = 0; k < r.meta.shape.size(); ++k) shape += (k ? ", " : "") + std::to_string(r.meta.shape[k]);
    x.message = "DTensor redistributed argument " + std::to_string(r.argIndex) + " of " + n.opName() + " (" +
                dtypeName(r.meta.dtype) + "[" + shape + "]) from " + r.from.toMeshString() + " to " + r.to.toMeshString() +
                " before running it, a move the program does not ask for: " + r.plan.summary();
    x.fix = "hand " + n.opName() + " its input as " + r.to.toMeshString() + " (a placement the producer already gives, or an explicit redistribute where it pays)";
    if (!r.trace.empty()) x.notes.push_back("DebugMode's path: " + r.trace);
    if (!r.collectives.empty()) {
      std::string c;
      for (const std::string& s : r.collectives) c += (c.empty() ? "" : ", ") + s;
      x.notes.push_back("collectives recorded: " + c);
    }
    for (const RedistributeStep& s : r.plan.steps) x.notes.push_back(s.toString());
    if (!r.module.empty()) x.notes.push_back("module: " + r.module);
    x.notes.push_back("recorded at line " + std::to_string(r.line));
    d.items.push_back(std::move(x));
  }
  return d;
}

std::string programSummaryText(const DTensorProgram& p) {
  std::string out = std::string(programSourceName(p.source)) + ": " + std::to_string(p.files.size()) + " rank file" +
                    (p.files.size() == 1 ? "" : "s") + ", mesh " + p.plan.mesh.toString() + " (sizes from " + p.meshFrom + "), " +
                    std::to_string(p.plan.graph.size()) + " nodes, " + std::to_string(p.redistributes.size()) +
                    " redistributes (" + std::to_string(p.implicitCount()) + " implicit)\n";
  int64_t fb = 0, bb = 0;
  double fu = 0, bu = 0;
  out += "communication by module (per rank; forward | backward):\n";
  for (const ModuleComm& m : p.moduleComm()) {
    out += "  " + (m.module.empty() ? std::string("(no module)") : m.module) + ": " + std::to_string(m.forwardCount) + " x " +
           formatBytes(m.forwardBytes) + " " + formatTimeUs(m.forwardUs) + " | " + std::to_string(m.backwardCount) + " x " +
           formatBytes(m.backwardBytes) + " " + formatTimeUs(m.backwardUs) + "\n";
    fb += m.forwardBytes;
    bb += m.backwardBytes;
    fu += m.forwardUs;
    bu += m.backwardUs;
  }
  out += "  total: " + formatBytes(fb) + " " + formatTimeUs(fu) + " | " + formatBytes(bb) + " " + formatTimeUs(bu) + "\n";
  if (p.rankDifferences.empty() && p.files.size() > 1) out += "every rank recorded the same program\n";
  for (const std::string& s : p.rankDifferences) out += "rank difference: " + s + "\n";
  return out;
}

}  // namespace ss
