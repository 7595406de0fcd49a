// The fix planner (see core/plan/fix.h for the contract). Sections: what arrives on edges, edit helpers, the
// per-diagnostic fixes, the round loop.
#include "core/plan/fix.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "core/rules/rules.h"
#include "core/run/autosp_seq_fix.h"

namespace ss {

namespace {

// Input assignments tried around a pinned output: every combination while there are at most this many, else one
// input changed at a time (the others as they arrive) and all inputs of a rank alike.
constexpr size_t kMaxAssignments = 20000;

struct Work {
  Plan plan;
  const FixOptions& opts;
  FixPlan out;
  std::vector<std::vector<TensorRef>> refs;
  std::vector<std::vector<std::pair<int, int>>> users;
  std::set<PinnedOutput> pinned;
  std::map<int, std::string> whyBlocked;  // pinned node -> why no input specs make its pinned output

  Work(const Plan& p, const FixOptions& o) : plan(p), opts(o), pinned(o.pinned.begin(), o.pinned.end()) {
    plan.normalizeSpecs();
    const int N = plan.graph.size();
    refs.assign(N, {});
    users.assign(N, {});
    for (int n = 0; n < N; ++n) {
      collectTensorRefs(plan.graph.nodes[n], refs[n]);
      for (size_t i = 0; i < refs[n].size(); ++i)
        if (refs[n][i].node >= 0 && refs[n][i].node < N) users[refs[n][i].node].push_back({n, static_cast<int>(i)});
    }
  }

  const TensorMeta* meta(TensorRef r) const {
    if (r.node < 0 || r.node >= plan.graph.size()) return nullptr;
    const auto& o = plan.graph.nodes[r.node].outputs;
    return r.output >= 0 && r.output < static_cast<int>(o.size()) && o[r.output].known ? &o[r.output] : nullptr;
  }
  std::optional<ShardingSpec> producer(int n, int i) const {
    TensorRef r = refs[n][i];
    if (r.node < 0 || r.node >= static_cast<int>(plan.specs.size())) return std::nullopt;
    const auto& o = plan.specs[r.node].outputs;
    return r.output >= 0 && r.output < static_cast<int>(o.size()) ? o[r.output] : std::nullopt;
  }
  std::optional<ShardingSpec> declared(int n, int i) const {
    const auto& in = plan.specs[n].inputs;
    return i < static_cast<int>(in.size()) ? in[i] : std::nullopt;
  }

  // The rule context as the checker builds it (what arrives on each edge).
  rules::RuleContext context(int n) const {
    rules::RuleContext ctx;
    ctx.node = &plan.graph.nodes[n];
    ctx.mesh = &plan.mesh;
    ctx.declaredOut = plan.specs[n].outputs;
    ctx.argsComplete = plan.sourceFormat != PlanFormat::AutoparallelJson;
    for (size_t i = 0; i < refs[n].size(); ++i) {
      int in = static_cast<int>(i);
      ctx.inMetas.push_back(meta(refs[n][i]));
      std::optional<ShardingSpec> arriving = producer(n, in);
      if (const Redistribute* r = plan.findRedistribute(n, in)) arriving = r->to;
      else if (!arriving || (plan.isSolverSolution() && declared(n, in))) arriving = declared(n, in);
      ctx.inSpecs.push_back(arriving);
    }
    return ctx;
  }

  // ---- edits ----

  bool isPinned(int n, int o) const { return pinned.count(PinnedOutput{n, o}) > 0; }
  // Node n's pinned output indices, in order.
  std::vector<int> pinsOf(int n) const {
    std::vector<int> out;
    for (auto it = pinned.lower_bound(PinnedOutput{n, 0}); it != pinned.end() && it->node == n; ++it)
      out.push_back(it->output);
    return out;
  }
  bool hasPin(int n) const { return !pinsOf(n).empty(); }

