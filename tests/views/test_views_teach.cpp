// Teach view records (views/teach_view.h) and the app's teaching paths, headless: the timeline, the atoms and
// what each cell holds, arrows and moving chips, the Edge view's Play button, File > New tensor and choosing
// other placements in the playground (undoable).
#include <catch2/catch.hpp>

#include <filesystem>

#include "app/gui/app.h"
#include "app/gui/platform.h"
#include "core/model/placement_parse.h"
#include "tests/views/app_fixture.h"
#include "tests/views/harness.h"
#include "views/teach_view.h"
#include "views/ui_probe.h"

using namespace ss;
using namespace ss::views;
namespace fs = std::filesystem;

namespace {

TeachPlan teach(std::vector<int64_t> shape, const DeviceMesh& mesh, const char* from, const char* to) {
  auto a = parseSpec(from, ParseContext{&mesh, -1});
  auto b = parseSpec(to, ParseContext{&mesh, -1});
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  TeachPlan tp = teachRedistribute(TensorMeta{std::move(shape), DType::F32, true}, mesh, *a, *b);
  REQUIRE(tp.possible);
  return tp;
}

std::vector<int> heldAtoms(const TeachCell& c) {
  std::vector<int> out;
  for (const AtomHeld& h : c.held) out.push_back(h.atom);
  return out;
}

const DeviceMesh mesh2x4({2, 4}, {"dp", "tp"});
const DeviceMesh mesh4({4});

TeachMoment moment(int step, int round, float progress, bool overview = false) {
  TeachMoment m;
  m.step = step;
  m.round = round;
  m.progress = progress;
  m.overview = overview;
  return m;
}

}  // namespace

TEST_CASE("teach timeline: one unit per round, local steps one unit", "[views][teach]") {
  const TeachPlan ag = teach({10, 3}, mesh4, "S(0)", "R");
  CHECK(teachTimelineLength(ag) == 3);
  CHECK(teachMomentAt(ag, 0).step == -1);
  const TeachMoment mid = teachMomentAt(ag, 1.5);
  CHECK(mid.step == 0);
  CHECK(mid.round == 1);
  CHECK(mid.progress == Approx(0.5f));
  const TeachMoment end = teachMomentAt(ag, 3);
  CHECK(end.step == 0);
  CHECK(end.round == 3);
  const TeachPlan two = teach({7, 5}, DeviceMesh({2, 2}), "S(0)S(0)", "RR");  // two 1-round steps
  CHECK(teachTimelineLength(two) == 2);
  CHECK(teachStepStart(two, 1) == 1);
  CHECK(teachMomentAt(two, 1.25).step == 1);
  const TeachPlan chunk = teach({8, 6}, mesh4, "R", "S(1)");
  CHECK(teachTimelineLength(chunk) == 1);
}

