#pragma once
// The main window: menus, the splitter layout of panes, status bar, shortcuts, dialogs (open/save, unsaved
// changes, recovery, about) and the frame loop that idles when nothing changes.
//
// Section index: gui_app.cpp has lifecycle, frame, menus and shortcuts, panes; gui_app_dialogs.cpp has dialogs
// and file actions.
//
// Contract: the model changes only between frames: views queue commands during a frame, frame() drains them
// into the Document afterwards (undoable, re-checked). Everything the app does runs on the UI thread except
// file dialogs (worker thread) and runs (child process through the run client).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/file_dialog.h"
#include "app/gui/platform.h"
#include "app/gui/recovery.h"
#include "app/gui/run.h"
#include "app/gui/settings.h"
#include "views/applied_graph_view.h"
#include "views/applied_view.h"
#include "views/changes_view.h"
#include "views/comm_view.h"
#include "views/costs_view.h"
#include "views/diagnostics_view.h"
#include "views/model/document.h"
#include "views/edge_view.h"
#include "views/inspector_view.h"
#include "views/mesh_view.h"
#include "views/run_view.h"
#include "views/model/selection.h"
#include "views/tensor_view.h"
#include "views/model/view_id.h"
#include "app/gui/graph_slot.h"
#include "app/gui/new_tensor.h"
#include "views/teach_view.h"

namespace ss::app {

struct GuiOptions {
  bool persistSettings = true;     // read and write settings.json (off for tests and render)
  bool allowNativeDialogs = true;  // zenity
  bool recovery = true;            // write and offer recovery files
  std::optional<views::ViewId> soloView;  // one view alone (render --view); none = the panes
  std::optional<views::ThemeKind> theme;  // overrides the remembered theme
  int width = 1600, height = 1000;
  bool visible = true;

  // An app that touches nothing of the user's (no settings.json, no native dialogs, no recovery files) in the
  // dark theme, at the default size: what tests and `shardscope render` start from.
  static GuiOptions isolated() {
    GuiOptions o;
    o.persistSettings = false;
    o.allowNativeDialogs = false;
    o.recovery = false;
    o.theme = views::ThemeKind::Dark;
    return o;
  }
};

class GuiApp {
 public:
  GuiApp(Platform& platform, GuiOptions opts);
  ~GuiApp();
  GuiApp(const GuiApp&) = delete;
  GuiApp& operator=(const GuiApp&) = delete;

  // Creates the ImGui context, the window (through the platform), fonts and theme.
  bool init(std::string& error);
  void shutdown();

  // Opens a plan file, selects its first problem (centred). Errors are shown, the old document stays.
  bool openFile(const std::string& path);
  // The command line's file with its artifact flags (--mesh 2x4 for an applied graph alone, --solution, ...).
  bool openFile(const std::string& path, const SessionInputs& extras);
  // One frame: input, UI, render, then applies queued commands, drops, recovery, title. `capture` (optional)
  // receives the rendered RGBA pixels (GL platforms only).
  void frame(std::vector<unsigned char>* capture = nullptr, int* capW = nullptr, int* capH = nullptr);
  // One iteration of the main loop: draws a frame when something changed (input, edits, a run), else waits up to
  // `idleWaitS` for an event without drawing. Returns true when it drew a frame.
  bool step(double idleWaitS);
  // Steps until quit; idles (no redraw) when nothing changes. Returns the exit code.
  int run();
  bool finished() const { return finished_; }
  // Asks to quit (as the window's close button does): prompts when there are unsaved edits.
  void requestQuit();
  // Quits at once (a termination signal): unsaved edits go to the recovery file first.
  void terminate();

  // For tests and the render verb.
  views::Document& document() { return doc_; }
  views::Selection& selection() { return sel_; }
  views::CommandQueue& commands() { return cmds_; }
  Settings& settings() { return settings_; }
  views::MeshViewState& meshState() { return mesh_; }
  views::EdgeViewState& edgeState() { return edge_; }
  views::TensorViewState& tensorState() { return tensor_; }
  views::DiagnosticsViewState& diagnosticsState() { return diagsView_; }
  views::TeachViewState& teachState() { return teach_; }
  // File > New tensor...: replaces the document with a playground plan and shows the Teach view on it. False
  // (nothing changes) when the form is wrong or the open plan has unsaved edits.
  bool newTensor(const NewTensorForm& form);
  views::AppliedViewState& appliedState() { return appliedView_; }
  views::AppliedGraphViewState& appliedGraphState() { return appliedGraph_; }
  GraphSlot& graphSlot() { return graph_; }
  RunPanel& runPanel() { return run_; }
  views::RunViewState& runViewState() { return runView_; }
  int maximisedPane() const { return maximisedPane_; }  // -1: none
  views::InspectorViewState& inspectorState() { return inspector_; }
  const std::string& modal() const { return modalName_; }  // open modal dialog ("" when none)
  const std::string& modalText() const { return modalText_; }  // the Problem dialog's text
  bool saveTo(const std::string& path);
  // Compare mode (File > Compare with...): opens `path` as plan B against the open document. Errors are shown.
  bool compareWith(const std::string& path);
  void closeComparison();
  const views::Comparison& comparison() const { return compare_; }
  views::ChangesViewState& changesState() { return changes_; }
  void selectFirstProblem();
  // Chooses the tab shown in panes with several views (Mesh/Tensor, Costs/Run).
  void showTab(views::ViewId view) { forceTab_ = view; }
  int redrawsRequested() const { return framesToDraw_; }

