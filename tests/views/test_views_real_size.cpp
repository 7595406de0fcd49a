// The app at real size (issue 42), headless: toolbars that wrap instead of clipping at 1280x720, the key table
// and the keys it adds (next problem, zoom, pan, fit), Enter in dialogs, Run refused with its reason, a failed
// run's error first with the ranks that share it on one line, Teach cells that elide their text.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <algorithm>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/gui/new_tensor.h"
#include "app/gui/run.h"
#include "core/plan/teach.h"
#include "core/model/placement_parse.h"
#include "core/run/run_report.h"
#include "tests/views/app_fixture.h"
#include "tests/views/harness.h"
#include "views/diagnostics_view.h"
#include "views/keys.h"
#include "views/model/text_fit.h"
#include "views/run_view.h"
#include "views/teach_view.h"
#include "views/toolbar.h"
#include "views/ui_probe.h"

using namespace ss;
using namespace ss::app;
using namespace ss::app::test;
namespace fs = std::filesystem;

namespace {

const std::string kReal = std::string(SHARDSCOPE_TESTDATA_DIR) + "/real/";

GuiOptions sized(int w, int h) {
  GuiOptions o = testOptions();
  o.width = w;
  o.height = h;
  return o;
}

// Every probed toolbar control ("toolbar.<bar>.<item>") against its toolbar's window ("toolbar.<bar>"): the
// controls that cross its left or right edge (clipped), as "key x0,y0 x1,y1 outside x0,y0 x1,y1". Rows below a
// scrolling pane's fold (the Inspector's) are scrolled to, not clipped: only x is checked. Counts the controls.
std::vector<std::string> clippedControls(int& checked) {
  std::vector<std::string> out;
  checked = 0;
  const std::vector<std::string> keys = views::probedKeys("toolbar.");
  const std::set<std::string> all(keys.begin(), keys.end());
  for (const std::string& k : keys) {
    const size_t dot = k.rfind('.');
    const std::string bar = k.substr(0, dot);
    if (bar == "toolbar" || !all.count(bar)) continue;  // a window rect, not a control
    const views::Rect c = *views::probedRect(k), w = *views::probedRect(bar);
    ++checked;
    if (c.x0 < w.x0 || c.x1 > w.x1) {
      std::ostringstream s;
      s << k << " " << c.x0 << "," << c.y0 << " " << c.x1 << "," << c.y1 << " outside " << w.x0 << "," << w.y0 << " "
        << w.x1 << "," << w.y1;
      out.push_back(s.str());
    }
  }
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += s + "\n";
  return out;
}

void press(int key, bool shift = false) {
  ImGuiIO& io = ImGui::GetIO();
  io.KeyShift = shift;
  io.KeysDown[key] = true;
}

}  // namespace

TEST_CASE("toolbar flow: controls wrap to a new line instead of leaving a narrow window", "[views][toolbar]") {
  views::test::ImGuiHarness h(300, 400);
  views::setProbing(true);
  bool a = false, b = true, c = false;
  h.frame([&] {
    views::ToolbarFlow row("narrow");
    row.next(views::ToolbarFlow::buttonWidth("Fit"));
    ImGui::Button("Fit");
    row.probe("fit");
    row.next(views::ToolbarFlow::checkboxWidth("only problems"));
    ImGui::Checkbox("only problems", &a);
    row.probe("only_problems");
    row.next(views::ToolbarFlow::checkboxWidth("collapse repeated"));
    ImGui::Checkbox("collapse repeated", &b);
    row.probe("collapse_repeated");
    row.next(views::ToolbarFlow::checkboxWidth("minimap"));
    ImGui::Checkbox("minimap", &c);
    row.probe("minimap");
  });
  int checked = 0;
  const std::vector<std::string> clipped = clippedControls(checked);
  CHECK(checked >= 4);
  CHECK(clipped.empty());
  const views::Rect fit = *views::probedRect("toolbar.narrow.fit");
  const views::Rect only = *views::probedRect("toolbar.narrow.only_problems");
  const views::Rect repeated = *views::probedRect("toolbar.narrow.collapse_repeated");
  const views::Rect minimap = *views::probedRect("toolbar.narrow.minimap");
  CHECK(only.y0 == fit.y0);      // "Fit" and "only problems" fit one line of 300 px
  CHECK(repeated.y0 > fit.y0);   // "collapse repeated" does not fit after them: the next line
  CHECK(repeated.x0 == fit.x0);  // ... from the left edge
  CHECK(minimap.y0 == repeated.y0);
  // The widths the flow computes are the widths ImGui draws.
  CHECK(fit.w() == Approx(views::ToolbarFlow::buttonWidth("Fit")));
  CHECK(minimap.w() == Approx(views::ToolbarFlow::checkboxWidth("minimap")));
  views::setProbing(false);
  views::clearProbes();
}

