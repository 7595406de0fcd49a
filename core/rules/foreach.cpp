// List ops: _foreach_* (pointwise, norm, powsum, max, mm, clone), _fused_adam(w)_ and
// _amp_foreach_non_finite_check_and_unscale_, as DTensor 2.14 expands them (single_dim_strategy.py,
// expanded_foreach_strategy): every list position is its own problem over the i-th element of each tensor list,
// with the single tensors (_foreach_mul.Tensor's `other`, amp's found_inf / inv_scale) in every position and the
// scalars broadcast. A position is solved on a sub-context holding only its tensors, by the rule of the single-tensor
// op it is: pointwise positions by pointwise.cpp's rule (broadcasting, no Partial), _foreach_norm / _foreach_powsum
// by norm.Scalar's / linalg__powsum's (tensor_ops.cpp), _foreach_max by max's, _foreach_mm by mm's. The list op is
// accepted when every position is; the first position that fails names its input in the node's numbering (inputs
// are numbered depth-first, so _foreach_add.List([a, b], [c, d]) has a=0, b=1, c=2, d=3). Output i is position i's.
//
// Partial: each list op has the extra Partial rules DTensor gives it (_pointwise_ops.py, and autogen.py's reuse of
// the element op's strategy): the linear ones (add / sub.List, add / mul / div.Tensor, mul / div.List, .Scalar and
// .ScalarList, neg, clone) keep Partial(sum|avg), the monotone ones (exp, tanh, ..., maximum.List, clamp_min.List,
// the in-place clamp_min_ / clamp_max_.Scalar) P(max) / P(min), _foreach_max P(max); every other list op (add.Scalar,
// sqrt, addcmul, lerp, pow, the fused optimizers, ...) refuses any Partial input (DTensor reduces it first). A rule is
// one mesh dim's placements [output, input 0, ...], matched exactly on each mesh dim where an input is Partial.
//
// Keyword tensors (the fused optimizers' lr, grad_scale, found_inf) must be Replicate, as in every DTensor strategy
// (DTensor itself never redistributes a keyword tensor; core refuses rather than compute with a sharded one).
// In-place forms (`name_`) write every element of their first list: each position keeps that element's placement
// (DTensor's inplace_op check on the position's self), so they are registered here rather than derived (the op
// table's derived in-place rule keeps input 0 only). Refused outright, as DTensor raises for every placement: the
// overloads it has no strategy for (functional _foreach_addcmul / _foreach_addcdiv.Tensor), the functional
// _fused_adam / _fused_adamw, and _foreach_addcmul_ / _foreach_addcdiv_.Tensor.
#include <algorithm>
#include <array>
#include <unordered_map>

#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

RuleResult pointwiseNonlinearRule(const RuleContext& ctx);  // pointwise.cpp

