// Section index: lifecycle | frame | menus and shortcuts | panes. Dialogs and file actions: gui_app_dialogs.cpp.
#include "app/gui/app.h"

#include "views/keys.h"
#include "app/gui/app_internal.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "views/model/fix_all.h"
#include "views/fonts.h"
#include "views/theme.h"
#include "views/ui_probe.h"

namespace ss::app {
using namespace detail;
namespace {

double nowSeconds() {
  using namespace std::chrono;
  return duration_cast<duration<double>>(steady_clock::now().time_since_epoch()).count();
}

// Key codes: views/keys.h (GLFW's, as the GLFW backend and the headless platform both use).

}  // namespace

// ---- lifecycle ----

GuiApp::GuiApp(Platform& platform, GuiOptions opts)
    : platform_(platform), opts_(std::move(opts)), recovery_(stateDir()) {}

GuiApp::~GuiApp() { shutdown(); }

bool GuiApp::init(std::string& error) {
  if (opts_.persistSettings) settings_ = loadSettings();
  if (opts_.theme) settings_.theme = *opts_.theme;
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  imguiCreated_ = true;
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // our own settings.json holds the layout
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  views::keys::mapImGuiKeys(io);  // as the GLFW backend maps them (it overwrites these with the same values)

  PlatformOptions po;
  po.width = opts_.width;
  po.height = opts_.height;
  if (opts_.persistSettings && opts_.visible) {
    po.width = settings_.windowW;
    po.height = settings_.windowH;
  }
  po.visible = opts_.visible;
  if (!platform_.init(po, error)) return false;
  platformUp_ = true;
  contentScale_ = platform_.contentScale();
  views::loadFonts(settings_.fontPixels, contentScale_);
  platform_.fontsChanged();
  applyTheme(settings_.theme);
  dialog_.allowNative(opts_.allowNativeDialogs);
  startTime_ = nowSeconds();
  if (opts_.recovery) {
    offeredRecoveries_ = findRecoveries(stateDir());
    if (!offeredRecoveries_.empty()) modalName_ = kModalRecover;
  }
  return true;
}

void GuiApp::shutdown() {
  if (platformUp_) {
    if (opts_.persistSettings) {
      if (opts_.visible) platform_.windowSize(settings_.windowW, settings_.windowH);
      saveSettings(settings_);
    }
    platform_.shutdown();
    platformUp_ = false;
  }
  if (imguiCreated_) {
    ImGui::DestroyContext();
    imguiCreated_ = false;
  }
}

void GuiApp::applyTheme(views::ThemeKind k) {
  settings_.theme = k;
  views::applyTheme(k);  // resets sizes too: scale them again for the monitor
  if (contentScale_ > 1.01f) ImGui::GetStyle().ScaleAllSizes(contentScale_);
}

// ---- frame ----

void GuiApp::frame(std::vector<unsigned char>* capture, int* capW, int* capH) {
  platform_.beginFrame();
  ImGui::NewFrame();
  drawUi();
  ImGui::Render();
  if (capture != nullptr) {
    int w = 0, h = 0;
    if (platform_.capture(*capture, w, h)) {
      if (capW) *capW = w;
      if (capH) *capH = h;
    }
  }
  const views::Palette& pal = views::palette();
  const ImVec4 bg = ImGui::ColorConvertU32ToFloat4(pal.background);
  const float clear[4] = {bg.x, bg.y, bg.z, 1.0f};
  platform_.endFrame(clear);
  afterFrame();
}

void GuiApp::afterFrame() {
  const uint64_t before = doc_.revision();
  if (!cmds_.empty()) doc_.drain(cmds_);
  syncResults();  // also catches Ctrl+Z / menu undo and redo during the frame
  if (doc_.revision() != before) framesToDraw_ = std::max(framesToDraw_, 3);
  for (const std::string& path : platform_.takeDroppedFiles()) {
    if (doc_.dirty()) {
      pending_ = Pending::OpenPath;
      pendingPath_ = path;
      modalName_ = kModalUnsaved;
    } else {
      openFile(path);
    }
    break;  // one file at a time
  }
  if (dialog_.active()) framesToDraw_ = std::max(framesToDraw_, 1);
  if (opts_.recovery) {
    const std::string err = recovery_.update(doc_, nowSeconds());
    if (!err.empty()) recoveryError_ = err;
  }
  if (run_.poll()) framesToDraw_ = std::max(framesToDraw_, 2);
  if (run_.model().reports != runReportsSeen_) applyRunMarks();
  platform_.setTitle(doc_.windowTitle());
  if (platform_.closeRequested() && !finished_) {
    platform_.setCloseRequested(false);
    requestQuit();
  }
}

const std::string& GuiApp::runRefusal() {
  RefusalCache& c = refusal_;
  if (c.known && c.stamp == doc_.stamp() && c.dirty == doc_.dirty() && c.path == doc_.path()) return c.text;
  c = RefusalCache{true, doc_.stamp(), doc_.dirty(), doc_.path(), ""};
  if (!doc_.loaded()) c.text = "No plan is open.";
  else if (!run_.model().available) c.text = views::runRefusalLine(run_.model(), "");
  // A log's rank programs are checked when they load (startPrograms says why it refuses).
  else if ((doc_.dirty() && !doc_.editsAreAutoSpMoves()) || !RunPanel::holdsPrograms(doc_.path()))
    c.text = RunPanel::refusal(doc_.plan());
  return c.text;
}

void GuiApp::startRun() {
  if (run_.active() || !doc_.loaded() || !runRefusal().empty()) return;
  // An unedited log that holds rank programs (AutoSP's, or autoparallel's applied graph) runs them, as
  // `shardscope run LOG` does, and so does one whose only edits are AutoSP seq_dim fixes (applied to every rank's
  // program, as `run LOG --seq-dim` does); any other edited one runs as a plan.
  if ((!doc_.dirty() || doc_.editsAreAutoSpMoves()) && RunPanel::holdsPrograms(doc_.path()))
    run_.startPrograms(doc_.path(), doc_.plan().autoSpMoves, doc_.stamp());
  else run_.start(doc_.plan(), runView_.scale, doc_.stamp());
  forceTab_ = views::ViewId::Run;
}

void GuiApp::syncResults() {
  const views::DocStamp now = doc_.stamp();
  if (now == resultsStamp_) return;
  const bool otherDocument = now.document != resultsStamp_.document;
  resultsStamp_ = now;
  inspector_.fixMessage.clear();  // said of the plan before
  graph_.setDivergentNode(-1);    // a run's marks are drawn only while it is the plan's current run
  mesh_.divergence = views::DivergenceMarks{};
  framesToDraw_ = std::max(framesToDraw_, 3);
  if (!otherDocument) return;
  run_.discard();
  runReportsSeen_ = run_.model().reports;
  runView_ = views::RunViewState{};  // the run scale too: each plan starts at real sizes, as `shardscope run`
  closeComparison();                 // B was compared with the old document
  graph_.planReplaced();             // fit, relayout, no search of the old plan
  appliedGraph_.reset();
}

void GuiApp::applyRunMarks() {
  runReportsSeen_ = run_.model().reports;
  // A run of an earlier state (or another plan) marks nothing: its node may mean something else now.
  if (views::freshness(run_.model().stamp, doc_.stamp()) != views::Freshness::Current) return;
  const auto& d = run_.model().firstDivergence;
  const int node = d && doc_.loaded() ? doc_.plan().graph.find(d->node) : -1;
  graph_.setDivergentNode(node);
  mesh_.divergence = views::DivergenceMarks{};
  if (node < 0) return;
  mesh_.divergence = views::DivergenceMarks{node, d->output, d->wrongRanks};
  sel_.selectNode(node, true);
  if (d->output > 0) sel_.output = d->output;
  framesToDraw_ = std::max(framesToDraw_, 3);
}

void GuiApp::terminate() {
  // Killed (SIGTERM, SIGINT, SIGHUP): keep the edits in the recovery file, then leave without prompting.
  if (opts_.recovery) recovery_.update(doc_, nowSeconds(), true);
  finished_ = true;
}

bool GuiApp::step(double idleWaitS) {
  // Something animates (a run in progress, a dialog thread, a drag): draw at a calm pace.
  const bool busy = run_.active() || dialog_.active() || graph_.busy() || appliedGraph_.graph.layoutRunning() || teach_.playing ||
                    (imguiCreated_ && ImGui::IsMouseDragging(0));
  if (framesToDraw_ > 0 || busy) {
    frame();
    if (framesToDraw_ > 0) --framesToDraw_;
    if (busy && framesToDraw_ == 0) platform_.waitEvents(0.05);
    return true;
  }
  // Idle: no redraw until an event arrives (or the recovery writer's debounce or a run needs us).
  if (platform_.waitEvents(idleWaitS) || platform_.closeRequested()) framesToDraw_ = 3;  // let hover states settle
  if (run_.poll()) framesToDraw_ = std::max(framesToDraw_, 1);
  if (opts_.recovery) recovery_.update(doc_, nowSeconds());
  return false;
}

int GuiApp::run() {
  while (!finished_) step(0.5);
  return 0;
}

void GuiApp::requestQuit() {
  if (doc_.dirty()) {
    pending_ = Pending::Quit;
    modalName_ = kModalUnsaved;
    framesToDraw_ = 3;
    return;
  }
  if (opts_.recovery) recovery_.remove();
  finished_ = true;
}

void GuiApp::drawUi() {
  handleShortcuts();
  const ImGuiIO& io = ImGui::GetIO();
  float top = 0;
  if (!opts_.soloView) {
    drawMenuBar();
    top = ImGui::GetFrameHeight();
  }
  const float statusH = ImGui::GetFrameHeight() + 4;
  // Compare mode follows the document's edits; the graph draws its badges.
  if (compare_.active && doc_.loaded()) compare_.refresh(compareViewOf(doc_), doc_.revision());
  graph_.setDiffMarks(compare_.active ? &compare_.marks : nullptr);
  if (opts_.soloView) drawSolo(*opts_.soloView, 0, io.DisplaySize.y);
  else {
    drawPanes(top, io.DisplaySize.y - statusH);
    drawStatusBar(statusH);
  }
  if (dialog_.frame()) {
    const std::optional<std::string>& r = dialog_.result();
    if (r) {
      switch (dialog_.purpose()) {
        case kPurposeOpen: openFile(*r); break;
        case kPurposeCompare: compareWith(*r); break;
        case kPurposeSaveAs:
          if (saveTo(*r) && continueAfterSave_) continuePending();
          break;
        case kPurposeExport: {
          Result<bool> w = writeFileAtomic(*r, writePlacementsJson(doc_.plan()).dump(2) + "\n");
          if (!w.ok()) {
            modalName_ = kModalError;
            modalText_ = "Export failed: " + w.error().toString(*r);
          }
          break;
        }
        default: break;
      }
    } else {
      pending_ = Pending::None;  // cancelled
    }
    continueAfterSave_ = false;
  }
  drawModals();
}

// ---- menus and shortcuts ----

// A log as the tools wrote it (unedited) re-runs what they built: its rank programs (AutoSP's graphs, autoparallel's
// applied graph on every rank), as `shardscope run LOG`; an edited plan runs with shardscope's own redistributes.
void GuiApp::handleShortcuts() {
  using views::keys::Action;
  using views::keys::actionPressed;
  const ImGuiIO& io = ImGui::GetIO();
  if (!modalName_.empty() || dialog_.usingBrowser()) return;
  if (actionPressed(Action::Open)) startOpenDialog();
  if (actionPressed(Action::Save) && doc_.loaded()) {
    if (!doc_.canSaveInPlace()) startSaveAsDialog(false);
    else saveTo(doc_.path());
  }
  if (actionPressed(Action::SaveAs) && doc_.loaded()) startSaveAsDialog(false);
  if (actionPressed(Action::Quit)) requestQuit();
  if (actionPressed(Action::Search)) graph_.focusSearch();
  if (!io.WantTextInput) {
    if (actionPressed(Action::Undo)) doc_.undo();
    if (actionPressed(Action::Redo)) doc_.redo();
  }
  if (actionPressed(Action::Run)) startRun();
  if (actionPressed(Action::Unpin) && !io.WantTextInput && sel_.pinnedRank >= 0) sel_.pinRank(sel_.pinnedRank);
  if (actionPressed(Action::MaximisePane) && !opts_.soloView) {
    if (maximisedPane_ >= 0) maximisedPane_ = -1;
    else if (hoveredPane_ >= 0) maximisedPane_ = hoveredPane_;
  }
  // The graph's camera and problem keys: not while typing (a text field takes F, +, - and the arrows) nor while
  // a popup (a combo's list) is open.
  if (io.WantTextInput || !doc_.loaded() || ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) return;
  constexpr double kZoomStep = 1.25, kPanPx = 60;
  if (actionPressed(Action::Fit)) graph_.requestFit();
  if (actionPressed(Action::ZoomIn, true)) graph_.requestZoom(kZoomStep);
  if (actionPressed(Action::ZoomOut, true)) graph_.requestZoom(1.0 / kZoomStep);
  // Arrows move the view over the graph: Left shows what is to the left (the graph moves right).
  if (actionPressed(Action::PanLeft, true)) graph_.requestPan(kPanPx, 0);
  if (actionPressed(Action::PanRight, true)) graph_.requestPan(-kPanPx, 0);
  if (actionPressed(Action::PanUp, true)) graph_.requestPan(0, kPanPx);
  if (actionPressed(Action::PanDown, true)) graph_.requestPan(0, -kPanPx);
  if (actionPressed(Action::NextProblem, true)) stepProblem(+1);
  if (actionPressed(Action::PreviousProblem, true)) stepProblem(-1);
}

void GuiApp::stepProblem(int step) {
  const int d = views::stepProblem(doc_.plan(), doc_.diagnostics(), diagsView_, sel_, step);
  if (d < 0) return;
  const Diagnostic& x = doc_.diagnostics().items[static_cast<size_t>(d)];
  if (x.input >= 0) sel_.selectEdge(x.node, x.input, true);
  else sel_.selectNode(x.node, true);
}

void GuiApp::drawMenuBar() {
  if (!ImGui::BeginMainMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Open...", "Ctrl+O")) startOpenDialog();
    if (ImGui::MenuItem("New tensor...")) modalName_ = kModalNewTensor;
    if (ImGui::BeginMenu("Open recent", !settings_.recent.empty())) {
      std::string chosen;
      for (const std::string& r : settings_.recent) {
        if (ImGui::MenuItem(r.c_str())) chosen = r;
      }
      ImGui::EndMenu();
      if (!chosen.empty()) openRecent(chosen);
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Save", "Ctrl+S", false, doc_.loaded())) {
      if (!doc_.canSaveInPlace()) startSaveAsDialog(false);
      else saveTo(doc_.path());
    }
    if (ImGui::MenuItem("Save as...", "Ctrl+Shift+S", false, doc_.loaded())) startSaveAsDialog(false);
    if (ImGui::MenuItem("Compare with...", nullptr, false, doc_.loaded())) {
      dialog_.start(FileDialogMode::Open, "Compare with a plan (B, against the open plan A)", doc_.path(), kPurposeCompare);
    }
    if (ImGui::MenuItem("Close comparison", nullptr, false, compare_.active)) closeComparison();
    if (ImGui::MenuItem("Export placements...", nullptr, false, doc_.loaded())) {
      dialog_.start(FileDialogMode::Save, "Export placements (autoparallel save_placements JSON)",
                    doc_.path().empty() ? "placements.json" : doc_.path() + ".placements.json", kPurposeExport);
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) requestQuit();
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Edit")) {
    const std::string undo = doc_.history().canUndo() ? "Undo " + doc_.history().undoLabel() : "Undo";
    const std::string redo = doc_.history().canRedo() ? "Redo " + doc_.history().redoLabel() : "Redo";
    if (ImGui::MenuItem(undo.c_str(), "Ctrl+Z", false, doc_.history().canUndo())) doc_.undo();
    if (ImGui::MenuItem(redo.c_str(), "Ctrl+Shift+Z", false, doc_.history().canRedo())) doc_.redo();
    ImGui::Separator();
    if (ImGui::MenuItem("Fix all", nullptr, false, doc_.loaded() && views::fixAllMayHelp(doc_.diagnostics()))) {
      if (std::optional<Command> fix = views::fixAllCommand(doc_.plan(), views::pinnedByEdits(doc_.history())))
        cmds_.push(std::move(*fix));
    }
    if (ImGui::MenuItem("Select first problem", nullptr, false, doc_.loaded())) selectFirstProblem();
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    if (ImGui::MenuItem("Dark theme", nullptr, settings_.theme == views::ThemeKind::Dark)) applyTheme(views::ThemeKind::Dark);
    if (ImGui::MenuItem("Light theme", nullptr, settings_.theme == views::ThemeKind::Light)) applyTheme(views::ThemeKind::Light);
    ImGui::Separator();
    if (ImGui::MenuItem("Search nodes", "Ctrl+F")) graph_.focusSearch();
    ImGui::MenuItem("Show info diagnostics", nullptr, &diagsView_.showInfos);
    if (ImGui::MenuItem("Reset layout")) settings_.layout = PaneLayout{};
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Run")) {
    if (ImGui::MenuItem("Run plan", "F5", false, !run_.active() && runRefusal().empty())) startRun();
    if (!runRefusal().empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("%s", runRefusal().c_str());
    if (ImGui::MenuItem("Cancel run", nullptr, false, run_.active())) run_.cancel();
    if (ImGui::MenuItem("Show run panel")) forceTab_ = views::ViewId::Run;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    if (ImGui::MenuItem("Keyboard shortcuts")) modalName_ = kModalShortcuts;
    if (ImGui::MenuItem("About")) modalName_ = kModalAbout;
    ImGui::EndMenu();
  }
  ImGui::EndMainMenuBar();
}

// ---- panes ----

namespace {
constexpr ImGuiWindowFlags kPaneFlags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                        ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoSavedSettings |
                                        ImGuiWindowFlags_NoBringToFrontOnFocus;

void placeWindow(const views::Rect& r) {
  ImGui::SetNextWindowPos(ImVec2(r.x0, r.y0));
  ImGui::SetNextWindowSize(ImVec2(std::max(r.w(), 1.0f), std::max(r.h(), 1.0f)));
}
}  // namespace

void GuiApp::drawView(views::ViewId v) {
  if (!doc_.loaded()) {
    ImGui::TextWrapped("No plan open. File > Open (Ctrl+O), drop a file on the window, or start with "
                       "`shardscope FILE`.");
    return;
  }
  const Plan& plan = doc_.plan();
  const Diagnostics& d = doc_.diagnostics();
  switch (v) {
    case views::ViewId::Graph: graph_.draw(plan, d, sel_, doc_.revision(), &doc_.applied(), doc_.appliedAlone()); break;
    case views::ViewId::AppliedGraph:
      views::drawAppliedGraphView(plan, d, doc_.applied(), doc_.appliedAlone(), appliedGraph_, sel_, doc_.revision());
      break;
    case views::ViewId::Diagnostics: views::drawDiagnosticsView(plan, d, diagsView_, sel_, cmds_); break;
    case views::ViewId::Edge:
      if (compare_.active) drawCompareStrip(false);
      views::drawEdgeView(plan, d, edge_, sel_, cmds_);
      if (edge_.playRequested) {  // the Edge view's Play button: play the same edge in the Teach view
        edge_.playRequested = false;
        teach_.playRequested = true;
        forceTab_ = views::ViewId::Teach;
      }
      break;
    case views::ViewId::Teach: views::drawTeachView(plan, d, teach_, sel_, cmds_); break;
    case views::ViewId::Mesh:
      if (compare_.active) drawCompareStrip(true);
      views::drawMeshView(plan, d, mesh_, sel_, cmds_);
      break;
    case views::ViewId::Changes: views::drawChangesView(plan, compare_, changes_, sel_); break;
    case views::ViewId::Tensor: views::drawTensorView(plan, d, tensor_, sel_, cmds_); break;
    case views::ViewId::Inspector: views::drawInspectorView(plan, d, doc_.history(), inspector_, sel_, cmds_); break;
    case views::ViewId::Costs: {
      const std::vector<AppliedCollective>* ac = !doc_.applied().empty() ? &doc_.applied().front().collectives
                                                 : doc_.appliedAlone()   ? &doc_.appliedAlone()->collectives
                                                                         : nullptr;
      const AppliedGraph* judged = !doc_.applied().empty() ? &doc_.applied().front() : nullptr;
      views::drawCostsView(plan, d, costs_, sel_, cmds_, doc_.revision(), ac, judged);
      break;
    }
    case views::ViewId::Comm: views::drawCommView(plan, doc_.program(), comm_, sel_, doc_.revision()); break;
    case views::ViewId::Applied:
      views::drawAppliedView(plan, doc_.applied(), doc_.appliedAlone(), appliedView_, sel_, doc_.revision());
      break;
    case views::ViewId::Run: {
      const views::RunViewActions a =
          views::drawRunView(plan, run_.model(), runView_, sel_, views::freshness(run_.model().stamp, doc_.stamp()),
                             !run_.model().available ? std::string() : runRefusal());
      if (a.start) startRun();
      if (a.cancel) run_.cancel();
      break;
    }
  }
}

void GuiApp::drawPaneContent(int pane) {
  using views::ViewId;
  static const std::vector<std::vector<ViewId>> tabs = {{ViewId::Graph, ViewId::AppliedGraph}, {ViewId::Diagnostics, ViewId::Applied, ViewId::Changes},
                                                        {ViewId::Edge, ViewId::Teach}, {ViewId::Mesh, ViewId::Tensor},
                                                        {ViewId::Inspector}, {ViewId::Costs, ViewId::Comm, ViewId::Run}};
  const auto& mine = tabs[static_cast<size_t>(pane)];
  char id[32];
  std::snprintf(id, sizeof(id), "##tabs%d", pane);
  if (ImGui::BeginTabBar(id)) {
    for (const ViewId view : mine) {
      std::string title = views::viewLabel(view);
      if (view == ViewId::Diagnostics && doc_.loaded()) {
        title += " (" + std::to_string(doc_.diagnostics().summary().errors) + ")";
      }
      if (view == ViewId::Changes && compare_.active) title += " (" + std::to_string(compare_.rows.size()) + ")";
      title += std::string("###") + views::viewName(view);
      ImGuiTabItemFlags f = 0;
      if (forceTab_ == view) {
        f |= ImGuiTabItemFlags_SetSelected;
        forceTab_.reset();
      }
      if (ImGui::BeginTabItem(title.c_str(), nullptr, f)) {
        ImGui::BeginChild("##content", ImVec2(0, 0), false,
                          view == ViewId::Graph || view == ViewId::AppliedGraph ? ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse : 0);
        drawView(view);
        ImGui::EndChild();
        ImGui::EndTabItem();
      }
    }
    // Maximise / restore, after the tabs (ImGui shows a new tab bar's first tab on its first frame only when it
    // is the bar's only item so far), at the bar's end. F11 does the same for the pane under the mouse.
    const bool maximised = maximisedPane_ == pane;
    if (ImGui::TabItemButton(maximised ? "[-]" : "[+]", ImGuiTabItemFlags_Trailing | ImGuiTabItemFlags_NoTooltip))
      maximisedPane_ = maximised ? -1 : pane;
    views::probeItem("pane" + std::to_string(pane) + ".maximise");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip(maximised ? "Restore the panes (F11)" : "Maximise this pane (F11)");
    ImGui::EndTabBar();
  }
}

void GuiApp::drawPanes(float top, float bottom) {
  const ImGuiIO& io = ImGui::GetIO();
  const float w = io.DisplaySize.x, h = std::max(bottom - top, 1.0f);
  const float sp = 6.0f;
  clampLayout(settings_.layout, w, h, 120);
  const PaneRects rects = computePanes(settings_.layout, 0, top, w, h, sp);
  hoveredPane_ = -1;
  for (int p = 0; p < kPaneCount; ++p) {
    if (maximisedPane_ >= 0 && p != maximisedPane_) continue;
    const views::Rect r = maximisedPane_ == p ? views::Rect{0, top, w, top + h} : rects.panes[static_cast<size_t>(p)];
    views::probeRect("pane" + std::to_string(p), r);
    placeWindow(r);
    char name[32];
    std::snprintf(name, sizeof(name), "##pane%d", p);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(6, 4));
    if (ImGui::Begin(name, nullptr, kPaneFlags | ImGuiWindowFlags_NoScrollbar)) drawPaneContent(p);
    if (ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows)) hoveredPane_ = p;
    ImGui::End();
    ImGui::PopStyleVar();
  }
  if (maximisedPane_ >= 0) return;  // no splitters while one pane fills the area
  // Splitters: small windows on the gaps; dragging moves the split, remembered in settings.json.
  for (int s = 0; s < 5; ++s) {
    placeWindow(rects.splitters[static_cast<size_t>(s)]);
    char name[32];
    std::snprintf(name, sizeof(name), "##split%d", s);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowMinSize, ImVec2(1, 1));
    ImGui::Begin(name, nullptr, kPaneFlags | ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoBackground);
    ImGui::InvisibleButton("##bar", ImGui::GetContentRegionAvail().x > 0 ? ImGui::GetContentRegionAvail() : ImVec2(1, 1));
    const bool vertical = s < 2;
    if (ImGui::IsItemHovered() || ImGui::IsItemActive()) {
      ImGui::SetMouseCursor(vertical ? ImGuiMouseCursor_ResizeEW : ImGuiMouseCursor_ResizeNS);
      const views::Rect& r = rects.splitters[static_cast<size_t>(s)];
      ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(r.x0, r.y0), ImVec2(r.x1, r.y1), views::palette().highlight);
    }
    if (ImGui::IsItemActive()) {
      dragSplitter(settings_.layout, s, io.MouseDelta.x, io.MouseDelta.y, w, h);
      draggingSplitter_ = s;
    } else if (draggingSplitter_ == s) {
      draggingSplitter_ = -1;
    }
    ImGui::End();
    ImGui::PopStyleVar(3);
  }
}