TEST_CASE("at 1280x720 no toolbar control is clipped: Graph, Diagnostics, Edge, Teach, Run", "[views][toolbar][app]") {
  AppFixture f(sized(1280, 720));
  REQUIRE(f.app.openFile(kReal + "llama3_2d/rank0.log"));
  f.frames(3);
  int checked = 0;
  std::vector<std::string> clipped = clippedControls(checked);
  INFO(join(clipped));
  CHECK(clipped.empty());
  // The Graph toolbar's controls the issue found cut off are drawn, inside the pane, on a second line.
  for (const char* k : {"fit", "search", "only_problems", "collapse_repeated", "level", "minimap"})
    CHECK(views::probedRect(std::string("toolbar.graph.") + k).has_value());
  CHECK(views::probedRect("toolbar.graph.minimap")->y0 > views::probedRect("toolbar.graph.fit")->y0);
  CHECK(views::probedRect("toolbar.edge.input").has_value());
  CHECK(views::probedRect("toolbar.inspector.fixall").has_value());
  CHECK(views::probedRect("toolbar.inspector.input0.in1").has_value());  // the second mesh dim's combo

  // The other tabs' toolbars.
  for (const views::ViewId v : {views::ViewId::Teach, views::ViewId::Run, views::ViewId::Diagnostics}) {
    views::clearProbes();
    f.app.showTab(v);
    f.frames(3);
    clipped = clippedControls(checked);
    INFO(views::viewName(v) << ": " << join(clipped));
    CHECK(checked >= 3);
    CHECK(clipped.empty());
  }
  CHECK(views::probedRect("toolbar.diagnostics.infos").has_value());
  CHECK(views::probedRect("toolbar.run.scale").has_value());
}

TEST_CASE("the shortcut help is the key table: every key listed once per action", "[views][keys]") {
  using views::keys::Action;
  const std::vector<views::keys::HelpRow> rows = views::keys::shortcutHelp();
  std::set<Action> actions;
  for (const views::keys::KeyBinding& b : views::keys::kBindings) {
    actions.insert(b.action);
    bool listed = false;
    for (const auto& r : rows) listed = listed || r.keys.find(b.label) != std::string::npos;
    INFO(b.label);
    CHECK(listed);
  }
  CHECK(rows.size() == actions.size());
  auto rowOf = [&](const std::string& what) {
    for (const auto& r : rows)
      if (r.what == what) return r.keys;
    return std::string("(none)");
  };
  CHECK(rowOf("Redo") == "Ctrl+Shift+Z / Ctrl+Y");
  CHECK(rowOf("Graph: fit (the deepest module level whose labels are readable)") == "F");
  CHECK(rowOf("Graph: open the module box under the mouse (or the selection's)") == "E");
  CHECK(rowOf("Graph: close the layer or module around the selection") == "Shift+E");
  CHECK(rowOf("Graph: zoom in") == "+ / Keypad +");
  CHECK(rowOf("Graph: zoom out") == "- / Keypad -");
  CHECK(rowOf("Select the next problem (centred in the graph)") == "F8");
  CHECK(rowOf("Select the previous problem") == "Shift+F8");
  CHECK(rowOf("Graph: pan left") == "Left");
}