namespace {

// ---- DTensor's list ops and their Partial rules ----

using Slot = PartialSlot;
using Row = std::vector<Slot>;  // one mesh dim: [output, input 0, input 1, ...]
using Rows = std::vector<Row>;



using S = Slot;
// _pointwise_ops.py's rule lists, as DTensor 2.14 gives them to the list ops (its own registrations and autogen.py's
// reuse of the element op's). A row whose length is not 1 + the position's tensor count never matches, as there.
const Rows kUnaryLinear = {{S::PSum, S::PSum}, {S::PAvg, S::PAvg}};
// add / sub: DTensor's rows also hold P(avg) + R and R + P(avg) -> P(avg), but a list op takes the first strategy of
// least redistribute cost (no preference for the inputs as they are), and P(avg) + P(avg), listed before, costs
// nothing more (R -> P(avg) is free): DTensor turns the Replicate input into P(avg) first. Core refuses them.
const Rows kAdditive = {
    {S::PSum, S::PSum, S::PSum}, {S::PAvg, S::PAvg, S::PAvg}, {S::PMax, S::PMax, S::R}, {S::PMin, S::PMin, S::R}};
const Rows kMul = {{S::PSum, S::PSum},       {S::PAvg, S::PAvg},       {S::PSum, S::PSum, S::R},
                   {S::PAvg, S::PAvg, S::R}, {S::PSum, S::R, S::PSum}, {S::PAvg, S::R, S::PAvg}};
const Rows kDiv = {{S::PSum, S::PSum}, {S::PAvg, S::PAvg}, {S::PSum, S::PSum, S::R}, {S::PAvg, S::PAvg, S::R}};
const Rows kNonDecreasing = {{S::PMax, S::PMax}, {S::PMin, S::PMin}};
const Rows kNonIncreasing = {{S::PMin, S::PMax}, {S::PMax, S::PMin}};
const Rows kNeg = {{S::PSum, S::PSum}, {S::PAvg, S::PAvg}, {S::PMin, S::PMax}, {S::PMax, S::PMin}};
const Rows kMaxPreserving = {{S::PMax, S::PMax, S::R},
                             {S::PMax, S::R, S::PMax},
                             {S::PMin, S::PMin, S::R},
                             {S::PMin, S::R, S::PMin},
                             {S::PMax, S::PMax, S::PMax}};
const Rows kMinPreserving = {{S::PMax, S::PMax, S::R},
                             {S::PMax, S::R, S::PMax},
                             {S::PMin, S::PMin, S::R},
                             {S::PMin, S::R, S::PMin},
                             {S::PMin, S::PMin, S::PMin}};
// _foreach_clone: propagate_single_input_single_dim_strategy passes sum, avg, min and max (not product).
const Rows kAllPartial = {{S::PSum, S::PSum}, {S::PAvg, S::PAvg}, {S::PMax, S::PMax}, {S::PMin, S::PMin}};
// _foreach_max: linear_reduction_single_dim_strategy keeps a Partial of its own op.
const Rows kMax = {{S::PMax, S::PMax}};

// name.overload -> its extra Partial rules; an in-place `name_.overload` not listed reads `name.overload`.
const std::unordered_map<std::string, const Rows*>& partialRows() {
  static const auto t = [] {
    std::unordered_map<std::string, const Rows*> m;
    for (const char* k : {"_foreach_add.List", "_foreach_add.Tensor", "_foreach_sub.List"}) m[k] = &kAdditive;
    for (const char* k : {"_foreach_mul.List", "_foreach_mul.Tensor"}) m[k] = &kMul;
    for (const char* k : {"_foreach_div.List", "_foreach_div.Tensor"}) m[k] = &kDiv;
    for (const char* k :
         {"_foreach_mul.Scalar", "_foreach_mul.ScalarList", "_foreach_div.Scalar", "_foreach_div.ScalarList"})
      m[k] = &kUnaryLinear;
    for (const char* k :
         {"atan", "ceil", "erf", "exp", "expm1", "floor", "round", "sigmoid", "sign", "sinh", "tanh", "trunc"})
      m[std::string("_foreach_") + k + ".default"] = &kNonDecreasing;
    // clamp with a scalar bound: only the in-place forms (DTensor lists no functional one).
    for (const char* k : {"_foreach_clamp_max_.Scalar", "_foreach_clamp_min_.Scalar"}) m[k] = &kNonDecreasing;
    m["_foreach_erfc.default"] = &kNonIncreasing;
    m["_foreach_neg.default"] = &kNeg;
    for (const char* k : {"_foreach_maximum.List", "_foreach_clamp_min.List"}) m[k] = &kMaxPreserving;
    for (const char* k : {"_foreach_minimum.List", "_foreach_clamp_max.List"}) m[k] = &kMinPreserving;
    m["_foreach_clone.default"] = &kAllPartial;
    m["_foreach_max.default"] = &kMax;
    return m;
  }();
  return t;
}

// The list ops DTensor 2.14 registers (tests/dtensor/dtensor_ops_2.14.json) with their overloads.
struct ListOpEntry {
  const char* name;
  const char* overloads;  // space-separated
};
constexpr std::array kUnaryDefault = {
    "_foreach_abs",   "_foreach_acos",  "_foreach_asin",    "_foreach_atan",   "_foreach_ceil",
    "_foreach_cos",   "_foreach_cosh",  "_foreach_erf",     "_foreach_erfc",   "_foreach_exp",
    "_foreach_expm1", "_foreach_floor", "_foreach_frac",    "_foreach_lgamma", "_foreach_log",
    "_foreach_log10", "_foreach_log1p", "_foreach_log2",    "_foreach_neg",    "_foreach_reciprocal",
    "_foreach_round", "_foreach_rsqrt", "_foreach_sigmoid", "_foreach_sign",   "_foreach_sin",
    "_foreach_sinh",  "_foreach_sqrt",  "_foreach_tan",     "_foreach_tanh",   "_foreach_trunc"};  // each also as name_
constexpr ListOpEntry kOtherListOps[] = {
    {"_foreach_add", "List Scalar ScalarList Tensor"},
    {"_foreach_add_", "List Scalar ScalarList Tensor"},
    {"_foreach_sub", "List Scalar ScalarList"},
    {"_foreach_sub_", "List Scalar ScalarList"},
    {"_foreach_mul", "List Scalar ScalarList Tensor"},
    {"_foreach_mul_", "List Scalar ScalarList Tensor"},
    {"_foreach_div", "List Scalar ScalarList Tensor"},
    {"_foreach_div_", "List Scalar ScalarList Tensor"},
    {"_foreach_addcdiv", "Scalar ScalarList"},
    {"_foreach_addcdiv_", "Scalar ScalarList Tensor"},
    {"_foreach_addcmul", "Scalar ScalarList"},
    {"_foreach_addcmul_", "Scalar ScalarList Tensor"},
    {"_foreach_clamp_max", "List Scalar ScalarList"},
    {"_foreach_clamp_max_", "List Scalar ScalarList"},
    {"_foreach_clamp_min", "List Scalar ScalarList"},
    {"_foreach_clamp_min_", "List Scalar ScalarList"},
    {"_foreach_lerp", "List Scalar ScalarList"},
    {"_foreach_lerp_", "List Scalar ScalarList"},
    {"_foreach_maximum", "List"},
    {"_foreach_maximum_", "List"},
    {"_foreach_minimum", "List"},
    {"_foreach_minimum_", "List"},
    {"_foreach_pow", "List Scalar ScalarAndTensor ScalarList"},
    {"_foreach_pow_", "List Scalar ScalarList"},
    {"_foreach_clone", "default"},
    {"_foreach_zero_", "default"},
    {"_foreach_norm", "Scalar"},
    {"_foreach_powsum", "Scalar"},
    {"_foreach_max", "default"},
    {"_foreach_mm", "default"},
    {"_fused_adam", "default tensor_lr"},
    {"_fused_adam_", "default tensor_lr"},
    {"_fused_adamw", "default tensor_lr"},
    {"_fused_adamw_", "default tensor_lr"},
    {"_amp_foreach_non_finite_check_and_unscale_", "default"},
};

// List op name -> its overloads (space-separated).
const std::unordered_map<std::string, std::string, RuleKeyHash, std::equal_to<>>& listOps() {
  static const auto t = [] {
    std::unordered_map<std::string, std::string, RuleKeyHash, std::equal_to<>> m;
    for (const char* n : kUnaryDefault) {
      m[n] = "default";
      m[std::string(n) + "_"] = "default";
    }
    for (const auto& e : kOtherListOps) m[e.name] = e.overloads;
    return m;
  }();
  return t;
}

bool hasOverload(std::string_view overloads, std::string_view ov) {
  size_t at = 0;
  while (at <= overloads.size()) {
    size_t end = overloads.find(' ', at);
    if (end == std::string_view::npos) end = overloads.size();
    if (overloads.substr(at, end - at) == ov) return true;
    at = end + 1;
  }
  return false;
}

// The single-tensor op each position of a list op is, where it is not pointwise (solved by that op's rule).
const char* elementOp(std::string_view name) {
  if (name == "_foreach_norm") return "aten.norm.Scalar";
  if (name == "_foreach_powsum") return "aten.linalg__powsum.default";
  if (name == "_foreach_max") return "aten.max.default";
  if (name == "_foreach_mm") return "aten.mm.default";
  return nullptr;
}

// ---- the op: overload, Partial rules, in place ----

struct ListOp {
  std::string name;      // "_foreach_add_"
  std::string overload;  // "List"; inferred from the arguments when the op name carries none
  bool inplace = false;
  const Rows* rows = nullptr;
  const char* element = nullptr;
};

// The overload written in the op name ("aten._foreach_add.List" -> "List"), else "".
std::string_view writtenOverload(std::string_view op) {
  if (op.starts_with("torch.ops.")) op.remove_prefix(10);
  const size_t a = op.find('.');
  if (a == std::string_view::npos) return {};
  const size_t b = op.find('.', a + 1);
  return b == std::string_view::npos ? std::string_view() : op.substr(b + 1);
}

// An overload read off the arguments, for op names written without one: the argument that tells them apart is
// arg 1 (add, mul, pow, clamp, ...), arg 2 (lerp), arg 3 (addcmul / addcdiv), or the `lr` keyword (fused).
std::string inferOverload(const RuleContext& ctx, std::string_view name, std::string_view overloads) {
  if (overloads.find(' ') == std::string_view::npos) return std::string(overloads);
  if (name.starts_with("_fused_")) {
    const Arg* lr = ctx.arg(-1, "lr");
    return lr && lr->isTensor() ? "tensor_lr" : "default";
  }
  if (const Arg* a0 = ctx.arg(0); name.starts_with("_foreach_pow") && a0 && !a0->isList()) return "ScalarAndTensor";
  const int pos = name.starts_with("_foreach_lerp") ? 2 : name.starts_with("_foreach_addc") ? 3 : 1;
  const Arg* a = ctx.arg(pos);
  if (!a) return pos == 3 ? "Scalar" : "";  // addcmul's value defaults to 1
  if (a->isTensor()) return "Tensor";
  if (a->isList())
    return std::any_of(a->items.begin(), a->items.end(), [](const Arg& x) { return x.isTensor(); }) ? "List"
                                                                                                    : "ScalarList";
  return "Scalar";
}

ListOp listOpOf(const RuleContext& ctx, std::string_view overloads) {
  ListOp op;
  op.name = ruleKey(ctx.node->op);
  op.overload = std::string(writtenOverload(ctx.node->op));
  if (op.overload.empty()) op.overload = inferOverload(ctx, op.name, overloads);
  op.inplace = op.name.ends_with('_');
  std::string base = op.name;
  const auto& rows = partialRows();
  if (auto it = rows.find(base + "." + op.overload); it != rows.end()) op.rows = it->second;
  if (!op.rows && op.inplace) {
    base.pop_back();
    if (auto it = rows.find(base + "." + op.overload); it != rows.end()) op.rows = it->second;
  }
  op.element = elementOp(op.name);
  return op;
}

// ---- the node's lists ----

struct Layout {
  int positions = 0;
  std::vector<std::vector<int>> inputs;  // per position: its tensor inputs in argument order
  std::vector<int> self;                 // per position: the first list's element
  std::vector<int> keyword;              // keyword tensors: read whole (Replicate)
  int lists = 0;                         // tensor-list arguments
  std::string error;                     // lists of different lengths
};

int countTensors(const Arg& a) {
  if (a.isTensor()) return 1;
  int n = 0;
  if (a.isList())
    for (const Arg& x : a.items) n += countTensors(x);
  return n;
}

Layout layoutOf(const RuleContext& ctx) {
  struct Piece {
    bool list = false;
    std::vector<int> items;  // input index per element, -1 for a non-tensor element
  };
  std::vector<Piece> pieces;
  Layout L;
  int next = 0;
  for (const Arg& a : ctx.node->args) {
    if (a.isTensor()) {
      pieces.push_back({false, {next++}});
    } else if (a.isList() && countTensors(a) > 0) {
      Piece p{true, {}};
      for (const Arg& x : a.items) {
        p.items.push_back(x.isTensor() ? next : -1);
        next += countTensors(x);
      }
      if (L.lists++ == 0)
        L.positions = static_cast<int>(p.items.size());
      else if (static_cast<int>(p.items.size()) != L.positions && L.error.empty())
        L.error = "its tensor lists hold " + std::to_string(L.positions) + " and " + std::to_string(p.items.size()) +
                  " tensors";
      pieces.push_back(std::move(p));
    }
  }
  for (const auto& kv : ctx.node->kwargs)
    for (int k = countTensors(kv.second); k > 0; --k) L.keyword.push_back(next++);
  if (next != ctx.inputCount() && L.error.empty()) L.lists = 0;  // not the node's numbering: cannot tell
  if (!L.error.empty() || L.lists == 0) return L;
  const Piece& first = *std::find_if(pieces.begin(), pieces.end(), [](const Piece& q) { return q.list; });
  L.inputs.assign(L.positions, {});
  L.self.assign(L.positions, -1);
  for (int i = 0; i < L.positions; ++i) {
    L.self[i] = first.items[i];
    for (const Piece& p : pieces) {
      const int in = p.list ? p.items[i] : p.items[0];
      if (in >= 0) L.inputs[i].push_back(in);
    }
  }
  return L;
}

// ---- one position, on a sub-context ----

// "input 3" in a sub-context's sentence -> the node's numbering.
std::string renumber(const std::string& s, const std::vector<int>& map) {
  static constexpr std::string_view kWord = "input ";
  std::string out;
  size_t at = 0;
  while (true) {
    const size_t hit = s.find(kWord, at);
    if (hit == std::string::npos) break;
    size_t end = hit + kWord.size();
    while (end < s.size() && s[end] >= '0' && s[end] <= '9') ++end;
    out.append(s, at, hit + kWord.size() - at);
    if (end > hit + kWord.size()) {
      size_t k = 0;  // digits of a sub-context index (small); capped, never throws
      for (size_t c = hit + kWord.size(); c < end; ++c) k = std::min<size_t>(k * 10 + (s[c] - '0'), map.size());
      out += k < map.size() ? std::to_string(map[k]) : s.substr(hit + kWord.size(), end - hit - kWord.size());
    }
    at = end;
  }
  return out + s.substr(at);
}

using Fix = std::vector<std::pair<int, ShardingSpec>>;  // input assignments (node numbering) a position accepts

struct Answer {
  RuleResult res;  // node numbering; Ok: outputs[0] is the position's output
  std::vector<Fix> fixes;
};

// A position whose inputs DTensor's extra Partial rules cover on some mesh dims: those mesh dims are solved by the
// matching rule (output placement from it), the others by `base` with them Replicate.
RuleResult withRows(const RuleContext& sub, const Rows* rows, RuleFn base) {
  const int n = sub.inputCount();
  std::vector<std::pair<int, const Row*>> matched;
  for (int m = 0; rows && m < sub.mesh->ndim(); ++m) {
    bool anyPartial = false;
    for (int i = 0; i < n; ++i)
      anyPartial |= sub.inSpecs[i] && m < sub.inSpecs[i]->meshDims() && (*sub.inSpecs[i])[m].isPartial();
    if (!anyPartial) continue;
    const Row* hit = nullptr;
    for (const Row& r : *rows) {
      if (static_cast<int>(r.size()) != n + 1) continue;
      bool ok = true;
      for (int i = 0; i < n && ok; ++i)
        ok = sub.inSpecs[i] && m < sub.inSpecs[i]->meshDims() && slotMatches(r[i + 1], (*sub.inSpecs[i])[m]);
      if (ok) {
        hit = &r;
        break;
      }
    }
    if (!hit) return base(sub);  // that Partial gets the base rule's verdict
    matched.emplace_back(m, hit);
  }
  if (matched.empty()) return base(sub);
  RuleContext flat = sub;
  for (auto& s : flat.inSpecs)
    if (s)
      for (const auto& [m, r] : matched) s->placements[m] = Placement::replicate();
  RuleResult res = base(flat);
  if (!res.ok()) return res;
  for (auto& out : res.outputs)
    if (out)
      for (const auto& [m, r] : matched) out->placements[m] = slotPlacement(r->front());
  // One placement list holds one Partial reduce op (sum with avg aside): DTensor drops such a strategy.
  if (!res.outputs.empty() && res.outputs[0]) {
    const ShardingSpec& o = *res.outputs[0];
    std::optional<ReduceOp> first;
    for (int m = 0; m < o.meshDims(); ++m) {
      if (!o[m].isPartial()) continue;
      const auto linear = [](ReduceOp x) { return x == ReduceOp::Sum || x == ReduceOp::Avg; };
      if (!first) first = o[m].reduce;
      if (o[m].reduce == *first || (linear(o[m].reduce) && linear(*first))) continue;
      int input = 0;
      while (input < n && !(sub.inSpecs[input] && (*sub.inSpecs[input])[m].isPartial())) ++input;
      if (input == n) input = 0;
      ShardingSpec want = sub.inSpecs[input] ? *sub.inSpecs[input] : ShardingSpec::replicated(o.meshDims());
      want.placements[m] = Placement::replicate();
      return failResult(Verdict::PartialIntoNonlinear, input, want,
                        opTitle(sub) + " would give " + o.toMeshString() +
                            ", Partials of two reduce ops in one placement list; input " + std::to_string(input) +
                            " must be reduced on mesh dim " + std::to_string(m) + " first (all_reduce)");
    }
  }
  return res;
}

struct SubContext {
  Node node;
  RuleContext ctx;
};

// The sub-context of position i: its tensors renumbered 0.., the node's op (or the element op) and one output.
void buildSub(SubContext& s, const RuleContext& ctx, const Layout& L, const ListOp& op, const SpecList& specs, int i) {
  const std::vector<int>& ins = L.inputs[i];
  s.node = Node();
  s.node.op = op.element ? std::string(op.element) : ctx.node->op;
  for (size_t k = 0; k < ins.size(); ++k) s.node.args.push_back(Arg::tensor({static_cast<int>(k), 0}));
  if (op.name == "_foreach_norm" || op.name == "_foreach_powsum")
    if (const Arg* ord = ctx.arg(1, "ord")) s.node.args.push_back(*ord);  // not dtype (arg 2): norm's dim there
  const int oc = ctx.outputCount();
  TensorMeta unknown;
  unknown.known = false;
  s.node.outputs = {oc == L.positions && i < oc ? ctx.node->outputs[i] : unknown};
  s.ctx = RuleContext();
  s.ctx.node = &s.node;
  s.ctx.mesh = ctx.mesh;
  s.ctx.argsComplete = ctx.argsComplete;
  for (int in : ins) {
    s.ctx.inMetas.push_back(ctx.inMetas[in]);
    s.ctx.inSpecs.push_back(specs[in]);
  }
}

std::string where(const ListOp& op, int i) {
  return " (" + (op.element ? op.name + ", " : std::string()) + "list element " + std::to_string(i) + ")";
}

Answer solvePosition(const RuleContext& ctx, const Layout& L, const ListOp& op, const SpecList& specs, int i) {
  SubContext s;
  buildSub(s, ctx, L, op, specs, i);
  const std::vector<int>& map = L.inputs[i];
  RuleFn base = pointwiseNonlinearRule;
  if (op.element) base = findRule(op.element);
  Answer a;
  a.res = base ? withRows(s.ctx, op.rows, base) : unknownResult(s.ctx);
  RuleResult& r = a.res;
  for (auto& note : r.implicitRedistributes) note = renumber(note, map) + where(op, i);
  for (const SpecList& alt : r.alternatives) {
    Fix f;
    for (size_t k = 0; k < alt.size() && k < map.size(); ++k)
      if (alt[k] && !(specs[map[k]] && *specs[map[k]] == *alt[k])) f.emplace_back(map[k], *alt[k]);
    // In place, the first list's element stays as it arrives.
    const bool movesSelf = std::any_of(f.begin(), f.end(), [&](const auto& x) { return x.first == L.self[i]; });
    if (!(op.inplace && movesSelf)) a.fixes.push_back(std::move(f));
  }
  r.alternatives.clear();
  const int self = L.self[i];
  if (r.ok()) {
    if (op.inplace && self >= 0 && specs[self] && !r.outputs.empty() && r.outputs[0] && *r.outputs[0] != *specs[self])
      r = failResult(Verdict::Incompatible, self, std::nullopt,
                     op.name + " writes its result into input " + std::to_string(self) + " (list element " +
                         std::to_string(i) + " of self), which arrives as " + specs[self]->toMeshString() +
                         ", but the result would be " + r.outputs[0]->toMeshString() +
                         ": an in-place op cannot change its self's placement");
    return a;
  }
  r.input = r.input >= 0 && r.input < static_cast<int>(map.size()) ? map[r.input] : r.input;
  r.message = renumber(r.message, map) + where(op, i);
  // In place, self cannot move: blame the input the first kept assignment moves instead.
  if (op.inplace && r.input == self && !a.fixes.empty() && !a.fixes.front().empty()) {
    const auto& [in, want] = a.fixes.front().front();
    r.message = op.name + " keeps self's element as " + (specs[self] ? specs[self]->toMeshString() : "?") +
                ", so input " + std::to_string(in) + " must arrive as " + want.toMeshString() + "; " + r.message;
    r.input = in;
    r.want = want;
  }
  return a;
}

// ---- the whole node ----

// Output i is position i's; a node holding another count of outputs (an in-place op's none) gets no specs.
SpecList outputsOf(const RuleContext& ctx, const Layout& L, const SpecList& perPosition) {
  if (ctx.outputCount() == L.positions) return perPosition;
  return SpecList(ctx.outputCount(), std::nullopt);
}

RuleResult keywordCheck(const RuleContext& ctx, const Layout& L, const ListOp& op, const SpecList& specs) {
  for (int in : L.keyword) {
    if (!specs[in] || specs[in]->isReplicated()) continue;
    const bool partial = specs[in]->hasPartial();
    return failResult(partial ? Verdict::PartialIntoNonlinear : Verdict::Incompatible, in,
                      ShardingSpec::replicated(ctx.mesh->ndim()),
                      op.name + " reads its keyword tensor input " + std::to_string(in) +
                          " whole on every rank (DTensor: Replicate), but it arrives as " + specs[in]->toMeshString());
  }
  return okResult({});
}

RuleResult solveAll(const RuleContext& ctx, const Layout& L, const ListOp& op, const SpecList& specs,
                    bool withAlternatives);

// Assignments fixing every failing position (the first's choices, each other's first), checked on the whole node.
std::vector<SpecList> alternativesOf(const RuleContext& ctx, const Layout& L, const ListOp& op,
                                     const std::vector<std::vector<Fix>>& failing) {
  std::vector<SpecList> out;
  constexpr size_t kMaxAlternatives = 8;
  for (size_t a = 0; a < failing.front().size() && out.size() < kMaxAlternatives; ++a) {
    SpecList s = ctx.inSpecs;
    for (const auto& [in, spec] : failing.front()[a]) s[in] = spec;
    for (size_t j = 1; j < failing.size(); ++j)
      if (!failing[j].empty())
        for (const auto& [in, spec] : failing[j].front()) s[in] = spec;
    for (int in : L.keyword) s[in] = ShardingSpec::replicated(ctx.mesh->ndim());
    if (solveAll(ctx, L, op, s, false).ok()) out.push_back(std::move(s));
  }
  return out;
}

RuleResult solveAll(const RuleContext& ctx, const Layout& L, const ListOp& op, const SpecList& specs,
                    bool withAlternatives) {
  SpecList perPosition(L.positions, std::nullopt);
  std::vector<std::string> notes;
  std::optional<RuleResult> failure;
  std::vector<std::vector<Fix>> failing;
  for (int i = 0; i < L.positions; ++i) {
    Answer a = solvePosition(ctx, L, op, specs, i);
    if (!a.res.ok()) {
      if (!failure) failure = std::move(a.res);
      if (!withAlternatives) return *failure;
      failing.push_back(std::move(a.fixes));
      continue;
    }
    if (!a.res.outputs.empty()) perPosition[i] = a.res.outputs[0];
    for (auto& n : a.res.implicitRedistributes) notes.push_back(std::move(n));
  }
  if (!failure) {
    RuleResult kw = keywordCheck(ctx, L, op, specs);
    if (!kw.ok()) failure = std::move(kw);
  }
  if (failure) {
    if (withAlternatives && !failing.empty()) {
      failure->alternatives = alternativesOf(ctx, L, op, failing);
    } else if (withAlternatives) {  // only a keyword tensor is off: it becomes Replicate
      SpecList s = specs;
      for (int in : L.keyword) s[in] = ShardingSpec::replicated(ctx.mesh->ndim());
      failure->alternatives.push_back(std::move(s));
    }
    return *failure;
  }
  RuleResult r = okResult(outputsOf(ctx, L, perPosition));
  r.implicitRedistributes = std::move(notes);
  return r;
}

// Where DTensor 2.14 raises for every input placement: core refuses those list ops outright.
std::optional<std::string> dtensorRaises(const ListOp& op, std::string_view overloads) {
  const std::string full = op.name + "." + op.overload;
  if (!hasOverload(overloads, op.overload))
    return full + " has no DTensor sharding strategy (DTensor 2.14 has " + op.name + " only as " +
           std::string(overloads) + "), so DTensor raises for every input placement";
  // The functional fused optimizers return five lists: DTensor's tensor-meta check wants one list[TensorMeta] for
  // an op returning Tensor[] lists and raises on the tuple of lists (_validate_tensor_meta_count).
  if (op.name == "_fused_adam" || op.name == "_fused_adamw")
    return full +
           " returns five tensor lists, and DTensor 2.14's sharding propagation raises on such an op for "
           "every input placement (its tensor-meta check expects one list); use the in-place " +
           op.name + "_";
  // The scalars tensor is moved to the meta device for shape propagation, where the kernel refuses it.
  if (op.overload == "Tensor" && (op.name == "_foreach_addcmul_" || op.name == "_foreach_addcdiv_"))
    return full +
           ": DTensor 2.14 propagates shapes with the scalars tensor on the meta device, where the kernel "
           "requires it on the CPU, so it raises for every input placement";
  return std::nullopt;
}

RuleResult listRule(const RuleContext& ctx) {
  if (!ctx.node || !ctx.mesh) return unknownResult(ctx);
  const auto entry = listOps().find(ruleKeyView(ctx.node->op));
  if (entry == listOps().end()) return unknownResult(ctx);
  const ListOp op = listOpOf(ctx, entry->second);
  if (op.overload.empty()) return unknownResult(ctx);
  if (auto why = dtensorRaises(op, entry->second)) return failResult(Verdict::Incompatible, 0, std::nullopt, *why);
  const Layout L = layoutOf(ctx);
  if (!L.error.empty())
    return failResult(Verdict::BadShapes, ctx.inputCount() - 1, std::nullopt,
                      op.name + ": " + L.error + "; every tensor list must be as long");
  if (L.lists == 0) return unknownResult(ctx);
  return solveAll(ctx, L, op, ctx.inSpecs, true);
}

}  // namespace

void registerForeachRules(RuleTable& t) {
  for (const auto& [name, overloads] : listOps()) t[name] = listRule;
}

}  // namespace ss::rules