TEST_CASE("teach frame: atoms keep their place; cells hold the right ones before and after", "[views][teach]") {
  const TeachPlan tp = teach({8, 6}, mesh2x4, "RS(1)", "RS(0)");
  const TeachAtoms atoms = teachAtoms(tp);
  CHECK(atoms.dimA == 0);
  CHECK(atoms.dimB == 1);
  CHECK(atoms.cutsA == std::vector<int64_t>{0, 2, 4, 6, 8});
  CHECK(atoms.cutsB == std::vector<int64_t>{0, 2, 4, 6});
  CHECK(atoms.count() == 12);
  TeachFrameOptions o;
  o.width = 1000;
  o.height = 700;
  const TeachFrame start = teachFrame(tp, moment(-1, 0, 0), o);
  REQUIRE(start.cells.size() == 8);
  CHECK(heldAtoms(start.cells[0]) == std::vector<int>{0, 3, 6, 9});   // column block 0:2, all rows
  CHECK(heldAtoms(start.cells[5]) == std::vector<int>{1, 4, 7, 10});  // columns 2:4
  CHECK(heldAtoms(start.cells[3]).empty());
  CHECK(start.cells[3].empty);
  CHECK(start.arrows.empty());
  CHECK(start.chips.empty());
  CHECK(start.caption == "start: RS(1)  [R, S1]");
  const TeachFrame over = teachFrame(tp, moment(0, 0, 0, true), o);
  CHECK(heldAtoms(over.cells[0]) == std::vector<int>{0, 1, 2});   // rows 0:2, all columns
  CHECK(heldAtoms(over.cells[7]) == std::vector<int>{9, 10, 11});
  CHECK(over.arrows.size() == 24);  // every ordered pair inside both groups of 4
  CHECK(std::count_if(over.arrows.begin(), over.arrows.end(), [](const TeachArrow& a) { return a.paddingOnly; }) == 6);
  CHECK(over.chips.size() == 24);   // the 6 transfers from the empty ranks carry padding only: grey boxes
  CHECK(std::count_if(over.chips.begin(), over.chips.end(), [](const TeachChip& c) { return c.paddingOnly && c.pieces.empty(); }) == 6);
  // Cells do not overlap, and fit the area.
  for (size_t i = 0; i < over.cells.size(); ++i) {
    CHECK(over.cells[i].rect.x1 <= o.width);
    CHECK(over.cells[i].rect.y1 <= o.height);
    for (size_t j = i + 1; j < over.cells.size(); ++j) {
      const Rect& a = over.cells[i].rect;
      const Rect& b = over.cells[j].rect;
      CHECK((a.x1 <= b.x0 || b.x1 <= a.x0 || a.y1 <= b.y0 || b.y1 <= a.y0));
    }
  }
}

TEST_CASE("teach frame: a chip travels its arrow from the sender to the receiver", "[views][teach]") {
  const TeachPlan tp = teach({10, 3}, mesh4, "S(0)", "R");
  TeachFrameOptions o;
  const TeachFrame early = teachFrame(tp, moment(0, 0, 0.0f), o);
  const TeachFrame late = teachFrame(tp, moment(0, 0, 0.9f), o);
  REQUIRE(early.chips.size() == 4);  // round 1: every rank sends its own block
  REQUIRE(late.chips.size() == 4);
  REQUIRE(early.arrows.size() == 4);
  const TeachChip& a = early.chips[0];  // r0 -> r1
  const TeachChip& b = late.chips[0];
  CHECK(tp.steps[0].transfers[static_cast<size_t>(a.transfer)].src == 0);
  const float ax = (a.rect.x0 + a.rect.x1) / 2, bx = (b.rect.x0 + b.rect.x1) / 2;
  const Rect& r0 = early.cells[0].rect;
  const Rect& r1 = early.cells[1].rect;
  CHECK(ax == Approx((r0.x0 + r0.x1) / 2).margin(1.0));  // starts on r0's top edge, at its centre
  CHECK(bx > ax);
  CHECK(std::fabs(bx - (r1.x0 + r1.x1) / 2) < std::fabs(ax - (r1.x0 + r1.x1) / 2));
  // While round 1 is in flight nobody holds more than its own block; after it each holds two.
  CHECK(heldAtoms(early.cells[1]).size() == 1);
  const TeachFrame afterRound = teachFrame(tp, moment(0, 1, 0.0f), o);
  CHECK(heldAtoms(afterRound.cells[1]).size() == 2);
  // The chip's pieces are the block's atoms in their colours: r0's block is atom 0 (rows 0:3).
  REQUIRE(a.pieces.size() == 1);
  CHECK(a.pieces[0].first == 0);
  CHECK(early.detail == "round 1 of 3");
  // r3's one row travels padded to three: the padding is drawn below the block, twice its height.
  const TeachChip& short3 = early.chips[3];
  CHECK(tp.steps[0].transfers[static_cast<size_t>(short3.transfer)].src == 3);
  CHECK(short3.padding.h() == Approx(2 * short3.rect.h()));
  CHECK(a.padding.h() == 0);
}

