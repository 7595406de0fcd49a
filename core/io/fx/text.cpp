// FX graph text reader (the writer is fx_write.cpp).
//
// Both forms users have are read: `print_readable()` output (annotations `"f32[2048, 4672][4672, 1]cuda:0"`,
// `# File: ...` source comments) and minifier repro scripts (no annotations; placeholder metas from
// `load_args`). Only the outermost `forward` is read (nested submodule classes are skipped). The `graph():`
// dump of `str(graph)` is refused with a clear message.
//
// This file: statements, the signature, the return, the post-passes and read(); the other parts are listed in
// fx_reader.h.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>

#include "core/io/fx/dynamo.h"
#include "core/io/fx/infer.h"
#include "core/io/fx/reader.h"
#include "core/model/enum_names.h"
#include "core/model/plan_builder.h"

namespace ss::fxread {

Result<int> FxReader::addNode(Node n, Cursor& cur, size_t nameAt) {
  if (byName_.count(n.name) || alias_.count(n.name))
    return cur.errorAt(nameAt, "'" + n.name + "' is defined twice (FX node names are unique)");
  int idx = g_.size();
  byName_.emplace(n.name, idx);
  g_.nodes.push_back(std::move(n));
  return idx;
}

Result<TensorRef> FxReader::lookup(std::string_view name, Cursor& cur, size_t at) {
  auto a = alias_.find(name);
  if (a != alias_.end()) return a->second;
  auto it = byName_.find(name);
  if (it == byName_.end()) return cur.errorAt(at, "unknown name '" + std::string(name) + "' (not defined above)");
  return TensorRef{it->second, 0};
}


// `def forward(self, primals_1: "f32[4096][1]cuda:0", L_x_ : torch.Tensor, arg1_1):` -> placeholders.
Result<bool> FxReader::signature(const fx::LogicalLine& l) {
  Cursor cur = cursor(l);
  cur.accept("def");
  cur.accept("forward");
  auto r = cur.expect('(', "'(' after def forward");
  if (!r) return r;
  bool first = true;
  while (!cur.accept(')')) {
    if (cur.atEnd()) return cur.error("the parameter list of forward is not closed");
    cur.accept('*');
    cur.accept('*');
    size_t at = cur.pos();
    std::string_view n = cur.name();
    if (n.empty()) return cur.error("expected a parameter name");
    TensorMeta meta = kUnknownMeta;
    std::vector<std::string> symbolic;
    bool ann = false;
    if (cur.accept(':')) {
      if (cur.atString()) {
        auto m = stringAnnotation(cur, &symbolic);
        if (!m) return m.error();
        meta = *m;
        ann = true;
      } else {
        if (cur.dottedName().empty()) return cur.error("expected a type annotation");
        if (cur.peek() == '[') {  // typing subscripts: List[torch.Tensor]
          int depth = 0;
          do {
            char c = cur.peek();
            if (c == '[') ++depth;
            if (c == ']') --depth;
            cur.seek(cur.pos() + 1);
          } while (depth > 0 && !cur.atEnd());
        }
      }
    }
    if (cur.accept('=')) {
      auto v = value(cur);
      if (!v) return v.error();
    }
    const bool isSelf = first && n == "self";
    first = false;
    const bool comma = cur.accept(',');
    // `primals_1: "f32[..]",  # ParamAOTInput(target='w')`: the descriptor comment follows the comma.
    std::string descriptor = comma || cur.peek() == ')' ? std::string(cur.takeComment()) : std::string();
    if (!isSelf && !pytreeInputs_) {
      auto r = addPlaceholder(n, cur, at, meta, ann, std::move(symbolic), std::move(descriptor));
      if (!r) return r;
    }
    if (comma) continue;
    if (cur.peek() != ')') return cur.error("expected ',' or ')' in the parameter list");
  }
  return true;
}

Result<bool> FxReader::addPlaceholder(std::string_view name, Cursor& cur, size_t at, const TensorMeta& meta,
                                      bool annotated, std::vector<std::string> symbolic, std::string descriptor) {
  Node node;
  node.name = std::string(name);
  node.op = "placeholder";
  node.kind = NodeKind::Placeholder;
  node.outputs = {meta};
  node.symbolicShape = std::move(symbolic);
  auto idx = addNode(std::move(node), cur, at);
  if (!idx) return idx.error();
  annotated_.push_back(annotated);
  if (!descriptor.empty()) placeholderDescriptors_[*idx] = std::move(descriptor);
  return true;
}

// `primals_1: "f32[4, 8][8, 1]cpu"; primals_2: "i64[4]"; ` (pytree codegen): declarations of the names the
// flatten line unpacks, read from `firstAt` (the line's first name).
Result<bool> FxReader::declarations(Cursor& cur, size_t firstAt) {
  cur.seek(firstAt);  // one loop reads every declaration, the first included
  while (true) {
    const size_t at = cur.pos();
    std::string_view name = cur.name();
    if (name.empty()) return cur.error("expected a name in the declarations line");
    auto c = cur.expect(':', "':' after a declared name");
    if (!c) return c;
    if (!cur.atString()) return cur.error("expected a string annotation after ':'");
    std::vector<std::string> symbolic;
    auto m = stringAnnotation(cur, &symbolic);
    if (!m) return m.error();
    if (declared_.count(name)) return cur.errorAt(at, "'" + std::string(name) + "' is declared twice");
    const bool more = cur.accept(';');
    const bool end = cur.atEnd();  // skips a trailing comment: the descriptor under expanded_def
    declared_.emplace(std::string(name), Declared{*m, std::string(cur.takeComment()), std::move(symbolic)});
    if (end) return true;
    if (!more) return cur.error(std::string("expected ';' or the end of the line after a declaration, found '") + cur.peek() + "'");
  }
}

// `primals_1, primals_2, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)`: the
// graph's placeholders, in order.
Result<bool> FxReader::unpackInputs(Cursor& cur, std::string_view first, size_t firstAt) {
  std::vector<std::pair<std::string_view, size_t>> names{{first, firstAt}};
  while (cur.accept(',')) {
    if (cur.peek() == '=') break;
    size_t at = cur.pos();
    std::string_view n = cur.name();
    if (n.empty()) return cur.error("expected a name in the unpacking before '='");
    names.emplace_back(n, at);
  }
  auto eq = cur.expect('=', "'=' after the unpacked names");
  if (!eq) return eq;
  size_t rhsAt = cur.pos();
  std::string_view d = cur.dottedName();
  if (d != "fx_pytree.tree_flatten_spec" && d != "torch.fx._pytree.tree_flatten_spec")
    return cur.errorAt(rhsAt, "tuple unpacking is FX code only for `fx_pytree.tree_flatten_spec(...)` (the inputs of "
                              "pytree codegen); found '" + std::string(d) + "'");
  if (!pytreeInputs_) return cur.errorAt(rhsAt, "fx_pytree.tree_flatten_spec outside a pytree-codegen forward");
  for (const auto& [n, at] : names) {
    auto it = declared_.find(n);
    TensorMeta meta = kUnknownMeta;
    std::string descriptor;
    std::vector<std::string> symbolic;
    bool ann = false;
    if (it != declared_.end()) {
      meta = it->second.meta;
      descriptor = it->second.descriptor;
      symbolic = it->second.symbolic;
      ann = true;
    }
    auto r = addPlaceholder(n, cur, at, meta, ann, std::move(symbolic), std::move(descriptor));
    if (!r) return r;
  }
  return true;
}

void FxReader::comment(const fx::LogicalLine& l) {
  std::string_view t = lineText(l);
  size_t h = t.find('#');
  t.remove_prefix(h + 1);
  auto skipSpaces = [&t] {
    while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  };
  skipSpaces();
  // The prefixes torch writes before a location, in this order, each optional:
  // "Annotation: {'comm_region': 'token_dispatch'} recompute: MUST_SAVE Backward of forward node: File: ...".
  // An annotation is a dict literal (its braces balanced, quoted strings skipped); recompute one word; joint
  // graphs name a backward node's forward origin. A comment with anything else before "File:" keeps the location.
  const std::string_view whole = t;
  if (t.starts_with("Annotation: {")) {
    size_t i = 12, depth = 0;
    char quote = 0;
    for (; i < t.size(); ++i) {
      const char c = t[i];
      if (quote) {
        if (c == '\\') ++i;
        else if (c == quote) quote = 0;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '{') {
        ++depth;
      } else if (c == '}' && --depth == 0) {
        break;
      }
    }
    t.remove_prefix(i < t.size() ? i + 1 : t.size());
    skipSpaces();
  }
  if (t.starts_with("recompute: ")) {
    t.remove_prefix(11);
    skipSpaces();
    const size_t word = t.find(' ');
    t.remove_prefix(word == std::string_view::npos ? t.size() : word);
    skipSpaces();
  }
  if (t.starts_with("Backward of forward node: ")) t.remove_prefix(26);
  if (t.substr(0, 5) != "File:") t = whole;  // "No stacktrace found ..." and other comments as they were
  if (t.substr(0, 5) == "File:") {
    // "File: /path/x.py:53 in forward, code: return self.wo(x)"
    std::string_view rest = t.substr(5);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    size_t in = rest.find(" in ");
    std::string_view loc = rest.substr(0, in);
    size_t colon = loc.rfind(':');
    SourceLoc s;
    s.file = std::string(loc.substr(0, colon));
    if (colon != std::string_view::npos) {
      int line = 0;
      for (char c : loc.substr(colon + 1)) {
        if (c < '0' || c > '9' || line > 100000000) break;  // a source line, not an overflow
        line = line * 10 + (c - '0');
      }
      s.line = line;
    }
    if (in != std::string_view::npos) {
      std::string_view after = rest.substr(in + 4);
      size_t code = after.find(", code: ");
      s.func = std::string(after.substr(0, code));
      if (code != std::string_view::npos) s.code = std::string(after.substr(code + 8));
    }
    source_ = std::move(s);
  } else if (t.substr(0, 19) == "No stacktrace found") {
    source_ = {};
  }
}

Result<bool> FxReader::returnStatement(Cursor& cur) {
  size_t at = cur.pos();
  Arg v;
  // `return pytree.tree_unflatten([...], self._out_spec)`: the flat list is the first argument.
  size_t save = cur.pos();
  std::string_view d = cur.dottedName();
  if (!d.empty() && cur.peekRaw() == '(' && d != "device" && d != "torch.device") {
    // self._out_spec is not a node: parse the first argument only.
    auto r = cur.expect('(', "'('");
    if (!r) return r;
    auto first = cur.peek() == '[' ? returnList(cur) : value(cur);
    if (!first) return first.error();
    v = std::move(*first);
    cur.seek(cur.end());
  } else {
    cur.seek(save);
    if (cur.atEnd()) {
      v = Arg::list({});
    } else {
      auto r = cur.peek() == '[' || cur.peek() == '(' ? returnList(cur) : value(cur);
      if (!r) return r.error();
      v = std::move(*r);
    }
  }
  Node out;
  out.name = "output";
  out.op = "output";
  out.kind = NodeKind::Output;
  out.args = {v.kind == Arg::Kind::List ? std::move(v) : Arg::list({std::move(v)})};
  if (byName_.count("output")) out.name = "output_1";
  auto idx = addNode(std::move(out), cur, at);
  if (!idx) return idx.error();
  annotated_.push_back(false);
  haveOutput_ = true;
  return true;
}

// The returned list or tuple, item by item, keeping each item's descriptor comment (`getitem_3,  #
// GradAOTOutput(grad_of=ParamAOTInput(target='w'))`, `None,  # None`) in outputDescriptors_.
Result<Arg> FxReader::returnList(Cursor& cur) {
  const char open = cur.peek();
  const char close = open == '[' ? ']' : ')';
  size_t at = cur.pos();
  cur.accept(open);
  cur.takeComment();
  std::vector<Arg> items;
  std::vector<std::string> descriptors;
  bool sawComma = false;
  while (!cur.accept(close)) {
    if (cur.atEnd()) return cur.errorAt(at, std::string("'") + open + "' is not closed");
    cur.takeComment();
    auto v = value(cur, 1);
    if (!v) return v.error();
    items.push_back(std::move(*v));
    const bool comma = cur.accept(',');
    sawComma |= comma;
    if (!comma && cur.peek() != close)
      return cur.error(std::string("expected ',' or '") + close + "' in the returned " + (open == '[' ? "list" : "tuple"));
    cur.peek();  // skips the comment after the item
    descriptors.emplace_back(cur.takeComment());
  }
  if (open == '(' && items.size() == 1 && !sawComma) return std::move(items[0]);
  outputDescriptors_ = std::move(descriptors);
  return Arg::list(std::move(items));
}

int FxReader::outputKey(int node, const std::string& key) {
  auto& keys = outputKeys_[node];
  if (keys.empty())
    for (const auto& [k, v] : g_.nodes[node].kwargs)
      if (k == "tensors_to_clone" && v.isList())
        for (const Arg& x : v.items)
          if (x.kind == Arg::Kind::String) keys.push_back(x.s);
  auto it = std::find(keys.begin(), keys.end(), key);
  if (it != keys.end()) return static_cast<int>(it - keys.begin());
  keys.push_back(key);
  return static_cast<int>(keys.size()) - 1;
}

// `name[: "annotation"] = target(args);  a = b = None`, `name = x[0]`, `name = self.attr`, `return (...)`.
Result<bool> FxReader::statement(const fx::LogicalLine& l) {
  Cursor cur = cursor(l);
  if (haveOutput_) return cur.error("statement after the return of forward");
  if (cur.accept("return")) return returnStatement(cur);
  size_t nameAt = cur.pos();
  std::string_view n = cur.name();
  if (n.empty()) return cur.error("expected `name = op(...)` or `return ...`");
  if (cur.peek() == ',') return unpackInputs(cur, n, nameAt);
  TensorMeta meta = kUnknownMeta;
  std::vector<std::string> symbolic;
  bool ann = false;
  if (cur.accept(':')) {
    if (!cur.atString()) return cur.error("expected a string annotation after ':'");
    auto m = stringAnnotation(cur, &symbolic);
    if (!m) return m.error();
    meta = *m;
    ann = true;
    if (pytreeInputs_ && (cur.peek() == ';' || cur.atEnd())) return declarations(cur, nameAt);
  }
  auto eq = cur.expect('=', "'='");
  if (!eq) return eq;
  cur.skipSpace();
  size_t rhsAt = cur.pos();
  Node node;
  node.name = std::string(n);
  node.kind = NodeKind::Call;
  node.source = source_;
  node.symbolicShape = std::move(symbolic);
  // `ge = u0 >= 0`, `add_18 = sym_sum + 64`, `x = 0 + s`: FX prints operator.* nodes on symbolic scalars infix.
  auto bin = binaryExpression(cur, node);
  if (!bin) return bin.error();
  if (*bin) {
    return endStatement(cur, std::move(node), meta, ann, nameAt);
  }
  std::string_view d = cur.dottedName();
  if (d.empty()) return cur.error("expected an op call, `x[i]` or a name after '='");
  if (d == "slice" && cur.peekRaw() == '(') {
    // `slice_2 = slice(mul, add, None)`: a value for indexing (Dynamo's graphs), kept by name, no node.
    auto sv = sliceCall(cur);
    if (!sv) return sv.error();
    if (!cur.atEnd() && cur.peek() != ';' && cur.peek() != '#') return cur.error("unexpected text after slice(...)");
    slices_[std::string(n)] = std::move(*sv);
    return true;
  }
  if (cur.peekRaw() == '(' || cur.peek() == '(') {
    std::string target(d);
    const bool aten = target.rfind("torch.ops.", 0) == 0;
    if (aten) target.erase(0, 10);
    if (target == "_operator.getitem") target = "operator.getitem";
    node.op = target;
    const std::optional<TensorRef> receiver = aten ? std::nullopt : methodReceiver(d);
    auto r = callArgs(cur, node.args, node.kwargs);
    if (!r) return r.error();
    // Dynamo's torch-level calls (core/io/fx/dynamo.h): a Tensor method on a node, or a torch function.
    if (receiver) {
      const std::string_view method = d.substr(d.find('.') + 1);
      if (method.find('.') != std::string_view::npos)
        return cur.errorAt(rhsAt, "'" + std::string(d) + "(...)' calls an attribute of a node's value, which is not FX node syntax");
      if (auto c = fx::atenForTensorMethod(method, Arg::tensor(*receiver), node.args, node.kwargs)) {
        node.op = std::move(c->op);
        node.args = std::move(c->args);
        node.kwargs = std::move(c->kwargs);
      } else {
        node.op = fx::tensorMethodName(method);
        node.args.insert(node.args.begin(), Arg::tensor(*receiver));
      }
    } else if (!aten && target.rfind("torch.", 0) == 0) {
      if (auto c = fx::atenForTorchFunction(target, node.args, node.kwargs)) {
        node.op = std::move(c->op);
        node.args = std::move(c->args);
        node.kwargs = std::move(c->kwargs);
      }
    }
    if (target == "operator.getitem") {
      if (node.args.size() != 2 || !node.args[0].isTensor() || !node.args[1].isInt())
        return cur.errorAt(rhsAt, "operator.getitem needs (node, int index)");
      node.args[0].t.output = static_cast<int>(node.args[1].i);
    }
  } else if (cur.peekRaw() == '[') {
    auto ref = lookup(d, cur, rhsAt);
    if (!ref) return ref.error();
    cur.accept('[');
    if (cur.atString()) {
      // `getitem_22 = proxy['output_ptr']`: a dict-returning op (triton_kernel_wrapper_functional); the key names
      // one of its outputs, numbered as the op lists them (tensors_to_clone), else in first-use order.
      auto key = cur.stringLiteral();
      if (!key) return key.error();
      auto r = cur.expect(']', "']'");
      if (!r) return r;
      node.op = "operator.getitem";
      node.args = {Arg::tensor({ref->node, outputKey(ref->node, *key)}), Arg::string(*key)};
      return endStatement(cur, std::move(node), meta, ann, nameAt);
    }
    if (cur.peek() == '(' || (!cur.atNumber() && cur.peek() != '-')) {
      auto t = tensorIndex(cur, node, *ref, rhsAt);
      if (!t) return t.error();
      if (!*t) return true;  // every dim taken whole: the name is an alias of its base
      return endStatement(cur, std::move(node), meta, ann, nameAt);
    }
    bool neg = cur.accept('-');
    if (!cur.atNumber()) return cur.error("expected an integer index in '[...]'");
    auto idx = cur.number();
    if (!idx) return idx.error();
    if (!idx->isInt) return cur.error("expected an integer index");
    auto r = cur.expect(']', "']'");
    if (!r) return r;
    int64_t i = neg ? -idx->i : idx->i;
    if (i < 0) return cur.errorAt(rhsAt, "negative tuple index");
    node.op = "operator.getitem";
    node.args = {Arg::tensor({ref->node, static_cast<int>(i)}), Arg::integer(i)};
  } else if (d.substr(0, 5) == "self.") {
    // get_attr: a module attribute (a constant or parameter the module holds): a buffer placeholder whose op
    // stays "get_attr" so the writer puts it back in the body as `name = self.attr`.
    node.op = "get_attr";
    node.kind = NodeKind::Placeholder;
    node.placeholderKind = PlaceholderKind::Buffer;
    node.modulePath = std::string(d.substr(5));
    if (callableAttrs_.count(node.modulePath)) ++opaqueRefs_;
  } else {
    auto ref = lookup(d, cur, rhsAt);
    if (!ref) return ref.error();
    if (!cur.atEnd() && cur.peek() != ';' && cur.peek() != '#') return cur.error("unexpected text after the name");
    alias_[std::string(n)] = *ref;
    return true;
  }
  return endStatement(cur, std::move(node), meta, ann, nameAt);
}

Result<bool> FxReader::endStatement(Cursor& cur, Node node, const TensorMeta& meta, bool annotated, size_t nameAt) {
  if (!cur.atEnd() && cur.peek() != ';' && cur.peek() != '#')
    return cur.error(std::string("unexpected '") + cur.peek() + "' after the expression");
  node.outputs = {meta};
  auto idx = addNode(std::move(node), cur, nameAt);
  if (!idx) return idx.error();
  annotated_.push_back(annotated);
  return true;
}

namespace {
// Dynamo names a module's parameters and buffers by their path: `L_self_modules_q_proj_parameters_weight_` is
// q_proj.weight, `L_self_modules_layers_modules_0_buffers_mask_` is layers.0.mask, `L_self_parameters_w_` is w.
struct DynamoInput {
  PlaceholderKind kind = PlaceholderKind::None;
  std::string path;
};
DynamoInput dynamoInput(std::string_view name) {
  constexpr std::string_view kSelf = "L_self_";
  if (!name.starts_with(kSelf) || !name.ends_with("_") || name.size() <= kSelf.size() + 1) return {};
  std::string_view body = name.substr(kSelf.size(), name.size() - kSelf.size() - 1);
  for (const auto& [marker, kind] : {std::pair{std::string_view("parameters_"), PlaceholderKind::Param},
                                     std::pair{std::string_view("buffers_"), PlaceholderKind::Buffer}}) {
    size_t at = body.rfind(marker);
    if (at == std::string_view::npos || (at > 0 && body[at - 1] != '_')) continue;
    std::string_view owner = body.substr(0, at == 0 ? 0 : at - 1), leaf = body.substr(at + marker.size());
    if (leaf.empty()) continue;
    std::string path;
    if (!owner.empty()) {
      if (!owner.starts_with("modules_")) continue;
      std::string o(owner.substr(8));
      for (size_t k; (k = o.find("_modules_")) != std::string::npos;) o.replace(k, 9, ".");
      path = o + ".";
    }
    return {kind, path + std::string(leaf)};
  }
  return {};
}
}  // namespace

// Post-passes: tuple metas from getitems, shape inference, placeholder kinds, phases, loss.
void FxReader::finish(FxReadReport& rep) {
  for (auto& n : g_.nodes) {
    if (n.op != "operator.getitem" || n.args.empty() || !n.args[0].isTensor()) continue;
    Node& src = g_.nodes[n.args[0].t.node];
    int i = n.args[0].t.output;
    if (src.kind != NodeKind::Call || i < 0 || i > 4096) continue;
    if (static_cast<int>(src.outputs.size()) <= i) src.outputs.resize(i + 1, kUnknownMeta);
    if (!src.outputs[i].known && n.outputs[0].known) src.outputs[i] = n.outputs[0];
  }
  for (size_t i = 0; i < annotated_.size(); ++i)
    if (annotated_[i]) ++rep.annotated;
  for (const auto& n : g_.nodes) {
    const std::string_view op = n.op;
    bool sym = op.starts_with("torch.sym_") || op == "aten.sym_size.int" || op == "aten.sym_numel.default" ||
               op == "aten.sym_stride.int" || op == "aten._local_scalar_dense.default" ||
               (op.starts_with("operator.") && op != "operator.getitem");
    if (n.kind == NodeKind::Placeholder && n.outputs.size() == 1 && !n.outputs[0].known &&
        n.outputs[0].dtype == DType::I64)
      sym = true;  // reader.symint(...) in load_args: a SymInt input
    rep.symbolic += sym;
  }
  rep.inferred += fx::inferShapes(g_, rep.uninferred, &annotated_);

  bool haveTangents = false;
  for (int i = 0; i < g_.size(); ++i) {
    Node& n = g_.nodes[i];
    if (n.kind != NodeKind::Placeholder || n.placeholderKind == PlaceholderKind::Buffer) continue;
    const TensorMeta& m = n.outputs[0];
    bool intLike = m.dtype == DType::I64 || m.dtype == DType::I32 || m.dtype == DType::Bool;
    if (auto d = placeholderDescriptors_.find(i); d != placeholderDescriptors_.end()) {
      // What AOT autograd says the input is wins over the name.
      const AotDescriptor a = parseAotDescriptor(d->second);
      if (a.kind != PlaceholderKind::None) {
        n.placeholderKind = a.kind;
        if (!a.target.empty()) n.modulePath = a.target;
        haveTangents |= a.kind == PlaceholderKind::Tangent;
        continue;
      }
    }
    if (const DynamoInput d = dynamoInput(n.name); d.kind != PlaceholderKind::None) {
      n.placeholderKind = d.kind;
      n.modulePath = d.path;
    } else if (n.name.rfind("tangents", 0) == 0) {
      n.placeholderKind = PlaceholderKind::Tangent;
      haveTangents = true;
    } else if (n.name.rfind("primals", 0) == 0 && !intLike && m.rank() > 0) {
      n.placeholderKind = PlaceholderKind::Param;
    } else {
      n.placeholderKind = PlaceholderKind::Input;
    }
  }
  // A node is backward when it depends on a tangent (forward nodes never do).
  std::vector<char> bwd(g_.nodes.size(), 0);
  std::vector<TensorRef> refs;
  for (size_t i = 0; i < g_.nodes.size(); ++i) {
    Node& n = g_.nodes[i];
    if (n.kind == NodeKind::Placeholder) {
      bwd[i] = n.placeholderKind == PlaceholderKind::Tangent;
    } else {
      refs.clear();
      collectTensorRefs(n, refs);
      for (auto& r : refs) bwd[i] |= bwd[r.node];
      if (n.kind == NodeKind::Output) bwd[i] = haveTangents;
    }
    n.phase = bwd[i] ? Phase::Backward : Phase::Forward;
  }
  // Constants (full, zeros, arange: no tensor inputs) belong to the phase of their first user.
  for (int i = g_.size() - 1; i >= 0; --i) {
    Node& n = g_.nodes[i];
    if (n.kind != NodeKind::Call) continue;
    refs.clear();
    collectTensorRefs(n, refs);
    if (!refs.empty()) continue;
    for (int u = i + 1; u < g_.size(); ++u) {
      refs.clear();
      collectTensorRefs(g_.nodes[u], refs);
      bool uses = false;
      for (auto& r : refs) uses |= r.node == i;
      if (uses) {
        n.phase = g_.nodes[u].kind == NodeKind::Output ? n.phase : g_.nodes[u].phase;
        break;
      }
    }
  }
}

AotDescriptor parseAotDescriptor(std::string_view d) {
  AotDescriptor a;
  auto target = [](std::string_view t) -> std::string {
    size_t k = t.find("target='");
    if (k == std::string_view::npos) return {};
    k += 8;
    size_t e = t.find('\'', k);
    return e == std::string_view::npos ? std::string() : std::string(t.substr(k, e - k));
  };
  if (d.starts_with("ParamAOTInput(")) a.kind = PlaceholderKind::Param;
  else if (d.starts_with("BufferAOTInput(")) a.kind = PlaceholderKind::Buffer;
  else if (d.starts_with("PlainAOTInput(")) a.kind = PlaceholderKind::Input;
  else if (d.starts_with("TangentAOTInput(")) a.kind = PlaceholderKind::Tangent;
  if (a.kind == PlaceholderKind::Param || a.kind == PlaceholderKind::Buffer) a.target = target(d);
  if (d.starts_with("GradAOTOutput(grad_of=ParamAOTInput(")) a.gradOf = target(d);
  return a;
}

Result<Plan> FxReader::read(FxReadReport* report) {
  FxReadReport local;
  FxReadReport& rep = report ? *report : local;
  rep = {};
  // the outermost `def forward(` (nested submodule classes print their own, more indented)
  int fwd = -1, loadArgsLine = -1, graphDump = -1;
  for (size_t i = 0; i < ll_.size(); ++i) {
    if (ll_[i].blank || ll_[i].comment) continue;
    std::string_view t = lineBody(ll_[i]);
    if (t.substr(0, 12) == "def forward(" && (fwd < 0 || ll_[i].indent < ll_[fwd].indent) && !isStubForward(i))
      fwd = static_cast<int>(i);
    if (t.substr(0, 14) == "def load_args(" && loadArgsLine < 0) loadArgsLine = static_cast<int>(i);
    if (t.substr(0, 8) == "graph():" && graphDump < 0) graphDump = static_cast<int>(i);
  }
  if (fwd < 0) {
    if (graphDump >= 0) {
      auto [l, c] = lines_.at(ll_[graphDump].begin + (lineText(ll_[graphDump]).size() - lineBody(ll_[graphDump]).size()));
      return Error::atLine("this is a `graph():` dump (str(graph)); save the graph with gm.print_readable() or a "
                           "repro script instead", l, c);
    }
    return Error::atLine("no `def forward(` found: expected FX graph code (print_readable() output or a repro script)",
                         1, 1);
  }
  {  // pytree codegen: a statement of forward's own body flattens its inputs (`a, b, = fx_pytree.tree_flatten_spec(
     // ...)`). Only code counts: the same words in a comment (a `# File:` line's code) or a string are not codegen.
    const size_t end = std::min(blockEnd(static_cast<size_t>(fwd)), ll_.size());
    for (size_t i = static_cast<size_t>(fwd) + 1; i < end && !pytreeInputs_; ++i) {
      if (ll_[i].blank || ll_[i].comment) continue;
      const std::string_view code = lineBody(ll_[i]);
      char quote = 0;
      for (size_t k = 0; k < code.size() && !pytreeInputs_; ++k) {
        const char c = code[k];
        if (quote) {
          if (c == '\\') ++k;
          else if (c == quote) quote = 0;
        } else if (c == '\'' || c == '"') {
          quote = c;
        } else if (c == '#') {
          break;
        } else if (code.substr(k, 18) == "tree_flatten_spec(") {
          pytreeInputs_ = true;
        }
      }
    }
  }
  survey(fwd, rep);
  g_.nodes.reserve(ll_.size() - static_cast<size_t>(fwd));  // at most a node per logical line of forward
  annotated_.reserve(ll_.size() - static_cast<size_t>(fwd));
  auto sig = signature(ll_[fwd]);
  if (!sig) return sig.error();
  int bodyIndent = -1;
  for (size_t i = fwd + 1; i < ll_.size(); ++i) {
    const auto& l = ll_[i];
    if (l.blank) continue;
    if (l.indent <= ll_[fwd].indent && !l.comment) break;
    if (l.comment) {
      if (l.indent > ll_[fwd].indent) comment(l);
      continue;
    }
    if (bodyIndent < 0) bodyIndent = l.indent;
    auto r = statement(l);
    if (!r) return r.error();
  }
  if (!haveOutput_) {
    auto [l, c] = lines_.at(ll_[fwd].begin);
    return Error::atLine("forward has no return statement", l, c);
  }
  if (loadArgsLine >= 0) {
    auto r = loadArgs(static_cast<size_t>(loadArgsLine), rep);
    if (!r) return r.error();
  }
  finish(rep);
  rep.opaqueRefs = opaqueRefs_;

  PlanBuilder b(PlanFormat::FxText);
  b.setGraph(std::move(g_), Where::at(1, 1));
  if (auto ok = b.finishGraph(); !ok) return ok.error();
  Plan& plan = b.plan();
  plan.name = "fx-graph";
  // Which returned value is which parameter's gradient (descriptors of expanded_def code).
  for (size_t k = 0; k < outputDescriptors_.size(); ++k) {
    const AotDescriptor a = parseAotDescriptor(outputDescriptors_[k]);
    if (a.gradOf.empty()) continue;
    for (const Node& n : plan.graph.nodes)
      if (n.kind == NodeKind::Placeholder && n.placeholderKind == PlaceholderKind::Param && n.modulePath == a.gradOf) {
        if (plan.gradientOf.size() <= k) plan.gradientOf.resize(outputDescriptors_.size());
        plan.gradientOf[k] = n.name;
      }
  }
  // The loss: the first returned value when it is a scalar and the graph is a joint one (has tangents).
  int out = plan.graph.outputNode();
  bool joint = false;
  for (auto& n : plan.graph.nodes) joint |= n.placeholderKind == PlaceholderKind::Tangent;
  if (joint && out >= 0 && !plan.graph.nodes[out].args.empty() && !plan.graph.nodes[out].args[0].items.empty()) {
    const Arg& first = plan.graph.nodes[out].args[0].items[0];
    if (first.isTensor()) {
      const TensorMeta* m = plan.graph.meta(first.t);
      if (m && m->known && m->rank() == 0) plan.run.lossNode = plan.graph.nodes[first.t.node].name;
    }
  }
  return b.finish();
}
}  // namespace ss::fxread

