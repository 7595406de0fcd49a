// Parser for every placement notation (see placement_parse.h). A small hand-written scanner with columns:
// each error points at the character where the text stopped making sense.
//
// Sections: Scanner; single placements; spec forms (mesh-centric, DTensor lists, tensor-centric, JAX);
// tuples and strategy lines.
#include "core/model/placement_parse.h"

#include "core/model/limits.h"

#include <cctype>
#include <charconv>

namespace ss {

namespace {

// ---- Scanner ---------------------------------------------------------------------------------------------
struct Scanner {
  std::string_view text;
  size_t pos = 0;
  int base = 0;  // column offset of text inside the user's input

  int col() const { return static_cast<int>(pos) + 1 + base; }
  int colAt(size_t p) const { return static_cast<int>(p) + 1 + base; }
  void skipWs() {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
  }
  bool done() { skipWs(); return pos >= text.size(); }
  char peek() { skipWs(); return pos < text.size() ? text[pos] : '\0'; }
  bool accept(char c) {
    if (peek() == c) { ++pos; return true; }
    return false;
  }
  bool acceptWord(std::string_view w) {
    skipWs();
    if (text.substr(pos, w.size()) != w) return false;
    size_t end = pos + w.size();
    if (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) return false;
    pos = end;
    return true;
  }
  std::string_view word() {
    skipWs();
    size_t s = pos;
    while (pos < text.size() && (std::isalnum(static_cast<unsigned char>(text[pos])) || text[pos] == '_')) ++pos;
    return text.substr(s, pos - s);
  }
  std::string describeHere() {
    skipWs();
    if (pos >= text.size()) return "end of text";
    return std::string("'") + text[pos] + "'";
  }
};

Error errAt(const Scanner& s, std::string msg) { return Error::at(std::move(msg), s.col()); }

Result<int64_t> parseInt(Scanner& s, const char* what) {
  s.skipWs();
  size_t start = s.pos;
  bool neg = false;
  if (s.pos < s.text.size() && (s.text[s.pos] == '-' || s.text[s.pos] == '+')) { neg = s.text[s.pos] == '-'; ++s.pos; }
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.text.data() + s.pos, s.text.data() + s.text.size(), v);
  if (ec != std::errc() || p == s.text.data() + s.pos) {
    s.pos = start;
    return errAt(s, std::string("expected ") + what + ", found " + s.describeHere());
  }
  if (v > limits::kMaxPlacementNumber) {
    s.pos = start;
    return errAt(s, std::string(what) + " " + std::to_string(v) + " is out of range");
  }
  s.pos = static_cast<size_t>(p - s.text.data());
  return neg ? -v : v;
}

Result<bool> expect(Scanner& s, char c, const char* context) {
  if (s.accept(c)) return true;
  return errAt(s, std::string("expected '") + c + "' " + context + ", found " + s.describeHere());
}

// Optional keyword prefix "name=" (e.g. "dim=", "reduce_op=").
void acceptKeyword(Scanner& s, std::initializer_list<std::string_view> names) {
  s.skipWs();
  for (auto n : names) {
    size_t save = s.pos;
    if (s.acceptWord(n)) {
      if (s.accept('=')) return;
    }
    s.pos = save;
  }
}

Result<ReduceOp> parseReduceOp(Scanner& s) {
  s.skipWs();
  char q = s.peek();
  bool quoted = q == '\'' || q == '"';
  if (quoted) ++s.pos;
  size_t start = s.pos;
  auto w = s.word();
  const std::optional<ReduceOp> op = reduceOpFromName(w);
  if (!op) {
    s.pos = start;
    return errAt(s, "unknown reduce op '" + std::string(w) + "' (expected sum, avg, product, max or min)");
  }
  if (quoted && !s.accept(q)) return errAt(s, "unterminated quoted reduce op");
  return *op;
}

// ---- Single placements --------------------------------------------------------------------------------------
// Parses one placement at the scanner position (long or short DTensor form).
Result<Placement> parseOne(Scanner& s) {
  s.skipWs();
  size_t start = s.pos;
  auto w = s.word();
  if (w.empty()) return errAt(s, "expected a placement (S(0), R, P(sum), Shard(dim=0), ...), found " + s.describeHere());
  // Mesh-centric concatenations glue short names together ("RS(0)", "RRP(sum)", and "R_S(0, 2)" as
  // toMeshString() prints R before a _StridedShard): take one letter at a time.
  const size_t glued = w.find_first_not_of("RSP");
  if (w.size() > 1 && (glued == std::string_view::npos || (glued > 0 && w[glued] == '_'))) {
    s.pos = start;
    s.skipWs();
    w = s.text.substr(s.pos, 1);
    ++s.pos;
  }
  auto dimArg = [&](int64_t& dim) -> Result<bool> {
    acceptKeyword(s, {"dim"});
    auto d = parseInt(s, "a tensor dim");
    if (!d) return d.error();
    dim = *d;
    return true;
  };
  if (w == "Shard" || w == "S") {
    if (auto r = expect(s, '(', ("after " + std::string(w)).c_str()); !r) return r.error();
    int64_t dim = 0;
    if (auto r = dimArg(dim); !r) return r.error();
    if (auto r = expect(s, ')', "to close the shard"); !r) return r.error();
    return Placement::shard(static_cast<int>(dim));
  }
  if (w == "_StridedShard" || w == "_S" || w == "StridedShard") {
    if (auto r = expect(s, '(', "after a strided shard"); !r) return r.error();
    int64_t dim = 0;
    if (auto r = dimArg(dim); !r) return r.error();
    if (auto r = expect(s, ',', "before the split factor"); !r) return r.error();
    acceptKeyword(s, {"sf", "split_factor"});
    size_t sfPos = s.pos;
    auto sf = parseInt(s, "a split factor");
    if (!sf) return sf.error();
    if (*sf < 1) { s.pos = sfPos; return errAt(s, "split factor must be >= 1"); }
    if (auto r = expect(s, ')', "to close the strided shard"); !r) return r.error();
    return Placement::strided(static_cast<int>(dim), static_cast<int>(*sf));
  }
  if (w == "Replicate" || w == "R") {
    size_t save = s.pos;
    if (s.accept('(')) {
      if (!s.accept(')')) return errAt(s, "Replicate takes no arguments");
    } else {
      s.pos = save;
    }
    return Placement::replicate();
  }
  if (w == "Partial" || w == "P" || w == "_Partial") {
    size_t save = s.pos;
    if (s.accept('(')) {
      if (s.accept(')')) return Placement::partial(ReduceOp::Sum);
      acceptKeyword(s, {"reduce_op"});
      auto op = parseReduceOp(s);
      if (!op) return op.error();
      if (auto r = expect(s, ')', "to close the partial"); !r) return r.error();
      return Placement::partial(*op);
    }
    s.pos = save;
    return Placement::partial(ReduceOp::Sum);
  }
  s.pos = start;
  return errAt(s, "unknown placement '" + std::string(w) + "' (expected S(d), R, P(op), _S(d, sf) or their long forms)");
}

// The range check of a shard dim against a known rank (normalised dims only); shared by the parser and
// checkShardDims, so readers that check after parsing refuse with the parser's words.
Result<bool> checkShardDim(const Placement& p, int tensorRank, int col) {
  if (p.isShard() && tensorRank >= 0 && p.dim >= tensorRank)
    return Error::at("shard dim " + std::to_string(p.dim) + " is out of range for a tensor with " +
                         std::to_string(tensorRank) + " dims", col);
  return true;
}

Result<bool> normaliseDims(std::vector<Placement>& ps, const ParseContext& ctx, int col) {
  for (auto& p : ps) {
    if (!p.isShard()) continue;
    if (p.dim < 0) {
      if (ctx.tensorRank < 0 && ctx.syntaxOnly) continue;
      if (ctx.tensorRank < 0) return Error::at("negative shard dim " + std::to_string(p.dim) + " needs the tensor's rank", col);
      p.dim += ctx.tensorRank;
      if (p.dim < 0) return Error::at("shard dim is out of range for a tensor with " + std::to_string(ctx.tensorRank) + " dims", col);
    }
    if (auto r = checkShardDim(p, ctx.tensorRank, col); !r) return r.error();
  }
  return true;
}

Result<ShardingSpec> finish(std::vector<Placement> ps, std::vector<int> order, const ParseContext& ctx, int col) {
  if (auto r = normaliseDims(ps, ctx, col); !r) return r.error();
  if (ctx.mesh && !ctx.syntaxOnly && static_cast<int>(ps.size()) != ctx.mesh->ndim())
    return Error::at("got " + std::to_string(ps.size()) + " placement" + (ps.size() == 1 ? "" : "s") + " for a " +
                         std::to_string(ctx.mesh->ndim()) + "-dim mesh (" + ctx.mesh->toString() + ")",
                     col);
  bool anyOrder = false;
  for (int o : order) anyOrder |= o >= 0;
  if (!anyOrder) order.clear();
  return ShardingSpec(std::move(ps), std::move(order));
}

// ---- Spec forms ---------------------------------------------------------------------------------------------
// Mesh-centric concatenation "RS(0)", "S(1)[1]S(1)[0]R", also with commas "S(0), R". Stops at `stop` chars.
Result<ShardingSpec> parseMeshCentric(Scanner& s, const ParseContext& ctx, std::string_view stops) {
  int startCol = s.col();
  std::vector<Placement> ps;
  std::vector<int> order;
  while (true) {
    auto p = parseOne(s);
    if (!p) return p.error();
    ps.push_back(*p);
    int o = -1;
    if (s.peek() == '[') {
      ++s.pos;
      auto v = parseInt(s, "a shard order index");
      if (!v) return v.error();
      o = static_cast<int>(*v);
      if (auto r = expect(s, ']', "to close the shard order"); !r) return r.error();
    }
    order.push_back(o);
    char c = s.peek();
    if (c == '\0' || stops.find(c) != std::string_view::npos) break;
    if (c == ',') {
      ++s.pos;
      if (s.done()) break;  // "(S(0),)"
      continue;
    }
  }
  return finish(std::move(ps), std::move(order), ctx, startCol);
}

bool isColossalItem(std::string_view w) {
  if (w == "R") return true;
  if (w.size() < 2 || w[0] != 'S') return false;
  for (size_t i = 1; i < w.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(w[i]))) return false;
  return true;
}