TEST_CASE("teach frame: a reduce_scatter in flight counts the partial values combined", "[views][teach]") {
  const TeachPlan tp = teach({8, 2}, mesh4, "P(sum)", "S(0)");
  TeachFrameOptions o;
  // After round 1, r1 holds rows 6:8 combined from r0 and itself (2 of 4), everything else 1 of 4.
  const TeachFrame f = teachFrame(tp, moment(0, 1, 0.0f), o);
  const TeachAtoms& atoms = f.atoms;
  REQUIRE(atoms.cutsA == std::vector<int64_t>{0, 2, 4, 6, 8});
  for (const AtomHeld& h : f.cells[1].held) {
    CHECK(h.partial);
    CHECK(h.of == 4);
    CHECK(h.count == (h.atom == 3 ? 2 : 1));
  }
  REQUIRE(f.chips.size() == 4);
  for (const TeachChip& c : f.chips) {
    CHECK(c.reduces);
    CHECK(c.count == 2);
  }
  // At the end r1 holds its chunk, fully reduced.
  const TeachFrame end = teachFrame(tp, moment(0, 3, 0.0f), o);
  REQUIRE(end.cells[1].held.size() == 1);
  CHECK(end.cells[1].held[0].atom == 1);
  CHECK_FALSE(end.cells[1].held[0].partial);
}

TEST_CASE("teach view: play advances through the steps and stops at the end", "[views][teach]") {
  test::ImGuiHarness h;
  const Plan plan = makePlayground(TensorMeta{{8, 6}, DType::BF16, true}, mesh2x4, *parseSpec("RS(1)", {&mesh2x4, 2}));
  Plan edited = plan;
  REQUIRE(applyCommand(edited, choosePlaygroundLayout(edited, *parseSpec("S(1)S(0)", {&mesh2x4, 2}))).ok());
  Diagnostics diags;
  TeachViewState st;
  Selection sel;
  CommandQueue cmds;
  h.frame([&] { drawTeachView(edited, diags, st, sel, cmds); });
  REQUIRE(st.plan.has_value());
  CHECK(sel.hasEdge());  // the playground selects its one edge
  REQUIRE(st.plan->steps.size() == 2);  // RS(1) -> S(1)S(0): all_to_all on tp, then chunk on dp
  const double end = teachTimelineLength(*st.plan);
  st.playRequested = true;
  h.frame([&] { drawTeachView(edited, diags, st, sel, cmds); });
  CHECK(st.playing);
  for (int i = 0; i < 400 && st.playing; ++i) h.frame([&] { drawTeachView(edited, diags, st, sel, cmds); });
  CHECK_FALSE(st.playing);
  CHECK(st.position == end);
  CHECK(st.lastMoment.step == 1);
  CHECK(cmds.empty());
}

namespace {
using app::test::TempDirs;

struct App {
  TempDirs dirs;
  app::HeadlessPlatform platform;
  app::GuiApp gui;
  App() : gui(platform, options()) {
    std::string err;
    REQUIRE(gui.init(err));
    setProbing(true);
    clearProbes();
  }
  ~App() { setProbing(false); }
  static app::GuiOptions options() { return app::GuiOptions::isolated(); }
  void frames(int n) {
    for (int i = 0; i < n; ++i) gui.frame();
  }
  void click(const Rect& r) {
    test::mouseTo((r.x0 + r.x1) * 0.5f, (r.y0 + r.y1) * 0.5f);
    frames(1);
    test::mouseButton(true);
    frames(1);
    test::mouseButton(false);
    frames(2);
  }
};
}  // namespace