void GuiApp::drawSolo(views::ViewId view, float top, float bottom) {
  const ImGuiIO& io = ImGui::GetIO();
  placeWindow(views::Rect{0, top, io.DisplaySize.x, bottom});
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(10, 8));
  if (ImGui::Begin("##solo", nullptr, kPaneFlags)) {
    const char* title = views::viewLabel(view);
    const views::Fonts& f = views::currentFonts();
    if (f.large) ImGui::PushFont(f.large);
    ImGui::TextUnformatted(title);
    if (f.large) ImGui::PopFont();
    ImGui::SameLine();
    ImGui::TextDisabled("%s", doc_.windowTitle().c_str());
    ImGui::Separator();
    ImGui::BeginChild("##solocontent", ImVec2(0, 0), false,
                      view == views::ViewId::Graph || view == views::ViewId::AppliedGraph ? ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse : 0);
    drawView(view);
    ImGui::EndChild();
  }
  ImGui::End();
  ImGui::PopStyleVar();
}

void GuiApp::drawStatusBar(float height) {
  const ImGuiIO& io = ImGui::GetIO();
  placeWindow(views::Rect{0, io.DisplaySize.y - height, io.DisplaySize.x, io.DisplaySize.y});
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(8, 2));
  ImGui::Begin("##status", nullptr, kPaneFlags | ImGuiWindowFlags_NoScrollbar);
  const views::Palette& pal = views::palette();
  if (doc_.loaded()) {
    const DiagnosticSummary s = doc_.diagnostics().summary();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(s.errors ? pal.error : pal.ok), "%d errors", s.errors);
    ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(s.warnings ? pal.warning : pal.textDim), "%d warnings", s.warnings);
    ImGui::SameLine();
    ImGui::TextDisabled("%d infos | %d nodes | mesh %s", s.infos, doc_.plan().graph.size(), doc_.plan().mesh.toString().c_str());
    if (sel_.hasNode()) {
      ImGui::SameLine();
      ImGui::TextDisabled("| %s%s", doc_.plan().graph.nodes[static_cast<size_t>(sel_.node)].name.c_str(),
                          sel_.input >= 0 ? (" input " + std::to_string(sel_.input)).c_str() : "");
    }
    ImGui::SameLine();
  }
  if (!doc_.lastError().empty()) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.error), "| %s", doc_.lastError().c_str());
  } else if (!recoveryError_.empty()) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.warning), "| %s", recoveryError_.c_str());
  } else if (!doc_.lastMessage().empty()) {
    ImGui::TextDisabled("| %s", doc_.lastMessage().c_str());
  }
  ImGui::End();
  ImGui::PopStyleVar();
}

}  // namespace ss::app
