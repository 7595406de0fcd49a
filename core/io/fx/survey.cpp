// FX text reader, part 3: the module survey (what a repro script holds besides the graph: imports, config,
// Triton kernels, stub and subgraph classes, attributes) and the `load_args` block of minifier repros.
// See fx_reader.h.
#include <algorithm>
#include <cctype>
#include <cstdint>

#include "core/io/fx/reader.h"

namespace ss::fxread {

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
      auto it = byName_.find(target);
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
        // A literal size, else a symbolic one (`s0`, `((s3 + 8)//9)`, `8*((u10 + u11)//8)`), skipped to its end.
        const size_t sizeAt = cur.pos();
        bool literal = false;
        if (cur.atNumber()) {
          auto n = cur.number();
          if (!n || !n->isInt) return cur.error("expected an integer size");
          literal = cur.peek() == ',' || cur.peek() == ')';
          if (literal) m.shape.push_back(n->i);
          else cur.seek(sizeAt);
        }
        if (!literal) {
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
      // The limits every reader applies (core/model/graph.h), so the plan also saves and reloads natively.
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

// The first logical line after `line`'s block (the lines indented deeper than it; comments and blanks inside).
size_t FxReader::blockEnd(size_t line) const {
  size_t k = line + 1;
  while (k < ll_.size() && (ll_[k].blank || ll_[k].comment || ll_[k].indent > ll_[line].indent)) ++k;
  return k;
}

// A forward whose body only passes (`pass`, `...`, a docstring, `return None`): the stubs repro scripts declare
// for the subgraph modules a higher-order op references (`class GraphModule: def forward(self, *args, **kwargs)`).
bool FxReader::isStubForward(size_t defLine) const {
  for (size_t k = defLine + 1; k < ll_.size(); ++k) {
    const auto& l = ll_[k];
    if (l.blank || l.comment) continue;
    if (l.indent <= ll_[defLine].indent) break;
    std::string_view t = lineBody(l);
    if (t == "pass" || t == "..." || t == "return None" || t == "return" || t.front() == '"' || t.front() == '\'')
      continue;
    return false;
  }
  return true;
}

// Classifies what lies around the graph (see FxSkipped) and collects the callable attributes __init__ sets.
void FxReader::survey(int fwd, FxReadReport& rep) {
  auto count = [&](FxSkipped k) { ++rep.skipped[static_cast<int>(k)]; };
  // The class holding forward: the nearest less indented `class` line above it.
  int graphClass = -1;
  for (int k = fwd - 1; k >= 0; --k)
    if (!ll_[k].blank && !ll_[k].comment && ll_[k].indent < ll_[fwd].indent) {
      if (lineBody(ll_[k]).substr(0, 6) == "class ") graphClass = k;
      break;
    }
  const int top = graphClass >= 0 ? ll_[graphClass].indent : ll_[fwd].indent;
  for (size_t i = 0; i < ll_.size();) {
    const auto& l = ll_[i];
    if (l.blank || l.comment || l.indent > top) {
      ++i;
      continue;
    }
    const size_t end = blockEnd(i);
    std::string_view t = lineBody(l);
    if (static_cast<int>(i) == graphClass) {
      // Inside the graph class: __init__'s attributes and nested subgraph classes; forward is the graph.
      for (size_t k = i + 1; k < end; ++k) {
        const auto& m = ll_[k];
        if (m.blank || m.comment || m.indent <= l.indent) continue;
        std::string_view b = lineBody(m);
        if (b.substr(0, 6) == "class " && k + 1 < end) {
          count(FxSkipped::SubgraphClass);
          k = blockEnd(k) - 1;
        } else if (b.substr(0, 13) == "def __init__(") {
          for (size_t a = k + 1; a < blockEnd(k); ++a) {
            std::string_view ab = lineBody(ll_[a]);
            if (ll_[a].blank || ll_[a].comment || ab.substr(0, 5) != "self.") continue;
            size_t eq = ab.find('=');
            if (eq == std::string_view::npos) continue;
            std::string_view attr = ab.substr(5, eq - 5);
            while (!attr.empty() && attr.back() == ' ') attr.remove_suffix(1);
            std::string_view rhs = ab.substr(eq + 1);
            while (!rhs.empty() && rhs.front() == ' ') rhs.remove_prefix(1);
            // `self.sdpa_score0 = lambda ...`, `self.fw_graph0 = GraphModule()`: opaque callables.
            if (rhs.substr(0, 7) == "lambda " || rhs.substr(0, 7) == "lambda:" || rhs.find("()") != std::string_view::npos)
              callableAttrs_.insert(std::string(attr));
            count(FxSkipped::ModuleAttribute);
          }
          k = blockEnd(k) - 1;
        }
      }
    } else if (t.substr(0, 7) == "import " || t.substr(0, 5) == "from ") {
      count(FxSkipped::Import);
    } else if (t.substr(0, 11) == "os.environ[") {
      count(FxSkipped::Environment);
    } else if (t.find("kernel_side_table") != std::string_view::npos) {
      count(FxSkipped::KernelSideTable);
    } else if (t.front() == '@') {
      // A decorated definition (`@triton.jit` kernels): the decorators and the def are one piece.
      size_t k = i;
      while (k < ll_.size() && (ll_[k].blank || ll_[k].comment || lineBody(ll_[k]).front() == '@')) ++k;
      count(FxSkipped::TritonKernel);
      i = k < ll_.size() ? blockEnd(k) : k;
      continue;
    } else if (t.substr(0, 6) == "class ") {
      bool stub = false;
      for (size_t k = i + 1; k < end; ++k)
        if (!ll_[k].blank && !ll_[k].comment && lineBody(ll_[k]).substr(0, 12) == "def forward(") stub = isStubForward(k);
      count(stub ? FxSkipped::StubClass : FxSkipped::OtherPython);
    } else if (t.substr(0, 14) == "def load_args(") {
      // read by loadArgs
    } else {
      // `torch._inductor.config.x = v` (but not a call such as `torch._dynamo.config.patch(...)`)
      size_t eq = t.find('=');
      std::string_view lhs = eq == std::string_view::npos ? std::string_view() : t.substr(0, eq);
      bool config = lhs.find(".config.") != std::string_view::npos && lhs.find('(') == std::string_view::npos;
      count(config ? FxSkipped::Config : FxSkipped::OtherPython);
    }
    i = end;
  }
}

}  // namespace ss::fxread
