// FX graph text reader and writer. Sections: annotations, argument values, statements, load_args, the
// reader (signature, body, return, post-passes: tuple metas, inference, phases), the writer.
//
// Both forms users have are read: `print_readable()` output (annotations `"f32[2048, 4672][4672, 1]cuda:0"`,
// `# File: ...` source comments) and minifier repro scripts (no annotations; placeholder metas from
// `load_args`). Only the outermost `forward` is read (nested submodule classes are skipped). The `graph():`
// dump of `str(graph)` is refused with a clear message.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <unordered_map>

#include "core/io/formats.h"
#include "core/io/fx_infer.h"
#include "core/io/fx_lexer.h"
#include "core/plan_builder.h"

namespace ss {
namespace {

using fx::Cursor;

const TensorMeta kUnknownMeta{{}, DType::Unknown, false};

// ---- annotations: "f32[2048, 4672][4672, 1]cuda:0", "i64[]", "Sym(s0)", "f32[s0, 4096]" ----

// Returns the meta; an annotation that is not a tensor (Sym(...)) or has symbolic sizes gives an unknown meta.
// Only a malformed tensor annotation is an error (offset = the string's first char, for the column).
Result<TensorMeta> parseAnnotation(std::string_view a, const Cursor& cur, size_t offset) {
  size_t lb = a.find('[');
  if (lb == std::string_view::npos || lb == 0) return kUnknownMeta;
  std::string_view dt = a.substr(0, lb);
  for (char c : dt)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return kUnknownMeta;
  size_t rb = a.find(']', lb);
  if (rb == std::string_view::npos) return cur.errorAt(offset, "annotation \"" + std::string(a) + "\" has no closing ']'");
  TensorMeta m;
  m.dtype = dtypeFromName(dt);
  std::string_view dims = a.substr(lb + 1, rb - lb - 1);
  size_t i = 0;
  while (i < dims.size()) {
    while (i < dims.size() && dims[i] == ' ') ++i;
    size_t j = dims.find(',', i);
    if (j == std::string_view::npos) j = dims.size();
    std::string_view d = dims.substr(i, j - i);
    while (!d.empty() && d.back() == ' ') d.remove_suffix(1);
    if (d.empty()) return cur.errorAt(offset, "annotation \"" + std::string(a) + "\" has an empty size");
    int64_t v = 0;
    bool numeric = std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (numeric && d.size() < 19) {
      for (char c : d) v = v * 10 + (c - '0');
      m.shape.push_back(v);
    } else {
      m.shape.push_back(-1);  // symbolic size (s0, 2*s1): the shape is not known
      m.known = false;
    }
    i = j + 1;
  }
  // The limits every reader applies (core/graph.h), so the plan also saves and reloads natively.
  if (m.known && !shapeWithinLimits(m.shape))
    return cur.errorAt(offset, "annotation \"" + std::string(a) +
                                   "\" is past the limits of a tensor (at most 64 dims, sizes up to 2^53, 2^62 elements)");
  return m;
}

// ---- the reader ----

class FxReader {
 public:
  explicit FxReader(std::string_view text) : text_(text), lines_(text), ll_(fx::splitLogicalLines(text)) {}
  Result<Plan> read(FxReadReport* report);

 private:
  std::string_view text_;
  fx::LineIndex lines_;
  std::vector<fx::LogicalLine> ll_;
  Graph g_;
  std::unordered_map<std::string, int> byName_;
  std::unordered_map<std::string, TensorRef> alias_;  // `l_x_ = L_x_`
  std::vector<bool> annotated_;
  SourceLoc source_;
  bool haveOutput_ = false;

  Cursor cursor(const fx::LogicalLine& l) const { return Cursor(text_, lines_, l.begin, l.end); }
  std::string_view lineText(const fx::LogicalLine& l) const { return text_.substr(l.begin, l.end - l.begin); }
  // The line without its leading blanks. `indent` counts a tab as 8 columns, so it is no byte offset.
  std::string_view lineBody(const fx::LogicalLine& l) const {
    std::string_view t = lineText(l);
    size_t k = t.find_first_not_of(" \t");
    return k == std::string_view::npos ? std::string_view() : t.substr(k);
  }

