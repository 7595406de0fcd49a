#pragma once
// A compiled DTensor program in a TORCH_TRACE log: `torch.compile` on TP / SP / FSDP2 code (no solver).
//
// Contract:
// - The plan is Dynamo's output graph whose values are annotated `"DTensor(f32[8, 32][32, 1]cpu, S(1))"`: global
//   shapes and placements per value; the parallel styles' `.redistribute(placements=...)` calls that change a
//   layout are planned transitions (a Redistribute on the call's input); `from_local` / `to_local` enter and leave
//   DTensor. The mesh is the log's `DeviceMesh((tp=4), 'cpu', stride=(1,))` (one mesh per program; two are refused).
// - The applied graphs are the same compile's AOT forward and backward graphs (local shapes, functional
//   collectives), read by the FX reader; their collectives are found, mapped to mesh dims and costed with
//   core/applied's API. Each collective is matched to the plan node (redistribute or from_local) with its source
//   line, in order (the forward's, or its backward's: AOT marks backward nodes with their forward's line); one
//   with no such node is DTensor's own redistribute in the compiled region: an unplanned-collective warning.
// - A log with DTensor annotations that cannot be read this way is refused with one line, never opened as
//   another kind of plan.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/applied/applied.h"
#include "core/io/trace/trace_log.h"

namespace ss {

struct CompiledCollective {
  int collective = -1;  // index into CompiledAppliedGraph::collectives
  int planNode = -1;    // the plan's redistribute / from_local it performs, -1 when none (unplanned)
};

struct CompiledAppliedGraph {
  std::string kind;     // "aot_forward_graph", "aot_backward_graph"
  Plan graph;           // as read (rank-local shapes)
  std::vector<AppliedCollective> collectives;
  std::vector<GroupMapping> groups;
  std::vector<CompiledCollective> matches;  // one per collective
};

struct CompiledDTensorProgram {
  std::string file;
  std::string torchVersion;
  Plan plan;
  std::vector<CompiledAppliedGraph> applied;
};

// True when a TORCH_TRACE log holds values annotated as DTensors (`: "DTensor(`): such a log is read only here.
bool looksLikeCompiledDTensorLog(std::string_view text);
// "DeviceMesh((dp=2, tp=2), 'cpu', stride=(2, 1))" -> the mesh; nullopt when it is not that form.
std::optional<DeviceMesh> parseDeviceMeshRepr(std::string_view s);
// Errors carry line:col in `text` (print with Error::toString(file)); `file` is kept for the views.
Result<CompiledDTensorProgram> readCompiledDTensorLog(std::string_view text, const std::string& file, const AppliedOptions& opts = {});
// One unplanned-collective warning per collective no planned transition explains.
Diagnostics compiledDiagnostics(const CompiledDTensorProgram& p);
// `check`'s text: the applied graphs' collectives and what each performs.
std::string compiledSummaryText(const CompiledDTensorProgram& p);

}  // namespace ss
