#pragma once
// PlanBuilder: how every reader makes a Plan. Readers translate their syntax into these calls; the builder owns
// the node-name index, the spec-parse cache, the limits (core/model/limits.h) and, through Plan::validate, the rules.
//
// Two kinds of problems (docs/plan-format.md):
// - Refusals: what cannot be understood (a spec that does not parse, a duplicate or unknown node name, an edge
//   that does not exist, an invalid graph). A call returns the Error at its Where; the reader stops there.
// - Findings: what parses but is wrong (a shard dim past its tensor's rank, a spec with the wrong number of
//   placements, two redistributes on one edge, a tag on a dim that does not exist, an unknown loss node). The
//   builder keeps them in the Plan as given; finish() does not refuse them, and the checker reports each one
//   (Plan::validate) as an error diagnostic at its node and input.
//
// Specs are parsed as syntax only (ParseContext::syntaxOnly), once per distinct text; the text a call passes must
// outlive the builder (the readers' parsed documents do). Negative shard dims are resolved against their tensor's
// rank in finish(), when every rank is known (a tuple's element ranks come from its getitems).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/model/limits.h"
#include "core/model/plan.h"
#include "core/model/result.h"

namespace ss {

// Where a value sits in its file; cheap to make and pass (views of literals and of the document's strings),
// formatted only when a message needs it. JSON: up to four steps, each a key with an optional index
// ({"nodes", 3}, {"spec", 0} is "/nodes/3/spec/0"); keys are escaped when formatted. Text: line and column.
struct Where {
  struct Step {
    std::string_view key;
    int64_t index = -1;  // < 0: the key alone; an empty key: the index alone
  };
  std::array<Step, 4> steps{};
  int depth = 0;
  int line = 0, col = 0;

  Where() = default;
  Where(std::string_view key, int64_t index = -1) { steps[depth++] = {key, index}; }
  static Where at(int line, int col) {
    Where w;
    w.line = line;
    w.col = col;
    return w;
  }
  // This place with one more step ("/nodes/3" + {"spec", 0}).
  Where operator()(std::string_view key, int64_t index = -1) const {
    Where w = *this;
    if (w.depth < static_cast<int>(w.steps.size())) w.steps[w.depth++] = {key, index};
    return w;
  }
  // This place with an array index ("/mesh/shape" -> "/mesh/shape/1").
  Where item(int64_t index) const { return (*this)({}, index); }
  std::string pointer() const;
  Error error(std::string message) const;  // Error::atPointer, or Error::atLine for a text place
};

using SpecTuple = std::vector<std::optional<ShardingSpec>>;

class PlanBuilder {
 public:
  explicit PlanBuilder(PlanFormat format);
  // Specs applied to an existing graph (a placements file): the base plan's nodes, specs and settings.
  explicit PlanBuilder(Plan base, PlanFormat format);

  // The plan being built, for what has no rule (name, description, summary, per-edge costs, node details).
  Plan& plan() { return plan_; }
  const DeviceMesh& mesh() const { return plan_.mesh; }

  // ---- Mesh: sizes past limits::kMaxMeshDimRead read as that; DeviceMesh::make's refusals at `w`.
  Result<bool> setMesh(std::vector<int64_t> shape, std::vector<std::string> dimNames, const Where& w);

  // ---- Nodes. The reader fills the node in place (args, metas, phase, module path, source, costs) between
  // beginNode and endNode; args name earlier nodes through find(). endNode indexes the node in the graph's own
  // index (Graph::indexNext: its name, non-empty and unique or refused at w("name"); its inputs and users) and
  // returns the node's index.
  static NodeKind kindOfOp(std::string_view op);  // placeholder and get_attr: Placeholder; output: Output
  void reserveNodes(size_t n);
  Node& beginNode(int* index = nullptr);
  Result<int> endNode(const Where& w);
  // A reader that builds the graph in one piece (FX text) hands it over whole; finishGraph refuses an invalid
  // graph at `w`. (find() does not know its names.)
  void setGraph(Graph g, const Where& w);
  int find(std::string_view name) const { return plan_.graph.find(name); }
  // The name rule (non-empty, not used before), for readers that check a name before building its node.
  Result<bool> checkName(std::string_view name, const Where& w) const;
  NodeSpecs& specsOf(int node);  // grows the per-node specs up to `node`

  // ---- Specs: syntax only, cached per text. A refusal reads `"TEXT": what (column N)` at `w`.
  Result<const ShardingSpec*> parseSpec(std::string_view text, const Where& w);  // one spec
  Result<const SpecTuple*> parseTuple(std::string_view text, const Where& w);   // a spec, a tuple, or "None"
  void setOutputSpec(int node, int k, std::optional<ShardingSpec> s);
  void setInputSpec(int node, int k, std::optional<ShardingSpec> s);

  // ---- Redistributes on an edge (node, input). The edge must exist (refused at w("input") otherwise: call after
  // the node's inputs are known, i.e. after finishGraph()); two on one edge are a finding.
  Result<bool> addRedistribute(int node, int64_t input, ShardingSpec from, ShardingSpec to, const Where& w);

  // ---- AutoSP tag on a node: a tag off a placeholder or on a dim its tensor lacks is a finding.
  void setTag(int node, AutoSpTag tag) { plan_.tags[node] = std::move(tag); }

  // ---- Run settings: an unknown loss node is a finding.
  void setRun(RunSettings r) { plan_.run = std::move(r); }

  // The graph is complete: indexes it (inputs, metas), refuses an invalid graph at "/nodes" and sizes the specs.
  // Redistributes need it; finish() calls it when the reader did not.
  Result<bool> finishGraph();
  // Resolves negative shard dims against their tensors, orders redistributes by edge, checks the structure.
  Result<Plan> finish();

 private:
  static Error usedTwice(std::string_view name, const Where& w);
  void noteNegative(const ShardingSpec& s);
  void resolveNegative();

  Plan plan_;
  std::unordered_map<std::string_view, ShardingSpec> specCache_;
  std::unordered_map<std::string_view, SpecTuple> tupleCache_;
  Where graphWhere_{"nodes"};
  int pendingNode_ = -1;
  bool graphDone_ = false;
  bool namesIndexed_ = true;  // the graph was indexed node by node (false after setGraph)
  bool anyNegative_ = false;
};

}  // namespace ss
