// core/check/autosp_graph.h: AutoSP's sliced dim against the sequence its all-to-alls gather.
#include "core/check/autosp_graph.h"

#include <cctype>
#include <limits>
#include <set>
#include <string>

namespace ss {
namespace {

constexpr const char* kAutoSpAllToAll = "autosp.all_to_all.default";

// The size symbols of a printed size: "2*s72" -> {s72}; "(s70//2)" -> {s70}; "32" -> {}.
std::set<std::string> symbolsOf(const std::string& size) {
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

bool meets(const std::set<std::string>& a, const std::set<std::string>& b) {
  for (const auto& s : a)
    if (b.count(s)) return true;
  return false;
}

// A slice of `node` as AutoSP makes it: aten.slice.Tensor(x, dim, start, end) with a symbolic bound. Gives the
// placeholder x comes from (through whole-range slices, which AOT autograd prints for the untouched dims) and the
// dim, or {-1, -1}.
struct AutoSpSlice {
  int placeholder = -1;
  int dim = -1;
};

bool isSliceOp(const Node& n) { return n.op == "aten.slice.Tensor"; }

AutoSpSlice autoSpSlice(const Graph& g, int n) {
  const Node& node = g.nodes[n];
  if (!isSliceOp(node) || node.args.size() < 4 || !node.args[0].isTensor() || !node.args[1].isInt()) return {};
  const bool symbolicBound = node.args[2].isTensor() || node.args[3].isTensor();
  if (!symbolicBound) return {};
  int src = node.args[0].t.node;
  for (int hops = 0; hops < 8 && src >= 0 && src < g.size(); ++hops) {
    const Node& s = g.nodes[src];
    if (s.kind == NodeKind::Placeholder) {
      if (s.symbolicShape.empty()) return {};
      const int rank = static_cast<int>(s.symbolicShape.size());
      int dim = static_cast<int>(node.args[1].i);
      if (dim < 0) dim += rank;
      if (dim < 0 || dim >= rank) return {};
      return {src, dim};
    }
    // A whole-range slice: slice(x, d, 0, INT64_MAX) leaves x as it is.
    const bool whole = isSliceOp(s) && s.args.size() >= 4 && s.args[0].isTensor() && s.args[2].isInt() &&
                       s.args[2].i == 0 && s.args[3].isInt() && s.args[3].i == std::numeric_limits<int64_t>::max();
    if (!whole) return {};
    src = s.args[0].t.node;
  }
  return {};
}

}  // namespace

std::vector<Diagnostic> checkAutoSpGraph(const Plan& plan) {
  const Graph& g = plan.graph;
  // The sequence: the first all-to-all whose gathered size is symbolic.
  int a2a = -1;
  std::set<std::string> sequence;
  std::string gatheredSize;
  for (int n = 0; n < g.size() && a2a < 0; ++n) {
    const Node& node = g.nodes[n];
    if (node.op != kAutoSpAllToAll || node.args.size() < 3 || !node.args[2].isInt()) continue;
    const int64_t gather = node.args[2].i;
    if (gather < 0 || gather >= static_cast<int64_t>(node.symbolicShape.size())) continue;
    sequence = symbolsOf(node.symbolicShape[gather]);
    if (sequence.empty()) continue;
    a2a = n;
    gatheredSize = node.symbolicShape[gather];
  }
  std::vector<Diagnostic> out;
  if (a2a < 0) return out;

  struct Sliced {
    int node;
    AutoSpSlice s;
  };
  std::vector<Sliced> slices;
  for (int n = 0; n < g.size(); ++n)
    if (AutoSpSlice s = autoSpSlice(g, n); s.placeholder >= 0) slices.push_back({n, s});

  // The inputs whose own symbols name the sequence: their sequence dim, and whether AutoSP sliced another.
  int seqDimOfInputs = -1, slicedDimOfInputs = -1, rankOfInputs = -1;
  std::string inputName;
  std::vector<const Sliced*> unresolved;
  auto report = [&](const Sliced& x, int seqDim, const std::string& why) {
    const Node& p = g.nodes[x.s.placeholder];
    Diagnostic d;
    d.severity = Severity::Error;
    d.kind = DiagKind::SeqDimMismatch;
    d.node = x.node;
    d.message = "AutoSP slices dim " + std::to_string(x.s.dim) + " (" + p.symbolicShape[x.s.dim] + ") of " + p.name +
                " " + p.shapeText() + ", but the sequence is dim " + std::to_string(seqDim) + " (" +
                p.symbolicShape[seqDim] + ")" + why;
    d.fix = "slice dim " + std::to_string(seqDim) + ": tag the input (key, " + std::to_string(seqDim) +
            ") and let AutoSP's passes read and slice the tagged dim";
    out.push_back(std::move(d));
  };
  for (const Sliced& x : slices) {
    const Node& p = g.nodes[x.s.placeholder];
    int seqDim = -1;
    for (size_t i = 0; i < p.symbolicShape.size(); ++i)
      if (meets(symbolsOf(p.symbolicShape[i]), sequence)) seqDim = static_cast<int>(i);
    if (seqDim < 0) {
      unresolved.push_back(&x);
      continue;
    }
    seqDimOfInputs = seqDim;
    slicedDimOfInputs = x.s.dim;
    rankOfInputs = static_cast<int>(p.symbolicShape.size());
    inputName = p.name;
    if (seqDim != x.s.dim)
      report(x, seqDim, ": " + g.nodes[a2a].name + " (AutoSP's all-to-all) gathers the sequence as " + gatheredSize);
  }
  // Tagged inputs with symbols of their own, sliced as the input ids were: the same verdict, said so.
  for (const Sliced* x : unresolved) {
    const Node& p = g.nodes[x->s.placeholder];
    if (seqDimOfInputs < 0 || static_cast<int>(p.symbolicShape.size()) != rankOfInputs ||
        x->s.dim != slicedDimOfInputs || seqDimOfInputs == x->s.dim)
      continue;
    report(*x, seqDimOfInputs, ", as for " + inputName + " (the tagged inputs share their sequence dim)");
  }
  return out;
}

}  // namespace ss
