// Compiled DTensor programs in a TORCH_TRACE log (core/io/dtensor/compiled.h).
#include "core/io/dtensor/compiled.h"

#include <map>
#include <set>

#include "core/io/file.h"
#include "core/io/dtensor/program.h"
#include "core/io/formats.h"
#include "core/io/fx/dynamo.h"
#include "core/model/placement_parse.h"
#include "core/model/plan_builder.h"

namespace ss {

namespace {

constexpr const char* kDynamoOutputGraph = "dynamo_output_graph";
constexpr const char* kAotForwardGraph = "aot_forward_graph";
constexpr const char* kAotBackwardGraph = "aot_backward_graph";

bool keepCompiled(const TraceRecord& r) {
  return r.kind == kDynamoOutputGraph || r.kind == kAotForwardGraph || r.kind == kAotBackwardGraph ||
         (r.kind == "artifact" && r.name == kTorchVersionArtifact);
}

bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// `DTensor(f32[8, 32][32, 1]cpu, S(1))` or `f32[8, 8][8, 1]cpu` -> meta and spec (nullopt for a plain tensor);
// nullopt when it is neither.
struct Annotated {
  TensorMeta meta;
  std::optional<std::string> spec;
};
std::optional<Annotated> parseDynamoAnnotation(std::string_view a) {
  Annotated out;
  if (a.starts_with("DTensor(") && a.ends_with(")")) {
    a = a.substr(8, a.size() - 9);
    const size_t comma = a.rfind(", ");
    if (comma == std::string_view::npos) return std::nullopt;
    out.spec = std::string(a.substr(comma + 2));
    a = a.substr(0, comma);
  }
  const size_t lb = a.find('[');
  const size_t rb = a.find(']');
  if (lb == std::string_view::npos || rb == std::string_view::npos || rb < lb) return std::nullopt;
  out.meta.dtype = dtypeFromName(a.substr(0, lb));
  if (out.meta.dtype == DType::Unknown) return std::nullopt;
  auto dims = parseSizeList(a.substr(lb + 1, rb - lb - 1));  // symbolic sizes: not read
  if (!dims) return std::nullopt;
  out.meta.shape = std::move(*dims);
  return out;
}

// "# File: /path/style.py:298 in _prepare_output_fn, code: ..." (after torch's optional prefixes) -> file, line.
SourceLoc sourceOf(std::string_view comment) {
  SourceLoc s;
  const size_t f = comment.find("File: ");
  if (f == std::string_view::npos) return s;
  std::string_view rest = comment.substr(f + 6);
  const size_t in = rest.find(" in ");
  std::string_view loc = rest.substr(0, in);
  const size_t colon = loc.rfind(':');
  s.file = std::string(loc.substr(0, colon));
  if (colon != std::string_view::npos)
    for (char c : loc.substr(colon + 1)) {
      if (c < '0' || c > '9' || s.line > 100000000) break;
      s.line = s.line * 10 + (c - '0');
    }
  if (in != std::string_view::npos) {
    std::string_view after = rest.substr(in + 4);
    const size_t code = after.find(", code: ");
    s.func = std::string(after.substr(0, code));
    if (code != std::string_view::npos) s.code = std::string(after.substr(code + 8));
  }
  return s;
}

// The identifiers of `expr` that name earlier values, in order (a value read twice counts twice).
std::vector<int> valueRefs(std::string_view expr, const std::map<std::string, int, std::less<>>& values) {
  std::vector<int> out;
  for (size_t i = 0; i < expr.size();) {
    if (expr[i] == '\'' || expr[i] == '"') {  // a string literal
      const char q = expr[i];
      const size_t e = expr.find(q, i + 1);
      i = e == std::string_view::npos ? expr.size() : e + 1;
      continue;
    }
    if (!isIdentChar(expr[i]) || (i > 0 && (isIdentChar(expr[i - 1]) || expr[i - 1] == '.'))) {
      ++i;
      continue;
    }
    size_t e = i;
    while (e < expr.size() && isIdentChar(expr[e])) ++e;
    const std::string_view id = expr.substr(i, e - i);
    // A keyword's name (`run_check = False`) is not a value.
    size_t k = e;
    while (k < expr.size() && expr[k] == ' ') ++k;
    const bool keyword = k < expr.size() && expr[k] == '=' && (k + 1 >= expr.size() || expr[k + 1] != '=');
    if (!keyword)
      if (auto it = values.find(id); it != values.end()) out.push_back(it->second);
    i = e;
  }
  return out;
}

// The callee of `x.redistribute(...)` / `torch.relu(...)`: the text before the top-level '('.
std::string calleeOf(std::string_view expr) {
  const size_t open = expr.find('(');
  return std::string(trimmed(expr.substr(0, open)));
}

enum class Transition : uint8_t { None, FromLocal, Redistribute, ToLocal };

Transition transitionOf(std::string_view callee) {
  if (callee.ends_with(".redistribute")) return Transition::Redistribute;
  if (callee.ends_with(".to_local")) return Transition::ToLocal;
  if (callee.ends_with("from_local")) return Transition::FromLocal;
  return Transition::None;
}

// The aten op a Dynamo call runs (core/io/fx/dynamo.h's table, on its tensor arguments), an infix `a + b` as
// aten's; else the callee as printed (the checker then says it is unchecked).
std::string atenOpOf(const std::string& callee, const std::vector<int>& ins) {
  for (const auto& [sym, op] : {std::pair{" + ", "aten.add.Tensor"}, std::pair{" - ", "aten.sub.Tensor"},
                                std::pair{" * ", "aten.mul.Tensor"}, std::pair{" / ", "aten.div.Tensor"}})
    if (callee.find(sym) != std::string::npos && ins.size() == 2) return op;
  std::vector<Arg> args;
  for (int in : ins) args.push_back(Arg::tensor({in, 0}));
  if (auto a = fx::atenForTorchFunction(callee, args, {})) return a->op;
  return callee;
}

}  // namespace

bool looksLikeCompiledDTensorLog(std::string_view text) {
  return text.find(": \"DTensor(") != std::string_view::npos;
}

std::optional<DeviceMesh> parseDeviceMeshRepr(std::string_view s) {
  constexpr std::string_view kHead = "DeviceMesh((";
  if (!s.starts_with(kHead)) return std::nullopt;
  const size_t end = s.find(')', kHead.size());
  if (end == std::string_view::npos) return std::nullopt;
  std::vector<int64_t> shape;
  std::vector<std::string> names;
  std::string_view body = s.substr(kHead.size(), end - kHead.size());
  while (!body.empty()) {
    const size_t comma = body.find(", ");
    std::string_view item = body.substr(0, comma);
    body = comma == std::string_view::npos ? std::string_view() : body.substr(comma + 2);
    const size_t eq = item.find('=');
    std::string_view num = eq == std::string_view::npos ? item : item.substr(eq + 1);
    if (eq != std::string_view::npos) names.emplace_back(item.substr(0, eq));
    int64_t v = 0;
    if (num.empty()) return std::nullopt;
    for (char c : num) {
      if (c < '0' || c > '9' || v > limits::kMaxMeshDimRead) return std::nullopt;
      v = v * 10 + (c - '0');
    }
    shape.push_back(v);
  }
  if (!names.empty() && names.size() != shape.size()) return std::nullopt;
  auto m = DeviceMesh::make(shape, names);
  if (!m) return std::nullopt;
  return *m;
}

Result<CompiledDTensorProgram> readCompiledDTensorLog(std::string_view text, const std::string& file, const AppliedOptions& opts) {
  auto log = readTraceLog(text, keepCompiled);
  if (!log) return log.error();
  const TraceRecord* dynamo = nullptr;
  std::vector<const TraceRecord*> aot;
  for (const TraceRecord& r : log->records) {
    if (!r.kept) continue;
    if (r.kind == kDynamoOutputGraph && r.payload.find(": \"DTensor(") != std::string::npos && !dynamo) dynamo = &r;
    if (dynamo && (r.kind == kAotForwardGraph || r.kind == kAotBackwardGraph)) aot.push_back(&r);
  }
  if (!dynamo)
    return Error::atLine("a TORCH_TRACE log with DTensor values but no dynamo_output_graph annotated with them: not a compiled DTensor program shardscope can read", 1, 1);
  // The mesh: torch prints it as DeviceMesh((tp=4), 'cpu', stride=(1,)) in the tensors' descriptions and guards.
  std::optional<DeviceMesh> mesh;
  int meshLine = 0;
  for (size_t at = text.find("DeviceMesh(("); at != std::string_view::npos; at = text.find("DeviceMesh((", at + 1)) {
    auto m = parseDeviceMeshRepr(text.substr(at, 256));
    if (!m) continue;
    if (!mesh) {
      mesh = *m;
      meshLine = lineColOf(text, at).first;
    } else if (!(*mesh == *m)) {
      return Error::atLine("a second DeviceMesh (" + m->toString() + ", line " + std::to_string(meshLine) + " has " + mesh->toString() +
                               "): shardscope reads one mesh per program", lineColOf(text, at).first, 1);
    }
  }
  if (!mesh) return Error::atLine("DTensor values but no DeviceMesh((...)) record: the mesh is unknown", dynamo->line, 1);

  CompiledDTensorProgram out;
  out.file = file;
  out.torchVersion = "";
  PlanBuilder pb(kProgramPlanFormat);
  if (auto ok = pb.setMesh(mesh->shape(), mesh->dimNames(), Where::at(meshLine, 1)); !ok) return ok.error();
  std::map<std::string, int, std::less<>> values;
  std::vector<std::pair<int, std::pair<ShardingSpec, ShardingSpec>>> transitions;  // (node, (from, to))
  std::vector<std::optional<ShardingSpec>> specOf;
  std::set<std::string> fromLocal;  // the from_local nodes (planned transitions into DTensor)
  auto fail = [&](int payloadLine, const std::string& what) {
    return Error::atLine(what + " (in dynamo_output_graph)", dynamo->payloadLine + payloadLine, 2);
  };
  auto specFrom = [&](const std::string& s, int line) -> Result<ShardingSpec> {
    ParseContext ctx;
    ctx.mesh = &*mesh;
    auto p = parseSpec(s, ctx);
    if (!p) return fail(line, "placement \"" + s + "\": " + p.error().message);
    return *p;
  };
  std::string_view body = dynamo->payload;
  SourceLoc source;
  int line = 0;
  bool inForward = false;
  for (size_t pos = 0; pos < body.size();) {
    size_t end = body.find('\n', pos);
    if (end == std::string_view::npos) end = body.size();
    std::string_view l = body.substr(pos, end - pos);
    pos = end + 1;
    const std::string_view t = trimmed(l);
    ++line;
    if (t.starts_with("def forward(self, ")) {
      // Parameters: `NAME: "ANNOT"` (tensors) or `NAME : TYPE` (a DeviceMesh, a scalar).
      inForward = true;
      std::string_view ps = t.substr(18);
      if (ps.ends_with("):")) ps.remove_suffix(2);
      int depth = 0;
      size_t from = 0;
      std::vector<std::string_view> params;
      for (size_t i = 0; i <= ps.size(); ++i) {
        const char c = i < ps.size() ? ps[i] : ',';
        if (c == '(' || c == '[') ++depth;
        else if (c == ')' || c == ']') --depth;
        else if (c == ',' && depth == 0) {
          params.push_back(trimmed(ps.substr(from, i - from)));
          from = i + 1;
        }
      }
      for (std::string_view p : params) {
        const size_t q = p.find(": \"");
        if (q == std::string_view::npos || !p.ends_with("\"")) continue;  // not a tensor
        const std::string name(p.substr(0, q));
        auto a = parseDynamoAnnotation(p.substr(q + 3, p.size() - q - 4));
        if (!a) return fail(line, "parameter " + name + ": an annotation shardscope cannot read");
        int idx = -1;
        Node& n = pb.beginNode(&idx);
        n.name = name;
        n.op = "placeholder";
        n.kind = NodeKind::Placeholder;
        n.placeholderKind = name.find("_parameters_") != std::string::npos ? PlaceholderKind::Param
                            : name.find("_buffers_") != std::string::npos ? PlaceholderKind::Buffer
                                                                           : PlaceholderKind::Input;
        n.outputs = {a->meta};
        auto e = pb.endNode(Where::at(dynamo->payloadLine + line - 1, 2));
        if (!e) return e.error();
        specOf.resize(*e + 1);
        if (a->spec) {
          auto s = specFrom(*a->spec, line - 1);
          if (!s) return s.error();
          pb.setOutputSpec(*e, 0, *s);
          specOf[*e] = *s;
        }
        values[name] = *e;
      }
      continue;
    }
    if (!inForward) continue;
    if (t.starts_with("#")) {
      source = sourceOf(t);
      continue;
    }
    if (t.starts_with("return ")) break;
    // `name: "ANNOT" = EXPR;  a = b = None` or an alias `name = other`.
    const size_t eq = t.find(" = ");
    if (eq == std::string_view::npos) continue;
    std::string_view lhs = t.substr(0, eq);
    std::string_view rhs = t.substr(eq + 3);
    if (const size_t semi = rhs.find(";  "); semi != std::string_view::npos) rhs = rhs.substr(0, semi);
    const size_t colon = lhs.find(": \"");
    if (colon == std::string_view::npos) {
      // An alias (`l_x_ = L_x_`): the same value under a second name.
      if (auto it = values.find(trimmed(rhs)); it != values.end()) values[std::string(trimmed(lhs))] = it->second;
      continue;
    }
    const std::string name(lhs.substr(0, colon));
    auto a = parseDynamoAnnotation(lhs.substr(colon + 3, lhs.size() - colon - 4));
    if (!a) return fail(line - 1, name + ": an annotation shardscope cannot read");
    const std::string callee = calleeOf(rhs);
    const Transition tr = transitionOf(callee);
    std::vector<int> ins = valueRefs(rhs, values);
    int idx = -1;
    Node& n = pb.beginNode(&idx);
    n.name = name;
    n.op = tr == Transition::None ? atenOpOf(callee, ins) : kRedistributeNodeOp;
    if (tr == Transition::FromLocal) fromLocal.insert(name);
    for (int in : ins) n.args.push_back(Arg::tensor({in, 0}));
    n.outputs = {a->meta};
    // A plain tensor here is one rank's local value (to_local's result, what the parallel styles' hooks compute
    // on it): its shape is local, so the global shape rules do not judge it.
    if (!a->spec) n.outputs[0].known = false;
    n.source = source;
    n.phase = Phase::Forward;
    auto e = pb.endNode(Where::at(dynamo->payloadLine + line - 1, 2));
    if (!e) return e.error();
    specOf.resize(*e + 1);
    if (a->spec) {
      auto s = specFrom(*a->spec, line - 1);
      if (!s) return s.error();
      pb.setOutputSpec(*e, 0, *s);
      specOf[*e] = *s;
    }
    for (size_t k = 0; k < ins.size(); ++k) pb.setInputSpec(*e, static_cast<int>(k), specOf[ins[k]]);
    if (tr == Transition::Redistribute && !ins.empty() && specOf[ins[0]] && specOf[*e] && *specOf[ins[0]] != *specOf[*e]) {
      transitions.push_back({*e, {*specOf[ins[0]], *specOf[*e]}});
      pb.setInputSpec(*e, 0, *specOf[*e]);
    }
    values[name] = *e;
  }
  if (auto ok = pb.finishGraph(); !ok) return ok.error();
  for (const auto& [node, ft] : transitions)
    if (auto ok = pb.addRedistribute(node, 0, ft.first, ft.second, Where::at(dynamo->line, 1)); !ok) return ok.error();
  auto plan = pb.finish();
  if (!plan) return plan.error();
  out.plan = std::move(*plan);
  if (const TraceRecord* v = log->artifact(kTorchVersionArtifact); v && v->kept) {
    const auto j = nlohmann::json::parse(v->payload, nullptr, false);
    if (j.is_object() && j.contains("pytorch_version") && j["pytorch_version"].is_string())
      out.plan.torchVersion = j["pytorch_version"].get<std::string>();
  }

  // The applied graphs: AOT's forward and backward (local shapes, functional collectives).
  for (const TraceRecord* r : aot) {
    auto g = readFxText(r->payload);
    if (!g) return Error{g.error().message + " (in " + r->kind + ")", r->payloadLine + std::max(g.error().line, 1) - 1, g.error().column + 1};
    CompiledAppliedGraph ag;
    ag.kind = r->kind;
    ag.graph = std::move(*g);
    ag.graph.graph.reindex();
    ag.collectives = findCollectives(ag.graph.graph);
    ag.groups = mapGroups(ag.collectives, out.plan.mesh, opts.groups);
    costCollectives(ag.collectives, opts.cost);
    out.applied.push_back(std::move(ag));
  }
  // Each collective is the planned transition of the plan node with its source line (the parallel style's
  // redistribute or from_local, forward or its backward), matched in order; any other is DTensor's own.
  std::map<std::pair<std::string, int>, std::vector<int>> planAt;  // source -> transition nodes, in order
  for (int n = 0; n < out.plan.graph.size(); ++n) {
    const Node& node = out.plan.graph.nodes[n];
    if (out.plan.findRedistribute(n, 0) || fromLocal.count(node.name))
      planAt[{node.source.file, node.source.line}].push_back(n);
  }
  for (CompiledAppliedGraph& ag : out.applied) {
    std::map<std::pair<std::string, int>, size_t> used;
    for (size_t c = 0; c < ag.collectives.size(); ++c) {
      const Node& cn = ag.graph.graph.nodes[ag.collectives[c].node];
      CompiledCollective m;
      m.collective = static_cast<int>(c);
      const auto key = std::make_pair(cn.source.file, cn.source.line);
      if (auto it = planAt.find(key); it != planAt.end() && !cn.source.file.empty()) {
        size_t& k = used[key];
        m.planNode = it->second[std::min(k, it->second.size() - 1)];
        ++k;
      }
      ag.matches.push_back(m);
    }
  }
  return out;
}

Diagnostics compiledDiagnostics(const CompiledDTensorProgram& p) {
  Diagnostics d;
  for (const CompiledAppliedGraph& ag : p.applied)
    for (const CompiledCollective& m : ag.matches) {
      if (m.planNode >= 0) continue;
      const AppliedCollective& c = ag.collectives[m.collective];
      const Node& cn = ag.graph.graph.nodes[c.node];
      Diagnostic x;
      x.severity = Severity::Warning;
      x.kind = DiagKind::UnplannedCollective;
      x.message = ag.kind + " node " + cn.name + ": " + c.toString(p.plan.mesh) +
                  " that no from_local / redistribute of the program asks for: DTensor's own redistribute inside the compiled region";
      if (!cn.source.file.empty())
        x.notes.push_back("at " + cn.source.file + ":" + std::to_string(cn.source.line) + (cn.source.code.empty() ? "" : ": " + cn.source.code));
      d.items.push_back(std::move(x));
    }
  return d;
}

std::string compiledSummaryText(const CompiledDTensorProgram& p) {
  std::string out = "compiled DTensor program: mesh " + p.plan.mesh.toString() + ", " + std::to_string(p.plan.graph.size()) +
                    " nodes, " + std::to_string(p.plan.redistributes.size()) + " planned transitions\n";
  for (const CompiledAppliedGraph& ag : p.applied) {
    int matched = 0;
    for (const CompiledCollective& m : ag.matches) matched += m.planNode >= 0;
    out += "  " + ag.kind + ": " + std::to_string(ag.graph.graph.size()) + " nodes, " + std::to_string(ag.collectives.size()) +
           " collectives, " + std::to_string(matched) + " matched to a planned transition\n";
    for (const CompiledCollective& m : ag.matches) {
      const AppliedCollective& c = ag.collectives[m.collective];
      out += "    " + ag.graph.graph.nodes[c.node].name + ": " + collectiveLabel(c, p.plan.mesh) + " -> " +
             (m.planNode >= 0 ? "planned at " + p.plan.graph.nodes[m.planNode].name : std::string("unplanned")) + "\n";
    }
  }
  return out;
}

}  // namespace ss
