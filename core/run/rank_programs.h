#pragma once
// Rank programs: N graphs, one per rank, each to be executed on its own rank exactly as written, and a reference
// graph to run alone on one device. This is what a compiler pass that rewrites the graph per rank leaves (DeepSpeed
// AutoSP: each rank's graph after its passes slices the inputs itself, the rank baked into the slice bounds, and
// calls `autosp.all_to_all` over the sequence-parallel group). This half is plain C++: reading them from
// TORCH_TRACE logs, binding their size symbols, their text form for the runner child, the refusals before a run.
// The run itself: runner/rank_programs.h (its contract), docs/runner.md "Rank programs".
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/plan.h"
#include "core/model/result.h"
#include "core/run/run_report.h"

namespace ss {

// One program that every rank of a mesh runs (SPMD): autoparallel's applied graph (`autoparallel_parallel_graph`),
// traced on one rank with that rank's local shapes and `_c10d_functional` / `_dtensor` collectives on named process
// groups. The reference is the plan (the joint graph with the solver's specs, on reference.mesh): its placeholder
// specs cut each rank's pieces of the whole inputs, its output specs (Plan::consumerSpec at the output node) put the
// ranks' outputs back together. docs/runner.md "Applied graphs".
inline constexpr int kAllMeshDims = -2;    // a process group over the flattened mesh (as AppliedCollective::meshDim)
struct SpmdPrograms {
  std::map<std::string, int> groupDims;    // process-group name -> mesh dim of reference.mesh, or kAllMeshDims
  std::vector<int> referenceOf;            // program node -> the reference node it computes (the matcher's), -1 none
  int tracedRank = 0;                      // the rank whose local shapes the program's annotations are
  // The apply pass's local chunks (R -> S: `split` + `getitem`) were traced with the tracing rank's chunk index
  // baked in: getitem node -> the mesh dim whose coordinate picks the chunk on each rank (kAllMeshDims: the rank).
  std::map<int, int> rankChunks;
  bool operator==(const SpmdPrograms&) const = default;
};

struct RankPrograms {
  std::string name;                        // for the report: the folder or log the programs came from
  Plan reference;                          // the whole model, run on one device
  std::vector<Plan> ranks;                 // ranks[r]: rank r's own program (with spmd: one, run by every rank)
  std::map<std::string, int64_t> symbols;  // size symbol -> value ("s38" -> 8)
  // size symbol -> where Dynamo took it from ("s72" -> "L['input_ids'].size()[0]"): names the inputs for --seq-dim
  std::map<std::string, std::string> symbolSources;
  std::vector<std::string> notes;          // what the loader says about where each graph came from
  std::optional<SpmdPrograms> spmd;        // set: ranks[0] runs on every rank of reference.mesh
  int64_t rankCount() const { return spmd ? reference.mesh.size() : static_cast<int64_t>(ranks.size()); }
};

// A collective call of an SPMD program, read from its node. Argument orders (docs/import-formats.md):
// all_gather_into_tensor(x, group_size, group), reduce_scatter_tensor(x, op, group_size, group),
// all_reduce(x, op, group), all_to_all_single(x, output_splits, input_splits, group),
// _dtensor.shard_dim_alltoall(x, gather_dim, shard_dim, group), wait_tensor(x) (the identity here: each
// collective completes where it is called).
struct SpmdCollective {
  enum class Kind : uint8_t { Wait, AllGather, ReduceScatter, AllReduce, AllToAll, ShardDimAllToAll };
  Kind kind = Kind::Wait;
  std::string group;          // empty for Wait
  int64_t groupSize = 0;      // the size argument (AllGather, ReduceScatter); 0 where the op has none
  std::string reduceOp;       // "sum", "avg", "max", "min", "product" (AllReduce, ReduceScatter)
  int64_t gatherDim = -1, shardDim = -1;  // ShardDimAllToAll
  std::vector<int64_t> splits;            // AllToAll: output split sizes when given as literals (empty: none)
};
// Whether `node` calls a collective (a `_c10d_functional` / `c10d_functional` / `_dtensor` op).
bool isSpmdCollectiveNode(const Node& node);
// The collective `node` calls. Errors: an op the runner does not execute, malformed arguments, split sizes that
// are computed in the graph (data-dependent) or differ from each other (one line, the op named).
Result<SpmdCollective> readSpmdCollective(const Node& node);
// The ranks of the group that `meshDim` (or kAllMeshDims) spans on `mesh`.
int64_t spmdGroupSize(const DeviceMesh& mesh, int meshDim);

// Binds every size symbol of `plan`'s placeholders (see contract) in a copy: tensor placeholders get their
// concrete shape, Sym placeholders keep an unknown meta. Error: "placeholder 's38' (a size symbol) has no value".
Result<Plan> bindSymbols(const Plan& plan, const std::map<std::string, int64_t>& symbols);
// The value of a Sym placeholder `node` of `plan` under `symbols`, or nullopt when it is not one or has none.
std::optional<int64_t> symbolPlaceholderValue(const Plan& plan, int node, const std::map<std::string, int64_t>& symbols);

// Whether `path` (a TORCH_TRACE log, or a folder of them) holds rank programs: a `dynamo_output_graph` record
// (the graph a backend received) and a `before_pre_grad_graph` artifact (what it handed Inductor) in its logs.
// A file in the text form below (what `fix --seq-dim` saves) holds them too.
bool holdsRankPrograms(const std::string& path);
// Reads them: the reference is the first rank's `dynamo_output_graph`; rank r's program is the last
// `before_pre_grad_graph` of rank r's log (a rank log's sibling logs in its folder are the other ranks). The
// symbols are the create_symbol hints of the logs (the same on every rank, or an error). A file in the text form
// is read as it is.
Result<RankPrograms> loadRankPrograms(const std::string& path);

// Whether `path` (a TORCH_TRACE log or a folder of them) holds an autoparallel run to re-run: an
// `autoparallel_parallel_graph` artifact and the plan it applies (a joint graph or optimizer log).
bool holdsAppliedRun(const std::string& path);
// The apply pass's local chunks in `program` (see SpmdPrograms::rankChunks): a `split` that no plan node computes
// (`referenceOf` -1), all of whose getitems take the one chunk index that the tracing rank's coordinate gives on
// the one mesh dim (or the flattened mesh) with as many ranks as the split has chunks. Error: a chunk count that
// two mesh dims share (which coordinate picks is ambiguous).
Result<std::map<int, int>> findRankChunks(const Plan& program, const std::vector<int>& referenceOf, const DeviceMesh& mesh,
                                          int tracedRank);
// Reads it as SPMD rank programs: the reference is the session's plan (core/applied/session.h: joint graph +
// solution), the program the first log's applied graph, its process groups mapped to mesh dims by the applied-graph
// matcher. Errors (one line): no plan or applied graph, a collective whose group maps to no mesh dim.
Result<RankPrograms> loadAppliedRankPrograms(const std::string& path);

// The text form the parent hands the runner child on stdin ({"format": "shardscope-rank-programs", ...}: the
// graphs as native plans), and back.
std::string writeRankProgramsText(const RankPrograms& programs);
bool looksLikeRankProgramsText(std::string_view text);
Result<RankPrograms> readRankProgramsText(std::string_view text);

// Why the programs must not run at all (an op off the allow-list in any of them, more ranks than a local run
// takes, placeholders that do not match; SPMD: not exactly one program, a collective on a group that maps to no
// mesh dim, a group size argument that is not its mesh dim's size): stage "unsafe-op", "limits" or "load", with the program named.
std::optional<RunError> rankProgramsRefusal(const RankPrograms& programs);

}  // namespace ss
