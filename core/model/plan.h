#pragma once
// Plan: a graph placed on a mesh. It is the one model every reader produces, the checker and views read,
// commands edit, writers save and the runner executes.
//
// Contract: specs.size() == graph.size(). For node n, specs[n].outputs has one entry per graph output
// (std::nullopt = none given: treated as unknown by the checker) and specs[n].inputs one per tensor input (the
// spec the op consumes that input in, i.e. autoparallel's dst_placement; nullopt = the producer's output spec).
// A Redistribute sits on an edge (consumer node, input index) and turns the producer's output spec `from` into
// `to`. AutoSP tags sit on placeholder nodes.
//
// Two kinds of rules, both written once, here (docs/plan-format.md):
// - Structure (validateStructure): the graph is valid, one NodeSpecs per node with the right counts. Every reader
//   guarantees it (PlanBuilder::finish refuses otherwise); the checker and the views rely on it.
// - Semantics (validate, validateNode, validatePlanWide): every spec has mesh.ndim() placements and fits its
//   tensor, a redistribute sits on an edge and fits it, at most one redistribute per edge, a tag sits on a
//   placeholder and names one of its dims, the loss node exists. A plan that breaks these still opens: each
//   broken rule is an error Diagnostic at its node and input, which the checker reports.
#include <map>
#include <span>
#include <optional>
#include <string>
#include <vector>

#include "core/model/autosp_sliced.h"
#include "core/model/diagnostics.h"
#include "core/model/graph.h"
#include "core/model/placement.h"

namespace ss {

struct NodeSpecs {
  std::vector<std::optional<ShardingSpec>> outputs;
  std::vector<std::optional<ShardingSpec>> inputs;
  bool operator==(const NodeSpecs&) const = default;
};

struct Redistribute {
  int node = -1;    // consumer
  int input = 0;    // input index on the consumer
  ShardingSpec from, to;
  bool operator==(const Redistribute&) const = default;
};

// AutoSP input tag `(key, seq_dim)`; a bare key has no seq_dim and means dimension 1 (AutoSP's old default).
struct AutoSpTag {
  std::string key;              // "input_id", "label_id", "position_id", ...
  std::optional<int> seqDim;
  int effectiveDim() const { return seqDim.value_or(1); }
  std::string toString() const; // "input_id" or "(input_id, 0)"
  bool operator==(const AutoSpTag&) const = default;
};

struct RunSettings {
  uint64_t seed = 0;
  std::string lossNode;         // node whose (scalar) output is the loss; empty = none (not executable)
  int batches = 3;
  double rtol = 1e-4;
  int spSize = 0;               // AutoSP sequence-parallel size (0 = no AutoSP)
  bool operator==(const RunSettings&) const = default;
};

enum class PlanFormat : uint8_t { Native, AutoparallelJson, AutoparallelPlacements, FxText };
const char* planFormatName(PlanFormat f);

// Per-edge solver costs keyed by (consumer node, input): one sorted array. Readers add them in edge order, which
// appends; a lookup is a binary search. (A std::map here cost a heap node and a rebalance per edge, 126k of
// them in a 95k-node export.)
class EdgeCostTable {
 public:
  using Key = std::pair<int, int>;      // (node, input)
  using Value = std::pair<double, double>;  // (comm_cost, transition_cost)
  using value_type = std::pair<Key, Value>;
  using const_iterator = std::vector<value_type>::const_iterator;

  Value& operator[](const Key& k);  // the edge's costs, (0, 0) added when absent
  const_iterator find(const Key& k) const;  // end() when absent
  const Value& at(const Key& k) const;      // throws std::out_of_range when absent
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  void clear() { items_.clear(); }
  bool operator==(const EdgeCostTable&) const = default;

 private:
  std::vector<value_type> items_;  // sorted by key, unique
};

// Totals as a solver reported them (autoparallel's "summary"), or computed; negative = absent.
struct CostSummary {
  double total = -1, comm = -1, compute = -1, transition = -1;
  bool operator==(const CostSummary&) const = default;
};

struct Plan {
  std::string name;
  std::string description;
  // The PyTorch that wrote the plan's artifacts ("2.14.1+debian": a TORCH_TRACE log's torch_version record, or
  // the plan file's "torch_version"); empty when unknown. The checker judges by that version's DTensor where a
  // verdict depends on it (core/check/torch_version.h).
  std::string torchVersion;
  Graph graph;
  DeviceMesh mesh;
  std::vector<NodeSpecs> specs;
  std::vector<Redistribute> redistributes;
  std::map<int, AutoSpTag> tags;   // placeholder node -> tag
  // The inputs AutoSP's passes slice in a real graph after them (derived from the graph and the log's symbol
  // hints, core/check/autosp_slices.h); empty for any other plan. Not saved: it is re-derived from the log.
  std::vector<AutoSpSlicedInput> autoSpSliced;
  // The log's size-symbol hints the slices were derived from (kept so an edit that moves a slice re-derives them).
  SymbolHints autoSpHints;
  // DeepSpeed's seq_dim fixes applied to this graph by edits (MoveAutoSpSlice, core/plan/edit.h), one per input:
  // a run of the log's rank programs applies the same moves to every rank's program. Not saved.
  std::vector<SeqDimRequest> autoSpMoves;
  RunSettings run;
  CostSummary summary;
  PlanFormat sourceFormat = PlanFormat::Native;
  // Per-edge solver costs from an autoparallel export, keyed by (node, input); absent otherwise.
  EdgeCostTable edgeCosts;
  // A joint graph's returned values: entry k names the parameter placeholder whose gradient value k is (from
  // AOT autograd's output descriptors); empty entries (or none at all) where the graph does not say.
  std::vector<std::string> gradientOf;