TEST_CASE("F8 and Shift+F8 walk the listed problems, one stop per node or edge, centring each", "[views][keys][app]") {
  AppFixture f;
  // Two errors on two inputs of the AutoSP sample (and warnings after them).
  REQUIRE(f.app.openFile(std::string(SHARDSCOPE_SAMPLES_DIR) + "/autosp_seq_first.plan.json"));
  f.frames(3);
  const Plan& plan = f.app.document().plan();
  const Diagnostics& d = f.app.document().diagnostics();
  // The stops, as the Diagnostics view lists them (errors, then warnings; infos hidden).
  const std::vector<int> listed = views::filterDiagnostics(plan, d, f.app.diagnosticsState());
  std::vector<std::pair<int, int>> stops;
  for (int i : listed) {
    const Diagnostic& x = d.items[static_cast<size_t>(i)];
    if (x.node >= 0 && std::find(stops.begin(), stops.end(), std::make_pair(x.node, x.input)) == stops.end())
      stops.emplace_back(x.node, x.input);
  }
  REQUIRE(stops.size() >= 2);
  // Open selects the first problem: F8 goes to the second stop, Shift+F8 back, Shift+F8 again wraps to the last.
  REQUIRE(std::make_pair(f.app.selection().node, f.app.selection().input) == stops[0]);
  f.key(views::keys::kF8, false);
  CHECK(std::make_pair(f.app.selection().node, f.app.selection().input) == stops[1]);
  CHECK_FALSE(f.app.selection().centreRequested);  // the graph view took the request and centred on it
  const views::GraphViewState& g = f.app.graphSlot().viewState();
  REQUIRE(g.model.has_value());
  const Vec2d centre = g.model->layout.nodeRect(stops[1].first).center();
  CHECK(g.canvas.visibleWorld().contains(centre));
  f.key(views::keys::kF8, false, true);
  CHECK(std::make_pair(f.app.selection().node, f.app.selection().input) == stops[0]);
  f.key(views::keys::kF8, false, true);
  CHECK(std::make_pair(f.app.selection().node, f.app.selection().input) == stops.back());
  // stepProblem alone: from no selection, the first (forward) or the last (back).
  views::Selection none;
  CHECK(views::stepProblem(plan, d, f.app.diagnosticsState(), none, +1) == listed.front());
}

TEST_CASE("graph keys: + and - zoom about the centre, arrows pan, F fits again", "[views][keys][app]") {
  AppFixture f;
  REQUIRE(f.app.openFile(views::test::fixture("mini_falcon.plan.json")));
  f.frames(3);
  const views::GraphViewState& g = f.app.graphSlot().viewState();
  f.key(views::keys::kF, false);  // fit: the whole graph
  const double fitZoom = g.canvas.zoom;
  const Vec2d centre = g.canvas.toWorld(g.canvas.origin + g.canvas.size * 0.5);
  f.key(views::keys::kEqual, false, true);  // '+' (Shift+'=')
  CHECK(g.canvas.zoom == Approx(fitZoom * 1.25));
  const Vec2d after = g.canvas.toWorld(g.canvas.origin + g.canvas.size * 0.5);
  CHECK(after.x == Approx(centre.x));  // about the canvas centre
  CHECK(after.y == Approx(centre.y));
  f.key(views::keys::kMinus, false);
  CHECK(g.canvas.zoom == Approx(fitZoom));
  const Vec2d offset = g.canvas.offset;
  f.key(views::keys::kLeft, false);  // shows what is left: the view moves 60 px left
  CHECK(g.canvas.offset.x == Approx(offset.x - 60 / g.canvas.zoom));
  CHECK(g.canvas.offset.y == Approx(offset.y));
  f.key(views::keys::kDown, false);
  CHECK(g.canvas.offset.y == Approx(offset.y + 60 / g.canvas.zoom));
  f.key(views::keys::kEqual, false);
  f.key(views::keys::kEqual, false);
  CHECK(g.canvas.zoom == Approx(fitZoom * 1.25 * 1.25));
  f.key(views::keys::kF, false);
  CHECK(g.canvas.zoom == Approx(fitZoom));
}