  // Applies one edit and records it; a pinned output is never changed.
  bool apply(Command c, const std::string& step) {
    if (const auto* so = std::get_if<SetOutputSpec>(&c); so && isPinned(so->node, so->output)) return false;
    auto r = applyCommand(plan, c);
    if (!r.ok()) return false;
    out.batch.commands.push_back(std::move(c));
    if (!step.empty()) out.steps.push_back(step);
    return true;
  }

  std::string edge(int n, int i) const {
    return plan.graph.nodes[n].name + " input " + std::to_string(i);
  }

  // Makes input i of node n arrive as `want`: declares it, and redistributes from the producer when they differ.
  bool redistributeInto(int n, int i, const ShardingSpec& want) {
    if (plan.findRedistribute(n, i)) apply(RemoveRedistribute{n, i}, "");
    if (declared(n, i) != std::optional<ShardingSpec>(want))
      if (!apply(SetInputSpec{n, i, want}, "")) return false;
    auto from = producer(n, i);
    if (!from || *from == want) return true;
    const TensorMeta* m = meta(refs[n][i]);
    std::string how;
    if (m) {
      RedistributePlan rp = planRedistribute(*m, plan.mesh, *from, want, opts.check.cost);
      if (!rp.possible) return false;
      out.totalBytes += rp.totalBytes();
      out.totalTimeUs += rp.totalTimeUs();
      how = ": " + rp.summary();
    }
    Redistribute r;
    r.node = n;
    r.input = i;
    r.from = *from;
    r.to = want;
    return apply(InsertRedistribute{r}, "insert redistribute " + from->toMeshString() + " -> " + want.toMeshString() +
                                            " at " + edge(n, i) + how);
  }

  double costOf(int n, int i, const ShardingSpec& want, int64_t* bytes) const {
    auto from = producer(n, i);
    if (!from || *from == want) return 0;
    const TensorMeta* m = meta(refs[n][i]);
    if (!m) return 0;
    RedistributePlan rp = planRedistribute(*m, plan.mesh, *from, want, opts.check.cost);
    if (!rp.possible) return std::numeric_limits<double>::infinity();
    *bytes += rp.totalBytes();
    return rp.totalTimeUs();
  }

  // ---- fixes ----

  bool fixIncompatible(int n) {
    rules::RuleFn rule = rules::findRule(plan.graph.nodes[n].op);
    if (!rule) return false;
    rules::RuleContext ctx = context(n);
    rules::RuleResult r = rule(ctx);
    if (r.ok() || r.verdict == rules::Verdict::BadShapes) return false;
    if (hasPin(n)) return fixAroundPin(n);
    if (r.input < 0) return fixOutputs(n, {ShardingSpec::replicated(plan.mesh.ndim())});
    const rules::SpecList* best = nullptr;
    double bestTime = std::numeric_limits<double>::infinity();
    int64_t bestBytes = std::numeric_limits<int64_t>::max();
    for (const auto& alt : r.alternatives) {
      double t = 0;
      int64_t b = 0;
      for (size_t i = 0; i < alt.size(); ++i)
        if (alt[i] && alt[i] != ctx.inSpecs[i]) t += costOf(n, static_cast<int>(i), *alt[i], &b);
      if (t < bestTime || (t == bestTime && b < bestBytes)) {
        best = &alt;
        bestTime = t;
        bestBytes = b;
      }
    }
    if (!best || bestTime == std::numeric_limits<double>::infinity()) return false;
    bool any = false;
    for (size_t i = 0; i < best->size(); ++i)
      if ((*best)[i] && (*best)[i] != ctx.inSpecs[i]) any |= redistributeInto(n, static_cast<int>(i), *(*best)[i]);
    return any;
  }

