#include "app/gui/run.h"

#include <chrono>
#include <cmath>

#include "app/run_client.h"
#include "core/ops/op_safety.h"
#include "core/run/autosp_seq_fix.h"
#include "core/run/rank_programs.h"
#include "core/run/run_report.h"

namespace ss::app {

namespace {

views::RunBatchRow toRow(const BatchResult& b) {
  views::RunBatchRow r;
  r.batch = b.batch;
  r.rankLosses = b.rankLosses;
  r.mean = b.combined;
  r.reference = b.reference;
  r.relError = b.relError;
  r.match = b.match;
  r.gradRatio = std::isfinite(b.gradRatio) ? b.gradRatio : 0.0;
  return r;
}

}  // namespace

struct RunPanel::Impl {
  RunClient client;
  std::chrono::steady_clock::time_point started;
};

RunPanel::RunPanel() : impl_(std::make_unique<Impl>()) {
  if (RunClient::findRunner().empty()) {
    model_.available = false;
    model_.unavailableReason =
        "the shardscope-runner executable was not found next to shardscope (build with SHARDSCOPE_WITH_TORCH=ON, "
        "or set SHARDSCOPE_RUNNER).";
  }
}

RunPanel::~RunPanel() = default;

void RunPanel::start(const Plan& plan, int scale, views::DocStamp stamp) {
  if (active() || !model_.available) return;
  RunOptions opts;
  opts.scale = std::max(1, scale);
  views::RunViewModel fresh;
  fresh.available = true;
  fresh.status = views::RunStatus::Running;
  fresh.stage = "starting";
  fresh.rtol = plan.run.rtol;
  fresh.scale = opts.scale;
  fresh.rankProgress.assign(static_cast<size_t>(std::min<int64_t>(plan.mesh.size(), 4096)), 0.0f);
  fresh.reports = model_.reports;  // keeps counting across runs
  fresh.stamp = stamp;
  model_ = fresh;
  // The same refusal as `shardscope run`: nothing starts when an op is off the allow-list (core/ops/op_safety.h).
  if (auto unsafe = unsafeNodes(plan.graph); !unsafe.empty()) {
    model_.status = views::RunStatus::Failed;
    model_.stage = "unsafe-op";
    model_.error = "refused: " + unsafe[0].toString();
    model_.errorNode = unsafe[0].name;
    return;
  }
  Result<bool> r = impl_->client.start(plan, opts);
  if (!r.ok()) {
    model_.status = views::RunStatus::Failed;
    model_.error = r.error().toString();
    return;
  }
  impl_->started = std::chrono::steady_clock::now();
}

std::string RunPanel::refusal(const Plan& plan) {
  if (auto unsafe = unsafeNodes(plan.graph); !unsafe.empty()) return "refused: " + unsafe[0].toString();
  if (auto why = plan.shapelessPlaceholder()) return "refused: " + *why;
  if (!plan.executable())
    return "This plan cannot be executed (it needs args, known shapes, and a loss node or a floating output).";
  return "";
}

void RunPanel::discard() {
  impl_ = std::make_unique<Impl>();  // the old client's destructor cancels its child and joins its reader
  views::RunViewModel fresh;
  fresh.available = model_.available;
  fresh.unavailableReason = model_.unavailableReason;
  fresh.reports = model_.reports;
  model_ = std::move(fresh);
}

bool RunPanel::holdsPrograms(const std::string& path) {
  return !path.empty() && (holdsRankPrograms(path) || holdsAppliedRun(path));
}

void RunPanel::startPrograms(const std::string& logPath, const std::vector<SeqDimRequest>& moves, views::DocStamp stamp) {
  if (active() || !model_.available) return;
  RunOptions opts;
  views::RunViewModel fresh;
  fresh.available = true;
  fresh.status = views::RunStatus::Running;
  fresh.stage = "starting";
  fresh.rtol = 1e-4;
  fresh.reports = model_.reports;  // keeps counting across runs
  fresh.stamp = stamp;
  model_ = fresh;
  auto fail = [&](const std::string& stage, const std::string& error, const std::string& node) {
    model_.status = views::RunStatus::Failed;
    model_.stage = stage;
    model_.error = error;
    model_.errorNode = node;
  };
  auto programs = holdsRankPrograms(logPath) ? loadRankPrograms(logPath) : loadAppliedRankPrograms(logPath);
  if (!programs) return fail("load", programs.error().toString(), "");
  if (!moves.empty())
    if (auto steps = moveAutoSpSlices(*programs, moves); !steps) return fail("seq-dim", steps.error().message, "");
  // The same refusals as `shardscope run LOG`, before anything starts.
  if (auto refused = rankProgramsRefusal(*programs)) return fail(refused->stage, "refused: " + refused->toString(), refused->node);
  model_.rankProgress.assign(static_cast<size_t>(std::min<int64_t>(programs->rankCount(), 4096)), 0.0f);
  Result<bool> r = impl_->client.start(*programs, opts);
  if (!r.ok()) return fail("", r.error().toString(), "");
  impl_->started = std::chrono::steady_clock::now();
}

void RunPanel::cancel() {
  if (active()) impl_->client.cancel();
}

bool RunPanel::poll() {
  if (!active()) return false;
  const std::vector<RunEvent> events = impl_->client.poll();
  model_.elapsedS = std::chrono::duration<double>(std::chrono::steady_clock::now() - impl_->started).count();
  for (const RunEvent& e : events) {
    switch (e.kind) {
      case RunEvent::Kind::Started: model_.stage = "running " + e.text; break;
      case RunEvent::Kind::Progress: {
        const float frac = e.nodes > 0 ? static_cast<float>(e.node) / static_cast<float>(e.nodes) : 0.0f;
        if (e.etaSec >= 0) model_.etaS = e.etaSec;
        if (e.rank < 0) {
          model_.stage = "reference, batch " + std::to_string(e.batch);
        } else {
          model_.stage = "sharded, batch " + std::to_string(e.batch);
          if (static_cast<size_t>(e.rank) < model_.rankProgress.size()) model_.rankProgress[static_cast<size_t>(e.rank)] = frac;
        }
        break;
      }
      case RunEvent::Kind::Note: model_.notes.push_back(e.text); break;  // not a stage: the progress line stays
      case RunEvent::Kind::Batch:
        if (e.batchResult) model_.batches.push_back(toRow(*e.batchResult));
        break;
      case RunEvent::Kind::Report:
        if (e.report) {
          const RunReport& rep = *e.report;
          model_.batches.clear();
          for (const BatchResult& b : rep.batches) model_.batches.push_back(toRow(b));
          model_.rtol = rep.rtol;
          model_.firstDivergence = rep.firstDivergence;
          ++model_.reports;
          model_.device = rep.device + (rep.backend.empty() ? "" : " (" + rep.backend + ")");
          model_.etaS = -1;
          model_.referenceS = rep.referenceSeconds;
          model_.shardedS = rep.shardedSeconds;
          model_.peakRssBytes = rep.peakRssBytes;
          model_.notes = rep.notes;
          model_.sandbox = rep.sandbox;
          if (!rep.blas.empty())
            model_.blas = rep.blas + ", " + std::to_string(rep.blasThreads) + " threads; " + std::to_string(rep.ranks) +
                          " ranks x " + std::to_string(rep.threadsPerRank) +
                          (rep.computingRanks > 0 && rep.computingRanks < rep.ranks
                               ? "; replicas shared: " + std::to_string(rep.computingRanks) + " compute the largest node"
                               : std::string());
          if (rep.error) {
            model_.error = rep.error->message;
            model_.errorRank = rep.error->rank;
            model_.errorNode = rep.error->node;
            model_.stage = rep.error->stage;
          } else {
            model_.stage.clear();
          }
          switch (rep.verdict()) {
            case RunVerdict::Match: model_.status = views::RunStatus::Passed; break;
            case RunVerdict::Mismatch: model_.status = views::RunStatus::Mismatch; break;
            case RunVerdict::Refused:
            case RunVerdict::Failed:
              model_.status = rep.error && rep.error->stage == "cancelled" ? views::RunStatus::Cancelled
                                                                          : views::RunStatus::Failed;
              break;
          }
          for (float& p : model_.rankProgress) p = 1.0f;
        } else {
          model_.status = views::RunStatus::Failed;
          model_.error = "the runner ended without a report";
        }
        break;
    }
  }
  return !events.empty() || active();
}


}  // namespace ss::app
