#pragma once
// An applied (post-sharding) graph, as autoparallel's apply pass traces it on one rank, matched to its Plan.
// Facts: docs/import-formats.md and docs/checks.md "Applied graph checks".
//
// Sections: collectives (what the applied graph communicates), groups -> mesh dims, node matching, the checks.
//
// Contracts:
// - Collectives are `_c10d_functional.*` ops and `_dtensor.shard_dim_alltoall`; `wait_tensor` is their wait, not
//   a collective. A collective's group size comes from its size argument, else from its shapes (an all-to-all
//   grows its gather dim by the group size), else from its split lists.
// - What the graph says is checked before it is used (the graph is input): a group size outside [1, kMaxRanks],
//   a negative literal split size, more splits than kMaxRanks, a gather or shard dim outside its tensor, or (once
//   mapped onto a mesh) a group size that no process group of the mesh has (no mesh dim's size, nor a product of
//   mesh dims': a flattened sub-mesh) make the collective invalid (AppliedCollective::invalid says why): it has no
//   group size and no mesh dim, performs no planned step, and is an `invalid-collective` error at its node.
// - Group names map to mesh dims by, in order: `--group NAME=MESHDIM` overrides; group size (a size that only one
//   mesh dim has, or the product of all mesh dims: the flattened mesh); elimination (the one mesh dim of that size
//   no other group took). A group still ambiguous stays unmapped (meshDim -1) and is reported.
// - Applied-graph names are fresh (apply_sharding re-traces), so nodes are matched by compute-op order: the k-th
//   applied compute op of an equivalent op (t ~ permute, view ~ reshape / _unsafe_view; plan aliases are gone)
//   in a window ahead of the previous match, preferring one whose shape is the plan node's layout on the tracing
//   rank and whose stack-trace comment agrees; placeholders match by name.
// - Every planned transition (an edge whose producer's spec differs from the consumer's input spec, or a
//   Redistribute) must be performed on the consumer's input path in the applied graph: the ops between the
//   matched producer and the matched consumer. Its communicating steps (planRedistribute's) must each appear as a
//   collective of that kind on that mesh dim (or one over the flattened mesh covering them).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/check/check.h"
#include "core/model/diagnostics.h"
#include "core/model/plan.h"
#include "core/redistribute/redistribute.h"

