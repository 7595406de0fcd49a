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

bool plainSymbol(const std::string& size) {
  const std::set<std::string> s = sizeSymbols(size);
  return s.size() == 1 && *s.begin() == size;
}

bool scalarPlaceholder(const Node& n) {
  return n.kind == NodeKind::Placeholder && n.symbolicShape.empty() && (n.outputs.empty() || !n.outputs[0].known);
}

// The placeholder that holds size symbol `symbol`, or -1. Dynamo's graphs name it by the symbol (`s72: "Sym(s72)"`).
// AOT's joint graph names it primals_k (`primals_2: "Sym(s72)"`, an annotation the reader keeps no shape of), so
// there it is read from what the graph does with it: a view whose size list holds the placeholder where its printed
// sizes hold the symbol (`view(mm, [floordiv, primals_2, 32])` printed `[(s70//2), s72, 32]`), else AOT's order of
// inputs: a tensor input's new size symbols are the scalar inputs just before it, in order of first appearance
// (`primals_2: Sym(s72)`, `primals_3: Sym(s70)`, `primals_4: i64[s72, s70]`).
int symbolPlaceholder(const Graph& g, const std::string& symbol) {
  if (const int i = g.find(symbol); i >= 0 && g.nodes[static_cast<size_t>(i)].kind == NodeKind::Placeholder) return i;
  for (const Node& n : g.nodes)
    for (const Arg& a : n.args) {
      if (!a.isList() || a.items.size() != n.symbolicShape.size()) continue;
      for (size_t k = 0; k < a.items.size(); ++k)
        if (a.items[k].isTensor() && n.symbolicShape[k] == symbol && a.items[k].t.node >= 0 && a.items[k].t.node < g.size() &&
            scalarPlaceholder(g.nodes[static_cast<size_t>(a.items[k].t.node)]))
          return a.items[k].t.node;
    }
  std::set<std::string> introduced;
  for (int i = 0; i < g.size(); ++i) {
    const Node& p = g.nodes[static_cast<size_t>(i)];
    if (p.kind != NodeKind::Placeholder || p.symbolicShape.empty()) continue;
    std::vector<std::string> fresh;
    for (const std::string& size : p.symbolicShape)
      if (plainSymbol(size) && !introduced.count(size) && std::find(fresh.begin(), fresh.end(), size) == fresh.end())
        fresh.push_back(size);
    int run = 0;
    while (run < i && scalarPlaceholder(g.nodes[static_cast<size_t>(i - run - 1)])) ++run;
    if (run >= static_cast<int>(fresh.size()))
      for (size_t k = 0; k < fresh.size(); ++k)
        if (fresh[k] == symbol) return i - static_cast<int>(fresh.size()) + static_cast<int>(k);
    introduced.insert(fresh.begin(), fresh.end());
  }
  return -1;
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
    int shared = -1;  // a bound that is also pass_shard_seq_dim's `s // P` downstream (AOT's joint graph shares it)
    for (int b : bounds) {
      Node& n = g.nodes[static_cast<size_t>(b)];
      if (!isFloordivOf(n, oldSym)) continue;
      for (const auto& [user, input] : g.users(b))
        if (user != s.node && !bounds.count(user)) {
          if (shared >= 0 && shared != b)
            return Error{n.name + ": the slice bounds " + g.nodes[static_cast<size_t>(shared)].name + " and " + n.name + " of " +
                         slice.name + " are both used downstream; not a graph as AutoSP writes it"};
          shared = b;
        }
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
    int sharded = shared;
    for (int i = 0; i < g.size() && sharded < 0; ++i)
      if (!bounds.count(i) && isFloordivOf(g.nodes[static_cast<size_t>(i)], oldSym) &&
          g.nodes[static_cast<size_t>(i)].args[1].i == parts)
        sharded = i;
    if (sharded < 0) continue;  // nothing downstream read the old symbol
    // Its users take the old symbol back (the slice and its bounds keep it: they slice by the new one); it divides
    // the new one; the new symbol's uses downstream of the sliced inputs take it (DeepSpeed: consumers of the
    // sharded inputs whose inputs include the symbol).
    std::vector<int> users;
    for (const auto& [user, input] : g.users(sharded))
      if (user != s.node && !bounds.count(user)) users.push_back(user);
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
    // Symbolic arithmetic that sizes them (AOT's joint graph: `mul_18 = floordiv * primals_2` feeding a view's size
    // list) is theirs too; the slice's own bounds are not (they slice by the new symbol).
    for (int i = g.size() - 1; i >= 0; --i) {
      const Node& n = g.nodes[static_cast<size_t>(i)];
      if (downstream[static_cast<size_t>(i)] || bounds.count(i) || n.kind != NodeKind::Call ||
          n.op.rfind("operator.", 0) != 0 || n.op == "operator.getitem")
        continue;
      for (const auto& [user, input] : g.users(i))
        if (downstream[static_cast<size_t>(user)] && !bounds.count(user) && user != s.node) downstream[static_cast<size_t>(i)] = 1;
    }
    // operator.* nodes on symbols are not users through tensor edges in every reader: walk the args themselves.
    int replaced = 0;
    for (int i = 0; i < g.size(); ++i) {
      Node& n = g.nodes[static_cast<size_t>(i)];
      if (i == sharded || bounds.count(i) || !downstream[static_cast<size_t>(i)]) continue;
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