// Tensor-centric "[R, S0, S01]" (already known to be that form). One entry per tensor dim.
Result<ShardingSpec> parseTensorCentric(Scanner& s, const ParseContext& ctx) {
  int col = s.col();
  if (!ctx.mesh) return errAt(s, "a tensor-centric spec like [R, S0] needs the mesh (--mesh)");
  std::vector<Placement> ps(ctx.mesh->ndim());
  std::vector<int> order(ctx.mesh->ndim(), -1);
  bool anyOrder = false;
  s.accept('[');
  int tdim = 0;
  if (s.accept(']')) return finish(ps, {}, ctx, col);
  while (true) {
    s.skipWs();
    size_t itemPos = s.pos;
    auto w = s.word();
    if (!isColossalItem(w)) {
      s.pos = itemPos;
      return errAt(s, "expected R or S<mesh dims> (like S0 or S01) in a tensor-centric spec, found " + s.describeHere());
    }
    if (w != "R") {
      for (size_t i = 1; i < w.size(); ++i) {
        int m = w[i] - '0';
        if (m >= ctx.mesh->ndim()) {
          s.pos = itemPos;
          return errAt(s, "mesh dim " + std::to_string(m) + " does not exist on the " + ctx.mesh->toString() + " mesh");
        }
        if (!ps[m].isReplicate()) {
          s.pos = itemPos;
          return errAt(s, "mesh dim " + std::to_string(m) + " is used twice");
        }
        ps[m] = Placement::shard(tdim);
        order[m] = static_cast<int>(i - 1);
        if (i > 1) anyOrder = true;
      }
    }
    ++tdim;
    if (s.accept(',')) continue;
    if (auto r = expect(s, ']', "to close the tensor-centric spec"); !r) return r.error();
    break;
  }
  ParseContext c2 = ctx;
  if (c2.tensorRank >= 0 && c2.tensorRank != tdim)
    return Error::at("the tensor-centric spec has " + std::to_string(tdim) + " entries for a tensor with " +
                         std::to_string(c2.tensorRank) + " dims", col);
  // Multi-mesh-dim entries like S10 split in the written order; keep it only where it differs from mesh order.
  if (!anyOrder) order.clear();
  else
    for (int m = 0; m < ctx.mesh->ndim(); ++m)
      if (!ps[m].isShard()) order[m] = -1;
  return finish(std::move(ps), std::move(order), c2, col);
}

