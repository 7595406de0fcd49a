// FX text writer: a plan as `print_readable()`-style FX graph text that readFxText reads back.
//
// Contract: the text holds exactly the plan's graph, line for line. Plans come from other people's bug reports, so
// every name the plan controls and that lands in code (node names, kwarg keys, ops, get_attr paths, symbols) must
// be what the FX grammar reads as one token; a plan holding anything else is refused (its node named), never
// written with a character that would end the line or the expression and start code the graph does not have.
// Free text (a stack-trace comment's file, function and code) is written with its control characters escaped, so
// a comment always stays one line.
#include <string>

#include "core/io/formats.h"
#include "core/io/fx/lexer.h"

namespace ss {
namespace {

// A Python identifier (ASCII): what FX names nodes and keyword arguments.
bool isIdentifier(std::string_view s) {
  if (s.empty() || !fx::isNameStart(s[0])) return false;
  for (char c : s)
    if (!fx::isNameChar(c)) return false;
  return true;
}

// Dot-separated parts, each an identifier, or (when `digitParts`) all digits as module paths have
// (`layers.0.weight`): ops (`aten.mm.default`), symbols (`torch.strided`), get_attr targets.
bool isDottedName(std::string_view s, bool digitParts) {
  if (s.empty()) return false;
  size_t from = 0;
  while (true) {
    const size_t dot = s.find('.', from);
    const std::string_view part = s.substr(from, dot == std::string_view::npos ? std::string_view::npos : dot - from);
    bool digits = !part.empty();
    for (char c : part) digits = digits && c >= '0' && c <= '9';
    if (!isIdentifier(part) && !(digitParts && digits)) return false;
    if (dot == std::string_view::npos) return true;
    from = dot + 1;
  }
}

// The first name of node `n` (or its arguments) that cannot be written verbatim, as "what 'value'"; empty if none.
std::string unwritableName(const Node& n) {
  const auto quote = [](std::string_view what, const std::string& v) { return std::string(what) + " '" + Error::oneLine(v) + "'"; };
  if (!isIdentifier(n.name)) return quote("node name", n.name);
  if (n.kind == NodeKind::Placeholder || n.kind == NodeKind::Output) return {};
  if (n.op == "get_attr") {
    const std::string& path = n.modulePath.empty() ? n.name : n.modulePath;
    return isDottedName(path, true) ? std::string{} : quote("attribute path", path);
  }
  if (!isDottedName(n.op, false)) return quote("op", n.op);
  for (const auto& [k, v] : n.kwargs) {
    (void)v;
    if (!isIdentifier(k)) return quote("keyword", k);
  }
  std::string bad;
  const auto visit = [&](const Arg& a, const auto& self) -> void {
    if (!bad.empty()) return;
    if (a.kind == Arg::Kind::Symbol && !isDottedName(a.s, false)) bad = quote("symbol", a.s);
    if (a.kind == Arg::Kind::Device) {
      const size_t colon = a.s.find(':');
      const std::string index = colon == std::string::npos ? std::string{} : a.s.substr(colon + 1);
      bool digits = colon == std::string::npos || !index.empty();
      for (char c : index) digits = digits && c >= '0' && c <= '9';
      if (!digits) bad = quote("device", a.s);
    }
    for (const Arg& item : a.items) self(item, self);
  };
  for (const Arg& a : n.args) visit(a, visit);
  for (const auto& [k, v] : n.kwargs) {
    (void)k;
    visit(v, visit);
  }
  return bad;
}

void writeArg(std::string& out, const Arg& a, const Graph& g) {
  switch (a.kind) {
    case Arg::Kind::None: out += "None"; break;
    case Arg::Kind::Bool: out += a.b ? "True" : "False"; break;
    case Arg::Kind::Int: out += std::to_string(a.i); break;
    case Arg::Kind::Float: out += fx::pythonFloat(a.f); break;
    case Arg::Kind::String: out += fx::pythonString(a.s); break;
    case Arg::Kind::Tensor:
      out += g.nodes.at(a.t.node).name;
      if (a.t.output != 0) out += "[" + std::to_string(a.t.output) + "]";
      break;
    case Arg::Kind::List:
      out += '[';
      for (size_t i = 0; i < a.items.size(); ++i) {
        if (i) out += ", ";
        writeArg(out, a.items[i], g);
      }
      out += ']';
      break;
    case Arg::Kind::DType: out += dtypeTorchName(a.dt); break;
    case Arg::Kind::Device: {
      size_t colon = a.s.find(':');
      if (colon == std::string::npos) out += "device(type=" + fx::pythonString(a.s) + ")";
      else out += "device(type=" + fx::pythonString(a.s.substr(0, colon)) + ", index=" + a.s.substr(colon + 1) + ")";
      break;
    }
    case Arg::Kind::Symbol: out += a.s; break;
  }
}

void writeAnnotation(std::string& out, const TensorMeta& m) {
  out += ": \"";
  out += dtypeName(m.dtype);
  out += '[';
  for (size_t i = 0; i < m.shape.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(m.shape[i]);
  }
  out += "]\"";
}

bool annotatable(const Node& n) { return n.outputs.size() == 1 && n.outputs[0].known && n.outputs[0].dtype != DType::Unknown; }

}  // namespace

Result<std::string> writeFxText(const Plan& plan) {
  const Graph& g = plan.graph;
  for (const auto& n : g.nodes)
    if (std::string bad = unwritableName(n); !bad.empty())
      return Error{"cannot write FX text: node '" + Error::oneLine(n.name) + "' has the " + bad +
                   ", which is not a Python name (FX text would read it as other code)"};
  std::string out;
  out.reserve(static_cast<size_t>(g.size()) * 120 + 256);
  out += "class GraphModule(torch.nn.Module):\n    def forward(self";
  for (const auto& n : g.nodes) {
    if (n.kind != NodeKind::Placeholder || n.op == "get_attr") continue;
    out += ", ";
    out += n.name;
    if (annotatable(n)) writeAnnotation(out, n.outputs[0]);
  }
  out += "):\n";
  const SourceLoc* prev = nullptr;
  static const SourceLoc none{};
  for (const auto& n : g.nodes) {
    if (n.kind == NodeKind::Placeholder && n.op != "get_attr") continue;
    if (n.kind == NodeKind::Output) {
      out += "        return (";
      const Arg& items = n.args.empty() ? Arg::list({}) : n.args[0];
      if (items.kind == Arg::Kind::List) {
        for (size_t i = 0; i < items.items.size(); ++i) {
          if (i) out += ", ";
          writeArg(out, items.items[i], g);
        }
        if (items.items.size() == 1) out += ",";
      } else {
        writeArg(out, items, g);
        out += ",";
      }
      out += ")\n";
      continue;
    }
    const SourceLoc& s = n.source;
    if (!(prev ? *prev == s : s == none)) {
      if (!s.file.empty()) {
        out += "\n        # File: " + Error::oneLine(s.file) + ":" + std::to_string(s.line) + " in " + Error::oneLine(s.func) +
               ", code: " + Error::oneLine(s.code) + "\n";
      } else {
        out += "\n        # No stacktrace found for following nodes\n";
      }
    }
    prev = &n.source;
    out += "        ";
    out += n.name;
    if (annotatable(n)) writeAnnotation(out, n.outputs[0]);
    out += " = ";
    if (n.op == "get_attr") {
      out += "self." + (n.modulePath.empty() ? n.name : n.modulePath) + "\n";
      continue;
    }
    if (n.op == "operator.getitem" && n.args.size() == 2 && n.args[0].isTensor() && n.args[1].isInt()) {
      out += g.nodes.at(n.args[0].t.node).name + "[" + std::to_string(n.args[1].i) + "]\n";
      continue;
    }
    if (n.op == "operator.getitem" && n.args.size() == 2 && n.args[0].isTensor() && n.args[1].kind == Arg::Kind::String) {
      out += g.nodes.at(n.args[0].t.node).name + "[" + fx::pythonString(n.args[1].s) + "]\n";
      continue;
    }
    bool qualified = n.op.rfind("torch.", 0) == 0 || n.op.rfind("operator.", 0) == 0 || n.op.rfind("_operator.", 0) == 0;
    if (!qualified) out += "torch.ops.";
    out += n.op;
    out += '(';
    bool first = true;
    for (const auto& a : n.args) {
      if (!first) out += ", ";
      first = false;
      writeArg(out, a, g);
    }
    for (const auto& [k, v] : n.kwargs) {
      if (!first) out += ", ";
      first = false;
      out += k + " = ";
      writeArg(out, v, g);
    }
    out += ")\n";
  }
  out += "        \n";
  return out;
}

}  // namespace ss
