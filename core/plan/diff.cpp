// The plan diff; see core/plan/diff.h. Sections: names, matching, costs per edge, changes, diagnostics, output.
#include "core/check/report.h"
#include "core/plan/diff.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/plan/costs.h"
#include "core/model/enum_names.h"

namespace ss {

// ---- names ----

namespace {
constexpr EnumName<ChangeKind> kChangeKindNames[] = {
    {ChangeKind::Mesh, "mesh"},
    {ChangeKind::NodeRemoved, "node-removed"},
    {ChangeKind::NodeAdded, "node-added"},
    {ChangeKind::OutputSpec, "output-spec"},
    {ChangeKind::InputSpec, "input-spec"},
    {ChangeKind::RedistributeAdded, "redistribute-added"},
    {ChangeKind::RedistributeRemoved, "redistribute-removed"},
    {ChangeKind::RedistributeChanged, "redistribute-changed"},
    {ChangeKind::AutoSpTag, "autosp-tag"},
    {ChangeKind::AppliedGraph, "applied-graph"}};
static_assert(enumTableCovers(kChangeKindNames, ChangeKind::AppliedGraph) && enumNamesValid(kChangeKindNames));

constexpr EnumName<MatchMethod> kMatchMethodNames[] = {
    {MatchMethod::None, "none"}, {MatchMethod::Name, "name"}, {MatchMethod::Structure, "structure"}};
static_assert(enumTableCovers(kMatchMethodNames, MatchMethod::Structure) && enumNamesValid(kMatchMethodNames));
}  // namespace

const char* changeKindName(ChangeKind k) { return enumName(kChangeKindNames, k, "mesh"); }

const char* matchMethodName(MatchMethod m) { return enumName(kMatchMethodNames, m, "none"); }

namespace {

// ---- matching ----

uint64_t mix(uint64_t h, uint64_t v) {
  // splitmix64 step over the running hash: cheap, and good enough that equal keys are re-checked anyway.
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

uint64_t hashString(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

// The node's own content for structural matching: op, kind and output metas.
uint64_t contentHash(const Node& n) {
  uint64_t h = mix(hashString(n.op), static_cast<uint64_t>(n.kind));
  for (const TensorMeta& m : n.outputs) {
    h = mix(h, static_cast<uint64_t>(m.dtype) * 2 + (m.known ? 1 : 0));
    h = mix(h, m.shape.size());
    for (int64_t d : m.shape) h = mix(h, static_cast<uint64_t>(d));
  }
  return h;
}

bool sameContent(const Node& x, const Node& y) { return x.op == y.op && x.kind == y.kind && x.outputs == y.outputs; }

// Structural keys: a node matched by name stands for its B index; any other node is its content and, in input
// order, its producers' keys. Both plans' keys live in B's index space, so equal keys mean equal structure.
std::vector<uint64_t> structuralKeys(const Graph& g, const std::vector<int>& nameMatchInB) {
  std::vector<uint64_t> key(static_cast<size_t>(g.size()));
  for (int n = 0; n < g.size(); ++n) {
    const int m = nameMatchInB[static_cast<size_t>(n)];
    if (m >= 0) {
      key[static_cast<size_t>(n)] = mix(0x6e616d65ULL, static_cast<uint64_t>(m));
      continue;
    }
    uint64_t h = contentHash(g.nodes[static_cast<size_t>(n)]);
    for (const TensorRef& r : g.inputs(n)) {
      const uint64_t pk = r.node >= 0 && r.node < n ? key[static_cast<size_t>(r.node)] : 0;
      h = mix(mix(h, pk), static_cast<uint64_t>(r.output));
    }
    key[static_cast<size_t>(n)] = h;
  }
  return key;
}

void matchNodes(const Plan& a, const Plan& b, PlanDiff& d) {
  const Graph& ga = a.graph;
  const Graph& gb = b.graph;
  d.aToB.assign(static_cast<size_t>(ga.size()), -1);
  d.bToA.assign(static_cast<size_t>(gb.size()), -1);
  d.matchA.assign(static_cast<size_t>(ga.size()), MatchMethod::None);
  // 1. By name, same op.
  for (int n = 0; n < ga.size(); ++n) {
    const Node& x = ga.nodes[static_cast<size_t>(n)];
    const int m = gb.find(x.name);
    if (m < 0 || d.bToA[static_cast<size_t>(m)] >= 0) continue;
    const Node& y = gb.nodes[static_cast<size_t>(m)];
    if (x.op != y.op || x.kind != y.kind) continue;
    d.aToB[static_cast<size_t>(n)] = m;
    d.bToA[static_cast<size_t>(m)] = n;
    d.matchA[static_cast<size_t>(n)] = MatchMethod::Name;
    ++d.matchedByName;
  }
  // 2. By structure, among the rest, in graph order.
  if (d.matchedByName < ga.size() && d.matchedByName < gb.size()) {
    std::vector<int> selfB(static_cast<size_t>(gb.size()), -1);
    for (int m = 0; m < gb.size(); ++m)
      if (d.bToA[static_cast<size_t>(m)] >= 0) selfB[static_cast<size_t>(m)] = m;
    const std::vector<uint64_t> keyA = structuralKeys(ga, d.aToB);
    const std::vector<uint64_t> keyB = structuralKeys(gb, selfB);
    std::unordered_map<uint64_t, std::vector<int>> candidates;  // key -> unmatched B nodes, graph order
    for (int m = 0; m < gb.size(); ++m)
      if (d.bToA[static_cast<size_t>(m)] < 0) candidates[keyB[static_cast<size_t>(m)]].push_back(m);
    std::unordered_map<uint64_t, size_t> cursor;
    for (int n = 0; n < ga.size(); ++n) {
      if (d.aToB[static_cast<size_t>(n)] >= 0) continue;
      auto it = candidates.find(keyA[static_cast<size_t>(n)]);
      if (it == candidates.end()) continue;
      size_t& c = cursor[it->first];
      while (c < it->second.size()) {
        const int m = it->second[c++];
        if (!sameContent(ga.nodes[static_cast<size_t>(n)], gb.nodes[static_cast<size_t>(m)])) continue;
        d.aToB[static_cast<size_t>(n)] = m;
        d.bToA[static_cast<size_t>(m)] = n;
        d.matchA[static_cast<size_t>(n)] = MatchMethod::Structure;
        ++d.matchedByStructure;
        break;
      }
    }
  }
  d.onlyA = ga.size() - d.matchedByName - d.matchedByStructure;
  d.onlyB = gb.size() - d.matchedByName - d.matchedByStructure;
}

// ---- costs per edge ----

// The communication a plan performs on each edge, flat: edge (n, i) is at start[n] + i.
struct EdgeCosts {
  std::vector<int> start;
  std::vector<int64_t> bytes;
  std::vector<double> timeUs;
  std::vector<std::string> summary;  // "" when the edge performs no communication
  int at(int n, int i) const { return start[static_cast<size_t>(n)] + i; }
  int inputs(int n) const { return start[static_cast<size_t>(n) + 1] - start[static_cast<size_t>(n)]; }
};

EdgeCosts costEdges(const Plan& p, const CostModel& model, std::map<Phase, PhaseDelta>& phases, bool after) {
  EdgeCosts c;
  const Graph& g = p.graph;
  c.start.assign(static_cast<size_t>(g.size()) + 1, 0);
  for (int n = 0; n < g.size(); ++n)
    c.start[static_cast<size_t>(n) + 1] = c.start[static_cast<size_t>(n)] + static_cast<int>(g.inputs(n).size());
  const size_t total = static_cast<size_t>(c.start.back());
  c.bytes.assign(total, 0);
  c.timeUs.assign(total, 0);
  c.summary.assign(total, {});
  RedistIndex redist;
  redist.build(p);
  for (int n = 0; n < g.size(); ++n) {
    const Phase ph = g.nodes[static_cast<size_t>(n)].phase;
    for (int i = 0; i < c.inputs(n); ++i) {
      std::optional<EdgeCost> e = edgeCost(p, n, i, model, &redist);
      if (!e || !e->performed()) continue;
      const size_t k = static_cast<size_t>(c.at(n, i));
      c.bytes[k] = e->bytes;
      c.timeUs[k] = e->timeUs;
      c.summary[k] = std::move(e->summary);
      PhaseDelta& pd = phases[ph];
      pd.phase = ph;
      (after ? pd.bytesAfter : pd.bytesBefore) += e->bytes;
      (after ? pd.timeAfterUs : pd.timeBeforeUs) += e->timeUs;
    }
  }
  return c;
}

// ---- changes ----

std::string redistText(const Redistribute& r) { return r.from.toMeshString() + " -> " + r.to.toMeshString(); }

// Adds the changes of matched pair (n in A, m in B).
void diffPair(const Plan& a, const Plan& b, int n, int m, const RedistIndex& ra, const RedistIndex& rb,
              std::vector<PlanChange>& out) {
  const Phase phase = a.graph.nodes[static_cast<size_t>(n)].phase;
  auto add = [&](ChangeKind k, int output, int input, std::string before, std::string after) {
    PlanChange c;
    c.kind = k;
    c.nodeA = n;
    c.nodeB = m;
    c.output = output;
    c.input = input;
    c.phase = phase;
    c.before = std::move(before);
    c.after = std::move(after);
    out.push_back(std::move(c));
  };
  static const NodeSpecs kNone;
  const NodeSpecs& sa = n < static_cast<int>(a.specs.size()) ? a.specs[static_cast<size_t>(n)] : kNone;
  const NodeSpecs& sb = m < static_cast<int>(b.specs.size()) ? b.specs[static_cast<size_t>(m)] : kNone;
  const int outs = static_cast<int>(std::max(sa.outputs.size(), sb.outputs.size()));
  // Specs compared in place (no copies: this runs for every node of both plans).
  auto spec = [](const std::vector<std::optional<ShardingSpec>>& v, int i) -> const ShardingSpec* {
    return i >= 0 && i < static_cast<int>(v.size()) && v[static_cast<size_t>(i)] ? &*v[static_cast<size_t>(i)] : nullptr;
  };
  auto differ = [](const ShardingSpec* x, const ShardingSpec* y) { return (x == nullptr) != (y == nullptr) || (x && *x != *y); };
  auto text = [](const ShardingSpec* x) { return x ? x->toMeshString() : std::string(); };
  for (int o = 0; o < outs; ++o) {
    const ShardingSpec *x = spec(sa.outputs, o), *y = spec(sb.outputs, o);
    if (differ(x, y)) add(ChangeKind::OutputSpec, o, -1, text(x), text(y));
  }
  const int ins = static_cast<int>(std::max(a.graph.inputs(n).size(), b.graph.inputs(m).size()));
  for (int i = 0; i < ins; ++i) {
    // An input spec is a change when what the op consumes differs and either plan declares it: an undeclared spec
    // is the producer's (an output-spec change says so), and a declared one equal to it changes nothing.
    const bool declared = spec(sa.inputs, i) != nullptr || spec(sb.inputs, i) != nullptr;
    const ShardingSpec *x = a.consumerSpecPtr(n, i), *y = b.consumerSpecPtr(m, i);
    if (declared && differ(x, y)) {
      auto shown = [&](const ShardingSpec* v, const NodeSpecs& ns) {
        return v == nullptr ? std::string() : text(v) + (spec(ns.inputs, i) ? "" : " (as produced)");
      };
      add(ChangeKind::InputSpec, -1, i, shown(x, sa), shown(y, sb));
    }
    const int ka = ra.find(n, i), kb = rb.find(m, i);
    if (ka < 0 && kb < 0) continue;
    if (ka < 0) add(ChangeKind::RedistributeAdded, -1, i, "", redistText(b.redistributes[static_cast<size_t>(kb)]));
    else if (kb < 0) add(ChangeKind::RedistributeRemoved, -1, i, redistText(a.redistributes[static_cast<size_t>(ka)]), "");
    else {
      const Redistribute& x2 = a.redistributes[static_cast<size_t>(ka)];
      const Redistribute& y2 = b.redistributes[static_cast<size_t>(kb)];
      if (x2.from != y2.from || x2.to != y2.to) add(ChangeKind::RedistributeChanged, -1, i, redistText(x2), redistText(y2));
    }
  }
  const auto ta = a.tags.find(n);
  const auto tb = b.tags.find(m);
  const std::string tx = ta != a.tags.end() ? ta->second.toString() : "";
  const std::string ty = tb != b.tags.end() ? tb->second.toString() : "";
  const bool tagChanged = (ta != a.tags.end()) != (tb != b.tags.end()) ||
                          (ta != a.tags.end() && !(ta->second == tb->second));
  if (tagChanged) add(ChangeKind::AutoSpTag, -1, -1, tx, ty);
}

// Charges an edge's costs in A and B to the change that owns it (see core/plan/diff.h).
void charge(PlanChange& c, int& ownedEdges, int64_t bytesA, double timeA, const std::string& sumA, int64_t bytesB,
            double timeB, const std::string& sumB) {
  if (bytesA == 0 && bytesB == 0 && timeA == 0 && timeB == 0) return;
  c.bytesBefore += bytesA;
  c.bytesAfter += bytesB;
  c.timeBeforeUs += timeA;
  c.timeAfterUs += timeB;
  if (ownedEdges == 0) {
    c.collectivesBefore = sumA;
    c.collectivesAfter = sumB;
  } else {
    c.collectivesBefore.clear();
    c.collectivesAfter.clear();
  }
  ++ownedEdges;
}

// ---- diagnostics ----

void diffDiagnostics(const PlanDiff& d, std::vector<int>& added, std::vector<int>& removed) {
  const auto& da = d.diagnosticsA.items;
  const auto& db = d.diagnosticsB.items;
  // A's diagnostics by (node, input); plan-wide ones under node -1.
  std::unordered_map<int64_t, std::vector<int>> byEdge;
  auto key = [](int node, int input) { return (static_cast<int64_t>(node) << 32) ^ static_cast<uint32_t>(input); };
  for (size_t k = 0; k < da.size(); ++k) byEdge[key(da[k].node, da[k].input)].push_back(static_cast<int>(k));
  std::vector<uint8_t> used(da.size(), 0);
  for (size_t k = 0; k < db.size(); ++k) {
    const Diagnostic& x = db[k];
    int nodeA = -1;
    if (x.node >= 0) {
      nodeA = x.node < static_cast<int>(d.bToA.size()) ? d.bToA[static_cast<size_t>(x.node)] : -1;
      if (nodeA < 0) {
        added.push_back(static_cast<int>(k));
        continue;
      }
    }
    bool found = false;
    if (auto it = byEdge.find(key(nodeA, x.input)); it != byEdge.end()) {
      for (int j : it->second) {
        const Diagnostic& y = da[static_cast<size_t>(j)];
        if (used[static_cast<size_t>(j)] || !(y.kind == x.kind) || y.severity != x.severity) continue;
        if (x.node < 0 && y.message != x.message) continue;
        used[static_cast<size_t>(j)] = 1;
        found = true;
        break;
      }
    }
    if (!found) added.push_back(static_cast<int>(k));
  }
  for (size_t j = 0; j < da.size(); ++j)
    if (!used[j]) removed.push_back(static_cast<int>(j));
}

std::string signedBytes(int64_t b) {
  if (b == 0) return "0 B";
  return std::string(b > 0 ? "+" : "-") + formatBytes(b > 0 ? b : -b);
}

std::string signedTime(double us) {
  if (us == 0) return "0.0 us";
  return std::string(us > 0 ? "+" : "-") + formatTimeUs(std::abs(us));
}

std::string nodeName(const Plan& p, int n) {
  return n >= 0 && n < p.graph.size() ? p.graph.nodes[static_cast<size_t>(n)].name : std::string();
}

}  // namespace

// ---- entry point ----

namespace {

// One node's changes, contiguous in d.changes: [begin, end); nodeA -1 for an added node, nodeB -1 for a removed one.
struct Span { int nodeA, nodeB; size_t begin, end; };

// Lists the changes in d.changes: the mesh, then A's nodes in graph order, then B's added ones; returns their spans.
std::vector<Span> listChanges(const Plan& a, const Plan& b, const RedistIndex& ra, const RedistIndex& rb, PlanDiff& d) {
  std::vector<PlanChange>& ch = d.changes;
  if (!(a.mesh == b.mesh)) {
    PlanChange c;
    c.kind = ChangeKind::Mesh;
    c.before = a.mesh.toString();
    c.after = b.mesh.toString();
    ch.push_back(std::move(c));
  }
  // Changes in A's graph order; each node's changes are contiguous, so ownership is resolved per node
  // (chargeEdgeCosts).
  std::vector<Span> spans;
  for (int n = 0; n < a.graph.size(); ++n) {
    const int m = d.aToB[static_cast<size_t>(n)];
    const size_t begin = ch.size();
    if (m < 0) {
      PlanChange c;
      c.kind = ChangeKind::NodeRemoved;
      c.nodeA = n;
      c.phase = a.graph.nodes[static_cast<size_t>(n)].phase;
      c.before = a.graph.nodes[static_cast<size_t>(n)].op;
      ch.push_back(std::move(c));
    } else {
      diffPair(a, b, n, m, ra, rb, ch);
    }
    if (ch.size() > begin) spans.push_back({n, m, begin, ch.size()});
  }
  for (int m = 0; m < b.graph.size(); ++m) {
    if (d.bToA[static_cast<size_t>(m)] >= 0) continue;
    PlanChange c;
    c.kind = ChangeKind::NodeAdded;
    c.nodeB = m;
    c.phase = b.graph.nodes[static_cast<size_t>(m)].phase;
    c.after = b.graph.nodes[static_cast<size_t>(m)].op;
    spans.push_back({-1, m, ch.size(), ch.size() + 1});
    ch.push_back(std::move(c));
  }
  return spans;
}

// Charges each edge whose cost differs between A and B (and each removed or added node's edges) to its owning change.
void chargeEdgeCosts(const Plan& a, const EdgeCosts& ca, const EdgeCosts& cb, const std::vector<Span>& spans,
                     PlanDiff& d) {
  std::vector<PlanChange>& ch = d.changes;
  // Ownership of edge costs. Per change: the edges it owns so far (for the one-edge collectives text).
  std::vector<int> owned(ch.size(), 0);
  // Output spec changes by A node (matched nodes only), to own outgoing edges.
  std::unordered_map<int64_t, size_t> outputOwner;  // (A node, output) -> change index
  auto outKey = [](int node, int output) { return (static_cast<int64_t>(node) << 20) ^ output; };
  for (const Span& s : spans)
    for (size_t k = s.begin; k < s.end; ++k)
      if (ch[k].kind == ChangeKind::OutputSpec) outputOwner.emplace(outKey(s.nodeA, ch[k].output), k);
  auto edgeA = [&](int n, int i, int64_t& bytes, double& t, const std::string*& sum) {
    static const std::string kEmpty;
    bytes = 0, t = 0, sum = &kEmpty;
    if (n < 0 || i >= ca.inputs(n)) return;
    const size_t k = static_cast<size_t>(ca.at(n, i));
    bytes = ca.bytes[k], t = ca.timeUs[k], sum = &ca.summary[k];
  };
  auto edgeB = [&](int m, int i, int64_t& bytes, double& t, const std::string*& sum) {
    static const std::string kEmpty;
    bytes = 0, t = 0, sum = &kEmpty;
    if (m < 0 || i >= cb.inputs(m)) return;
    const size_t k = static_cast<size_t>(cb.at(m, i));
    bytes = cb.bytes[k], t = cb.timeUs[k], sum = &cb.summary[k];
  };
  // Matched consumers: every input edge, owned by its input-side change, else by the producer's output change.
  for (int n = 0; n < a.graph.size(); ++n) {
    const int m = d.aToB[static_cast<size_t>(n)];
    if (m < 0) continue;
    const int ins = std::max(ca.inputs(n), cb.inputs(m));
    for (int i = 0; i < ins; ++i) {
      int64_t ba, bb;
      double ta, tb;
      const std::string *sa, *sb;
      edgeA(n, i, ba, ta, sa);
      edgeB(m, i, bb, tb, sb);
      if (ba == bb && ta == tb) continue;
      // Find the owner: an input-side change of this node on input i (a redistribute change before an input spec).
      size_t owner = ch.size();
      auto span = std::lower_bound(spans.begin(), spans.end(), n,
                                   [](const Span& s, int node) { return s.nodeA >= 0 && s.nodeA < node; });
      if (span != spans.end() && span->nodeA == n) {
        for (size_t k = span->begin; k < span->end; ++k) {
          if (ch[k].input != i) continue;
          const bool redist = ch[k].kind == ChangeKind::RedistributeAdded || ch[k].kind == ChangeKind::RedistributeRemoved ||
                              ch[k].kind == ChangeKind::RedistributeChanged;
          if (redist || owner == ch.size()) owner = k;
          if (redist) break;
        }
      }
      if (owner == ch.size() && i < static_cast<int>(a.graph.inputs(n).size())) {
        const TensorRef r = a.graph.inputs(n)[static_cast<size_t>(i)];
        if (auto it = outputOwner.find(outKey(r.node, r.output)); it != outputOwner.end()) owner = it->second;
      }
      if (owner == ch.size()) continue;  // a mesh or shape change: in the totals only
      charge(ch[owner], owned[owner], ba, ta, *sa, bb, tb, *sb);
    }
  }
  for (const Span& s : spans) {
    PlanChange& c = ch[s.begin];
    if (c.kind == ChangeKind::NodeRemoved) {
      for (int i = 0; i < ca.inputs(c.nodeA); ++i) {
        int64_t ba;
        double ta;
        const std::string* sa;
        edgeA(c.nodeA, i, ba, ta, sa);
        charge(c, owned[s.begin], ba, ta, *sa, 0, 0, {});
      }
    } else if (c.kind == ChangeKind::NodeAdded) {
      for (int i = 0; i < cb.inputs(c.nodeB); ++i) {
        int64_t bb;
        double tb;
        const std::string* sb;
        edgeB(c.nodeB, i, bb, tb, sb);
        charge(c, owned[s.begin], 0, 0, {}, bb, tb, *sb);
      }
    }
  }
}

// Appends the cost deltas per phase to d.phases (in phase order) and adds them up into d's totals.
void addPhaseTotals(const std::map<Phase, PhaseDelta>& phases, PlanDiff& d) {
  for (Phase p : {Phase::Forward, Phase::Backward, Phase::Optimizer, Phase::Unknown}) {
    auto it = phases.find(p);
    if (it == phases.end()) continue;
    d.phases.push_back(it->second);
    d.bytesBefore += it->second.bytesBefore;
    d.bytesAfter += it->second.bytesAfter;
    d.timeBeforeUs += it->second.timeBeforeUs;
    d.timeAfterUs += it->second.timeAfterUs;
  }
}

}  // namespace

PlanDiff diffPlans(const Plan& a, const Plan& b, const DiffOptions& opts) {
  PlanDiff d;
  matchNodes(a, b, d);
  const CostModel& model = opts.check.cost;
  std::map<Phase, PhaseDelta> phases;
  const EdgeCosts ca = costEdges(a, model, phases, false);
  const EdgeCosts cb = costEdges(b, model, phases, true);
  RedistIndex ra, rb;
  ra.build(a);
  rb.build(b);

  const std::vector<Span> spans = listChanges(a, b, ra, rb, d);

  chargeEdgeCosts(a, ca, cb, spans, d);

  addPhaseTotals(phases, d);

  d.diagnosticsA = opts.diagnosticsA != nullptr ? *opts.diagnosticsA : checkPlan(a, opts.check);
  d.diagnosticsB = opts.diagnosticsB != nullptr ? *opts.diagnosticsB : checkPlan(b, opts.check);
  diffDiagnostics(d, d.diagnosticsAdded, d.diagnosticsRemoved);
  return d;
}

// ---- output ----

std::string formatCostDelta(int64_t bytes, double us) {
  if (bytes == 0 && us == 0) return "no cost change";
  return signedBytes(bytes) + ", " + signedTime(us);
}

std::string changeTitle(const Plan& a, const Plan& b, const PlanChange& c) {
  std::string node = c.nodeA >= 0 ? nodeName(a, c.nodeA) : nodeName(b, c.nodeB);
  if (c.nodeA >= 0 && c.nodeB >= 0 && nodeName(b, c.nodeB) != node) node += " (" + nodeName(b, c.nodeB) + " in B)";
  auto orNone = [](const std::string& s) { return s.empty() ? std::string("none") : s; };
  switch (c.kind) {
    case ChangeKind::Mesh: return "mesh " + c.before + " -> " + c.after;
    case ChangeKind::NodeRemoved: return node + ": node removed (" + c.before + ")";
    case ChangeKind::NodeAdded: return node + ": node added (" + c.after + ")";
    case ChangeKind::OutputSpec:
      return node + (c.output > 0 ? " (output " + std::to_string(c.output) + ")" : std::string()) + ": output " +
             orNone(c.before) + " -> " + orNone(c.after);
    case ChangeKind::InputSpec:
      return node + " (input " + std::to_string(c.input) + "): input spec " + orNone(c.before) + " -> " + orNone(c.after);
    case ChangeKind::RedistributeAdded:
      return node + " (input " + std::to_string(c.input) + "): redistribute added " + c.after;
    case ChangeKind::RedistributeRemoved:
      return node + " (input " + std::to_string(c.input) + "): redistribute removed " + c.before;
    case ChangeKind::RedistributeChanged:
      return node + " (input " + std::to_string(c.input) + "): redistribute " + c.before + " => " + c.after;
    case ChangeKind::AutoSpTag: return node + ": AutoSP tag " + orNone(c.before) + " -> " + orNone(c.after);
    case ChangeKind::AppliedGraph: return "applied graph " + orNone(c.before) + " => " + orNone(c.after);
  }
  return node;
}

nlohmann::json diffToJson(const Plan& a, const Plan& b, const PlanDiff& d) {
  using nlohmann::json;
  json changes = json::array();
  for (const PlanChange& c : d.changes) {
    json j;
    j["kind"] = changeKindName(c.kind);
    const std::string na = nodeName(a, c.nodeA), nb = nodeName(b, c.nodeB);
    j["node"] = c.nodeA >= 0 ? json(na) : c.nodeB >= 0 ? json(nb) : json(nullptr);
    if (c.nodeA >= 0 && c.nodeB >= 0 && na != nb) j["node_b"] = nb;
    j["input"] = c.input >= 0 ? json(c.input) : json(nullptr);
    if (c.output >= 0) j["output"] = c.output;
    j["phase"] = phaseName(c.phase);
    j["before"] = c.before.empty() ? json(nullptr) : json(c.before);
    j["after"] = c.after.empty() ? json(nullptr) : json(c.after);
    j["bytes_before"] = c.bytesBefore;
    j["bytes_after"] = c.bytesAfter;
    j["bytes_delta"] = c.bytesDelta();
    j["cost_delta_us"] = c.timeDeltaUs();
    if (!c.collectivesBefore.empty()) j["collectives_before"] = c.collectivesBefore;
    if (!c.collectivesAfter.empty()) j["collectives_after"] = c.collectivesAfter;
    changes.push_back(std::move(j));
  }
  auto pick = [](const Plan& p, const Diagnostics& all, const std::vector<int>& idx) {
    Diagnostics sub;
    for (int k : idx) sub.items.push_back(all.items[static_cast<size_t>(k)]);
    return diagnosticsToJson(p, sub)["diagnostics"];
  };
  json phases = json::array();
  for (const PhaseDelta& p : d.phases) {
    phases.push_back({{"phase", phaseName(p.phase)}, {"bytes_before", p.bytesBefore}, {"bytes_after", p.bytesAfter},
                      {"bytes_delta", p.bytesAfter - p.bytesBefore}, {"time_before_us", p.timeBeforeUs},
                      {"time_after_us", p.timeAfterUs}, {"cost_delta_us", p.timeAfterUs - p.timeBeforeUs}});
  }
  json byKind = json::object();
  for (const PlanChange& c : d.changes) byKind[changeKindName(c.kind)] = byKind.value(changeKindName(c.kind), 0) + 1;
  const DiagnosticSummary sa = d.diagnosticsA.summary(), sb = d.diagnosticsB.summary();
  json summary = {{"same", d.same()},
                  {"changes", d.changes.size()},
                  {"by_kind", byKind},
                  {"diagnostics_added", d.diagnosticsAdded.size()},
                  {"diagnostics_removed", d.diagnosticsRemoved.size()},
                  {"errors_before", sa.errors},
                  {"errors_after", sb.errors},
                  {"bytes_before", d.bytesBefore},
                  {"bytes_after", d.bytesAfter},
                  {"bytes_delta", d.bytesAfter - d.bytesBefore},
                  {"time_before_us", d.timeBeforeUs},
                  {"time_after_us", d.timeAfterUs},
                  {"cost_delta_us", d.timeAfterUs - d.timeBeforeUs},
                  {"phases", phases}};
  return {{"match", {{"by_name", d.matchedByName}, {"by_structure", d.matchedByStructure}, {"only_a", d.onlyA},
                     {"only_b", d.onlyB}}},
          {"changes", changes},
          {"diagnostics", {{"added", pick(b, d.diagnosticsB, d.diagnosticsAdded)},
                           {"removed", pick(a, d.diagnosticsA, d.diagnosticsRemoved)}}},
          {"summary", summary}};
}

std::string diffToText(const Plan& a, const Plan& b, const PlanDiff& d) {
  std::string out;
  out += "matched " + std::to_string(d.matchedByName) + " nodes by name, " + std::to_string(d.matchedByStructure) +
         " by structure; " + std::to_string(d.onlyA) + " only in A, " + std::to_string(d.onlyB) + " only in B\n";
  out += std::to_string(d.changes.size()) + (d.changes.size() == 1 ? " change" : " changes") +
         (d.changes.empty() ? "\n" : ":\n");
  for (const PlanChange& c : d.changes) {
    out += "  " + std::string(changeKindName(c.kind)) + ": " + changeTitle(a, b, c);
    if (c.kind != ChangeKind::Mesh && c.kind != ChangeKind::AppliedGraph)
      out += " [" + std::string(phaseName(c.phase)) + "]";
    out += "\n";
    if (!c.collectivesBefore.empty()) out += "    A: " + c.collectivesBefore + "\n";
    if (!c.collectivesAfter.empty()) out += "    B: " + c.collectivesAfter + "\n";
    if (c.bytesDelta() != 0 || c.timeDeltaUs() != 0) out += "    cost " + formatCostDelta(c.bytesDelta(), c.timeDeltaUs()) + "\n";
  }
  auto list = [&](const char* title, const Plan& p, const Diagnostics& all, const std::vector<int>& idx) {
    out += std::string(title) + " (" + std::to_string(idx.size()) + ")" + (idx.empty() ? "\n" : ":\n");
    if (idx.empty()) return;
    Diagnostics sub;
    for (int k : idx) sub.items.push_back(all.items[static_cast<size_t>(k)]);
    std::string text = diagnosticsToText(p, sub);
    // Indent every line of the checker's own text.
    size_t pos = 0;
    while (pos < text.size()) {
      const size_t nl = text.find('\n', pos);
      out += "  " + text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos + 1);
      if (nl == std::string::npos) break;
      pos = nl + 1;
    }
  };
  list("diagnostics gone", a, d.diagnosticsA, d.diagnosticsRemoved);
  list("diagnostics new", b, d.diagnosticsB, d.diagnosticsAdded);
  auto totals = [](int64_t b0, int64_t b1, double t0, double t1) {
    return formatBytes(b0) + ", " + formatTimeUs(t0) + " -> " + formatBytes(b1) + ", " + formatTimeUs(t1) + " (" +
           formatCostDelta(b1 - b0, t1 - t0) + ")";
  };
  out += "communication per rank: " + totals(d.bytesBefore, d.bytesAfter, d.timeBeforeUs, d.timeAfterUs) + "\n";
  for (const PhaseDelta& p : d.phases) {
    out += "  " + std::string(p.phase == Phase::Unknown ? "other" : phaseName(p.phase)) + ": " +
           totals(p.bytesBefore, p.bytesAfter, p.timeBeforeUs, p.timeAfterUs) + "\n";
  }
  return out;
}

}  // namespace ss