TEST_CASE("graph keys are the text field's while typing", "[views][keys][app]") {
  AppFixture f;
  REQUIRE(f.app.openFile(views::test::fixture("mini_falcon.plan.json")));
  f.frames(3);
  const views::GraphViewState& g = f.app.graphSlot().viewState();
  const double zoom = g.canvas.zoom;
  f.key('F', true);  // Ctrl+F: the search field takes the keys
  f.frames(1);
  ImGui::GetIO().AddInputCharacter('-');
  f.key(views::keys::kMinus, false);
  CHECK(g.canvas.zoom == zoom);
  CHECK(g.search == "-");
}

TEST_CASE("Enter in Save as saves, wherever the dialog's focus is", "[views][keys][app]") {
  AppFixture f;
  const fs::path copy = f.dirs.root / "plan.plan.json";
  fs::copy_file(views::test::fixture("mini_falcon.plan.json"), copy);
  REQUIRE(f.app.openFile(copy.string()));
  f.frames(2);
  const Plan& plan = f.app.document().plan();
  const int acc = plan.graph.find("acc");
  f.app.commands().push(InsertRedistribute{Redistribute{acc, 1, *plan.producerSpec(acc, 1), *plan.consumerSpec(acc, 1)}});
  f.frames(1);
  REQUIRE(f.app.document().dirty());
  f.key('S', true, true);  // Ctrl+Shift+S: the built-in browser, the name filled in
  f.frames(2);
  const auto all = views::probedRect("filedialog.all");
  REQUIRE(all.has_value());
  f.click(*all);  // the focus leaves the name field
  f.key(views::keys::kEnter, false);
  f.frames(1);
  CHECK_FALSE(f.app.document().dirty());
  Result<Plan> saved = loadPlanFile(copy.string());
  REQUIRE(saved.ok());
  CHECK(saved.value().redistributes.size() == 1);
}

TEST_CASE("Enter creates the New tensor form's plan when the form is right, and only then", "[views][keys]") {
  views::test::ImGuiHarness h;
  NewTensorForm form;
  NewTensorAction a = NewTensorAction::None;
  h.frame([&] { a = drawNewTensorForm(form, true); });  // the window appears: Enter is not taken yet
  press(views::keys::kEnter);
  h.frame([&] { a = drawNewTensorForm(form, true); });
  ImGui::GetIO().KeysDown[views::keys::kEnter] = false;
  CHECK(a == NewTensorAction::Create);
  h.frame([&] { a = drawNewTensorForm(form, true); });
  CHECK(a == NewTensorAction::None);
  form.shape = "[4, x]";
  press(views::keys::kEnter);
  h.frame([&] { a = drawNewTensorForm(form, true); });
  ImGui::GetIO().KeysDown[views::keys::kEnter] = false;
  CHECK(a == NewTensorAction::None);
}

TEST_CASE("Run is refused with its reason on a plan that cannot run: the button, F5 and the panel", "[views][run][app]") {
  views::test::useBuiltRunner();
  AppFixture f;
  // mini_falcon with a loss node that is not in the graph: not executable.
  nlohmann::json j = nlohmann::json::parse(std::ifstream(views::test::fixture("mini_falcon.plan.json")));
  j["run"]["loss"] = "no_such_node";
  const fs::path p = f.dirs.root / "noloss.plan.json";
  std::ofstream(p) << j.dump();
  REQUIRE(f.app.openFile(p.string()));
  CHECK(RunPanel::refusal(f.app.document().plan()) ==
        "This plan cannot be executed (it needs args, known shapes, and a loss node or a floating output).");
  f.app.showTab(views::ViewId::Run);
  f.frames(3);
  f.key(views::keys::kF5, false);  // nothing starts
  CHECK_FALSE(f.app.runPanel().active());
  CHECK(f.app.runPanel().model().status == views::RunStatus::Idle);
  CHECK(f.app.runPanel().model().error.empty());
  const auto run = views::probedRect("run.start");
  REQUIRE(run.has_value());
  REQUIRE(views::probedRect("run.refusal").has_value());  // the panel says why
  f.click(*run);                                          // disabled
  CHECK(f.app.runPanel().model().status == views::RunStatus::Idle);
  // The same plan, runnable: no refusal of the plan.
  REQUIRE(f.app.openFile(views::test::fixture("mini_falcon.plan.json")));
  CHECK(RunPanel::refusal(f.app.document().plan()).empty());
}

