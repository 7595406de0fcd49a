// The fix planner (see core/plan/fix.h for the contract). Sections: what arrives on edges, edit helpers, the
// per-diagnostic fixes, the round loop.
#include "core/plan/fix.h"

#include <limits>
#include <set>

#include "core/rules/rules.h"

namespace ss {

namespace {

struct Work {
  Plan plan;
  const FixOptions& opts;
  FixPlan out;
  std::vector<std::vector<TensorRef>> refs;
  std::vector<std::vector<std::pair<int, int>>> users;

  Work(const Plan& p, const FixOptions& o) : plan(p), opts(o) {
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
      else if (!arriving || (plan.sourceFormat == PlanFormat::AutoparallelJson && declared(n, in)))
        arriving = declared(n, in);
      ctx.inSpecs.push_back(arriving);
    }
    return ctx;
  }

  // ---- edits ----

  bool apply(Command c, const std::string& step) {
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
      if (!made[o] || old == made[o]) continue;
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
    return fixOutputs(n, r.outputs);
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

FixPlan planFix(const Plan& plan, const FixOptions& opts) {
  Work w(plan, opts);
  w.out.batch.label = "Fix plan";
  for (int round = 0; round < opts.maxRounds; ++round) {
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
      return w.out;
    }
  }
  w.out.remaining = checkPlan(w.plan, opts.check);
  return w.out;
}

}  // namespace ss