// JAX "P(None, 'tp')" / "PartitionSpec(('dp', 'tp'), None)".
Result<ShardingSpec> parseJax(Scanner& s, const ParseContext& ctx) {
  int col = s.col();
  if (!ctx.mesh || !ctx.mesh->hasNames()) return errAt(s, "a JAX PartitionSpec needs mesh dim names (--names)");
  s.word();
  s.accept('(');
  std::vector<Placement> ps(ctx.mesh->ndim());
  std::vector<int> order(ctx.mesh->ndim(), -1);
  bool anyOrder = false;
  int tdim = 0;
  auto name = [&](int idxInTuple) -> Result<bool> {
    s.skipWs();
    char q = s.peek();
    if (q != '\'' && q != '"') return errAt(s, "expected a quoted mesh dim name or None, found " + s.describeHere());
    ++s.pos;
    size_t st = s.pos;
    while (s.pos < s.text.size() && s.text[s.pos] != q) ++s.pos;
    if (s.pos >= s.text.size()) return errAt(s, "unterminated mesh dim name");
    std::string nm(s.text.substr(st, s.pos - st));
    ++s.pos;
    int m = ctx.mesh->dimIndex(nm);
    if (m < 0) {
      s.pos = st - 1;
      return errAt(s, "no mesh dim is named '" + nm + "' (the mesh is " + ctx.mesh->toString() + ")");
    }
    if (!ps[m].isReplicate()) return errAt(s, "mesh dim '" + nm + "' is used twice");
    ps[m] = Placement::shard(tdim);
    order[m] = idxInTuple;
    if (idxInTuple > 0) anyOrder = true;
    return true;
  };
  if (!s.accept(')')) {
    while (true) {
      if (s.acceptWord("None")) {
      } else if (s.accept('(')) {
        int k = 0;
        while (!s.accept(')')) {
          if (auto r = name(k++); !r) return r.error();
          if (!s.accept(',') && s.peek() != ')') return errAt(s, "expected ',' or ')' in a name tuple");
        }
      } else if (auto r = name(0); !r) {
        return r.error();
      }
      ++tdim;
      if (s.accept(',')) {
        if (s.accept(')')) break;
        continue;
      }
      if (auto r = expect(s, ')', "to close the PartitionSpec"); !r) return r.error();
      break;
    }
  }
  if (ctx.tensorRank >= 0 && tdim > ctx.tensorRank)
    return Error::at("the PartitionSpec has " + std::to_string(tdim) + " entries for a tensor with " +
                         std::to_string(ctx.tensorRank) + " dims", col);
  if (!anyOrder) order.clear();
  else
    for (int m = 0; m < ctx.mesh->ndim(); ++m)
      if (!ps[m].isShard()) order[m] = -1;
  return finish(std::move(ps), std::move(order), ctx, col);
}

