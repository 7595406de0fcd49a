// GuiApp, continued: dialogs (unsaved changes, recovery, about, shortcuts, problems) and file actions.
#include <imgui.h>

#include <algorithm>

#include "app/gui/app.h"
#include "app/gui/app_internal.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "views/costs_view.h"
#include "views/diff_layouts.h"
#include "views/fonts.h"
#include "views/keys.h"

namespace ss::app {
using namespace detail;

// ---- dialogs ----

void GuiApp::drawModals() {
  if (modalName_.empty()) return;
  if (!ImGui::IsPopupOpen(modalName_.c_str())) ImGui::OpenPopup(modalName_.c_str());
  const ImVec2 ds = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(ds.x * 0.5f, ds.y * 0.4f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSizeConstraints(ImVec2(360, 0), ImVec2(ds.x * 0.8f, ds.y * 0.8f));
  if (!ImGui::BeginPopupModal(modalName_.c_str(), nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  bool close = false;
  // Esc answers a dialog as its Cancel / Later / Close does, Enter as the Problem dialog's OK (not on the frame
  // the dialog appears: the key that opened it is not its answer).
  const bool escape = !ImGui::IsWindowAppearing() && views::keys::actionPressed(views::keys::Action::Unpin);
  const bool enter = !ImGui::IsWindowAppearing() && views::keys::actionPressed(views::keys::Action::Confirm);
  if (modalName_ == kModalUnsaved) {
    ImGui::Text("%s has unsaved edits.", doc_.path().empty() ? "This plan" : views::baseName(doc_.path()).c_str());
    ImGui::TextUnformatted(pending_ == Pending::Quit ? "Save them before quitting?" : "Save them before opening another file?");
    if (modalButton("Save", "modal.save")) {
      close = true;
      if (!doc_.canSaveInPlace()) startSaveAsDialog(true);
      else if (saveTo(doc_.path())) continuePending();
    }
    ImGui::SameLine();
    if (modalButton("Don't save", "modal.dontsave")) {
      close = true;
      if (opts_.recovery) recovery_.remove();
      doc_.reset(doc_.plan(), doc_.path());  // drop the dirty state; the next action replaces or quits
      continuePending();
    }
    ImGui::SameLine();
    if (modalButton("Cancel", "modal.cancel") || escape) {
      close = true;
      pending_ = Pending::None;
    }
  } else if (modalName_ == kModalRecover) {
    const RecoveryInfo& r = offeredRecoveries_.front();
    ImGui::Text("shardscope found unsaved edits from an earlier session%s.",
                r.originalPath.empty() ? "" : (" of " + views::baseName(r.originalPath)).c_str());
    if (!r.originalPath.empty()) ImGui::TextDisabled("%s", r.originalPath.c_str());
    if (modalButton("Restore", "modal.restore")) {
      close = true;
      Result<Plan> p = loadRecovery(r);
      if (p.ok()) {
        Plan restored = std::move(p).value();
        // The recovery copy is native; the file it belongs to may not be: keep Save from overwriting it.
        if (!r.originalPath.empty()) {
          Result<std::string> original = readFileText(r.originalPath);
          if (original.ok() && detectFileKind(original.value()) != FileKind::NativePlan) {
            restored.sourceFormat = PlanFormat::AutoparallelJson;
          }
        }
        doc_.reset(std::move(restored), r.originalPath);
        doc_.markDirty();
        sel_.clear();
        syncResults();  // nothing of the old document stays
        removeRecovery(r);  // the writer keeps a fresh copy from now on
        selectFirstProblem();
      } else {
        modalText_ = "The recovery file cannot be read: " + p.error().toString(r.planFile);
      }
    }
    ImGui::SameLine();
    if (modalButton("Discard", "modal.discard")) {
      close = true;
      removeRecovery(r);
    }
    ImGui::SameLine();
    if (modalButton("Later", "modal.later") || escape) close = true;
  } else if (modalName_ == kModalAbout) {
    ImGui::Text("shardscope %s", SHARDSCOPE_VERSION);
    ImGui::TextUnformatted("An inspector for tensor sharding plans: DTensor placements on a device mesh.");
    ImGui::Text("Dear ImGui %s", ImGui::GetVersion());
    if (ImGui::Button("Close") || escape) close = true;
  } else if (modalName_ == kModalShortcuts) {
    // Generated from the key table (views/keys.h): a key is listed exactly when the app answers it.
    if (ImGui::BeginTable("##keys", 2, ImGuiTableFlags_SizingFixedFit)) {
      for (const views::keys::HelpRow& r : views::keys::shortcutHelp()) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.keys.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.what.c_str());
      }
      ImGui::EndTable();
    }
    if (modalButton("Close", "modal.close") || escape) close = true;
  } else if (modalName_ == kModalError) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
    ImGui::TextUnformatted(modalText_.c_str());
    ImGui::PopTextWrapPos();
    if (modalButton("OK", "modal.ok") || enter || escape) close = true;
  } else if (modalName_ == kModalNewTensor) {
    const NewTensorAction a = drawNewTensorForm(newTensorForm_, !doc_.dirty());
    if (a == NewTensorAction::Cancel || escape || (a == NewTensorAction::Create && newTensor(newTensorForm_))) close = true;
  } else {
    close = true;
  }
  if (close) {
    ImGui::CloseCurrentPopup();
    const std::string was = modalName_;
    modalName_.clear();
    if (was != kModalError && !modalText_.empty()) modalName_ = kModalError;  // a follow-up problem to show
    else if (was == kModalError) modalText_.clear();
  }
  ImGui::EndPopup();
}

// ---- file actions ----

bool GuiApp::openFile(const std::string& path) { return openFile(path, SessionInputs{}); }

bool GuiApp::openFile(const std::string& path, const SessionInputs& extras) {
  Result<bool> r = doc_.open(path, extras);
  if (!r.ok()) {
    modalName_ = kModalError;
    modalText_ = "Cannot open " + path + ":\n" + r.error().message;
    return false;
  }
  sel_.clear();
  syncResults();  // nothing of the old document stays
  addRecent(settings_, path);
  selectFirstProblem();
  // autoparallel's artifacts: the applied graph beside the plan (the Diagnostics pane's other tab); an applied
  // graph alone opens in the Applied graph tab (the plan graph tab shows the same graph).
  if (!doc_.applied().empty()) forceTab_ = views::ViewId::Applied;
  else if (doc_.appliedAlone()) forceTab_ = views::ViewId::AppliedGraph;
  framesToDraw_ = 3;
  return true;
}

bool GuiApp::compareWith(const std::string& path) {
  if (!doc_.loaded()) return false;
  Result<bool> r = compare_.open(path, compareViewOf(doc_), doc_.revision());
  if (!r.ok()) {
    modalName_ = kModalError;
    modalText_ = "Cannot compare with " + path + ":\n" + r.error().message;
    return false;
  }
  changes_ = views::ChangesViewState{};
  forceTab_ = views::ViewId::Changes;
  // Select the first change, so the graph, Edge and Mesh views open on it.
  if (!compare_.rows.empty() && compare_.rows.front().node >= 0) {
    const views::ChangeRow& row = compare_.rows.front();
    if (row.input >= 0) sel_.selectEdge(row.node, row.input, true);
    else sel_.selectNode(row.node, true);
  }
  framesToDraw_ = 3;
  return true;
}

bool GuiApp::newTensor(const NewTensorForm& form) {
  if (doc_.dirty()) return false;
  Result<Plan> p = buildPlayground(form);
  if (!p.ok()) return false;
  doc_.reset(std::move(p).value(), "");
  sel_.clear();
  syncResults();  // nothing of the old document stays
  sel_.selectEdge(kPlaygroundRelayout, 0, true);
  forceTab_ = views::ViewId::Teach;
  framesToDraw_ = 3;
  return true;
}

void GuiApp::closeComparison() {
  compare_.close();
  graph_.setDiffMarks(nullptr);
  framesToDraw_ = 3;
}

// Compare mode above the Edge and Mesh views: the selected tensor's layout in A and in B.
void GuiApp::drawCompareStrip(bool output) {
  const Plan& a = doc_.plan();
  const int input = sel_.input >= 0 ? sel_.input : edge_.input;
  // The Mesh view shows a selected edge's tensor as it arrives: compare its producer's output then.
  int node = sel_.node, out = sel_.output;
  if (output && sel_.hasEdge() && sel_.node < a.graph.size() &&
      sel_.input < static_cast<int>(a.graph.inputs(sel_.node).size())) {
    const TensorRef r = a.graph.inputs(sel_.node)[static_cast<size_t>(sel_.input)];
    node = r.node;
    out = r.output;
  }
  const views::LayoutPair p = output ? views::outputLayoutsAB(a, compare_.b, compare_.diff, node, out)
                                     : views::edgeLayoutsAB(a, compare_.b, compare_.diff, sel_.node, input);
  const float h = std::max(ImGui::GetContentRegionAvail().y * 0.42f, 120.0f);
  ImGui::BeginChild(output ? "##cmpmesh" : "##cmpedge", ImVec2(0, h), false, ImGuiWindowFlags_NoScrollbar);
  views::drawLayoutPair(a, compare_.b, p, h - 8, sel_.pinnedRank);
  ImGui::EndChild();
  ImGui::Separator();
}

void GuiApp::selectFirstProblem() {
  const Diagnostics& d = doc_.diagnostics();
  const Diagnostic* best = nullptr;
  for (const Diagnostic& x : d.items) {
    if (x.node < 0) continue;
    if (best == nullptr || static_cast<int>(x.severity) > static_cast<int>(best->severity) ||
        (x.severity == best->severity && best->input < 0 && x.input >= 0)) {
      best = &x;
    }
  }
  if (best == nullptr || best->severity == Severity::Info) {
    // A clean plan: the edge its description says to look at (the teaching samples), else where its data
    // moves (the costliest edge), else the first placed op.
    if (const std::optional<EdgeRef> look = lookAtEdge(doc_.plan())) {
      sel_.selectEdge(look->node, look->input, true);
      return;
    }
    const views::CostReport costs = views::computeCosts(doc_.plan());
    if (!costs.edges.empty()) {
      sel_.selectEdge(costs.edges.front().node, costs.edges.front().input, true);
      return;
    }
    const Plan& plan = doc_.plan();
    for (int n = 0; n < plan.graph.size(); ++n) {
      const auto& outs = plan.specs[static_cast<size_t>(n)].outputs;
      if (plan.graph.nodes[static_cast<size_t>(n)].kind == NodeKind::Call && !outs.empty() && outs[0]) {
        sel_.selectNode(n, true);
        return;
      }
    }
    return;
  }
  if (best->input >= 0) sel_.selectEdge(best->node, best->input, true);
  else sel_.selectNode(best->node, true);
}

bool GuiApp::saveTo(const std::string& path) {
  Result<bool> r = doc_.save(path);
  if (!r.ok()) {
    modalName_ = kModalError;
    modalText_ = r.error().message + "\nYour edits are kept (and in the recovery file); save somewhere else.";
    return false;
  }
  addRecent(settings_, path);
  if (opts_.recovery) recovery_.remove();
  return true;
}

void GuiApp::startOpenDialog() {
  if (doc_.dirty()) {
    pending_ = Pending::OpenDialog;
    modalName_ = kModalUnsaved;
    return;
  }
  dialog_.start(FileDialogMode::Open, "Open a plan", doc_.path(), kPurposeOpen);
}

void GuiApp::startSaveAsDialog(bool thenContinue) {
  continueAfterSave_ = thenContinue;
  const std::string suggested = doc_.suggestedSavePath();
  dialog_.start(FileDialogMode::Save, "Save plan as", suggested, kPurposeSaveAs);
}

void GuiApp::continuePending() {
  const Pending p = pending_;
  pending_ = Pending::None;
  switch (p) {
    case Pending::Quit:
      if (opts_.recovery) recovery_.remove();
      finished_ = true;
      break;
    case Pending::OpenDialog: dialog_.start(FileDialogMode::Open, "Open a plan", doc_.path(), kPurposeOpen); break;
    case Pending::OpenPath: openFile(pendingPath_); break;
    case Pending::None: break;
  }
}

void GuiApp::openRecent(const std::string& path) {
  if (doc_.dirty()) {
    pending_ = Pending::OpenPath;
    pendingPath_ = path;
    modalName_ = kModalUnsaved;
    return;
  }
  openFile(path);
}

}  // namespace ss::app
