#pragma once
// What `shardscope check` and the app open when autoparallel artifacts are involved: a TORCH_TRACE log (or a
// folder of per-rank logs), the separate artifact files (JOINT --solution SOLUTION [--applied APPLIED], an
// optimizer log), or an applied graph alone. One loader for the CLI and the GUI.
//
// Contract: errors are one located line (print with Error::toString(), no file argument). The plan is the
// joint graph + solution (or the optimizer log); each rank's applied graph is analysed at that rank's coordinate
// (the log's rank; --rank for a separate file; else rank 0).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/applied/applied.h"
#include "core/io/autoparallel/artifacts.h"
#include "core/io/dtensor/compiled.h"
#include "core/io/dtensor/program.h"

namespace ss {

struct SessionInputs {
  std::string primary;                    // a log, a folder of logs, a joint graph, an optimizer log, an export...
  std::optional<std::string> solution;    // --solution
  std::optional<std::string> applied;     // --applied
  std::optional<DeviceMesh> mesh;         // --mesh / --names
  std::map<std::string, int> groups;      // --group NAME=MESHDIM
  int rank = -1;                          // --rank
};

struct AppliedSession {
  bool hasPlan = false;                   // false: an applied graph alone (see `alone`)
  Plan plan;
  std::vector<AppliedGraph> applied;      // one per rank that has an applied graph, by rank
  std::optional<AppliedAlone> alone;
  std::string description;                // "TORCH_TRACE log, 12 records (autoparallel_joint_graph, ...)"
  // A DTensor program as DebugMode / CommDebugMode recorded it (a file, or a folder of per-rank files): `plan` is
  // its plan; checkSession adds its implicit-redistribute diagnostics.
  std::optional<DTensorProgram> program;
  // A compiled DTensor program (a TORCH_TRACE log whose Dynamo graph is annotated with DTensors): `plan` is its
  // Dynamo graph; checkSession adds an unplanned-collective warning per collective of its AOT graphs no planned
  // transition explains.
  std::optional<CompiledDTensorProgram> compiled;
};

// True when `inputs` need this loader rather than loadPlanFile: a log or folder, --solution/--applied, an
// optimizer log, or an FX graph with collectives (an applied graph alone).
bool needsSession(const SessionInputs& inputs);
Result<AppliedSession> loadSession(const SessionInputs& inputs, const AppliedOptions& opts = {});
// The checker's diagnostics of the plan followed by each applied graph's; for an applied graph alone, the checker's
// on its own graph (local shapes, no specs: the op shape rules; its collectives are in `alone`).
Diagnostics checkSession(AppliedSession& s, const CheckOptions& opts = {});
// What a session adds to the checker's diagnostics of `plan` (the plan it loaded, or the app's edit of it): the
// DTensor program's implicit redistributes, the compiled program's unplanned collectives, each applied graph's
// verdict, in that order. checkSession and the app's document both use it, so the CLI and the app say the same.
// In a DTensor program (eager or compiled), DTensor's sharding propagation redistributes an op's inputs to
// placements its rule accepts before it runs the op: inputs the checker finds incompatible are an implicit
// redistribute DTensor performs (DebugMode records it as `[implicit]` in the eager run), not a wrong plan. Rewrites
// those errors (incompatible-inputs, partial-into-nonlinear) as implicit-redistribute warnings, keeping message and
// fix, so the compiled and the eager record of one program agree. checkSession and the app's document apply it.
void asDTensorProgram(Diagnostics& checker);
Diagnostics sessionDiagnostics(const Plan& plan, const std::optional<DTensorProgram>& program,
                               const std::optional<CompiledDTensorProgram>& compiled, std::vector<AppliedGraph>& applied,
                               const CheckOptions& opts = {});

}  // namespace ss
