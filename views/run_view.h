#pragma once
// Run panel: start and cancel a run of the plan (single-device reference against the sharded ranks), progress
// per rank, a table of losses per batch, a small hand-drawn plot of reference against sharded loss per batch,
// and the error with a jump to the failing node.
//
// The view knows nothing about processes: the app fills a RunViewModel from its run client each frame and acts
// on the RunViewActions the view returns, so the UI never blocks and the view runs in headless tests.
#include <string>
#include <vector>

#include "core/model/plan.h"
#include "core/run/run_report.h"
#include "views/model/document.h"
#include "views/model/selection.h"

namespace ss::views {

enum class RunStatus : uint8_t { Idle, Running, Passed, Mismatch, Failed, Cancelled };
const char* runStatusName(RunStatus s);

struct RunBatchRow {
  int batch = 0;
  std::vector<double> rankLosses;
  double mean = 0, reference = 0, relError = 0;
  bool match = false;
  double gradRatio = 0;       // sharded / reference gradient norm; 0 = not reported
};

struct RunViewModel {
  bool available = true;             // false: this build cannot run plans (no runner)
  std::string unavailableReason;
  RunStatus status = RunStatus::Idle;
  std::string stage;                 // "loading", "reference", "sharded batch 2/3", ...
  std::vector<float> rankProgress;   // 0..1 per rank
  std::vector<RunBatchRow> batches;
  double rtol = 1e-4;
  std::string error;                 // run failure, as the runner reported it
  int errorRank = -1;
  std::string errorNode;             // node name where it failed (jump target)
  std::string device = "cpu";
  double elapsedS = 0;
  double etaS = -1;                  // seconds left for the whole run, from the reference's pace; < 0 unknown
  std::string blas;                  // "OpenBLAS 0.3.21 ..., 2 threads; 8 ranks x 1" once the report is in
  int scale = 1;                     // sizes were divided by this for the run
  double referenceS = 0, shardedS = 0;  // the report's phase times (0 until a report has them)
  int64_t peakRssBytes = 0;          // the runner's high-water mark (0: not reported)
  std::vector<SandboxLayer> sandbox; // the child's containment, layer by layer (empty: not reported)
  std::vector<std::string> notes;    // the run's notes (as they come, then the report's), below the status lines
  std::optional<Divergence> firstDivergence;  // the report's first divergent node output (localisation)
  uint64_t reports = 0;              // bumps when a report arrives (the app then marks the divergence)
  DocStamp stamp;                    // the document state the run was started from (views/model/document.h)
};

struct RunViewActions {
  bool start = false;
  bool cancel = false;
};

struct RunViewState {
  int scale = 1;           // sizes divided by this for the run (keeps every ratio; 1 = real sizes)
  bool plotDrawn = false;  // last frame (tests read it)
};

// Screen-space points of a polyline for `values` inside [x0, x1] x [y0, y1] with the shared range
// [lo, hi] (y up). Plain C++, unit-tested.
std::vector<std::pair<float, float>> plotPoints(const std::vector<double>& values, double lo, double hi, float x0,
                                                float y0, float x1, float y1);

// The panel's status lines, computed apart from drawing (tests read them): `progress` while running or once
// a run took time, e.g. "sharded, batch 1  3.2 s, ETA 12 s" (the ETA only while running and known; ", sizes / 4"
// when scaled); `blas` "BLAS: OpenBLAS 0.3.21 ..., 2 threads; 8 ranks x 1" once a report named it, else empty;
// `cost` "reference 4.38 s, sharded 4.74 s (1.08x), peak memory 1373 MiB" once a report timed both phases (the
// peak only when reported), else empty.
struct RunStatusLines {
  std::string progress;
  std::string blas;
  std::string cost;
  // "sandbox: network, no-new-privs, filesystem, capabilities, seccomp" once a report listed its layers; a missing
  // layer goes to `sandboxMissing` with its reason ("missing: network (a distributed run ...)"), drawn as a warning.
  std::string sandbox;
  std::string sandboxMissing;
};
RunStatusLines runStatusLines(const RunViewModel& model);

// The verdict line: "passed", "MISMATCH", ...; for a run of an earlier state of the plan (Freshness::Stale) it
// says so and that the plan changed since: "passed - stale: the plan was edited since this run; run again".
std::string runVerdictLine(const RunViewModel& model, Freshness fresh);

// A failure as the panel shows it, error first: `error` "rank 0: <message>" (the message alone when no rank is
// named), `sameRanks` "ranks 1-7: same error" folding the run's notes that another rank failed the same way
// (core/run/run_report.h sameErrorNote; "" when none), `notes` every other note in order. Without an error
// `notes` is every note.
struct RunErrorLines {
  std::string error, sameRanks;
  std::vector<std::string> notes;
};
RunErrorLines runErrorLines(const RunViewModel& model);

// The line the panel shows when no run can start (also the disabled Run button's tooltip): "Runs are not
// available: <why>" when this build has no runner, else `refusal` (the app's reason the plan on screen cannot
// run: app/gui/run.h RunPanel::refusal), "" when a run can start.
std::string runRefusalLine(const RunViewModel& model, const std::string& refusal);

// `fresh`: the run's stamp against the document on screen. A stale run's results stay readable, marked stale
// (the verdict drawn dim, not green or red); the app never passes a run of another document (it drops those).
// `refusal`: why the plan on screen cannot run ("" when it can): the Run button is disabled, with it as tooltip.
RunViewActions drawRunView(const Plan& plan, const RunViewModel& model, RunViewState& state, Selection& sel,
                           Freshness fresh = Freshness::Current, const std::string& refusal = std::string());

}  // namespace ss::views