bool looksLikeJax(std::string_view t) {
  bool prefix = t.rfind("PartitionSpec(", 0) == 0 || t.rfind("P(", 0) == 0;
  if (!prefix) return false;
  if (t.rfind("PartitionSpec(", 0) == 0) return true;
  return t.find('\'') != std::string_view::npos || t.find('"') != std::string_view::npos ||
         t.find("None") != std::string_view::npos || t == "P()";
}

std::string_view trim(std::string_view t, int& lead) {
  lead = 0;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) { t.remove_prefix(1); ++lead; }
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  return t;
}

// Index of the bracket closing the one at `open`, or npos.
size_t matchClose(std::string_view t, size_t open) {
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i] == '(' || t[i] == '[') ++depth;
    else if (t[i] == ')' || t[i] == ']') {
      if (--depth == 0) return i;
    }
  }
  return std::string_view::npos;
}

// Splits on commas at depth 0. Returns (offset, piece) pairs.
std::vector<std::pair<size_t, std::string_view>> splitTop(std::string_view t) {
  std::vector<std::pair<size_t, std::string_view>> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (c == '(' || c == '[') ++depth;
    else if (c == ')' || c == ']') --depth;
    else if (c == ',' && depth == 0) {
      out.emplace_back(start, t.substr(start, i - start));
      start = i + 1;
    }
  }
  out.emplace_back(start, t.substr(start));
  return out;
}

