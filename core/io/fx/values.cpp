// FX text reader, part 2: annotations and argument values (literals, nested lists/tuples, dtypes, layouts and
// memory formats, devices, node references, infix operands). See fx_reader.h.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>

#include "core/io/fx/reader.h"

namespace ss::fxread {


// Returns the meta; an annotation that is not a tensor (Sym(...)) or has symbolic sizes gives an unknown meta.
// Only a malformed tensor annotation is an error (offset = the string's first char, for the column).
Result<TensorMeta> parseAnnotation(std::string_view a, const Cursor& cur, size_t offset,
                                   std::vector<std::string>* symbolic) {
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
  std::vector<std::string> printed;  // every size as printed, kept when one of them is symbolic
  size_t i = 0;
  while (i < dims.size()) {
    while (i < dims.size() && dims[i] == ' ') ++i;
    size_t j = dims.find(',', i);
    if (j == std::string_view::npos) j = dims.size();
    std::string_view d = dims.substr(i, j - i);
    while (!d.empty() && d.back() == ' ') d.remove_suffix(1);
    if (d.empty()) return cur.errorAt(offset, "annotation \"" + std::string(a) + "\" has an empty size");
    if (symbolic) printed.emplace_back(d);
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
  if (symbolic && !m.known) *symbolic = std::move(printed);
  // The limits every reader applies (core/model/graph.h), so the plan also saves and reloads natively.
  if (m.known && !shapeWithinLimits(m.shape))
    return cur.errorAt(offset, "annotation \"" + std::string(a) +
                                   "\" is past the limits of a tensor (at most 64 dims, sizes up to 2^53, 2^62 elements)");
  return m;
}

Result<TensorMeta> stringAnnotation(Cursor& cur, std::vector<std::string>* symbolic) {
  cur.skipSpace();
  size_t at = cur.pos();
  auto s = cur.stringLiteral();
  if (!s) return s.error();
  return parseAnnotation(*s, cur, at, symbolic);
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
  if (c == '{') {
    // A dict literal `{'BACKEND': 'AUTO', 'k': node}` (higher-order ops' options, triton kernels' kwargs): read as
    // a list of [key, value] pairs, in order, so tensor values stay inputs in the order they are written.
    cur.accept('{');
    std::vector<Arg> pairs;
    while (!cur.accept('}')) {
      if (cur.atEnd()) return cur.errorAt(at, "'{' is not closed");
      auto k = value(cur, depth + 1);
      if (!k) return k.error();
      auto colon = cur.expect(':', "':' after a dict key");
      if (!colon) return colon.error();
      auto v = value(cur, depth + 1);
      if (!v) return v.error();
      pairs.push_back(Arg::list({std::move(*k), std::move(*v)}));
      if (cur.accept(',')) continue;
      if (cur.peek() != '}') return cur.error("expected ',' or '}' in a dict");
    }
    return Arg::list(std::move(pairs));
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

// One operand of an infix expression: a number (optionally signed) or a node name.
Result<Arg> FxReader::operand(Cursor& cur) {
  cur.skipSpace();
  size_t at = cur.pos();
  bool neg = cur.accept('-');
  if (cur.atNumber()) {
    auto num = cur.number();
    if (!num) return num.error();
    if (num->isInt) return Arg::integer(neg ? -num->i : num->i);
    return Arg::real(neg ? -num->f : num->f);
  }
  if (neg) return cur.error("expected a number after the sign");
  std::string_view nm = cur.name();
  if (nm.empty()) return cur.errorAt(at, "expected a name or a number in the expression");
  auto ref = lookup(nm, cur, at);
  if (!ref) return ref.error();
  return Arg::tensor(*ref);
}

// `a OP b` with OP one of Python's comparison and arithmetic operators, each operand a name or a number: a node
// with op operator.<name> (as FX's own targets: operator.ge, operator.add, operator.floordiv, ...). Returns false
// (cursor untouched) when the right-hand side is not of that form.
Result<bool> FxReader::binaryExpression(Cursor& cur, Node& node) {
  static constexpr std::pair<std::string_view, std::string_view> kOps[] = {
      {"//", "floordiv"}, {"**", "pow"}, {">=", "ge"}, {"<=", "le"}, {"==", "eq"}, {"!=", "ne"}, {"+", "add"},
      {"-", "sub"},       {"*", "mul"},  {"/", "truediv"}, {"%", "mod"}, {"<", "lt"}, {">", "gt"}};
  const size_t save = cur.pos();
  // The first operand: a number, or a bare name not followed by a call, an index or an attribute.
  bool first = false;
  const bool neg = cur.peekRaw() == '-';
  if (neg) cur.seek(cur.pos() + 1);
  if (cur.atNumber()) {
    first = cur.number().ok();
  } else if (!neg) {
    std::string_view nm = cur.name();
    first = !nm.empty() && cur.peekRaw() != '(' && cur.peekRaw() != '[' && cur.peekRaw() != '.';
  }
  if (first) {
    cur.skipSpace();
    std::string_view rest = cur.rest();
    for (const auto& [sym, name] : kOps) {
      if (rest.substr(0, sym.size()) != sym) continue;
      cur.seek(save);
      auto a = operand(cur);
      if (!a) return a.error();
      cur.skipSpace();
      cur.seek(cur.pos() + sym.size());
      auto b = operand(cur);
      if (!b) return b.error();
      node.op = "operator." + std::string(name);
      node.args = {std::move(*a), std::move(*b)};
      return true;
    }
  }
  cur.seek(save);
  return false;
}

// `slice(stop)`, `slice(start, stop)`, `slice(start, stop, step)`: Python's slice object.
Result<FxReader::SliceValue> FxReader::sliceCall(Cursor& cur) {
  size_t at = cur.pos();
  std::vector<Arg> args;
  std::vector<std::pair<std::string, Arg>> kwargs;
  auto r = callArgs(cur, args, kwargs);
  if (!r) return r.error();
  if (!kwargs.empty() || args.empty() || args.size() > 3) return cur.errorAt(at, "slice(...) takes 1 to 3 positional arguments");
  for (const Arg& a : args)
    if (a.kind != Arg::Kind::None && a.kind != Arg::Kind::Int && !a.isTensor())
      return cur.errorAt(at, "a slice bound must be None, an integer or a symbolic integer node");
  if (args.size() == 1) return SliceValue{Arg::none(), args[0], Arg::none()};
  return SliceValue{args[0], args[1], args.size() > 2 ? args[2] : Arg::none()};
}

std::optional<TensorRef> FxReader::methodReceiver(std::string_view dotted) const {
  const size_t dot = dotted.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const std::string_view first = dotted.substr(0, dot);
  if (first == "torch" || first == "self" || first == "operator" || first == "_operator") return std::nullopt;
  if (auto a = alias_.find(first); a != alias_.end()) return a->second;
  if (auto it = byName_.find(first); it != byName_.end()) return TensorRef{it->second, 0};
  return std::nullopt;
}

// After `base[`: the index, up to and with its `]`. Each item takes one dim, in order: a slice (a slice_N value or
// an inline slice(...)) or an integer. False when every dim is taken whole (the statement's name then aliases
// the base); otherwise `node` is the one op the index is: aten.slice.Tensor or aten.select.int on the one dim it
// changes. What Python indexing does beyond that (None, Ellipsis, tensors, two dims at once) is said, not guessed.
Result<bool> FxReader::tensorIndex(Cursor& cur, Node& node, TensorRef base, size_t rhsAt) {
  const bool tuple = cur.accept('(');
  struct Item {
    bool isSlice = true;
    SliceValue slice;
    int64_t index = 0;
  };
  std::vector<Item> items;
  while (true) {
    cur.skipSpace();
    if (tuple && cur.accept(')')) break;
    if (!tuple && cur.peek() == ']') break;
    if (cur.atEnd()) return cur.errorAt(rhsAt, "the index '[...]' is not closed");
    size_t at = cur.pos();
    Item item;
    if (cur.atNumber() || cur.peek() == '-') {
      const bool neg = cur.accept('-');
      auto num = cur.number();
      if (!num || !num->isInt) return cur.errorAt(at, "expected an integer index");
      item.isSlice = false;
      item.index = neg ? -num->i : num->i;
    } else {
      std::string_view name = cur.dottedName();
      if (name == "slice" && cur.peekRaw() == '(') {
        auto sv = sliceCall(cur);
        if (!sv) return sv.error();
        item.slice = std::move(*sv);
      } else if (auto it = slices_.find(name); !name.empty() && it != slices_.end()) {
        item.slice = it->second;
      } else if (name == "None" || name == "Ellipsis" || cur.rest().substr(0, 3) == "...") {
        return cur.errorAt(at, "indexing with None or Ellipsis (a new or skipped dim) is not read yet");
      } else {
        return cur.errorAt(at, "expected a slice or an integer in the index (indexing by '" + std::string(name) +
                                   "' is not read yet)");
      }
    }
    items.push_back(std::move(item));
    if (!tuple) break;
    if (!cur.accept(',') && cur.peek() != ')') return cur.error("expected ',' or ')' in the index");
  }
  auto close = cur.expect(']', "']'");
  if (!close) return close.error();
  std::vector<int> changed;
  for (size_t i = 0; i < items.size(); ++i)
    if (!items[i].isSlice || !items[i].slice.whole()) changed.push_back(static_cast<int>(i));
  if (changed.empty()) {
    alias_[node.name] = base;
    return false;
  }
  if (changed.size() > 1)
    return cur.errorAt(rhsAt, "indexing dims " + std::to_string(changed[0]) + " and " + std::to_string(changed[1]) +
                                  " in one step is not read yet");
  const int dim = changed[0];
  const Item& it = items[dim];
  if (it.isSlice) {
    node.op = "aten.slice.Tensor";
    const Arg step = it.slice.step.kind == Arg::Kind::None ? Arg::integer(1) : it.slice.step;
    node.args = {Arg::tensor(base), Arg::integer(dim), it.slice.start, it.slice.stop, step};
  } else {
    node.op = "aten.select.int";
    node.args = {Arg::tensor(base), Arg::integer(dim), Arg::integer(it.index)};
  }
  return true;
}

}  // namespace ss::fxread
