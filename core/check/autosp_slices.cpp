// core/check/autosp_slices.h: AutoSP's slices of its inputs in a real graph, and the SP mesh they make.
#include "core/check/autosp_slices.h"

#include <cctype>
#include <limits>
#include <optional>

#include "core/model/placement.h"

namespace ss {
namespace {

bool isSliceOp(const Node& n) { return n.op == "aten.slice.Tensor"; }

bool isDigits(const std::string& s) {
  if (s.empty() || s.size() > 18) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// The divisor of a printed part size "(s70//2)" or "s70//2" whose dividend is `whole` ("s70"); 0 otherwise.
int divisorOf(std::string part, const std::string& whole) {
  if (part.size() >= 2 && part.front() == '(' && part.back() == ')') part = part.substr(1, part.size() - 2);
  const size_t at = part.rfind("//");
  if (at == std::string::npos || part.substr(0, at) != whole) return 0;
  const std::string d = part.substr(at + 2);
  if (!isDigits(d)) return 0;
  const long long v = std::stoll(d);
  return v >= 1 && v <= limits::kMaxRanks ? static_cast<int>(v) : 0;
}

// A symbolic scalar as a multiple of AutoSP's part size c = s // parts: {k, b} means k*c + b. The graph computes
// its slice bounds as `floordiv = s // parts`, then `floordiv + floordiv`, `1 * floordiv`, ... (rank 0's start
// is the literal 0). nullopt for anything else.
struct ChunkMultiple {
  int64_t k = 0, b = 0;
};
std::optional<ChunkMultiple> chunkMultiple(const Graph& g, const Arg& a, int parts, int depth = 0) {
  if (a.isInt()) return ChunkMultiple{0, a.i};
  if (!a.isTensor() || depth > 8 || a.t.node < 0 || a.t.node >= g.size()) return std::nullopt;
  const Node& n = g.nodes[static_cast<size_t>(a.t.node)];
  if (n.args.size() != 2) return std::nullopt;
  if (n.op == "operator.floordiv")
    return n.args[1].isInt() && n.args[1].i == parts && n.args[0].isTensor() ? std::optional<ChunkMultiple>({1, 0})
                                                                              : std::nullopt;
  auto x = chunkMultiple(g, n.args[0], parts, depth + 1), y = chunkMultiple(g, n.args[1], parts, depth + 1);
  if (!x || !y) return std::nullopt;
  if (n.op == "operator.add") return ChunkMultiple{x->k + y->k, x->b + y->b};
  if (n.op == "operator.sub") return ChunkMultiple{x->k - y->k, x->b - y->b};
  if (n.op == "operator.mul") {
    if (x->k == 0) return ChunkMultiple{x->b * y->k, x->b * y->b};
    if (y->k == 0) return ChunkMultiple{y->b * x->k, y->b * x->b};
  }
  return std::nullopt;
}

}  // namespace

std::set<std::string> sizeSymbols(const std::string& size) {
  std::set<std::string> out;
  for (size_t i = 0; i < size.size(); ++i) {
    const bool start = (size[i] == 's' || size[i] == 'u') && (i == 0 || !std::isalnum(static_cast<unsigned char>(size[i - 1])));
    if (!start || i + 1 >= size.size() || !std::isdigit(static_cast<unsigned char>(size[i + 1]))) continue;
    size_t j = i + 1;
    while (j < size.size() && std::isdigit(static_cast<unsigned char>(size[j]))) ++j;
    out.insert(size.substr(i, j - i));
    i = j - 1;
  }
  return out;
}

AutoSpSliceNode autoSpSliceAt(const Graph& g, int n) {
  AutoSpSliceNode out;
  out.node = n;
  const Node& node = g.nodes[static_cast<size_t>(n)];
  if (!isSliceOp(node) || node.args.size() < 4 || !node.args[0].isTensor() || !node.args[1].isInt()) return out;
  const bool symbolicBound = node.args[2].isTensor() || node.args[3].isTensor();
  if (!symbolicBound) return out;
  int src = node.args[0].t.node;
  for (int hops = 0; hops < 8 && src >= 0 && src < g.size(); ++hops) {
    const Node& s = g.nodes[static_cast<size_t>(src)];
    if (s.kind == NodeKind::Placeholder) {
      if (s.symbolicShape.empty()) return out;
      const int rank = static_cast<int>(s.symbolicShape.size());
      int dim = static_cast<int>(node.args[1].i);
      if (dim < 0) dim += rank;
      if (dim < 0 || dim >= rank) return out;
      out.placeholder = src;
      out.dim = dim;
      return out;
    }
    // A whole-range slice: slice(x, d, 0, INT64_MAX) leaves x as it is.
    const bool whole = isSliceOp(s) && s.args.size() >= 4 && s.args[0].isTensor() && s.args[2].isInt() &&
                       s.args[2].i == 0 && s.args[3].isInt() && s.args[3].i == std::numeric_limits<int64_t>::max();
    if (!whole) return out;
    src = s.args[0].t.node;
  }
  return out;
}

std::vector<AutoSpSliceNode> autoSpSliceNodes(const Graph& g) {
  std::vector<AutoSpSliceNode> out;
  for (int n = 0; n < g.size(); ++n)
    if (AutoSpSliceNode s = autoSpSliceAt(g, n); s.placeholder >= 0) out.push_back(s);
  return out;
}

AutoSpSequence autoSpSequence(const Graph& g) {
  AutoSpSequence out;
  for (int n = 0; n < g.size(); ++n) {
    const Node& node = g.nodes[static_cast<size_t>(n)];
    if (node.op != kAutoSpAllToAllOp || node.args.size() < 3 || !node.args[2].isInt()) continue;
    const int64_t gather = node.args[2].i;
    if (gather < 0 || gather >= static_cast<int64_t>(node.symbolicShape.size())) continue;
    std::set<std::string> symbols = sizeSymbols(node.symbolicShape[static_cast<size_t>(gather)]);
    if (symbols.empty()) continue;
    out.node = n;
    out.gatheredSize = node.symbolicShape[static_cast<size_t>(gather)];
    out.symbols = std::move(symbols);
    return out;
  }
  return out;
}

int autoSpSequenceDim(const Node& p, const AutoSpSequence& seq) {
  int dim = -1;
  for (size_t i = 0; i < p.symbolicShape.size(); ++i)
    for (const std::string& s : sizeSymbols(p.symbolicShape[i]))
      if (seq.symbols.count(s)) dim = static_cast<int>(i);
  return dim;
}

std::vector<AutoSpSlicedInput> findAutoSpSlicedInputs(const Graph& g, const SymbolHints& hints) {
  std::vector<AutoSpSlicedInput> out;
  const AutoSpSequence seq = autoSpSequence(g);
  int sharedSeqDim = -1, sharedRank = -1;  // the first input whose symbols the all-to-alls gather
  for (const AutoSpSliceNode& s : autoSpSliceNodes(g)) {
    const Node& p = g.nodes[static_cast<size_t>(s.placeholder)];
    const Node& sl = g.nodes[static_cast<size_t>(s.node)];
    AutoSpSlicedInput x;
    x.placeholder = s.placeholder;
    x.slice = s.node;
    x.dim = s.dim;
    const std::string& whole = p.symbolicShape[static_cast<size_t>(s.dim)];
    if (sl.symbolicShape.size() == p.symbolicShape.size())
      x.parts = divisorOf(sl.symbolicShape[static_cast<size_t>(s.dim)], whole);
    if (std::set<std::string> sym = sizeSymbols(whole); sym.size() == 1 && *sym.begin() == whole) {
      x.symbol = whole;
      if (auto h = hints.find(whole); h != hints.end()) x.symbolSource = h->second.source;
    }
    for (const std::string& size : p.symbolicShape) {
      if (isDigits(size)) x.hintShape.push_back(std::stoll(size));
      else if (auto h = hints.find(size); h != hints.end()) x.hintShape.push_back(h->second.hint);
      else {
        x.hintShape.clear();
        break;
      }
    }
    if (x.parts > 0) {
      auto start = chunkMultiple(g, sl.args[2], x.parts), end = chunkMultiple(g, sl.args[3], x.parts);
      if (start && end && start->b == 0 && end->b == 0 && end->k == start->k + 1 && start->k >= 0 && start->k < x.parts)
        x.rank = static_cast<int>(start->k);
    }
    x.seqDim = autoSpSequenceDim(p, seq);
    if (x.seqDim >= 0 && sharedSeqDim < 0) {
      sharedSeqDim = x.seqDim;
      sharedRank = static_cast<int>(p.symbolicShape.size());
    }
    out.push_back(std::move(x));
  }
  // Inputs with symbols of their own (the labels): the sequence dim of the input that has the gathered symbol,
  // when they have as many dims (the tagged inputs share their sequence dim, as the checker judges them).
  for (AutoSpSlicedInput& x : out)
    if (x.seqDim < 0 && sharedSeqDim >= 0 &&
        static_cast<int>(g.nodes[static_cast<size_t>(x.placeholder)].symbolicShape.size()) == sharedRank)
      x.seqDim = sharedSeqDim;
  return out;
}

bool annotateAutoSpSlices(Plan& plan, const SymbolHints& hints) {
  if (plan.mesh != DeviceMesh() || !plan.redistributes.empty()) return false;
  std::vector<AutoSpSlicedInput> sliced = findAutoSpSlicedInputs(plan.graph, hints);
  if (sliced.empty()) return false;
  const int parts = sliced.front().parts;
  for (const AutoSpSlicedInput& x : sliced)
    if (x.parts != parts || parts <= 0) return false;
  plan.mesh = DeviceMesh({parts}, {kAutoSpMeshDimName});
  plan.normalizeSpecs();
  for (const AutoSpSlicedInput& x : sliced) {
    auto& s = plan.specs[static_cast<size_t>(x.slice)].outputs;
    if (!s.empty()) s[0] = ShardingSpec{{Placement::shard(x.dim)}};
  }
  plan.autoSpSliced = std::move(sliced);
  plan.autoSpHints = hints;
  return true;
}

}  // namespace ss
