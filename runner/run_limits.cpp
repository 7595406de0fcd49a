// Refusals before a run starts (runner/runner.h: refusalBeforeRun). Plain C++ over core.
#include <string>

#include "core/check/check.h"
#include "core/model/limits.h"
#include "runner/runner.h"

namespace ss::runner {

std::optional<RunError> refusalBeforeRun(const Plan& plan, const RunOptions& options, std::vector<std::string>* notes) {
  const int64_t ranks = plan.mesh.size();
  if (!options.distributed && ranks > limits::kMaxRunRanks)
    return RunError{"limits", -1, -1, "",
                    "the mesh has " + std::to_string(ranks) + " ranks; a local run starts one thread per rank and takes " +
                        "at most " + std::to_string(limits::kMaxRunRanks) +
                        " (spread larger meshes over processes with --distributed)"};
  if (options.threadsPerRank > limits::kMaxThreadsPerRank)
    return RunError{"limits", -1, -1, "",
                    "--threads-per-rank " + std::to_string(options.threadsPerRank) + " is more than " +
                        std::to_string(limits::kMaxThreadsPerRank)};
  CheckOptions serial;
  serial.threads = 1;  // the runner child is still single-threaded here (its sandbox's namespaces need that)
  const Diagnostics d = checkPlan(plan, serial);
  std::optional<RunError> first;
  int more = 0;
  for (const Diagnostic& x : d.items) {
    if (x.kind != DiagKind::ShapeMismatch || x.severity != Severity::Error || x.node < 0) continue;
    const std::string& name = plan.graph.nodes[x.node].name;
    const std::string where = x.input >= 0 ? " (input " + std::to_string(x.input) + ")" : std::string();
    if (!first) {
      first = RunError{"shapes", -1, x.node, name,
                       "the op's inputs do not fit together" + where + ": " + x.message +
                           "; a kernel given them could read or write past its tensors, so the plan is not run "
                           "(shardscope check lists every shape error)"};
    } else if (notes && more < 15) {
      notes->push_back("also node '" + name + "'" + where + ": " + x.message);
      ++more;
    }
  }
  return first;
}

}  // namespace ss::runner