namespace ss {

using fxread::FxReader;

namespace {
constexpr EnumName<FxSkipped> kFxSkippedNames[] = {
    {FxSkipped::Import, "import"},
    {FxSkipped::Environment, "environment"},
    {FxSkipped::Config, "config"},
    {FxSkipped::TritonKernel, "triton-kernel"},
    {FxSkipped::KernelSideTable, "kernel-side-table"},
    {FxSkipped::StubClass, "stub-class"},
    {FxSkipped::SubgraphClass, "subgraph-class"},
    {FxSkipped::ModuleAttribute, "module-attribute"},
    {FxSkipped::OtherPython, "other-python"}};
static_assert(enumTableCovers(kFxSkippedNames, FxSkipped::OtherPython) && enumNamesValid(kFxSkippedNames));
static_assert(std::size(kFxSkippedNames) == static_cast<size_t>(kFxSkippedKinds));
}  // namespace

const char* fxSkippedName(FxSkipped k) { return enumName(kFxSkippedNames, k, "?"); }

std::string FxReadReport::summary() const {
  std::string out;
  for (int k = 0; k < kFxSkippedKinds; ++k) {
    if (!skipped[k]) continue;
    out += (out.empty() ? "skipped: " : ", ") + std::to_string(skipped[k]) + " " + fxSkippedName(static_cast<FxSkipped>(k));
  }
  if (opaqueRefs) out += (out.empty() ? "" : "; ") + std::to_string(opaqueRefs) + " opaque callable references";
  if (symbolic) out += (out.empty() ? "" : "; ") + std::to_string(symbolic) + " symbolic scalars";
  return out;
}

Result<Plan> readFxText(std::string_view text) { return FxReader(text).read(nullptr); }
Result<Plan> readFxText(std::string_view text, FxReadReport* report) { return FxReader(text).read(report); }

}  // namespace ss
