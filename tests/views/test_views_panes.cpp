// Panes can be maximised and restored (issue 42): the trailing "Maximise" tab button fills the window with its
// pane, "Restore" and Escape bring the layout back; the Communication tab sits with Costs and Run.
#include <catch2/catch.hpp>

#include "tests/views/app_fixture.h"
#include "views/keys.h"
#include "views/ui_probe.h"

using namespace ss;
using namespace ss::app;
using namespace ss::app::test;

TEST_CASE("a pane maximises to the window and restores", "[views][app][panes]") {
  AppFixture f;
  REQUIRE(f.app.openFile(views::test::fixture("mini_falcon.plan.json")));
  f.frames(3);
  const auto button = views::probedRect("pane0.maximise");
  REQUIRE(button.has_value());
  const float display = ImGui::GetIO().DisplaySize.x;
  CHECK(f.app.graphSlot().viewState().canvas.size.x < display * 0.8f);  // the graph pane is one of several
  f.click(*button);
  CHECK(f.app.maximisedPane() == 0);
  views::clearProbes();  // probes keep the last rect drawn: only this frame's count
  f.frames(2);
  const auto restore = views::probedRect("pane0.maximise");
  REQUIRE(restore.has_value());
  // The graph's canvas now spans the window; the other panes are not drawn.
  CHECK(f.app.graphSlot().viewState().canvas.size.x > display - 40);
  CHECK_FALSE(views::probedRect("pane1.maximise").has_value());
  f.click(*restore);
  CHECK(f.app.maximisedPane() == -1);
  // Escape restores too.
  f.click(*views::probedRect("pane0.maximise"));
  REQUIRE(f.app.maximisedPane() == 0);
  f.key(views::keys::kEscape, false);
  CHECK(f.app.maximisedPane() == -1);
  CHECK(views::probedRect("pane5.maximise").has_value());
}
