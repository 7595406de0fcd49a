// Seed 2 fixed in the app (issue 38): on DeepSpeed AutoSP's real log (tests/data/real/autosp/seq0_buggy), the
// Inspector offers DeepSpeed's seq_dim fix at the flagged slice (MoveAutoSpSlice, core/plan/edit.h), Fix all makes
// the same move, Undo takes it back, and Run runs the log's rank programs with the move applied to each (the
// verdict the CLI gives for `run LOG --seq-dim input_ids=0`).
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "core/plan/fix.h"
#include "tests/views/app_fixture.h"
#include "views/keys.h"
#include "views/model/document.h"
#include "views/ui_probe.h"

using namespace ss;
using namespace ss::app;
using namespace ss::app::test;

namespace {

std::string autospLog(const std::string& name) {
  return std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/real/autosp/" + name + "/rank0.log";
}

int seqDimErrors(const Diagnostics& d) {
  int n = 0;
  for (const Diagnostic& x : d.items) n += x.kind == DiagKind::SeqDimMismatch && x.severity == Severity::Error;
  return n;
}

std::string sliceSpec(const Plan& plan, const std::string& node) {
  const int n = plan.graph.find(node);
  REQUIRE(n >= 0);
  const auto& outs = plan.specs[static_cast<size_t>(n)].outputs;
  return !outs.empty() && outs[0] ? outs[0]->toMeshString() : "(none)";
}

}  // namespace

TEST_CASE("AutoSP real log: the seq_dim fix at the flagged slice is one undoable edit", "[views][autosp][real][seq-fix]") {
  views::Document doc;
  REQUIRE(doc.open(autospLog("seq0_buggy")).ok());
  const Plan before = doc.plan();
  REQUIRE(seqDimErrors(doc.diagnostics()) == 2);  // input_ids' slice and the labels' slice
  const int slice = doc.plan().graph.find("slice_2");
  REQUIRE(slice >= 0);
  CHECK(sliceSpec(doc.plan(), "slice_2") == "S(1)");

  const std::optional<MoveAutoSpSlice> move = autoSpSliceFix(doc.plan(), slice);
  REQUIRE(move.has_value());
  CHECK(move->request == SeqDimRequest{"input_ids", 0});
  // The input it slices offers the same; a node AutoSP did not slice offers nothing.
  CHECK(autoSpSliceFix(doc.plan(), doc.plan().graph.find("primals_4"))->request == move->request);
  CHECK_FALSE(autoSpSliceFix(doc.plan(), doc.plan().graph.find("embedding")).has_value());

  REQUIRE(doc.apply(*move).ok());
  CHECK(doc.lastMessage() == "Slice input_ids on dim 0 (AutoSP's seq_dim fix)");
  CHECK(seqDimErrors(doc.diagnostics()) == 0);
  CHECK(doc.diagnostics().summary().errors == 0);
  CHECK(sliceSpec(doc.plan(), "slice_2") == "S(0)");
  CHECK(doc.plan().autoSpMoves == std::vector<SeqDimRequest>{{"input_ids", 0}});
  CHECK(doc.editsAreAutoSpMoves());
  CHECK(doc.dirty());
  // The fixed slice offers nothing more.
  CHECK_FALSE(autoSpSliceFix(doc.plan(), doc.plan().graph.find("slice_2")).has_value());

  REQUIRE(doc.undo().ok());
  CHECK(doc.plan() == before);
  CHECK(doc.plan().autoSpMoves.empty());
  CHECK(seqDimErrors(doc.diagnostics()) == 2);
  CHECK(sliceSpec(doc.plan(), "slice_2") == "S(1)");
  CHECK_FALSE(doc.editsAreAutoSpMoves());
  REQUIRE(doc.redo().ok());
  CHECK(seqDimErrors(doc.diagnostics()) == 0);

  // Another edit on top: the plan no longer is the rank programs with moves only.
  REQUIRE(doc.undo().ok());
  const FixPlan fixed = planFix(doc.plan());
  REQUIRE(fixed.steps.size() == 1);
  CHECK(fixed.steps[0] == "slice input_ids on dim 0 at slice_2 (AutoSP sliced dim 1)");
  CHECK(fixed.remaining.summary().errors == 0);
  REQUIRE(doc.apply(fixed.batch).ok());
  CHECK(doc.plan().autoSpMoves == std::vector<SeqDimRequest>{{"input_ids", 0}});
  CHECK(doc.editsAreAutoSpMoves());  // a Fix-all batch of moves only
}

TEST_CASE("AutoSP real log in the app: the Inspector's fix button, then Run runs the fixed rank programs",
          "[views][app][autosp][real][seq-fix]") {
  const bool runnerBuilt = views::test::useBuiltRunner();
  AppFixture f;
  REQUIRE(f.app.openFile(autospLog("seq0_buggy")));
  f.frames(2);
  f.app.selection().selectNode(f.app.document().plan().graph.find("slice_2"));
  f.frames(3);
  const auto button = views::probedRect("inspector.autosp_fix");
  REQUIRE(button.has_value());
  f.click(*button);
  f.frames(1);
  CHECK(f.app.document().plan().autoSpMoves == std::vector<SeqDimRequest>{{"input_ids", 0}});
  CHECK(seqDimErrors(f.app.document().diagnostics()) == 0);
  views::clearProbes();  // probes keep the last rect drawn: only what these frames draw counts
  f.frames(2);
  CHECK_FALSE(views::probedRect("inspector.autosp_fix").has_value());  // nothing left to fix there

  if (!f.app.runPanel().model().available) {
    if (runnerBuilt) FAIL("this build has a runner but the run panel found none");
    WARN("run skipped: " << f.app.runPanel().model().unavailableReason);
    return;
  }
  f.runToEnd();
  const views::RunViewModel& m = f.app.runPanel().model();
  INFO(m.error);
  CHECK(m.status == views::RunStatus::Passed);
  REQUIRE_FALSE(m.batches.empty());
  CHECK(m.batches[0].match);
  CHECK(m.batches[0].rankLosses.size() == 2);
  CHECK(views::freshness(m.stamp, f.app.document().stamp()) == views::Freshness::Current);
  // Undo: the passed run is of the fixed programs, stale now.
  f.key('Z', true);
  CHECK(f.app.document().plan().autoSpMoves.empty());
  CHECK(views::freshness(f.app.runPanel().model().stamp, f.app.document().stamp()) == views::Freshness::Stale);
}