  // Declares outputs as the op makes them; consumers that took the old spec implicitly now declare it.
  bool fixOutputs(int n, const rules::SpecList& made) {
    bool any = false;
    for (size_t o = 0; o < made.size() && o < plan.specs[n].outputs.size(); ++o) {
      auto old = plan.specs[n].outputs[o];
      if (!made[o] || old == made[o] || isPinned(n, static_cast<int>(o))) continue;
      for (const auto& [c, i] : users[n]) {
        if (refs[c][i].output != static_cast<int>(o)) continue;
        if (!declared(c, i) && !plan.findRedistribute(c, i) && old) apply(SetInputSpec{c, i, old}, "");
      }
      any |= apply(SetOutputSpec{n, static_cast<int>(o), made[o]},
                   "declare " + plan.graph.nodes[n].name + (made.size() > 1 ? " output " + std::to_string(o) : "") +
                       " as " + made[o]->toMeshString() + " (was " + (old ? old->toMeshString() : "unset") + ")");
    }
    return any;
  }

  bool fixOutputMismatch(int n) {
    rules::RuleFn rule = rules::findRule(plan.graph.nodes[n].op);
    if (!rule) return false;
    rules::RuleResult r = rule(context(n));
    if (!r.ok()) return false;
    if (!makesPinned(n, r)) return fixAroundPin(n);
    return fixOutputs(n, r.outputs);
  }

  // ---- around a pinned output ----

  // Whether the rule's verdict keeps every pinned output of n as declared.
  bool makesPinned(int n, const rules::RuleResult& r) const {
    if (!r.ok()) return false;
    for (int o : pinsOf(n)) {
      const auto& want = plan.specs[n].outputs.at(o);
      if (want && (o >= static_cast<int>(r.outputs.size()) || r.outputs[o] != want)) return false;
    }
    return true;
  }

  // The specs input i of n may be redistributed into: every placement per mesh dim (Replicate, a Shard of each
  // tensor dim; Partial(sum) where the pinned outputs or what arrives have a Partial), valid for the tensor.
  std::vector<std::optional<ShardingSpec>> candidates(int n, int i, const rules::RuleContext& ctx) const {
    std::vector<std::optional<ShardingSpec>> out{ctx.inSpecs[i]};
    const TensorMeta* m = ctx.inMetas[i];
    if (!m) return out;
    bool partial = ctx.inSpecs[i] && ctx.inSpecs[i]->hasPartial();
    for (int o : pinsOf(n))
      if (const auto& s = plan.specs[n].outputs.at(o); s && s->hasPartial()) partial = true;
    std::vector<Placement> options{Placement::replicate()};
    for (int d = 0; d < m->rank(); ++d) options.push_back(Placement::shard(d));
    if (partial) options.push_back(Placement::partial());
    const int M = plan.mesh.ndim();
    std::vector<size_t> pick(M, 0);
    while (true) {
      ShardingSpec s;
      for (int d = 0; d < M; ++d) s.placements.push_back(plan.mesh.dimSize(d) > 1 ? options[pick[d]] : Placement::replicate());
      if (validateSpec(s, plan.mesh, m->rank()).empty() && std::find(out.begin(), out.end(), s) == out.end())
        out.push_back(s);
      int d = 0;
      while (d < M && ++pick[d] == options.size()) pick[d++] = 0;
      if (d == M) break;
    }
    return out;
  }