namespace ss {

struct AppliedCollective {
  int node = -1;                  // the collective's node in the applied graph
  int wait = -1;                  // its wait_tensor node, -1 when none (shard_dim_alltoall has none)
  CollectiveKind kind = CollectiveKind::None;
  std::string op;                 // "all_gather_into_tensor", "shard_dim_alltoall", ...
  std::string group;              // group name ("0", "1", ...)
  int64_t groupSize = 0;          // 0 = unknown
  int meshDim = -1;               // -1 unmapped; -2 the flattened mesh (all mesh dims)
  std::string reduceOp;           // all_reduce / reduce_scatter
  int gatherDim = -1, shardDim = -1;  // shard_dim_alltoall's tensor dims
  // The tensor dim it gathers (all_gather), scatters (reduce_scatter) or gathers from (shard_dim_alltoall) in its
  // own value's coordinates, through the reassembly the apply pass adds around it: all_gather -> wait -> split on
  // dim 0 -> getitems -> cat(d) gathers dim d; split(x, d) -> getitems -> cat(0) -> reduce_scatter scatters dim d.
  // -1 when it has none (all_reduce) or it is not known (rank-0 values, symbolic sizes).
  int tensorDim = -1;
  // The node whose value leaves the collective: the reassembly's cat, else its wait, else the collective itself.
  int result = -1;
  std::vector<int64_t> inShape, outShape;  // local shapes (empty when unknown)
  DType dtype = DType::Unknown;
  int64_t bytes = 0;              // sent per rank (docs/cost-model.md's formulas on the local shapes)
  double timeUs = 0;
  int planConsumer = -1, planInput = -1;  // the plan edge whose transition it performs, -1 when none
  // Why its arguments are no collective a process group of the mesh runs ("group size -1 is not a number of
  // ranks (1 to 1048576)"); empty when valid. An invalid collective has groupSize 0 and meshDim -1.
  std::string invalid;
  std::string toString(const DeviceMesh& mesh) const;  // "all_to_all (shard_dim_alltoall) on mesh dim 1 (dim1), 48.0 KiB, 9.3 us"
};

struct GroupMapping {
  std::string group;
  int64_t size = 0;
  int meshDim = -1;               // -1 ambiguous/unknown, -2 flattened mesh
  std::string how;                // "--group", "size", "elimination", "ambiguous: mesh dims 0, 1 have size 4"
  int uses = 0;
  // False when the group's collectives give it two sizes: one process group has one size, so one of them is on
  // another group than its name says, and none of them performs a planned step (checkApplied says so).
  bool consistent = true;
};

// A planned transition (an edge whose spec changes) as the applied graph performs it: the one record the views draw
// from (the plan graph's edge pill, the applied graph's ghost node, the Applied table's missing row). Filled by
// checkApplied, from the same matching as its diagnostics.
enum class TransitionState : uint8_t {
  Applied,   // every communicating step has its collective on the consumer's input path
  Missing,   // a step has none: transition-not-applied
  Unjudged,  // the consumer has no applied counterpart
};
const char* transitionStateName(TransitionState s);  // "applied", "missing", "unjudged"

struct AppliedTransition {
  int consumer = -1, input = -1;            // the plan edge (consumer node, input index)
  TransitionState state = TransitionState::Unjudged;
  std::vector<RedistributeStep> planned;    // the plan's communicating steps
  std::vector<RedistributeStep> missing;    // those without a collective (Missing)
  std::vector<int> collectives;             // indices into AppliedGraph::collectives performing it (Applied)
  int appliedConsumer = -1;                 // the consumer's applied node (-1: Unjudged); its input `input`
  int appliedProducer = -1;                 // the applied node that input reads (where a missing one belongs)
  std::optional<ShardingSpec> from, to;     // the planned layouts (producer's or redistribute's, consumer's)
  std::string fix;                          // Missing: the transition-not-applied diagnostic's fix line
  // "all_to_all dim1 3.3 MiB 32.3 us" (Applied: its collectives), "missing all_to_all dim1 48.0 KiB" (Missing:
  // the steps it lacks, bytes per rank as planned), "all_to_all dim1 48.0 KiB (not judged)" (Unjudged).
  std::string label(const std::vector<AppliedCollective>& cs, const DeviceMesh& mesh) const;
};

// A collective that no planned transition explains (unplanned-collective) and the plan edge it sits on: the first
// plan node downstream and the input it feeds (-1, -1 when none is found).
struct UnplannedCollective {
  int collective = -1;  // index into AppliedGraph::collectives
  int consumer = -1, input = -1;
};

// Short labels shared by the views: "all_to_all dim1 3.3 MiB 32.3 us"; the mesh dim as the mesh names it
// ("tp"), "all dims" for the flattened mesh, "dim?" unmapped.
std::string collectiveLabel(const AppliedCollective& c, const DeviceMesh& mesh);
std::string meshDimLabel(const DeviceMesh& mesh, int meshDim);

struct AppliedOptions {
  std::map<std::string, int> groups;  // --group NAME=MESHDIM
  int rank = -1;                       // tracing rank; -1 = the log's, else 0
  int window = 64;                     // how far ahead node matching looks
  CostModel cost;
};

struct AppliedGraph {
  Plan graph;                          // the applied graph as read (rank-local shapes)
  int rank = 0;
  std::vector<int64_t> coord;          // the tracing rank's mesh coordinate
  std::vector<AppliedCollective> collectives;
  std::vector<GroupMapping> groups;
  std::vector<int> planOf;             // applied node -> plan node, -1 when none
  std::vector<int> appliedOf;          // plan node -> applied node, -1 when none
  int planNodes = 0, matched = 0;      // plan compute nodes + placeholders, and how many matched
  int transitionsPlanned = 0, transitionsFound = 0;
  std::vector<AppliedTransition> transitions;   // every planned transition, in plan order (checkApplied)
  std::vector<UnplannedCollective> unplanned;   // collectives no planned transition explains (checkApplied)
  const AppliedTransition* transitionAt(int consumer, int input) const;  // nullptr when none is planned there
  // Totals per (collective kind, mesh dim): what the applied graph communicates.
  struct Total { CollectiveKind kind; int meshDim; int count; int64_t bytes; double timeUs; };
  std::vector<Total> totals() const;
  std::string summary(const DeviceMesh& mesh) const;  // "rank 0 (0, 0): 31 of 31 nodes matched, 4 collectives ..."
};

// Collectives of an applied graph (mesh dims not yet mapped).
std::vector<AppliedCollective> findCollectives(const Graph& g);
// Maps group names to mesh dims (fills each collective's meshDim); returns one entry per group. An override naming
// a mesh dim the mesh lacks leaves its group unmapped (the session refuses such a --group before this). A valid
// collective whose group size no process group of `mesh` has becomes invalid here. With the tracing
// rank's mesh coordinate, a group that sizes leave ambiguous takes the one mesh dim whose name torch's DeviceMesh
// gives it on that rank (torchGroupName), if exactly one does ("torch's group numbering").
std::vector<GroupMapping> mapGroups(std::vector<AppliedCollective>& cs, const DeviceMesh& mesh,
                                    const std::map<std::string, int>& overrides,
                                    const std::vector<int64_t>* coord = nullptr);
// The name torch's DeviceMesh gives the process group of mesh dim `dim` on the rank at `coord`: the world group is
// "0"; then, mesh dim by mesh dim, one group per slice along that dim (mesh.swapdims(-1, dim).reshape(-1, n)),
// numbered on from 1. Seed 1's 2x4 logs: dim 0 -> '1', dim 1 -> '5' on rank 0; dsv3_2x2: dim 1 -> '3'.
std::string torchGroupName(const DeviceMesh& mesh, int dim, const std::vector<int64_t>& coord);
// The mesh an applied graph alone implies: one dim per distinct group size (groups ordered by name), the
// flattened-mesh group (a size that is the product of the others) left out. nullopt when it has no collective.
// `groupDims` (optional) gets each group's mesh dim in that mesh.
std::optional<DeviceMesh> inferMesh(const std::vector<AppliedCollective>& cs, std::map<std::string, int>* groupDims = nullptr);
// Costs each collective (bytes, time) on its mapped mesh dim.
void costCollectives(std::vector<AppliedCollective>& cs, const CostModel& cost);

// Reads nothing: `applied` is the applied graph's plan (FX reader). Matches, maps and costs.
AppliedGraph analyzeApplied(const Plan& plan, Plan applied, const AppliedOptions& opts = {});
// The checks: transition-not-applied (error), unplanned-collective (warning), local-shape-mismatch (error),
// invalid-collective (error, at the plan node the collective feeds; not also an unplanned-collective);
// plus one plan-wide info with the match summary. Diagnostics point at plan nodes.
Diagnostics checkApplied(const Plan& plan, AppliedGraph& a, const CheckOptions& copts = {});

// An applied graph alone: its collectives on `mesh` (given, else inferred; 1-D of 1 when none). The Plan is the
// applied graph with that mesh; collectives mapped and costed.
struct AppliedAlone {
  Plan plan;
  std::vector<AppliedCollective> collectives;
  std::vector<GroupMapping> groups;
  bool meshInferred = false;
  // Why no mesh was inferred although its collectives have group sizes ("the group sizes of its collectives
  // (1048576 on group '1', 4 on group '2') make no mesh of at most 1048576 ranks and 8 dims"); empty otherwise.
  std::string meshProblem;
};
AppliedAlone analyzeAppliedAlone(Plan applied, const std::optional<DeviceMesh>& mesh, const AppliedOptions& opts = {});
// The invalid-collective errors of an applied graph alone, at the collectives' own nodes (its plan is the applied
// graph), one per invalid collective.
Diagnostics invalidCollectiveDiagnostics(const AppliedAlone& a);
// The error (node -1: the caller places it) for invalid collective `c` of applied graph `g`.
Diagnostic invalidCollectiveDiagnostic(const Graph& g, const AppliedCollective& c);

}  // namespace ss
