#pragma once
// Sharding rules: for one op, given the specs and shapes its tensor inputs arrive in, can the op run on the
// local shards as they are (DTensor semantics), and what is the spec of each output?
//
// Contract: a rule is a pure function of its RuleContext (no Plan access), total (never throws), and fast
// enough to run once per node of a 100k-node graph. A rule returns:
//   - Ok with one output spec per node output (nullopt = not a tensor, or not decidable from what is known);
//   - Incompatible, naming the input that breaks it, the spec that input would need, and a sentence with the
//     per-rank local shapes that collide;
//   - PartialIntoNonlinear when a Partial value reaches an op that is not linear in it.
// Each rule may also list `alternatives`: complete input-spec assignments it accepts, from which the fix
// planner (core/plan/fix.h) picks the cheapest to redistribute into. Ops without a rule: findRule returns nullptr
// and the checker reports them once per op as "unchecked-op".
//
// Files: engine.{h,cpp} (the per-mesh-dim label solver every family uses), and one file per family:
// pointwise, matmul, view, reduction, index, attention (softmax, SDPA, losses, norms), factory, collective.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/graph.h"
#include "core/model/mesh.h"
#include "core/model/placement.h"

namespace ss::rules {

using SpecList = std::vector<std::optional<ShardingSpec>>;

struct RuleContext {
  const Node* node = nullptr;
  const DeviceMesh* mesh = nullptr;
  std::vector<const TensorMeta*> inMetas;  // per tensor input (input-index order); nullptr when unknown
  SpecList inSpecs;                        // the spec each tensor input arrives in; nullopt = unknown
  SpecList declaredOut;                    // the plan's output specs (factories and collectives read them)
  // False when the file carries no non-tensor arguments (an autoparallel export: args are the tensor inputs
  // only). Rules then take what they can from the declared output shape, and are "unknown" otherwise: a missing
  // argument is never read as its default.
  bool argsComplete = true;

  // Positional argument `pos`, else keyword `kw`; nullptr when absent.
  const Arg* arg(int pos, std::string_view kw = {}) const;
  std::optional<int64_t> intArg(int pos, std::string_view kw = {}) const;
  std::optional<double> numberArg(int pos, std::string_view kw = {}) const;  // int or float
  std::optional<bool> boolArg(int pos, std::string_view kw = {}) const;
  // The int argument, else `dflt` when the arguments are complete (an omitted optional argument), else nullopt.
  std::optional<int64_t> intArgOr(int pos, std::string_view kw, int64_t dflt) const;
  std::optional<std::vector<int64_t>> intListArg(int pos, std::string_view kw = {}) const;  // also a single int
  // Input index of a tensor argument (the Arg must point into node->args/kwargs); -1 when not a tensor.
  int inputIndexOf(const Arg* a) const;
  int inputCount() const { return static_cast<int>(inSpecs.size()); }
  int rank(int input) const { return inMetas[input] && inMetas[input]->known ? inMetas[input]->rank() : -1; }
  const std::vector<int64_t>& shape(int input) const { return inMetas[input]->shape; }  // only when rank() >= 0
  int outputCount() const { return static_cast<int>(node->outputs.size()); }
  // Declared output meta, when known.
  const TensorMeta* outMeta(int i = 0) const;
};

// BadShapes: the global shapes themselves do not fit the op (reported as "shape-mismatch"). Output shapes are
// not a rule's business: the op table's shape facts (core/ops/op_shapes.h) give them, once for every reader.
enum class Verdict : uint8_t { Ok, Incompatible, PartialIntoNonlinear, BadShapes };

struct RuleResult {
  Verdict verdict = Verdict::Ok;
  SpecList outputs;                                        // when Ok: one per node output
  int input = -1;                                          // when not Ok: the input that breaks the rule
  std::optional<ShardingSpec> want;                        // ... and the spec it would need
  std::string message;
  std::vector<std::string> notes;
  std::vector<SpecList> alternatives;                      // input assignments the rule accepts
  // When Ok: inputs DTensor's sharding propagation would still redistribute at run time before the op (core
  // accepts them as they arrive; each is a documented difference, tests/dtensor/known_differences.json). One
  // sentence each; the checker reports them as "implicit-redistribute" (info) at the node.
  std::vector<std::string> implicitRedistributes;
  // When Ok: means whose denominator depends on the data (a loss's count of targets not ignored, the sum of
  // their weights) taken over a sharded dim: each rank divides by its own count, so the Partial(avg) result is
  // the global mean only when every rank counts alike. One sentence each, naming the dim and why; the checker
  // reports them as "data-dependent-mean" (warning) at the node. DTensor leaves this to the user.
  std::vector<std::string> dataDependentMeans;

  bool ok() const { return verdict == Verdict::Ok; }
};

using RuleFn = RuleResult (*)(const RuleContext&);

// "aten.index_put.default" -> "index_put", "torch.ops._c10d_functional.wait_tensor.default" -> "wait_tensor",
// "operator.getitem" -> "getitem", "prims.convert_element_type.default" -> "convert_element_type"; another
// namespace keeps it without the overload: "autosp.all_to_all.default" -> "autosp.all_to_all".
std::string ruleKey(std::string_view op);
std::string_view ruleKeyView(std::string_view op);  // the same, as a view into `op` (no allocation)
// Transparent hashing: tables keyed by rule key are looked up by string_view (once per node).
struct RuleKeyHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
// The rule for an op target; nullptr when there is none.
RuleFn findRule(std::string_view op);
// Every op name (rule key) that has a rule, sorted; for docs and tests.
std::vector<std::string> ruledOps();

}  // namespace ss::rules