  Result<int> addNode(Node n, Cursor& cur, size_t nameAt);
  Result<TensorRef> lookup(std::string_view name, Cursor& cur, size_t at);
  Result<Arg> value(Cursor& cur, int depth = 0);
  Result<bool> callArgs(Cursor& cur, std::vector<Arg>& args, std::vector<std::pair<std::string, Arg>>& kwargs);
  Result<bool> signature(const fx::LogicalLine& l);
  Result<bool> statement(const fx::LogicalLine& l);
  Result<bool> returnStatement(Cursor& cur);
  void comment(const fx::LogicalLine& l);
  Result<bool> loadArgs(size_t defLine, FxReadReport& rep);
  void finish(FxReadReport& rep);
};

Result<int> FxReader::addNode(Node n, Cursor& cur, size_t nameAt) {
  if (byName_.count(n.name) || alias_.count(n.name))
    return cur.errorAt(nameAt, "'" + n.name + "' is defined twice (FX node names are unique)");
  int idx = g_.size();
  byName_.emplace(n.name, idx);
  g_.nodes.push_back(std::move(n));
  return idx;
}

Result<TensorRef> FxReader::lookup(std::string_view name, Cursor& cur, size_t at) {
  std::string key(name);
  auto a = alias_.find(key);
  if (a != alias_.end()) return a->second;
  auto it = byName_.find(key);
  if (it == byName_.end()) return cur.errorAt(at, "unknown name '" + key + "' (not defined above)");
  return TensorRef{it->second, 0};
}

// One argument value: literals, nested lists/tuples, dtypes, layouts/memory formats, devices, node refs.
Result<Arg> FxReader::value(Cursor& cur, int depth) {
  if (depth > 64) return cur.error("arguments nest too deeply");
  char c = cur.peek();
  size_t at = cur.pos();
  if (c == '[' || c == '(') {
    char close = c == '[' ? ']' : ')';
    cur.accept(c);
    std::vector<Arg> items;
    bool sawComma = false;
    while (!cur.accept(close)) {
      if (cur.atEnd()) return cur.errorAt(at, std::string("'") + c + "' is not closed");
      auto v = value(cur, depth + 1);
      if (!v) return v.error();
      items.push_back(std::move(*v));
      if (cur.accept(',')) {
        sawComma = true;
        continue;
      }
      if (cur.peek() != close)
        return cur.error(std::string("expected ',' or '") + close + "' in a " + (c == '[' ? "list" : "tuple"));
    }
    // `(x)` is a parenthesised value, `(x,)` a tuple.
    if (c == '(' && items.size() == 1 && !sawComma) return std::move(items[0]);
    return Arg::list(std::move(items));
  }
  if (c == '\'' || c == '"') {
    auto s = cur.stringLiteral();
    if (!s) return s.error();
    return Arg::string(std::move(*s));
  }
  bool neg = false;
  if (c == '-' || c == '+') {
    neg = c == '-';
    cur.accept(c);
    if (cur.accept("inf")) return Arg::real(neg ? -HUGE_VAL : HUGE_VAL);
    if (cur.accept("nan")) return Arg::real(std::nan(""));
    if (!cur.atNumber()) return cur.error("expected a number after the sign");
  }
  if (cur.atNumber()) {
    auto n = cur.number();
    if (!n) return n.error();
    if (n->isInt) {
      if (neg && n->i == INT64_MIN) return Arg::integer(n->i);
      return Arg::integer(neg ? -n->i : n->i);
    }
    return Arg::real(neg ? -n->f : n->f);
  }
  std::string_view d = cur.dottedName();
  if (d.empty()) {
    if (cur.atEnd()) return cur.error("expected a value but the line ends");
    return cur.error(std::string("unexpected '") + cur.peek() + "' where a value was expected");
  }
  if (d == "None") return Arg::none();
  if (d == "True") return Arg::boolean(true);
  if (d == "False") return Arg::boolean(false);
  if (d == "inf" || d == "math.inf") return Arg::real(HUGE_VAL);
  if (d == "nan" || d == "math.nan") return Arg::real(std::nan(""));
  if (cur.peekRaw() == '(') {
    // Calls inside arguments: only devices appear in real graphs.
    if (d != "device" && d != "torch.device") return cur.errorAt(at, "unsupported call '" + std::string(d) + "(...)' in an argument");
    std::vector<Arg> args;
    std::vector<std::pair<std::string, Arg>> kwargs;
    auto r = callArgs(cur, args, kwargs);
    if (!r) return r.error();
    std::string type, index;
    if (!args.empty() && args[0].kind == Arg::Kind::String) type = args[0].s;
    if (args.size() > 1 && args[1].kind == Arg::Kind::Int) index = std::to_string(args[1].i);
    for (auto& [k, v] : kwargs) {
      if (k == "type" && v.kind == Arg::Kind::String) type = v.s;
      else if (k == "index" && v.kind == Arg::Kind::Int) index = std::to_string(v.i);
    }
    if (type.empty()) return cur.errorAt(at, "device(...) needs a type ('cuda', 'cpu', ...)");
    // device('cuda:0', 1) names the index twice: torch refuses it, so do we (below: ':' in the name part).
    const std::string dev = index.empty() ? type : type + ":" + index;
    // As torch.device: a name, then an optional ":index" (the writer prints it back as type= and index=).
    const size_t colon = dev.find(':');
    const std::string_view name = std::string_view(dev).substr(0, colon);
    const std::string_view idx = colon == std::string::npos ? std::string_view() : std::string_view(dev).substr(colon + 1);
    const bool nameOk = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                        std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    const bool idxOk = colon == std::string::npos ||
                       (!idx.empty() && idx.size() <= 9 && std::all_of(idx.begin(), idx.end(), [](char c) { return c >= '0' && c <= '9'; }));
    if (!nameOk || !idxOk) return cur.errorAt(at, "device '" + dev + "' is not a device such as 'cuda:0' or 'cpu'");
    return Arg::device(dev);
  }
  if (d.find('.') != std::string_view::npos) {
    DType dt = dtypeFromName(d);
    if (d.substr(0, 6) == "torch." && dt != DType::Unknown) return Arg::dtype(dt);
    return Arg::symbol(std::string(d));  // torch.strided, torch.contiguous_format, torch.float8_e4m3fn, ...
  }
  auto ref = lookup(d, cur, at);
  if (!ref) return ref.error();
  if (cur.peekRaw() == '[') {  // `x[1]` inside args: output 1 of a tuple-returning node
    cur.accept('[');
    auto n = cur.number();
    if (!n || !n->isInt) return cur.error("expected an output index in '[...]'");
    auto r = cur.expect(']', "']'");
    if (!r) return r.error();
    ref->output = static_cast<int>(n->i);
  }
  return Arg::tensor(*ref);
}

Result<bool> FxReader::callArgs(Cursor& cur, std::vector<Arg>& args, std::vector<std::pair<std::string, Arg>>& kwargs) {
  size_t open = cur.pos();
  auto r = cur.expect('(', "'('");
  if (!r) return r;
  while (!cur.accept(')')) {
    if (cur.atEnd()) return cur.errorAt(open, "'(' is not closed");
    size_t save = cur.pos();
    std::string_view key = cur.name();
    bool isKw = false;
    if (!key.empty() && cur.peek() == '=') {
      size_t eq = cur.pos();
      isKw = eq + 1 >= cur.end() || cur.rest().substr(0, 2) != "==";
    }
    if (isKw) {
      // As Python: a keyword given twice is an error (the native format keys kwargs by name).
      for (const auto& kv : kwargs)
        if (kv.first == key) return cur.errorAt(save, "keyword argument '" + std::string(key) + "' repeated");
      cur.accept('=');
      auto v = value(cur);
      if (!v) return v.error();
      kwargs.emplace_back(std::string(key), std::move(*v));
    } else {
      cur.seek(save);
      if (!kwargs.empty()) return cur.error("positional argument after keyword arguments");
      auto v = value(cur);
      if (!v) return v.error();
      args.push_back(std::move(*v));
    }
    if (cur.accept(',')) continue;
    if (cur.peek() != ')') {
      if (cur.atEnd()) return cur.errorAt(open, "'(' is not closed");
      return cur.error(std::string("expected ',' or ')' but found '") + cur.peek() + "'");
    }
  }
  return true;
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
    bool ann = false;
    if (cur.accept(':')) {
      if (cur.atString()) {
        cur.skipSpace();
        size_t sAt = cur.pos();
        auto s = cur.stringLiteral();
        if (!s) return s.error();
        auto m = parseAnnotation(*s, cur, sAt);
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
    if (!(first && n == "self")) {
      Node node;
      node.name = std::string(n);
      node.op = "placeholder";
      node.kind = NodeKind::Placeholder;
      node.outputs = {meta};
      auto idx = addNode(std::move(node), cur, at);
      if (!idx) return idx.error();
      annotated_.push_back(ann);
    }
    first = false;
    if (cur.accept(',')) continue;
    if (cur.peek() != ')') return cur.error("expected ',' or ')' in the parameter list");
  }
  return true;
}

void FxReader::comment(const fx::LogicalLine& l) {
  std::string_view t = lineText(l);
  size_t h = t.find('#');
  t.remove_prefix(h + 1);
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
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
    auto first = value(cur);
    if (!first) return first.error();
    v = std::move(*first);
    cur.seek(cur.end());
  } else {
    cur.seek(save);
    if (cur.atEnd()) {
      v = Arg::list({});
    } else {
      auto r = value(cur);
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

// `name[: "annotation"] = target(args);  a = b = None`, `name = x[0]`, `name = self.attr`, `return (...)`.
Result<bool> FxReader::statement(const fx::LogicalLine& l) {
  Cursor cur = cursor(l);
  if (haveOutput_) return cur.error("statement after the return of forward");
  if (cur.accept("return")) return returnStatement(cur);
  size_t nameAt = cur.pos();
  std::string_view n = cur.name();
  if (n.empty()) return cur.error("expected `name = op(...)` or `return ...`");
  TensorMeta meta = kUnknownMeta;
  bool ann = false;
  if (cur.accept(':')) {
    cur.skipSpace();
    size_t sAt = cur.pos();
    if (!cur.atString()) return cur.error("expected a string annotation after ':'");
    auto s = cur.stringLiteral();
    if (!s) return s.error();
    auto m = parseAnnotation(*s, cur, sAt);
    if (!m) return m.error();
    meta = *m;
    ann = true;
  }
  auto eq = cur.expect('=', "'='");
  if (!eq) return eq;
  size_t rhsAt = cur.pos();
  std::string_view d = cur.dottedName();
  if (d.empty()) return cur.error("expected an op call, `x[i]` or a name after '='");
  Node node;
  node.name = std::string(n);
  node.kind = NodeKind::Call;
  node.source = source_;
  if (cur.peekRaw() == '(' || cur.peek() == '(') {
    std::string target(d);
    if (target.rfind("torch.ops.", 0) == 0) target.erase(0, 10);
    if (target == "_operator.getitem") target = "operator.getitem";
    node.op = target;
    auto r = callArgs(cur, node.args, node.kwargs);
    if (!r) return r.error();
    if (target == "operator.getitem") {
      if (node.args.size() != 2 || !node.args[0].isTensor() || !node.args[1].isInt())
        return cur.errorAt(rhsAt, "operator.getitem needs (node, int index)");
      node.args[0].t.output = static_cast<int>(node.args[1].i);
    }
  } else if (cur.peekRaw() == '[') {
    auto ref = lookup(d, cur, rhsAt);
    if (!ref) return ref.error();
    cur.accept('[');
    bool neg = cur.accept('-');
    if (!cur.atNumber()) return cur.error("expected an integer index in '[...]' (slices are not FX node syntax)");
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
  } else {
    auto ref = lookup(d, cur, rhsAt);
    if (!ref) return ref.error();
    if (!cur.atEnd() && cur.peek() != ';' && cur.peek() != '#') return cur.error("unexpected text after the name");
    alias_[std::string(n)] = *ref;
    return true;
  }
  if (!cur.atEnd() && cur.peek() != ';' && cur.peek() != '#')
    return cur.error(std::string("unexpected '") + cur.peek() + "' after the expression");
  node.outputs = {meta};
  auto idx = addNode(std::move(node), cur, nameAt);
  if (!idx) return idx.error();
  annotated_.push_back(ann);
  return true;
}

// `def load_args(reader):` body: `reader.tensor(buf0, (64, 3), dtype=torch.float16, is_leaf=True)  # arg0_1`
// and `reader.symint(533)  # primals_6`. Metas go to the named placeholder (else the next one in order).
Result<bool> FxReader::loadArgs(size_t defLine, FxReadReport& rep) {
  int defIndent = ll_[defLine].indent;
  std::vector<int> placeholders;
  for (int i = 0; i < g_.size(); ++i)
    if (g_.nodes[i].kind == NodeKind::Placeholder && g_.nodes[i].placeholderKind != PlaceholderKind::Buffer)
      placeholders.push_back(i);
  size_t nextInOrder = 0;
  for (size_t k = defLine + 1; k < ll_.size(); ++k) {
    const auto& l = ll_[k];
    if (l.blank || l.comment) continue;
    if (l.indent <= defIndent) break;
    std::string_view t = lineText(l);
    bool isTensor = t.find("reader.tensor(") != std::string_view::npos;
    bool isSym = t.find("reader.symint(") != std::string_view::npos;
    if (!isTensor && !isSym) continue;
    std::string_view target;
    size_t hash = t.rfind('#');
    if (hash != std::string_view::npos) {
      target = t.substr(hash + 1);
      while (!target.empty() && target.front() == ' ') target.remove_prefix(1);
      while (!target.empty() && (target.back() == ' ' || target.back() == '\r')) target.remove_suffix(1);
    }
    int node = -1;
    if (!target.empty()) {
      auto it = byName_.find(std::string(target));
      if (it != byName_.end()) node = it->second;
    }
    if (node < 0 && nextInOrder < placeholders.size()) node = placeholders[nextInOrder];
    if (node < 0) continue;
    auto pos = std::find(placeholders.begin(), placeholders.end(), node);
    if (pos != placeholders.end()) nextInOrder = static_cast<size_t>(pos - placeholders.begin()) + 1;
    if (annotated_[node]) continue;
    TensorMeta m = kUnknownMeta;
    if (isSym) {
      m.dtype = DType::I64;  // a SymInt input, not a tensor
    } else {
      Cursor cur = cursor(l);
      cur.seek(l.begin + t.find("reader.tensor(") + 13);
      cur.accept('(');
      // skip the storage argument
      int depth = 0;
      while (!cur.atEnd()) {
        char c = cur.peekRaw();
        if (c == '(' || c == '[') ++depth;
        if (c == ')' || c == ']') --depth;
        if (depth < 0 || (depth == 0 && c == ',')) break;
        cur.seek(cur.pos() + 1);
      }
      if (!cur.accept(',')) return cur.error("reader.tensor(...) needs a storage and a shape");
      m.known = true;
      m.dtype = DType::F32;  // load_args omits dtype for float32
      const size_t shapeAt = cur.pos();
      if (!cur.accept('(')) return cur.error("expected the shape tuple '(...)' in reader.tensor");
      while (!cur.accept(')')) {
        if (cur.atNumber()) {
          auto n = cur.number();
          if (!n || !n->isInt) return cur.error("expected an integer size");
          m.shape.push_back(n->i);
        } else {
          // symbolic size such as ((s3 + 8)//9): skip it, the shape is unknown
          m.known = false;
          m.shape.push_back(-1);
          int dd = 0;
          while (!cur.atEnd()) {
            char c = cur.peekRaw();
            if (c == '(') ++dd;
            if (c == ')') { if (dd == 0) break; --dd; }
            if (c == ',' && dd == 0) break;
            cur.seek(cur.pos() + 1);
          }
        }
        if (!cur.accept(',') && cur.peek() != ')') return cur.error("expected ',' or ')' in the shape");
      }
      // The limits every reader applies (core/graph.h), so the plan also saves and reloads natively.
      if (m.known && !shapeWithinLimits(m.shape))
        return cur.errorAt(shapeAt, "this shape is past the limits of a tensor (sizes 0 to 2^53, at most 64 dims, "
                                    "2^62 elements)");
      size_t dtAt = t.find("dtype=torch.");
      if (dtAt != std::string_view::npos) {
        Cursor dc = cursor(l);
        dc.seek(l.begin + dtAt + 6);
        m.dtype = dtypeFromName(dc.dottedName());
      }
    }
    g_.nodes[node].outputs = {m};
    ++rep.fromLoadArgs;
  }
  return true;
}

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
  rep.inferred += fx::inferShapes(g_, rep.uninferred, &annotated_);

  bool haveTangents = false;
  for (auto& n : g_.nodes) {
    if (n.kind != NodeKind::Placeholder || n.placeholderKind == PlaceholderKind::Buffer) continue;
    const TensorMeta& m = n.outputs[0];
    bool intLike = m.dtype == DType::I64 || m.dtype == DType::I32 || m.dtype == DType::Bool;
    if (n.name.rfind("tangents", 0) == 0) {
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

Result<Plan> FxReader::read(FxReadReport* report) {
  FxReadReport local;
  FxReadReport& rep = report ? *report : local;
  rep = {};
  // the outermost `def forward(` (nested submodule classes print their own, more indented)
  int fwd = -1, loadArgsLine = -1, graphDump = -1;
  for (size_t i = 0; i < ll_.size(); ++i) {
    if (ll_[i].blank || ll_[i].comment) continue;
    std::string_view t = lineBody(ll_[i]);
    if (t.substr(0, 12) == "def forward(" && (fwd < 0 || ll_[i].indent < ll_[fwd].indent)) fwd = static_cast<int>(i);
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

  PlanBuilder b(PlanFormat::FxText);
  b.setGraph(std::move(g_), Where::at(1, 1));
  if (auto ok = b.finishGraph(); !ok) return ok.error();
  Plan& plan = b.plan();
  plan.name = "fx-graph";
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

// ---- the writer ----

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

Result<Plan> readFxText(std::string_view text) { return FxReader(text).read(nullptr); }
Result<Plan> readFxText(std::string_view text, FxReadReport* report) { return FxReader(text).read(report); }

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
