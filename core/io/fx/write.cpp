// FX text writer: a plan as `print_readable()`-style FX graph text that readFxText reads back.
#include <string>

#include "core/io/formats.h"
#include "core/io/fx/lexer.h"

namespace ss {
namespace {

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

std::string writeFxText(const Plan& plan) {
  const Graph& g = plan.graph;
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
        out += "\n        # File: " + s.file + ":" + std::to_string(s.line) + " in " + s.func + ", code: " + s.code + "\n";
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
