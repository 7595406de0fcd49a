#pragma once
// The label solver every rule family uses: an op is described as an einsum over dim labels, and each mesh dim
// is solved on its own, as DTensor propagates placements.
//
// Model: each participating tensor input names a label per dim (-1 = a dim the op cannot split, such as an
// indexed dim). Each output names a label per dim. On one mesh dim:
//   - Shard: all sharded inputs must shard the same label; every input that has that label (with size > 1)
//     must shard it the same way, and every input without it (or broadcasting it from size 1) must be
//     Replicate. The output shards the label where it has it; a label absent from an output is a contraction
//     and gives Partial(contraction), or is refused when the problem has no contraction.
//   - Partial: allowed as the policy says (see PartialPolicy).
//   - Replicate everywhere: the output is Replicate.
// Labels can be forbidden (never sharded: the softmax dim, an attention sequence) and can require even
// division (views that merge or split a sharded dim need the shard to fall on whole rows).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model/layout.h"
#include "core/rules/rules.h"

namespace ss::rules {

enum class PartialPolicy : uint8_t {
  Preserve,        // one data input; the op commutes with every reduction (views, clone, conversions)
  Additive,        // jointly linear (add, sub, cat, sum): all data inputs Partial with the same sum/avg op
  Multiplicative,  // linear in each factor (mul, mm): exactly one data input Partial(sum|avg), others Replicate
  Nonlinear,       // any Partial data input is an error
};

struct LabelInput {
  int input = -1;           // tensor input index
  std::vector<int> labels;  // one per dim of that input
  bool data = true;         // false: an index/target tensor, never Partial
  bool mayBePartial = true; // for Multiplicative: this factor may carry the Partial (div: only the numerator)
};

// A participating input with its labels (data = false: an index/target tensor, never Partial).
inline LabelInput labelled(int input, std::vector<int> labels, bool data = true) {
  LabelInput x;
  x.input = input;
  x.labels = std::move(labels);
  x.data = data;
  return x;
}

struct LabelProblem {
  std::vector<LabelInput> ins;
  std::vector<std::optional<std::vector<int>>> outs;  // one per node output; nullopt = not a tensor
  std::map<int, std::string> forbidden;               // label -> why it cannot be sharded
  std::map<int, std::vector<int64_t>> evenSizes;      // label -> sizes the shard count must divide
  std::optional<ReduceOp> contraction = ReduceOp::Sum;
  std::string noContractionWhy = "it reduces over a sharded dim";
  PartialPolicy partial = PartialPolicy::Nonlinear;
};

// Solves the problem on every mesh dim. Fills outputs (Ok) or the failure (input, want, message) and, unless
// `withAlternatives` is false, the alternatives the fix planner can choose from.
RuleResult solveLabels(const RuleContext& ctx, const LabelProblem& p, bool withAlternatives = true);

// True when every participating input has a known spec and shape (rules return "unknown" otherwise).
bool inputsKnown(const RuleContext& ctx, const LabelProblem& p);
RuleResult unknownResult(const RuleContext& ctx);  // Ok, every output spec nullopt

// Labels for inputs aligned from the right against an output of rank `outRank` (broadcasting).
std::vector<int> alignedLabels(int rank, int outRank);

// Short op name for messages: "index_put".
std::string opTitle(const RuleContext& ctx);
// "[16, 32, 1, 64]" local shape of a tensor on one rank, or "?" when the spec does not fit the shape.
std::string localShapeString(const std::vector<int64_t>& shape, const DeviceMesh& mesh, const ShardingSpec& spec,
                             int64_t rank);
std::optional<std::vector<int64_t>> localShapeOf(const std::vector<int64_t>& shape, const DeviceMesh& mesh,
                                                 const ShardingSpec& spec, int64_t rank);

// Normalises a dim argument against a rank (negative dims count from the end); nullopt when out of range.
std::optional<int> normDim(int64_t d, int rank);
inline std::optional<int> normDim(std::optional<int64_t> d, int rank) {
  return d ? normDim(*d, rank) : std::nullopt;
}

// A Shard of the same kind (plain or strided) as `like`, on tensor dim `dim`.
Placement shardLike(const Placement& like, int dim);

// Where DTensor's sharding propagation redistributes inputs that core's rule accepts (core is more permissive:
// each case is a documented difference, docs/checks.md "Checked against DTensor"). Both add one sentence per
// such input to res.implicitRedistributes, and only when res is Ok.
//
// Inputs with a tensor dim split into more pieces than it has elements (some ranks hold none): DTensor 2.14's
// single-dim strategies of mm, addmm, bmm, baddbmm, embedding, gather and index_select drop every strategy that
// keeps such an input (is_tensor_shardable, no allow_uneven_sharding), so it redistributes the input first.
void noteUnshardableInputs(const RuleContext& ctx, RuleResult& res);
// Input `input` arrives Partial with an op its DTensor strategies do not keep (`kept`: the one reduce op they
// keep, nullopt: none): DTensor reduces it first. `what` names the input in the sentence ("weight").
void notePartialInput(const RuleContext& ctx, RuleResult& res, int input, std::optional<ReduceOp> kept,
                      const std::string& what);

// One mesh dim's placement in a DTensor "partial rule" row ([output, input 0, input 1, ...]): Replicate or a
// Partial of one reduce op. pointwise_partial.cpp and foreach.cpp match inputs against such rows.
enum class PartialSlot : uint8_t { R, PSum, PAvg, PMax, PMin };
inline bool slotMatches(PartialSlot s, const Placement& p) {
  switch (s) {
    case PartialSlot::R: return p.kind == PlacementKind::Replicate;
    case PartialSlot::PSum: return p.isPartial() && p.reduce == ReduceOp::Sum;
    case PartialSlot::PAvg: return p.isPartial() && p.reduce == ReduceOp::Avg;
    case PartialSlot::PMax: return p.isPartial() && p.reduce == ReduceOp::Max;
    case PartialSlot::PMin: return p.isPartial() && p.reduce == ReduceOp::Min;
  }
  return false;
}
inline Placement slotPlacement(PartialSlot s) {
  switch (s) {
    case PartialSlot::R: return Placement::replicate();
    case PartialSlot::PSum: return Placement::partial(ReduceOp::Sum);
    case PartialSlot::PAvg: return Placement::partial(ReduceOp::Avg);
    case PartialSlot::PMax: return Placement::partial(ReduceOp::Max);
    case PartialSlot::PMin: return Placement::partial(ReduceOp::Min);
  }
  return Placement::replicate();
}

// Result helpers for rules that decide on their own.
RuleResult okResult(SpecList outs);
RuleResult failResult(Verdict v, int input, std::optional<ShardingSpec> want, std::string message);

}  // namespace ss::rules
