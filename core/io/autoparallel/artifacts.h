#pragma once
// autoparallel's four artifacts (docs/import-formats.md): the joint graph, the sharding optimizer log, the solution
// JSON and the applied (parallel) graph, from a TORCH_TRACE log or given as separate files (tlparse's
// `<name>.txt` / `<name>.json`, a user's own dumps), and the one Plan they make.
//
// Contract: the joint graph gives every node its op, arguments and shapes; the solution gives output specs and
// per-input specs (dst_placement), matched by node name and, for inputs, by producer name (the k-th edge from a
// producer is the k-th tensor input reading it). A solution node the joint graph lacks, or a joint input the
// solution does not list, is refused: the two files are not of one run. A joint node the solution leaves out
// keeps unknown specs (a getitem takes its tuple element's spec). Without a solution, the optimizer log (graph
// code whose node lines end `# placement=<strategy> , cost=[...]`) gives graph and placements; it does not give
// the mesh sizes, so a mesh must come with it. Errors inside an artifact are located in the file it came from.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/trace/trace_log.h"
#include "core/model/plan.h"

namespace ss {

// One artifact's text and where it lives: `file` and the line its first line is on (1 for a separate file; the
// payload's first line in a log, whose lines start with one tab: `column` 1 then means 2).
struct ArtifactText {
  std::string text;
  std::string file;
  int firstLine = 1;
  int columnShift = 0;   // 1 inside a log payload
  std::string name;      // "autoparallel_joint_graph", ... (for messages)
  // An error the artifact's reader gave, placed in its file: inside a log, an Error at the log's line:col (print
  // with Error::toString(logFile)); for a separate file, one whose message names the file (print with toString()).
  Error locate(const Error& e) const;
};

struct AutoparallelArtifacts {
  std::optional<ArtifactText> joint, optimizerLog, solution, applied;
  int rank = -1;         // the tracing rank of `applied` (-1 = unknown: rank 0 is assumed)
  std::string source;    // the log file or the first file given (for messages)
  std::string torchVersion;  // the log's torch_version artifact ("2.14.1+debian"); empty when it has none
};

// Artifact names in a TORCH_TRACE log.
inline constexpr const char* kJointGraphArtifact = "autoparallel_joint_graph";
inline constexpr const char* kOptimizerLogArtifact = "autoparallel_sharding_optimizer_log";
inline constexpr const char* kSolutionArtifact = "autoparallel_solution";
inline constexpr const char* kAppliedGraphArtifact = "autoparallel_parallel_graph";

// The artifacts of one log (the last of each name). A log with neither a joint graph, a solution, an optimizer
// log nor an applied graph is refused: it is a TORCH_TRACE log of a run without autoparallel. Errors: as a log's.
Result<AutoparallelArtifacts> artifactsFromTraceLog(const TraceLog& log);

// A run that applied placements it did not solve (`load_placements` + `apply_placement`): its log has autoparallel's
// joint graph but neither a solution nor an optimizer log, so nothing in it says which placements were applied.
// Such a log is checked against the placements file the run loaded (check LOG --placements FILE), never against a
// guessed mesh.
bool placementsNotInLog(const AutoparallelArtifacts& a);
// The one line that says so: "LOG: holds no plan (...): give the placements file it loaded: ...".
std::string placementsNotInLogMessage(const std::string& log);
// Joint graph (read as FX text) + solution (read as an autoparallel export) -> one Plan. `joint` and `solution`
// are the plans their readers made; errors name nodes (the caller adds the files).
Result<Plan> mergeJointAndSolution(const Plan& joint, const Plan& solution);
// The optimizer log alone: its graph (FX text up to the totals) and each node's `# placement=` strategy.
Result<Plan> readOptimizerLog(std::string_view text, const DeviceMesh& mesh);
// The optimizer log's number of mesh dims (from its first placement), or an Error when it has none.
Result<int> optimizerLogMeshDims(std::string_view text);

// The Plan the artifacts make: joint + solution; else the optimizer log (mesh from `mesh`, else refused);
// else the solution alone. Errors are located as ArtifactText::locate's (a log's: line:col in the log).
Result<Plan> planFromArtifacts(const AutoparallelArtifacts& a, const std::optional<DeviceMesh>& mesh = {});

}  // namespace ss
