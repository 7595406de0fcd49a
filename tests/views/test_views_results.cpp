// Every result the app shows belongs to the document and state on screen (views/model/document.h, DocStamp;
// GuiApp::syncResults): runs, their losses and first divergence, the fix-all message, the search, the run scale
// and the comparison are dropped when another plan opens and marked stale (or dropped) after an edit, undo and
// redo included. And Compare says what `shardscope diff` says (core/applied/compare.h), on the real seed-1 pair.
#include <catch2/catch.hpp>

#include <array>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <thread>

#include "tests/views/app_fixture.h"
#include "views/keys.h"
#include "views/model/fix_all.h"

using namespace ss;
using namespace ss::app;
using namespace ss::app::test;

namespace {

const std::string kSamples = SHARDSCOPE_SAMPLES_DIR;
const std::string kReal = std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/real/";

// What the Run view shows as its verdict line for the document on screen.
std::string shownVerdict(AppFixture& f) {
  const views::RunViewModel& m = f.app.runPanel().model();
  return views::runVerdictLine(m, views::freshness(m.stamp, f.app.document().stamp()));
}

void typeSearch(AppFixture& f, const std::string& text) {
  f.key('F', true);
  f.frames(1);
  for (char c : text) ImGui::GetIO().AddInputCharacter(static_cast<unsigned>(c));
  f.frames(2);
}

// Nothing of an earlier document is shown.
void requireNothingCarried(AppFixture& f) {
  const views::RunViewModel& m = f.app.runPanel().model();
  CHECK(m.status == views::RunStatus::Idle);
  CHECK(m.batches.empty());
  CHECK(m.error.empty());
  CHECK(m.errorNode.empty());
  CHECK_FALSE(m.firstDivergence.has_value());
  CHECK(shownVerdict(f) == "idle");
  CHECK(f.app.runViewState().scale == 1);
  CHECK(f.app.graphSlot().viewState().search.empty());
  CHECK(f.app.graphSlot().viewState().searchHits.empty());
  CHECK(f.app.graphSlot().divergentNode() == -1);
  CHECK(f.app.inspectorState().fixMessage.empty());
  CHECK_FALSE(f.app.comparison().active);
}

}  // namespace

TEST_CASE("a run is the plan's: stale after an edit and after undo, gone when another plan opens", "[views][app][results]") {
  const bool runnerBuilt = views::test::useBuiltRunner();
  AppFixture f;
  REQUIRE(f.app.openFile(kSamples + "/autosp_seq_first_fixed.plan.json"));
  f.frames(2);
  f.app.runViewState().scale = 3;
  if (!f.app.runPanel().model().available) {
    if (runnerBuilt) FAIL("this build has a runner but the run panel found none");
    WARN("runs skipped: " << f.app.runPanel().model().unavailableReason);
  } else {
    f.runToEnd();
    const views::RunViewModel& m = f.app.runPanel().model();
    INFO(m.error);
    REQUIRE(m.status == views::RunStatus::Passed);
    CHECK(m.scale == 3);  // 3 divides no size of this plan: the same plan, accepted
    CHECK(shownVerdict(f) == "passed: losses match the reference");
    // An edit: the tag of input_ids back to the bare key (the buggy plan). The passed run is of the plan before.
    const Plan& plan = f.app.document().plan();
    const int ids = plan.graph.find("input_ids");
    REQUIRE(plan.tags.count(ids) == 1);
    f.app.commands().push(SetSeqDim{ids, AutoSpTag{plan.tags.at(ids).key, std::nullopt}});
    f.frames(2);
    CHECK(shownVerdict(f) ==
          "passed: losses match the reference - stale: the plan was edited since this run (its result is of the plan "
          "before); run again");
    // Undo gives the plan of the run back, but the run is still not of the plan on screen's history: stale.
    f.key('Z', true);
    REQUIRE_FALSE(f.app.document().dirty());
    CHECK(shownVerdict(f).find(" - stale: ") != std::string::npos);
    f.key('Z', true, true);  // redo
    CHECK(shownVerdict(f).find(" - stale: ") != std::string::npos);
    // Run again: the buggy plan's own verdict, current.
    f.runToEnd();
    CHECK(f.app.runPanel().model().status == views::RunStatus::Mismatch);
    CHECK(shownVerdict(f) == "MISMATCH: losses differ from the reference");
    CHECK(f.app.runPanel().model().batches.size() == 3);
    f.key('Z', true);  // undo: the mismatch is stale too, and its marks go
    CHECK(f.app.graphSlot().divergentNode() == -1);
    CHECK(shownVerdict(f).find("MISMATCH: losses differ from the reference - stale: ") == 0);
  }
  // A search typed on this plan (the text field keeps the keyboard: shortcuts above came first).
  typeSearch(f, "attn");
  CHECK(f.app.graphSlot().viewState().search == "attn");
  CHECK(f.app.graphSlot().viewState().searchHits.size() == 3);  // attn, attn_tok, attn_flat
  // Another plan: nothing of the first is shown (run, losses, divergence, scale, search).
  REQUIRE(f.app.openFile(kSamples + "/teach_all_gather.plan.json"));
  f.frames(2);
  requireNothingCarried(f);
}

