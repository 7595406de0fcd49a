#pragma once
// The Run panel's engine: starts a run of the current plan in a child process through the run client
// (app/run_client.h, from the runner work) and turns its streamed progress into a views::RunViewModel.
// Never blocks: poll() only reads what has arrived.
#include <memory>
#include <string>
#include <vector>

#include "core/model/plan.h"
#include "views/run_view.h"

namespace ss::app {

class RunPanel {
 public:
  RunPanel();
  ~RunPanel();
  const views::RunViewModel& model() const { return model_; }
  // Starts a run of `plan` with sizes divided by `scale` (1 = real sizes); `stamp`: the document state `plan` is
  // (the model carries it, so the app shows the run as what it is against the plan on screen). Ignored while one
  // is running.
  void start(const Plan& plan, int scale, views::DocStamp stamp);
  // Starts a run of the rank programs a TORCH_TRACE log holds (core/run/rank_programs.h: AutoSP's per-rank graphs,
  // or autoparallel's applied graph on every rank), as `shardscope run LOG` does; `stamp` as for start. Ignored
  // while one is running.
  // `moves`: DeepSpeed's seq_dim fixes the document applied (Plan::autoSpMoves), applied to every rank's program
  // first, as `shardscope run LOG --seq-dim INPUT=DIM` does.
  void startPrograms(const std::string& logPath, const std::vector<SeqDimRequest>& moves, views::DocStamp stamp);
  // Why a run of `plan` cannot start, one sentence ("" when it can): an op off the allow-list ("refused: node
  // ..."), a placeholder without a shape, or a plan that is not executable (core/model/plan.h). The runner's
  // absence is the model's `available` (the Run view says both). The app disables Run and F5 with it.
  static std::string refusal(const Plan& plan);
  // Whether startPrograms applies to `path` (a log holding rank programs or an applied graph with its plan).
  static bool holdsPrograms(const std::string& path);
  void cancel();
  // Another document replaced the plan: stops a run in progress, and forgets its results (nothing of the old
  // plan is shown for the new one). Report numbering continues.
  void discard();
  // Reads progress that arrived; true when the model changed (the UI should redraw).
  bool poll();
  bool active() const { return model_.status == views::RunStatus::Running; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  views::RunViewModel model_;
};

}  // namespace ss::app
