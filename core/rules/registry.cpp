// The rule table (op name -> rule) and RuleContext's argument accessors. Families register explicitly (no
// static registrars: a static library would drop their translation units).
#include <algorithm>
#include <unordered_map>

#include "core/rules/engine.h"
#include "core/rules/families.h"
#include "core/rules/rules.h"

namespace ss::rules {

namespace {

// Walks args then kwargs depth-first, as collectTensorRefs does, to find the input index of `target`.
bool walk(const Arg& a, const Arg* target, int& counter, int& found) {
  if (&a == target) {
    found = a.isTensor() ? counter : -1;
    return true;
  }
  if (a.isTensor()) {
    ++counter;
    return false;
  }
  if (a.isList())
    for (const Arg& x : a.items)
      if (walk(x, target, counter, found)) return true;
  return false;
}

}  // namespace

namespace {
// Both tables, filled once by the families (a family registers its replicate-only ops beside its rules).
struct Registry {
  RuleTable rules;
  ReplicateOnlyTable replicateOnly;
};

const Registry& registry() {
  static const Registry reg = [] {
    Registry g;
    RuleTable& r = g.rules;
    registerPointwiseRules(r);
    registerMatmulRules(r);
    registerViewRules(r);
    registerReductionRules(r);
    registerIndexRules(r);
    registerAttentionRules(r);
    registerFactoryRules(r);
    registerCollectiveRules(r);
    registerMoeRules(r);
    registerHigherOrderRules(r);
    registerSymbolicRules(r);
    registerConvRules(r);
    registerForeachRules(r);
    registerLinalgRules(r, g.replicateOnly);
    registerTensorOpRules(r, g.replicateOnly);
    registerPartialPointwiseRules(r);  // last: it replaces the generic rule of the ops it knows
    for (const auto& [key, why] : g.replicateOnly) r[key] = replicateOnlyRule;
    return g;
  }();
  return reg;
}
}  // namespace

const RuleTable& familyRules() { return registry().rules; }

RuleResult inplaceRule(const RuleContext& ctx) {
  std::string_view key = ruleKeyView(ctx.node->op);
  if (key.ends_with('_')) key.remove_suffix(1);
  const auto it = familyRules().find(key);
  if (it == familyRules().end()) return unknownResult(ctx);
  RuleResult r = it->second(ctx);
  if (ctx.inputCount() == 0 || !ctx.inSpecs[0]) return r;
  const ShardingSpec& self = *ctx.inSpecs[0];
  // Only the assignments that leave self as it is can be applied in place.
  std::vector<SpecList> kept;
  for (SpecList& alt : r.alternatives)
    if (!alt.empty() && alt[0] && *alt[0] == self) kept.push_back(std::move(alt));
  r.alternatives = std::move(kept);
  const std::string title = opTitle(ctx) + "_";
  if (r.ok()) {
    if (r.outputs.empty() || !r.outputs[0] || *r.outputs[0] == self) return r;
    RuleResult f = failResult(Verdict::Incompatible, 0, std::nullopt,
                              title + " writes its result into self, which arrives as " + self.toMeshString() +
                                  ", but the result would be " + r.outputs[0]->toMeshString() +
                                  ": an in-place op cannot change its self's placement");
    f.alternatives = std::move(r.alternatives);
    return f;
  }
  if (r.input == 0 && !r.alternatives.empty()) {
    // The rule wants self redistributed; in place, another input must move instead (the cheapest kept one).
    const SpecList& alt = r.alternatives.front();
    for (int i = 1; i < ctx.inputCount() && i < static_cast<int>(alt.size()); ++i) {
      if (!alt[i] || !ctx.inSpecs[i] || *alt[i] == *ctx.inSpecs[i]) continue;
      r.input = i;
      r.want = alt[i];
      r.message = title + " keeps self as " + self.toMeshString() + ", so input " + std::to_string(i) + " (" +
                  ctx.inSpecs[i]->toMeshString() + ") must arrive as " + alt[i]->toMeshString() + "; " + r.message;
      break;
    }
  }
  return r;
}
const ReplicateOnlyTable& replicateOnlyOps() { return registry().replicateOnly; }

const Arg* RuleContext::arg(int pos, std::string_view kw) const {
  if (!node) return nullptr;
  if (pos >= 0 && pos < static_cast<int>(node->args.size())) return &node->args[pos];
  if (!kw.empty())
    for (const auto& [k, v] : node->kwargs)
      if (k == kw) return &v;
  return nullptr;
}

std::optional<int64_t> RuleContext::intArg(int pos, std::string_view kw) const {
  const Arg* a = arg(pos, kw);
  if (a && a->kind == Arg::Kind::Int) return a->i;
  if (a && a->kind == Arg::Kind::Bool) return a->b ? 1 : 0;
  return std::nullopt;
}

std::optional<int64_t> RuleContext::intArgOr(int pos, std::string_view kw, int64_t dflt) const {
  if (auto v = intArg(pos, kw)) return v;
  if (!argsComplete) return std::nullopt;
  return dflt;
}

std::optional<double> RuleContext::numberArg(int pos, std::string_view kw) const {
  const Arg* a = arg(pos, kw);
  if (a && a->kind == Arg::Kind::Int) return static_cast<double>(a->i);
  if (a && a->kind == Arg::Kind::Float) return a->f;
  if (a && a->kind == Arg::Kind::Bool) return a->b ? 1.0 : 0.0;
  return std::nullopt;
}

std::optional<bool> RuleContext::boolArg(int pos, std::string_view kw) const {
  const Arg* a = arg(pos, kw);
  if (a && a->kind == Arg::Kind::Bool) return a->b;
  if (a && a->kind == Arg::Kind::Int) return a->i != 0;
  return std::nullopt;
}

std::optional<std::vector<int64_t>> RuleContext::intListArg(int pos, std::string_view kw) const {
  const Arg* a = arg(pos, kw);
  if (!a) return std::nullopt;
  if (a->kind == Arg::Kind::Int) return std::vector<int64_t>{a->i};
  if (!a->isList()) return std::nullopt;
  std::vector<int64_t> out;
  for (const Arg& x : a->items) {
    if (x.kind != Arg::Kind::Int) return std::nullopt;
    out.push_back(x.i);
  }
  return out;
}

int RuleContext::inputIndexOf(const Arg* a) const {
  if (!node || !a) return -1;
  int counter = 0, found = -1;
  for (const Arg& x : node->args)
    if (walk(x, a, counter, found)) return found;
  for (const auto& kv : node->kwargs)
    if (walk(kv.second, a, counter, found)) return found;
  return -1;
}

const TensorMeta* RuleContext::outMeta(int i) const {
  if (!node || i < 0 || i >= static_cast<int>(node->outputs.size())) return nullptr;
  const TensorMeta& m = node->outputs[i];
  return m.known ? &m : nullptr;
}

// ruleKey without allocating: a view into `op`.
std::string_view ruleKeyView(std::string_view op) {
  if (op.starts_with("torch.ops.")) op.remove_prefix(10);
  const size_t dot = op.find('.');
  if (dot == std::string_view::npos) return op;
  const std::string_view ns = op.substr(0, dot);
  std::string_view name = op.substr(dot + 1);
  name = name.substr(0, name.find('.'));
  if (ns == "aten" || ns == "prims" || ns == "_c10d_functional" || ns == "c10d_functional" || ns == "operator" ||
      ns == "c10d" || ns == "_operator" || ns == "_c10d_functional_autograd" || ns == "_dtensor" ||
      ns == "autoparallel")
    return name;
  return op.substr(0, dot + 1 + name.size());  // another namespace keeps it, without the overload (as op_safety reads it)
}

std::string ruleKey(std::string_view op) { return std::string(ruleKeyView(op)); }

RuleFn findRule(std::string_view op) {
  const auto& t = familyRules();
  const std::string_view key = ruleKeyView(op);
  if (auto it = t.find(key); it != t.end()) return it->second;
  // An in-place form no family registers: its op's rule, self kept (inplaceRule; the op table lists it as derived).
  if (!inplaceBaseOf(key).empty()) return inplaceRule;
  return nullptr;
}

std::string_view inplaceBaseOf(std::string_view key) {
  if (key.size() < 2 || !key.ends_with('_') || key.ends_with("__")) return {};
  const auto it = familyRules().find(key.substr(0, key.size() - 1));
  return it == familyRules().end() ? std::string_view() : std::string_view(it->first);
}

std::vector<std::string> ruledOps() {
  std::vector<std::string> out;
  for (const auto& kv : familyRules()) out.push_back(kv.first);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ss::rules