TEST_CASE("a failed run of one plan is not shown for the next", "[views][app][results]") {
  const bool runnerBuilt = views::test::useBuiltRunner();
  AppFixture f;
  if (!f.app.runPanel().model().available) {
    if (runnerBuilt) FAIL("this build has a runner but the run panel found none");
    return;
  }
  // seed 1's real log: its joint graph names no loss node, so the run fails.
  REQUIRE(f.app.openFile(kReal + "seed1_buggy"));
  f.frames(2);
  f.runToEnd();
  const views::RunViewModel& m = f.app.runPanel().model();
  CHECK((m.status == views::RunStatus::Failed || m.status == views::RunStatus::Mismatch));
  CHECK_FALSE(m.error.empty());
  REQUIRE(f.app.openFile(kSamples + "/autosp_seq_first.plan.json"));
  f.frames(2);
  requireNothingCarried(f);
}

TEST_CASE("the fix-all message and divergence marks are of the plan they were said of", "[views][app][results]") {
  AppFixture f;
  REQUIRE(f.app.openFile(kSamples + "/falcon_index_put_2d.plan.json"));
  f.frames(2);
  f.app.inspectorState().fixMessage = "The fix planner found nothing it can change.";
  f.frames(1);
  CHECK_FALSE(f.app.inspectorState().fixMessage.empty());  // frames alone keep it
  std::optional<Command> fix = views::fixAllCommand(f.app.document().plan());
  REQUIRE(fix);
  f.app.commands().push(std::move(*fix));
  f.frames(2);
  CHECK_FALSE(f.app.document().diagnostics().hasErrors());
  CHECK(f.app.inspectorState().fixMessage.empty());
  f.app.inspectorState().fixMessage = "The fix planner found nothing it can change.";
  f.app.graphSlot().setDivergentNode(3);
  f.key('Z', true);
  CHECK(f.app.inspectorState().fixMessage.empty());
  CHECK(f.app.graphSlot().divergentNode() == -1);
  // A comparison, a search and a scale set on this plan do not follow it to the next one.
  REQUIRE(f.app.compareWith(kSamples + "/teach_all_gather.plan.json"));
  typeSearch(f, "index");
  f.app.runViewState().scale = 4;
  REQUIRE(f.app.openFile(kSamples + "/autosp_seq_first_fixed.plan.json"));
  f.frames(2);
  requireNothingCarried(f);
}

namespace {

// `shardscope diff --json A B`: the JSON and the exit code.
std::pair<nlohmann::json, int> cliDiff(const std::string& a, const std::string& b) {
  const std::string cmd = std::string("'") + SHARDSCOPE_BINARY + "' diff --json '" + a + "' '" + b + "'";
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = ::pclose(p);
  return {nlohmann::json::parse(out, nullptr, false), WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

}  // namespace

TEST_CASE("Compare and `shardscope diff` say the same of the real seed-1 pair (plans, applied graphs, diagnostics)", "[views][app][results][diff]") {
  for (const auto& [a, b] : {std::pair<std::string, std::string>{"seed1_buggy", "seed1_fixed"}, {"seed1_fixed", "seed1_buggy"}}) {
    INFO(a << " against " << b);
    AppFixture f;
    REQUIRE(f.app.openFile(kReal + a));
    REQUIRE(f.app.compareWith(kReal + b));
    f.frames(1);
    const PlanDiff& d = f.app.comparison().diff;
    const auto [j, code] = cliDiff(kReal + a, kReal + b);
    REQUIRE_FALSE(j.is_discarded());
    CHECK(code == 1);  // the applied graphs and the diagnostics differ
    const nlohmann::json& s = j.at("summary");
    CHECK(s.at("changes").get<size_t>() == d.changes.size());
    CHECK(s.at("diagnostics_added").get<size_t>() == d.diagnosticsAdded.size());
    CHECK(s.at("diagnostics_removed").get<size_t>() == d.diagnosticsRemoved.size());
    CHECK_FALSE(s.at("same").get<bool>());
    // The same plan: the one change is the applied graph's communication; the buggy log's missing transition is
    // its one error, gone in the fixed one.
    REQUIRE(d.changes.size() == 1);
    CHECK(d.changes[0].kind == ChangeKind::AppliedGraph);
    CHECK(j.at("changes").at(0).at("kind") == "applied-graph");
    CHECK(j.at("changes").at(0).at("before") == d.changes[0].before);
    CHECK(j.at("changes").at(0).at("after") == d.changes[0].after);
    const bool fromBuggy = a == "seed1_buggy";
    CHECK(d.diagnosticsRemoved.size() == (fromBuggy ? 1u : 0u));
    CHECK(d.diagnosticsAdded.size() == (fromBuggy ? 0u : 1u));
    const Diagnostics& side = fromBuggy ? d.diagnosticsA : d.diagnosticsB;
    const int k = fromBuggy ? d.diagnosticsRemoved.at(0) : d.diagnosticsAdded.at(0);
    CHECK(side.items.at(static_cast<size_t>(k)).kind == DiagKind::TransitionNotApplied);
  }
}