 private:
  void drawUi();
  void drawMenuBar();
  void handleShortcuts();
  void drawPanes(float top, float bottom);
  void drawSolo(views::ViewId view, float top, float bottom);
  void drawPaneContent(int pane);
  void drawView(views::ViewId view);
  void drawStatusBar(float height);
  void drawCompareStrip(bool output);
  void drawModals();
  void afterFrame();
  void applyTheme(views::ThemeKind k);
  void startOpenDialog();
  void startSaveAsDialog(bool thenContinue);
  void continuePending();
  void openRecent(const std::string& path);
  void applyRunMarks();  // a run report arrived: mark, fade and select its first divergent node
  // Why F5 / Run cannot start a run of the document on screen ("" when it can; cached per document state): what
  // startRun would run (the log's rank programs or the plan) checked as RunPanel::refusal does, the runner's
  // absence included.
  const std::string& runRefusal();
  void stepProblem(int step);  // F8 / Shift+F8: select the next / previous problem, centred
  void startRun();       // F5, Run > Run plan, the Run view's button: the open log's rank programs when it is unedited, else the plan on screen; stamped
  // Every result shown belongs to the document and state on screen: called whenever the document may have
  // changed (after commands, undo/redo, open, new, recovery). Another document drops the old one's results
  // (run, run scale, search, fix-all message, comparison, divergence marks); an edit drops the messages and marks
  // about the plan before it, and the Run view shows the last run as stale.
  void syncResults();

  enum class Pending { None, Quit, OpenDialog, OpenPath };
  enum Purpose : int { kPurposeOpen = 1, kPurposeSaveAs = 2, kPurposeExport = 3, kPurposeCompare = 4 };

  Platform& platform_;
  GuiOptions opts_;
  Settings settings_;
  views::Document doc_;
  views::Selection sel_;
  views::CommandQueue cmds_;
  views::MeshViewState mesh_;
  views::TensorViewState tensor_;
  views::EdgeViewState edge_;
  views::DiagnosticsViewState diagsView_;
  views::InspectorViewState inspector_;
  views::CostsViewState costs_;
  views::CommViewState comm_;
  views::AppliedViewState appliedView_;
  views::AppliedGraphViewState appliedGraph_;
  views::Comparison compare_;
  views::ChangesViewState changes_;
  views::RunViewState runView_;
  views::TeachViewState teach_;
  NewTensorForm newTensorForm_;
  GraphSlot graph_;
  RunPanel run_;
  uint64_t runReportsSeen_ = 0;
  struct RefusalCache {
    bool known = false;
    views::DocStamp stamp;
    bool dirty = false;
    std::string path, text;
  } refusal_;
  views::DocStamp resultsStamp_;  // the document state the results shown were synced to (syncResults)
  FileDialog dialog_;
  RecoveryWriter recovery_;
  std::vector<RecoveryInfo> offeredRecoveries_;
  bool imguiCreated_ = false, platformUp_ = false, finished_ = false;
  Pending pending_ = Pending::None;
  std::string pendingPath_;
  bool continueAfterSave_ = false;
  std::string modalName_;        // currently requested modal
  std::string modalText_;
  int draggingSplitter_ = -1;
  // Pane maximised to the whole area between menu and status bar (F11 or its tab bar's button); -1: the layout.
  int maximisedPane_ = -1;
  int hoveredPane_ = -1;  // the pane under the mouse last frame (F11 maximises it)
  int framesToDraw_ = 3;
  std::optional<views::ViewId> forceTab_;
  std::string recoveryError_;
  double startTime_ = 0;
  float contentScale_ = 1.0f;  // monitor content scale: fonts are rasterised and sizes scaled by it
};

}  // namespace ss::app