Result<ShardingSpec> parseSpecAt(std::string_view text, int base, const ParseContext& ctx);

// "(Shard(dim=0), Replicate())" / "[S(0), R]" / "(S(0)R)" / "(S(0),)": a bracketed list of placements.
Result<ShardingSpec> parseBracketedList(std::string_view t, int base, const ParseContext& ctx) {
  char open = t.front();
  size_t close = matchClose(t, 0);
  if (close == std::string_view::npos)
    return Error::at(std::string("unclosed '") + open + "'", base + 1);
  if (close != t.size() - 1)
    return Error::at("unexpected text after the closing bracket", base + static_cast<int>(close) + 2);
  std::string_view inner = t.substr(1, close - 1);
  Scanner s{inner, 0, base + 1};
  return parseMeshCentric(s, ctx, "");
}

Result<ShardingSpec> parseSpecAt(std::string_view text, int base, const ParseContext& ctx) {
  int lead = 0;
  std::string_view t = trim(text, lead);
  base += lead;
  if (t.empty()) return Error::at("empty placement spec", base + 1);
  if (looksLikeJax(t)) {
    Scanner s{t, 0, base};
    auto r = parseJax(s, ctx);
    if (r && !s.done()) return errAt(s, "unexpected text after the PartitionSpec");
    return r;
  }
  if (t.front() == '[') {
    // Tensor-centric when any item is S<digits> without parentheses, or when an all-R list does not match
    // the mesh's dim count.
    size_t close = matchClose(t, 0);
    if (close != std::string_view::npos) {
      auto items = splitTop(t.substr(1, close - 1));
      bool colossal = false, allR = true;
      for (auto& [off, it] : items) {
        int l2 = 0;
        auto w = trim(it, l2);
        if (w != "R") allR = false;
        if (isColossalItem(w) && w != "R") colossal = true;
      }
      if (t.substr(1, close - 1).find_first_not_of(" \t") == std::string_view::npos) colossal = true;  // "[]"
      if (colossal || (allR && ctx.mesh && static_cast<int>(items.size()) != ctx.mesh->ndim())) {
        Scanner s{t, 0, base};
        auto r = parseTensorCentric(s, ctx);
        if (r && !s.done()) return errAt(s, "unexpected text after the tensor-centric spec");
        return r;
      }
    }
    return parseBracketedList(t, base, ctx);
  }
  if (t.front() == '(') return parseBracketedList(t, base, ctx);
  Scanner s{t, 0, base};
  auto r = parseMeshCentric(s, ctx, "");
  if (r && !s.done()) return errAt(s, "unexpected " + s.describeHere() + " after the spec");
  return r;
}

bool isNoneItem(std::string_view t) {
  int l = 0;
  auto w = trim(t, l);
  return w == "None" || w == "null";
}

