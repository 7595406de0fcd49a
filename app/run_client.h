#pragma once
// RunClient: runs a plan in the `shardscope-runner` child process (the only binary that loads LibTorch) and
// streams its progress back. Used by `shardscope run` and by the GUI's Run panel. Plain C++, no Torch.
//
// Contract:
// - start() spawns the runner found by findRunner(), sends the plan (native JSON on its stdin) and returns at
//   once; an error when a run is already going or the runner cannot be started.
// - poll() never blocks: it returns the events received since the last call, in order. The last event of every
//   run is a Report event (exactly one), also when the child crashed, was killed or sent garbage: the client then
//   makes the report itself (stage "crash" or "cancelled", with the child's last stderr line).
// - cancel() stops the child (SIGTERM, then SIGKILL after 2 s) and is safe to call at any time; the destructor
//   cancels and reaps. A crash in the child never takes the caller down.
// - The child inherits only its three pipes (every other descriptor is closed before exec). A child still
//   running 30 s past its RunOptions::budgetSec (the runner stops itself at the budget) is killed by poll/wait
//   and reported with stage "budget".
// - Thread-safety: one owner thread calls start/poll/wait/cancel; the client's own threads do the I/O.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/model/plan.h"
#include "core/run/rank_programs.h"
#include "core/run/run_report.h"

namespace ss::app {

class RunClient {
 public:
  RunClient();
  ~RunClient();
  RunClient(const RunClient&) = delete;
  RunClient& operator=(const RunClient&) = delete;

  Result<bool> start(const Plan& plan, const RunOptions& options);
  // Rank programs (core/run/rank_programs.h): the child runs each rank's own graph as written.
  Result<bool> start(const RankPrograms& programs, const RunOptions& options);
  std::vector<RunEvent> poll();
  // Waits up to timeoutMs for at least one event (or the end), then returns what arrived.
  std::vector<RunEvent> wait(int timeoutMs);
  void cancel();

  bool running() const;                          // started and no Report event delivered by poll/wait yet
  const std::optional<RunReport>& report() const;  // the final report, once poll/wait delivered it

  // The runner executable: $SHARDSCOPE_RUNNER, else `shardscope-runner` next to this executable (build tree),
  // else in ../libexec/shardscope/ from it (installed: cmake/install.cmake), else in ../runner/ or ../app/ from it
  // (test binaries in a build tree). Found through this executable's own path, never $PATH or the cwd. Empty when
  // none exists.
  static std::string findRunner();

 private:
  Result<bool> startInput(const std::string& inputText, const RunOptions& options);  // the child's stdin
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Runs to completion (for the CLI): calls onEvent for every event before the report; returns the report.
RunReport runToCompletion(const Plan& plan, const RunOptions& options,
                          const std::function<void(const RunEvent&)>& onEvent = {});
RunReport runToCompletion(const RankPrograms& programs, const RunOptions& options,
                          const std::function<void(const RunEvent&)>& onEvent = {});

}  // namespace ss::app