  // Redistributes n's inputs into the cheapest specs from which its op makes its pinned outputs; false (and why,
  // in whyBlocked) when no such specs exist.
  bool fixAroundPin(int n) {
    const Node& node = plan.graph.nodes[n];
    rules::RuleFn rule = rules::findRule(node.op);
    rules::RuleContext ctx = context(n);
    const int inputs = static_cast<int>(ctx.inSpecs.size());
    std::vector<std::vector<std::optional<ShardingSpec>>> cand;
    size_t combos = 1;
    for (int i = 0; i < inputs; ++i) {
      cand.push_back(candidates(n, i, ctx));
      combos = combos > kMaxAssignments ? combos : combos * cand.back().size();
    }
    rules::SpecList best;
    double bestTime = std::numeric_limits<double>::infinity();
    int64_t bestBytes = std::numeric_limits<int64_t>::max();
    auto tryAssignment = [&](const rules::SpecList& specs) {
      rules::RuleContext c = ctx;
      c.inSpecs = specs;
      if (!makesPinned(n, rule(c))) return;
      double t = 0;
      int64_t b = 0;
      for (int i = 0; i < inputs; ++i)
        if (specs[i] && specs[i] != ctx.inSpecs[i]) t += costOf(n, i, *specs[i], &b);
      if (t < bestTime || (t == bestTime && b < bestBytes)) {
        best = specs;
        bestTime = t;
        bestBytes = b;
      }
    };
    if (rule && inputs > 0 && combos <= kMaxAssignments) {
      std::vector<size_t> pick(inputs, 0);
      while (true) {
        rules::SpecList specs;
        for (int i = 0; i < inputs; ++i) specs.push_back(cand[i][pick[i]]);
        tryAssignment(specs);
        int i = 0;
        while (i < inputs && ++pick[i] == cand[i].size()) pick[i++] = 0;
        if (i == inputs) break;
      }
    } else if (rule && inputs > 0) {
      for (int i = 0; i < inputs; ++i)
        for (const auto& c : cand[i]) {
          rules::SpecList specs = ctx.inSpecs;
          specs[i] = c;
          tryAssignment(specs);
        }
      for (const auto& c : cand[0]) {
        rules::SpecList specs = ctx.inSpecs;
        for (int i = 0; i < inputs; ++i)
          if (ctx.rank(i) == ctx.rank(0)) specs[i] = c;
        tryAssignment(specs);
      }
    }
    if (best.empty() || bestTime == std::numeric_limits<double>::infinity()) {
      std::string pins;
      for (int o : pinsOf(n))
        if (const auto& s = plan.specs[n].outputs.at(o))
          pins += (pins.empty() ? "" : ", ") + (node.outputs.size() > 1 ? "output " + std::to_string(o) + " " : "") +
                  s->toMeshString();
      std::string arriving;
      for (int i = 0; i < inputs; ++i)
        arriving += std::string(i ? ", " : "") + "input " + std::to_string(i) + " (" +
                    plan.graph.nodes[refs[n][i].node].name + ") arrives " +
                    (ctx.inSpecs[i] ? ctx.inSpecs[i]->toMeshString() : "unknown");
      whyBlocked[n] = node.name + " is pinned to " + pins + ", and no input specs make " + rules::ruleKey(node.op) +
                      " produce it" + (!rule ? " (the op has no sharding rule)" : inputs == 0 ? " (it has no inputs)" : "") +
                      (arriving.empty() ? "" : ": " + arriving);
      return false;
    }
    bool any = false;
    for (int i = 0; i < inputs; ++i)
      if (best[i] && best[i] != ctx.inSpecs[i]) any |= redistributeInto(n, i, *best[i]);
    return any;
  }

  // Why an error the planner left is there because of a pinned output: the edge and the reason; empty when no
  // pin is involved (the node's own pinned output, or the producer of the input the error names).
  std::string blockedBy(const Diagnostic& d) const {
    if (d.node < 0 || d.node >= plan.graph.size()) return {};
    if (hasPin(d.node)) {
      auto it = whyBlocked.find(d.node);
      return it != whyBlocked.end() ? it->second : plan.graph.nodes[d.node].name + " is pinned: " + d.message;
    }
    if (d.input < 0 || d.input >= static_cast<int>(refs[d.node].size())) return {};
    const TensorRef r = refs[d.node][d.input];
    if (!isPinned(r.node, r.output)) return {};
    const auto& s = plan.specs[r.node].outputs.at(r.output);
    return edge(d.node, d.input) + " (" + plan.graph.nodes[r.node].name + ", pinned to " +
           (s ? s->toMeshString() : std::string("unset")) + "): " + d.message;
  }