TEST_CASE("run view: the refusal line names the runner's absence first, else the plan's reason", "[views][run]") {
  views::RunViewModel m;
  CHECK(views::runRefusalLine(m, "") == "");
  CHECK(views::runRefusalLine(m, "refused: x") == "refused: x");
  m.available = false;
  m.unavailableReason = "no runner here.";
  CHECK(views::runRefusalLine(m, "refused: x") == "Runs are not available: no runner here.");
  // Drawn: Run is disabled, so a click on it starts nothing.
  views::test::ImGuiHarness h;
  const Plan plan = views::test::loadFixture("mini_falcon.plan.json");
  views::RunViewState st;
  views::Selection sel;
  views::setProbing(true);
  views::RunViewActions act;
  h.frame([&] { act = views::drawRunView(plan, m, st, sel); });
  const views::Rect r = *views::probedRect("run.start");
  views::test::mouseTo((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2);
  h.frame([&] { act = views::drawRunView(plan, m, st, sel); });
  views::test::mouseButton(true);
  h.frame([&] { act = views::drawRunView(plan, m, st, sel); });
  views::test::mouseButton(false);
  h.frame([&] { act = views::drawRunView(plan, m, st, sel); });
  CHECK_FALSE(act.start);
  views::setProbing(false);
  views::clearProbes();
}

TEST_CASE("a failed run: the error first, the ranks that share it on one line", "[views][run]") {
  CHECK(sameErrorNote(3) == "also rank 3 at the same node, same error");
  CHECK(sameErrorNoteRank(sameErrorNote(12)) == 12);
  CHECK_FALSE(sameErrorNoteRank("also rank x at the same node, same error").has_value());
  CHECK_FALSE(sameErrorNoteRank("also rank 3, node mm: other").has_value());
  CHECK(rankRanges({5, 1, 2, 3, 9, 10}) == "ranks 1-3, 5, 9-10");
  CHECK(rankRanges({4}) == "rank 4");
  CHECK(rankRanges({}) == "");

  views::RunViewModel m;
  m.status = views::RunStatus::Failed;
  m.error = "shape mismatch in index_put";
  m.errorRank = 0;
  m.errorNode = "index_put";
  m.notes.push_back("ranks share GPUs: collectives via Gloo");
  for (int r = 1; r < 8; ++r) m.notes.push_back(sameErrorNote(r));
  m.notes.push_back("also rank 9, node mm: other");
  const views::RunErrorLines lines = views::runErrorLines(m);
  CHECK(lines.error == "rank 0: shape mismatch in index_put");
  CHECK(lines.sameRanks == "ranks 1-7: same error");
  CHECK(lines.notes == std::vector<std::string>{"ranks share GPUs: collectives via Gloo", "also rank 9, node mm: other"});

  // Drawn: the error above the notes, and no "same error" note among them.
  views::test::ImGuiHarness h;
  const Plan plan = views::test::loadFixture("mini_falcon.plan.json");
  views::RunViewState st;
  views::Selection sel;
  views::setProbing(true);
  h.frame([&] { views::drawRunView(plan, m, st, sel); });
  REQUIRE(views::probedRect("run.error").has_value());
  REQUIRE(views::probedRect("run.note1").has_value());
  CHECK_FALSE(views::probedRect("run.note2").has_value());
  CHECK(views::probedRect("run.error")->y0 < views::probedRect("run.note0")->y0);
  views::setProbing(false);
  views::clearProbes();

  // Without an error every note stays a note.
  m.error.clear();
  CHECK(views::runErrorLines(m).notes.size() == 9);
}

TEST_CASE("elideToWidth: the longest start that fits, with ...", "[views][elide]") {
  const views::TextWidthFn w = views::fixedAdvanceWidth(7);
  CHECK(views::elideToWidth("r5 (1,1)", 56, w) == "r5 (1,1)");  // 8 characters: 56 px
  CHECK(views::elideToWidth("r5 (1,1)", 55, w) == "r5 (...");
  CHECK(views::elideToWidth("r5 (1,1)", 21, w) == "...");
  CHECK(views::elideToWidth("r5 (1,1)", 20, w) == "");
  CHECK(views::elideToWidth("\xc3\xa9t\xc3\xa9" "es", 28, w) == "\xc3\xa9...");  // cut between UTF-8 characters
}

TEST_CASE("teach cells elide their label and shape to the cell, the record keeps the full text", "[views][teach][elide]") {
  const DeviceMesh mesh({2, 4}, {"dp", "tp"});
  auto a = parseSpec("RS(1)", ParseContext{&mesh, -1});
  auto b = parseSpec("RS(0)", ParseContext{&mesh, -1});
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  const TeachPlan tp = teachRedistribute(TensorMeta{{1024, 4096}, DType::F32, true}, mesh, *a, *b);
  REQUIRE(tp.possible);
  views::TeachFrameOptions o;
  o.width = 420;
  o.height = 600;
  o.textWidth = views::fixedAdvanceWidth(7);
  const views::TeachFrame narrow = views::teachFrame(tp, views::TeachMoment{}, o);
  REQUIRE(narrow.cells.size() == 8);
  const views::TeachCell& c = narrow.cells[5];
  INFO("cell width " << c.rect.w());
  CHECK(c.label == "r5 (1,1)");
  CHECK(c.shape == "[1024, 1024]");
  const float room = c.rect.w() - 10;
  CHECK(o.textWidth(c.shapeShown) <= room);
  CHECK(o.textWidth(c.labelShown) <= room);
  CHECK(c.shapeShown != c.shape);  // too long for the cell: elided
  CHECK(c.shapeShown == views::elideToWidth(c.shape, room, o.textWidth));
  CHECK(c.shapeShown.substr(c.shapeShown.size() - 3) == "...");
  // A wide page shows everything.
  o.width = 1600;
  const views::TeachFrame wide = views::teachFrame(tp, views::TeachMoment{}, o);
  CHECK(wide.cells[5].labelShown == "r5 (1,1)");
  CHECK(wide.cells[5].shapeShown == "[1024, 1024]");
}

TEST_CASE("a pane maximises to the whole area and restores, by F11 over it or its tab bar's button", "[views][keys][app]") {
  AppFixture f(sized(1280, 720));
  REQUIRE(f.app.openFile(views::test::fixture("mini_falcon.plan.json")));
  f.frames(2);
  const views::Rect edge = *views::probedRect("pane2");  // Edge / Teach, in the layout
  const views::Rect graph = *views::probedRect("pane0");
  CHECK(edge.w() < 640);
  // F11 over the Edge pane: it fills the area between menu and status bar, alone.
  views::test::mouseTo((edge.x0 + edge.x1) / 2, (edge.y0 + edge.y1) / 2);
  f.frames(1);
  f.key(views::keys::kF11, false);
  CHECK(f.app.maximisedPane() == 2);
  views::clearProbes();
  f.frames(1);
  const views::Rect big = *views::probedRect("pane2");
  CHECK(big.x0 == 0);
  CHECK(big.x1 == 1280);
  CHECK(big.y0 == graph.y0);
  CHECK_FALSE(views::probedRect("pane0").has_value());  // the others are not drawn
  // Its tab bar's button restores the layout.
  const auto restore = views::probedRect("pane2.maximise");
  REQUIRE(restore.has_value());
  f.click(*restore);
  CHECK(f.app.maximisedPane() == -1);
  views::clearProbes();
  f.frames(1);
  CHECK(views::probedRect("pane2")->x0 == edge.x0);
  CHECK(views::probedRect("pane2")->x1 == edge.x1);
  CHECK(views::probedRect("pane0").has_value());
  // The button maximises too; F11 anywhere restores.
  f.click(*views::probedRect("pane0.maximise"));
  CHECK(f.app.maximisedPane() == 0);
  f.key(views::keys::kF11, false);
  CHECK(f.app.maximisedPane() == -1);
}

TEST_CASE("the samples and real logs the run tests start are not refused: Run and F5 stay enabled on them", "[views][run][app]") {
  AppFixture f;
  std::vector<std::string> paths = {kReal + "seed1_buggy", kReal + "seed1_fixed", kReal + "conv/rank0.log",
                                    views::test::fixture("mini_falcon.plan.json")};
  for (const auto& e : fs::directory_iterator(SHARDSCOPE_SAMPLES_DIR))
    if (e.path().string().size() > 10 && e.path().string().find(".plan.json") != std::string::npos) paths.push_back(e.path().string());
  for (const std::string& p : paths) {
    REQUIRE(f.app.openFile(p));
    const std::string why = RunPanel::holdsPrograms(f.app.document().path()) ? "" : RunPanel::refusal(f.app.document().plan());
    INFO(p << ": " << why);
    CHECK(why.empty());
  }
}

TEST_CASE("the minimap scales with the graph pane: within a fifth of its width and a third of its height", "[views][app][minimap]") {
  for (const auto& [w, h] : {std::pair{1280, 720}, std::pair{1366, 768}, std::pair{2560, 1440}}) {
    AppFixture f(sized(w, h));
    REQUIRE(f.app.openFile(kReal + "seed1_buggy"));
    f.frames(3);
    const views::GraphViewState& g = f.app.graphSlot().viewState();
    const auto mini = views::probedRect("graph.minimap");
    REQUIRE(mini.has_value());
    INFO(w << "x" << h << ": minimap " << mini->w() << " x " << mini->h() << " in a canvas " << g.canvas.size.x << " x "
           << g.canvas.size.y);
    CHECK(mini->w() <= g.canvas.size.x * views::kMinimapMaxWidth + 0.5);
    CHECK(mini->h() <= g.canvas.size.y * views::kMinimapMaxHeight + 0.5);
    CHECK(mini->x1 <= g.canvas.origin.x + g.canvas.size.x);
    CHECK(mini->y1 <= g.canvas.origin.y + g.canvas.size.y);
  }
}

TEST_CASE("Enter closes the Problem dialog; Esc cancels the unsaved-changes question", "[views][keys][app]") {
  AppFixture f;
  const fs::path bad = f.dirs.root / "bad.plan.json";
  std::ofstream(bad) << "{\"format\": \"shardscope-plan\", \"version\": 1, \"mesh\": {\"shape\": [0]}}";
  CHECK_FALSE(f.app.openFile(bad.string()));
  f.frames(2);
  REQUIRE(f.app.modal() == "Problem");
  f.key(views::keys::kEnter, false);
  CHECK(f.app.modal().empty());

  const fs::path copy = f.dirs.root / "plan.plan.json";
  fs::copy_file(views::test::fixture("mini_falcon.plan.json"), copy);
  REQUIRE(f.app.openFile(copy.string()));
  const Plan& plan = f.app.document().plan();
  const int acc = plan.graph.find("acc");
  f.app.commands().push(InsertRedistribute{Redistribute{acc, 1, *plan.producerSpec(acc, 1), *plan.consumerSpec(acc, 1)}});
  f.frames(1);
  f.app.requestQuit();
  f.frames(2);
  REQUIRE(f.app.modal() == "Unsaved changes");
  f.key(views::keys::kEscape, false);
  CHECK(f.app.modal().empty());
  CHECK_FALSE(f.app.finished());
  CHECK(f.app.document().dirty());
}