Result<std::vector<std::optional<ShardingSpec>>> parseTupleAt(std::string_view text, int base, const ParseContext& ctx) {
  int lead = 0;
  std::string_view t = trim(text, lead);
  base += lead;
  std::vector<std::optional<ShardingSpec>> out;
  if (t.empty()) return Error::at("expected a spec or a tuple of specs", base + 1);
  if (isNoneItem(t)) {
    out.push_back(std::nullopt);
    return out;
  }
  if (t.front() == '(' && matchClose(t, 0) == t.size() - 1) {
    std::string_view inner = t.substr(1, t.size() - 2);
    auto items = splitTop(inner);
    if (!items.empty() && trim(items.back().second, lead).empty()) items.pop_back();  // "(RS(0),)"
    bool anyNone = false, allSingle = true;
    for (auto& [off, it] : items) {
      if (isNoneItem(it)) { anyNone = true; continue; }
      Scanner s{it, 0, 0};
      auto p = parseOne(s);
      if (!p || !s.done()) allSingle = false;
    }
    bool singleSpec = !anyNone && allSingle && items.size() > 1 && ctx.mesh && ctx.mesh->ndim() == static_cast<int>(items.size()) &&
                      ctx.mesh->ndim() > 1;
    if (!singleSpec && !anyNone && allSingle && items.size() > 1 && !ctx.mesh) singleSpec = true;
    if (singleSpec) {
      auto r = parseBracketedList(t, base, ctx);
      if (!r) return r.error();
      out.push_back(*r);
      return out;
    }
    for (auto& [off, it] : items) {
      if (isNoneItem(it)) { out.push_back(std::nullopt); continue; }
      auto r = parseSpecAt(it, base + 1 + static_cast<int>(off), ctx);
      if (!r) return r.error();
      out.push_back(*r);
    }
    return out;
  }
  auto r = parseSpecAt(t, base, ctx);
  if (!r) return r.error();
  out.push_back(*r);
  return out;
}

}  // namespace

Result<Placement> parsePlacement(std::string_view text) {
  Scanner s{text, 0, 0};
  auto p = parseOne(s);
  if (!p) return p.error();
  if (!s.done()) return errAt(s, "unexpected " + s.describeHere() + " after the placement");
  return p;
}

Result<ShardingSpec> parseSpec(std::string_view text, const ParseContext& ctx) {
  if (text.size() > 4096) return Error::at("placement text is too long (over 4096 characters)", 1);
  return parseSpecAt(text, 0, ctx);
}

Result<bool> checkShardDims(const ShardingSpec& spec, int tensorRank, int column) {
  for (const auto& p : spec.placements)
    if (auto r = checkShardDim(p, tensorRank, column); !r) return r.error();
  return true;
}

Result<std::vector<std::optional<ShardingSpec>>> parseSpecTuple(std::string_view text, const ParseContext& ctx) {
  if (text.size() > 65536) return Error::at("placement text is too long", 1);
  return parseTupleAt(text, 0, ctx);
}

Result<StrategyLine> parseStrategy(std::string_view text, const ParseContext& ctx) {
  if (text.size() > 65536) return Error::at("strategy text is too long", 1);
  size_t arrow = text.find("->");
  if (arrow == std::string_view::npos) return Error::at("expected '->' between input and output specs", static_cast<int>(text.size()) + 1);
  StrategyLine line;
  int lead = 0;
  std::string_view left = trim(text.substr(0, arrow), lead);
  int base = lead;
  if (!left.empty()) {
    if (left.front() == '(' && matchClose(left, 0) == left.size() - 1) {
      auto r = parseTupleAt(left, base, ctx);
      if (!r) return r.error();
      line.inputs = std::move(*r);
    } else {
      for (auto& [off, it] : splitTop(left)) {
        if (isNoneItem(it)) { line.inputs.push_back(std::nullopt); continue; }
        auto r = parseSpecAt(it, base + static_cast<int>(off), ctx);
        if (!r) return r.error();
        line.inputs.push_back(*r);
      }
    }
  }
  auto out = parseTupleAt(text.substr(arrow + 2), static_cast<int>(arrow + 2), ctx);
  if (!out) return out.error();
  line.outputs = std::move(*out);
  return line;
}

}  // namespace ss