  bool fix(const Diagnostic& d) {
    const int n = d.node;
    if (n < 0 || n >= plan.graph.size()) return false;
    if (d.kind == DiagKind::MissingRedistribute && d.want && d.input >= 0) {
      if (redistributeInto(n, d.input, *d.want)) return true;
      // No redistribute reaches the declared spec (S -> P, a changed Partial op): consume what arrives instead;
      // the next round fixes the op's inputs if its rule objects.
      return apply(SetInputSpec{n, d.input, std::nullopt},
                   "drop the input spec " + d.want->toMeshString() + " at " + edge(n, d.input) +
                       " (no redistribute reaches it from " + (d.have ? d.have->toMeshString() : "?") + ")");
    }
    if (d.kind == DiagKind::BadRedistribute && d.input >= 0 && plan.findRedistribute(n, d.input)) {
      return apply(RemoveRedistribute{n, d.input}, "remove the redistribute at " + edge(n, d.input) + " (" + d.message + ")");
    }
    if (d.kind == DiagKind::InvalidSpec && d.input >= 0 && n < static_cast<int>(plan.specs.size()) &&
        d.input < static_cast<int>(plan.specs[n].inputs.size()) && plan.specs[n].inputs[d.input]) {
      // An input spec that does not fit its tensor: consume what arrives; the next round hears the op's rule.
      return apply(SetInputSpec{n, d.input, std::nullopt},
                   "drop the input spec " + plan.specs[n].inputs[d.input]->toMeshString() + " at " + edge(n, d.input) +
                       " (it does not fit the tensor)");
    }
    if (d.kind == DiagKind::IncompatibleInputs || d.kind == DiagKind::PartialIntoNonlinear) return fixIncompatible(n);
    if (d.kind == DiagKind::OutputSpecMismatch) return fixOutputMismatch(n);
    if (d.kind == DiagKind::SeqDimMismatch && !d.want) {
      // A real AutoSP graph: the slice its passes wrote moves to the sequence dim (DeepSpeed's fix).
      auto move = autoSpSliceFix(plan, n);
      if (!move) return false;
      const std::string step = "slice " + move->request.input + " on dim " + std::to_string(move->request.dim) + " at " +
                               plan.graph.nodes[n].name + " (AutoSP sliced dim " +
                               std::to_string(findAutoSpSliced(plan.autoSpSliced, n)->dim) + ")";
      return apply(*move, step);
    }
    if (d.kind == DiagKind::SeqDimMismatch && d.want) {
      auto it = plan.tags.find(n);
      if (it == plan.tags.end()) return false;
      for (const auto& p : d.want->placements)
        if (p.isShard()) {
          AutoSpTag tag = it->second;
          tag.seqDim = p.dim;
          return apply(SetSeqDim{n, tag}, "tag " + plan.graph.nodes[n].name + " " + tag.toString());
        }
    }
    return false;
  }
};

}  // namespace

std::optional<MoveAutoSpSlice> autoSpSliceFix(const Plan& plan, int node) {
  const AutoSpSlicedInput* x = findAutoSpSliced(plan.autoSpSliced, node);
  if (!x || x->seqDim < 0 || x->seqDim == x->dim) return std::nullopt;
  const std::string input = symbolSourceInput(x->symbolSource).first;
  if (input.empty()) return std::nullopt;
  return MoveAutoSpSlice{SeqDimRequest{input, x->seqDim}};
}

FixPlan planFix(const Plan& plan, const FixOptions& opts) {
  Work w(plan, opts);
  w.out.batch.label = "Fix plan";
  bool settled = false;
  for (int round = 0; round < opts.maxRounds && !settled; ++round) {
    Diagnostics d = checkPlan(w.plan, opts.check);
    std::set<int> touched;
    bool progress = false;
    for (const Diagnostic& x : d.items) {
      if (x.severity != Severity::Error || touched.count(x.node)) continue;
      if (w.fix(x)) {
        touched.insert(x.node);
        progress = true;
      }
    }
    if (!progress) {
      w.out.remaining = std::move(d);
      settled = true;
    }
  }
  if (!settled) w.out.remaining = checkPlan(w.plan, opts.check);
  std::set<std::string> seen;
  for (const Diagnostic& x : w.out.remaining.items)
    if (x.severity == Severity::Error)
      if (std::string why = w.blockedBy(x); !why.empty() && seen.insert(why).second) w.out.blocked.push_back(why);
  return w.out;
}

}  // namespace ss