TEST_CASE("the Edge view's Play button plays the edge in the Teach view", "[views][teach][app]") {
  App a;
  REQUIRE(a.gui.openFile(test::fixture("mini_falcon.plan.json")));
  a.frames(3);
  const auto play = probedRect("edge.play");
  REQUIRE(play.has_value());
  a.click(*play);
  CHECK(a.gui.teachState().framesDrawn > 0);
  REQUIRE(a.gui.teachState().plan.has_value());
  CHECK(a.gui.teachState().plan->from.toMeshString() == "RS(1)");
  CHECK(a.gui.teachState().plan->to.toMeshString() == "RS(0)");
  CHECK(a.gui.teachState().playing);
  CHECK(a.gui.document().plan().redistributes.empty());  // playing changes nothing
}

TEST_CASE("File > New tensor, then choosing other placements is an undoable command", "[views][teach][app]") {
  App a;
  app::NewTensorForm form;
  form.placements = "(Replicate(), Shard(dim=1))";
  CHECK(app::buildPlayground(form).ok());
  app::NewTensorForm bad = form;
  bad.placements = "RS(x)";
  CHECK(app::buildPlayground(bad).error().message == "placements 'RS(x)': expected a tensor dim, found 'x' (column 4)");
  REQUIRE(a.gui.newTensor(form));
  a.frames(3);
  CHECK(isPlayground(a.gui.document().plan()));
  CHECK(a.gui.teachState().framesDrawn > 0);
  CHECK(a.gui.selection().hasEdge());
  // Type other placements and press the button.
  a.gui.teachState().playgroundInput = "RS(0)";
  const auto apply = probedRect("teach.apply");
  REQUIRE(apply.has_value());
  a.click(*apply);
  const Plan& p = a.gui.document().plan();
  CHECK(p.producerSpec(kPlaygroundRelayout, 0)->toMeshString() == "RS(1)");
  CHECK(p.consumerSpec(kPlaygroundRelayout, 0)->toMeshString() == "RS(0)");
  REQUIRE(a.gui.teachState().plan.has_value());
  CHECK(a.gui.teachState().plan->steps.size() == 1);
  CHECK(a.gui.document().history().canUndo());
  REQUIRE(a.gui.document().undo().ok());
  CHECK(a.gui.document().plan().consumerSpec(kPlaygroundRelayout, 0)->toMeshString() == "RS(1)");
  // A dirty document is not replaced.
  REQUIRE(a.gui.document().redo().ok());
  CHECK_FALSE(a.gui.newTensor(form));
}

TEST_CASE("every teaching sample opens on the edge its description says to look at, with Play", "[views][teach][samples]") {
  int samples = 0;
  for (const auto& e : fs::directory_iterator(SHARDSCOPE_SAMPLES_DIR)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("teach_", 0) != 0 || name.size() < 10 || name.substr(name.size() - 10) != ".plan.json") continue;
    ++samples;
    INFO(name);
    App a;
    REQUIRE(a.gui.openFile(e.path().string()));
    a.frames(3);
    const Plan& plan = a.gui.document().plan();
    // "... Look at: NODE input N (...)"
    const std::string& d = plan.description;
    const size_t at = d.find("Look at: ");
    REQUIRE(at != std::string::npos);
    const size_t sp = d.find(' ', at + 9);
    const std::string node = d.substr(at + 9, sp - at - 9);
    REQUIRE(d.compare(sp, 7, " input ") == 0);
    const int input = std::stoi(d.substr(sp + 7));
    CHECK(a.gui.selection().node == plan.graph.find(node));
    CHECK(a.gui.selection().input == input);
    CHECK(plan.findRedistribute(plan.graph.find(node), input) != nullptr);
    CHECK(a.gui.document().diagnostics().summary().errors == 0);
    REQUIRE(probedRect("edge.play").has_value());
    a.click(*probedRect("edge.play"));
    REQUIRE(a.gui.teachState().plan.has_value());
    CHECK(a.gui.teachState().plan->possible);
    CHECK_FALSE(a.gui.teachState().plan->steps.empty());
  }
  CHECK(samples == 7);
}
