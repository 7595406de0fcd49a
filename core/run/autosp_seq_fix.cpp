// core/run/autosp_seq_fix.h: AutoSP's slice moved to the sequence dim in its rank programs.
#include "core/run/autosp_seq_fix.h"

#include <algorithm>
#include <set>

#include "core/check/autosp_slices.h"
#include "core/run/rank_programs.h"

namespace ss {
namespace {

bool isFloordivOf(const Node& n, int symbolNode) {
  return n.op == "operator.floordiv" && n.args.size() == 2 && n.args[0].isTensor() && n.args[0].t.node == symbolNode &&
         n.args[1].isInt();
}

// The nodes the slice's bounds are computed from (operator.* on symbols), walking the bounds' arguments.
void boundNodes(const Graph& g, const Arg& a, std::set<int>& out, int depth = 0) {
  if (depth > 16) return;
  if (a.isList()) {
    for (const Arg& x : a.items) boundNodes(g, x, out, depth + 1);
    return;
  }
  if (!a.isTensor() || a.t.node < 0 || a.t.node >= g.size()) return;
  const Node& n = g.nodes[static_cast<size_t>(a.t.node)];
  if (n.kind != NodeKind::Call || n.op.rfind("operator.", 0) != 0) return;  // a symbol placeholder: the leaves
  if (!out.insert(a.t.node).second) return;
  for (const Arg& x : n.args) boundNodes(g, x, out, depth + 1);
}

// Replaces every reference to node `from` in `a` by node `to`; how many it replaced.
int replaceRefs(Arg& a, int from, int to) {
  if (a.isTensor()) {
    if (a.t.node != from) return 0;
    a.t.node = to;
    return 1;
  }
  int k = 0;
  for (Arg& x : a.items) k += replaceRefs(x, from, to);
  return k;
}

int replaceRefs(Node& n, int from, int to) {
  int k = 0;
  for (Arg& a : n.args) k += replaceRefs(a, from, to);
  for (auto& [name, a] : n.kwargs) k += replaceRefs(a, from, to);
  return k;
}

// The symbol placeholder named `symbol` (`s72: "Sym(s72)"`), or -1.
int symbolPlaceholder(const Graph& g, const std::string& symbol) {
  const int i = g.find(symbol);
  return i >= 0 && g.nodes[static_cast<size_t>(i)].kind == NodeKind::Placeholder ? i : -1;
}

bool plainSymbol(const std::string& size) {
  const std::set<std::string> s = sizeSymbols(size);
  return s.size() == 1 && *s.begin() == size;
}

}  // namespace

std::pair<std::string, int> symbolSourceInput(const std::string& source) {
  // Dynamo's source of a size: L['input_ids'].size()[0] (a local of the compiled frame, its size at a dim).
  const std::string head = "L['", mid = "'].size()[";
  if (source.rfind(head, 0) != 0) return {"", -1};
  const size_t end = source.find(mid, head.size());
  if (end == std::string::npos || source.back() != ']') return {"", -1};
  const std::string name = source.substr(head.size(), end - head.size());
  const std::string digits = source.substr(end + mid.size(), source.size() - 1 - end - mid.size());
  if (name.empty() || digits.empty() || digits.size() > 4 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return {"", -1};
  return {name, std::stoi(digits)};
}

Result<SeqDimRequest> parseSeqDimRequest(const std::string& text) {
  const size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    return Error{"--seq-dim " + text + ": expected INPUT=DIM (e.g. input_ids=0)"};
  const std::string d = text.substr(eq + 1);
  if (d.size() > 4 || !std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return Error{"--seq-dim " + text + ": expected INPUT=DIM with DIM a dimension >= 0"};
  return SeqDimRequest{text.substr(0, eq), std::stoi(d)};
}

Result<std::vector<std::string>> moveAutoSpSlices(Graph& graph, const std::map<std::string, std::string>& symbolSources,
                                                  const std::vector<SeqDimRequest>& requests) {
  Graph g = graph;  // edited here, handed back only when every slice moved
  if (!g.indexed()) g.reindex();
  std::set<int> dims;
  for (const SeqDimRequest& r : requests) dims.insert(r.dim);
  const std::vector<AutoSpSliceNode> slices = autoSpSliceNodes(g);
  if (slices.empty()) return Error{"the graph has no slice of AutoSP's (aten.slice.Tensor of an input with a symbolic bound)"};

  // Each sliced input's name, from its sizes' sources.
  auto inputName = [&](const Node& p) {
    for (const std::string& size : p.symbolicShape)
      if (auto it = symbolSources.find(size); it != symbolSources.end())
        if (auto [name, dim] = symbolSourceInput(it->second); !name.empty()) return name;
    return std::string();
  };
  std::set<std::string> named;
  std::vector<std::string> steps;
  std::set<int> sliced;  // placeholders AutoSP slices (DeepSpeed's sharded inputs)
  for (const AutoSpSliceNode& s : slices) sliced.insert(s.placeholder);

  for (const AutoSpSliceNode& s : slices) {
    const Node& p = g.nodes[static_cast<size_t>(s.placeholder)];
    const std::string name = inputName(p);
    int target = -1;
    for (const SeqDimRequest& r : requests)
      if (r.input == name) target = r.dim;
    if (target >= 0) named.insert(name);
    else if (dims.size() == 1) target = *dims.begin();  // one seq_dim for every tagged input, as DeepSpeed passes it
    else continue;
    const std::string who = p.name + (name.empty() ? "" : " (" + name + ")");
    if (target >= static_cast<int>(p.symbolicShape.size()))
      return Error{who + " has " + std::to_string(p.symbolicShape.size()) + " dims; no dim " + std::to_string(target)};
    if (target == s.dim) continue;
    const std::string oldSize = p.symbolicShape[static_cast<size_t>(s.dim)];
    const std::string newSize = p.symbolicShape[static_cast<size_t>(target)];
    if (!plainSymbol(newSize))
      return Error{who + ": dim " + std::to_string(target) + " has the size " + newSize +
                   ", not a size symbol: AutoSP slices a dynamic sequence dim (mark it dynamic)"};
    if (!plainSymbol(oldSize)) return Error{who + ": the sliced dim's size " + oldSize + " is not a size symbol"};
    const int newSym = symbolPlaceholder(g, newSize), oldSym = symbolPlaceholder(g, oldSize);
    if (newSym < 0 || oldSym < 0)
      return Error{who + ": no placeholder holds the size symbol " + (newSym < 0 ? newSize : oldSize) +
                   " (the graph after AutoSP's passes has one per symbol)"};

    // The slice's bounds: the floordiv nodes dividing the old symbol now divide the new one.
    Node& slice = g.nodes[static_cast<size_t>(s.node)];
    std::set<int> bounds;
    for (size_t k = 2; k < slice.args.size() && k < 4; ++k) boundNodes(g, slice.args[k], bounds);
    int parts = 0, moved = 0;
    for (int b : bounds) {
      Node& n = g.nodes[static_cast<size_t>(b)];
      if (!isFloordivOf(n, oldSym)) continue;
      for (const auto& [user, input] : g.users(b))
        if (user != s.node && !bounds.count(user))
          return Error{n.name + ": the slice bound " + n.name + " of " + slice.name + " is also used by " +
                       g.nodes[static_cast<size_t>(user)].name + "; not a graph as AutoSP writes it"};
      n.args[0].t.node = newSym;
      n.symbolicShape.clear();
      parts = static_cast<int>(n.args[1].i);
      ++moved;
    }
    if (moved == 0)
      return Error{slice.name + ": its bounds do not divide " + oldSize + " (AutoSP's `r * (s // P)`)"};
    slice.args[1] = Arg::integer(target);
    // The slice's printed sizes, as the fixed graph prints them: the part on the new dim, the old dim whole.
    slice.symbolicShape = p.symbolicShape;
    slice.symbolicShape[static_cast<size_t>(target)] = "(" + newSize + "//" + std::to_string(parts) + ")";
    steps.push_back(slice.name + ": " + who + " sliced on dim " + std::to_string(target) + " (" + newSize + ") instead of dim " +
                    std::to_string(s.dim) + " (" + oldSize + ")");

    // pass_shard_seq_dim's `floordiv = s // P`: the node that took the old symbol's place downstream.
    int sharded = -1;
    for (int i = 0; i < g.size(); ++i)
      if (!bounds.count(i) && isFloordivOf(g.nodes[static_cast<size_t>(i)], oldSym) &&
          g.nodes[static_cast<size_t>(i)].args[1].i == parts)
        sharded = i;
    if (sharded < 0) continue;  // nothing downstream read the old symbol
    // Its users take the old symbol back; it divides the new one; the new symbol's uses downstream of the sliced
    // inputs take it (DeepSpeed: consumers of the sharded inputs whose inputs include the symbol).
    std::vector<int> users;
    for (const auto& [user, input] : g.users(sharded)) users.push_back(user);
    for (int u : users) replaceRefs(g.nodes[static_cast<size_t>(u)], sharded, oldSym);
    Node& f = g.nodes[static_cast<size_t>(sharded)];
    f.args[0].t.node = newSym;
    f.symbolicShape.clear();
    std::vector<char> downstream(static_cast<size_t>(g.size()), 0);
    for (int i = 0; i < g.size(); ++i) {
      if (sliced.count(i)) downstream[static_cast<size_t>(i)] = 1;
      if (!downstream[static_cast<size_t>(i)]) continue;
      for (const auto& [user, input] : g.users(i)) downstream[static_cast<size_t>(user)] = 1;
    }
    // operator.* nodes on symbols are not users through tensor edges in every reader: walk the args themselves.
    int replaced = 0;
    for (int i = 0; i < g.size(); ++i) {
      Node& n = g.nodes[static_cast<size_t>(i)];
      if (i == sharded || !downstream[static_cast<size_t>(i)]) continue;
      const int k = replaceRefs(n, newSym, sharded);
      if (k > 0 && i < sharded)
        return Error{n.name + ": uses " + newSize + " before " + f.name + " is computed; not a graph as AutoSP writes it"};
      replaced += k;
    }
    g.reindex();
    steps.push_back(f.name + ": " + f.name + " = " + newSize + " // " + std::to_string(parts) + " takes " + newSize +
                    "'s place in " + std::to_string(replaced) + " use(s) downstream of the sliced inputs; " + oldSize +
                    " is back in " + std::to_string(users.size()));
  }
  for (const SeqDimRequest& r : requests)
    if (!named.count(r.input))
      return Error{"--seq-dim " + r.input + "=" + std::to_string(r.dim) + ": AutoSP slices no input named '" + r.input +
                   "' (the inputs are named by their size symbols' sources, L['" + r.input + "'])"};
  g.reindex();
  if (std::string v = g.validate(); !v.empty()) return Error{"the graph after moving the slice is not valid: " + v};
  graph = std::move(g);
  return steps;
}

Result<std::vector<std::string>> moveAutoSpSlices(RankPrograms& programs, const std::vector<SeqDimRequest>& requests) {
  std::vector<Graph> moved;
  std::vector<std::string> steps;
  for (size_t r = 0; r < programs.ranks.size(); ++r) {
    Graph g = programs.ranks[r].graph;
    auto s = moveAutoSpSlices(g, programs.symbolSources, requests);
    if (!s) return Error{"rank " + std::to_string(r) + "'s program: " + s.error().message};
    for (const std::string& line : *s) steps.push_back("rank " + std::to_string(r) + ": " + line);
    moved.push_back(std::move(g));
  }
  for (size_t r = 0; r < moved.size(); ++r) programs.ranks[r].graph = std::move(moved[r]);
  for (const SeqDimRequest& q : requests)
    programs.notes.push_back("AutoSP's slice of " + q.input + " moved to dim " + std::to_string(q.dim) + " (--seq-dim)");
  return steps;
}

}  // namespace ss