  // A solver's solution (its export, or its placements applied to a graph): its apply pass inserts every
  // transition it planned, so an edge whose layouts differ is planned there, not missing.
  bool isSolverSolution() const {
    return sourceFormat == PlanFormat::AutoparallelJson || sourceFormat == PlanFormat::AutoparallelPlacements;
  }
  // The transitions a solver solution plans on its edges, which its apply pass inserts (the checker reports each
  // as redistribute-required): one Redistribute per edge without one of its own whose producer's spec and the
  // spec its consumer expects (consumerSpec) are both valid for the tensor and differ, in edge order. Empty for
  // any other plan. Written out as redistributes whenever a solver plan becomes a native one (writePlanString:
  // saving, running), so that a clean plan stays clean (docs/checks.md "Fix").
  std::vector<Redistribute> plannedTransitions() const;
  // Makes a solver solution the native plan it amounts to (the runner's view: it performs redistributes only):
  // its planned transitions are appended to `redistributes` and its sourceFormat becomes Native. No-op otherwise.
  void adoptPlannedTransitions();
  // Executable: every call node has args and known shapes, and the loss node is in the graph, or, when none is
  // named (a joint graph), the graph returns a floating tensor (the run's verdict is then its outputs).
  bool executable() const;
  // Why no run can start: "placeholder 'x' has no shape" (its sizes are symbolic: "[s72, s70]", or unknown), for
  // the first placeholder without a known shape; nullopt when every placeholder has one. `run` refuses with it.
  std::optional<std::string> shapelessPlaceholder() const;
  // Ensures specs has one entry per node with the right counts (missing entries become nullopt).
  void normalizeSpecs();
  const Redistribute* findRedistribute(int node, int input) const;
  // The spec the producer of input `input` of `node` delivers (its output spec), if known.
  std::optional<ShardingSpec> producerSpec(int node, int input) const;
  // The spec the consumer expects for that input: the input spec; at the output node, for a gradient with no
  // input spec, its parameter's placement (a gradient must end where its parameter lives); else the producer's
  // output spec.
  std::optional<ShardingSpec> consumerSpec(int node, int input) const;
  // The same two without a copy (hot loops over every edge): nullptr where the optional above is empty.
  const ShardingSpec* producerSpecPtr(int node, int input) const;
  const ShardingSpec* consumerSpecPtr(int node, int input) const;
  // The parameter placeholder whose gradient the output node's tensor input `input` is (from gradientOf), or -1.
  int gradientParamOf(int input) const;
  // The placement a gradient must end in at the output node's input `input`: its parameter's output spec, or
  // nullptr when the input is not a known gradient or the parameter has no spec.
  const ShardingSpec* gradientTargetSpec(int input) const;
  // Fills gradientOf from AOT autograd's output order when the graph says nothing itself: a joint graph (one with
  // tangents) returns its forward outputs, then one value per primal (the non-tangent placeholders, in order; get_attr constants are none), the
  // primal's gradient, None for those without one. Leaves gradientOf alone when it is set or the counts do not fit.
  void deriveGradientOutputs();
  // The structural invariants above; empty string when they hold, else "what (/json/pointer)".
  std::string validateStructure() const;
  // Its second half: one NodeSpecs per node with the right counts (for a graph already validated).
  std::string validateSpecCounts() const;
  // Every semantic finding (validateNode for each node, then validatePlanWide); empty when the plan is valid.
  std::vector<Diagnostic> validate() const;
  // Node n's findings: its output specs (input -1), its input specs and the redistributes on its inputs.
  // `redistributeOf[k]` is the index in `redistributes` of the one on input k, or -1 (the checker's index);
  // when empty, findRedistribute is used. Needs validateStructure().
  std::vector<Diagnostic> validateNode(int n, std::span<const int> redistributeOf = {}) const;
  // Findings not at one node's specs: redistributes off the graph's edges or two on one edge, AutoSP tags, the
  // loss node.
  std::vector<Diagnostic> validatePlanWide() const;
  bool operator==(const Plan& o) const;
};

}  // namespace ss
