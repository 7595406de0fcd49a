#pragma once
// Key codes the app, the views and the tests use: GLFW's (ImGui 1.86 indexes io.KeysDown by the backend's key
// code; the GLFW backend and the headless platform both use GLFW's numbers, so shortcuts and tests agree). Named
// here once from GLFW's own header, which is only read for its constants (no GL, no GLFW calls).
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <imgui.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ss::views::keys {

inline constexpr int kEscape = GLFW_KEY_ESCAPE;
inline constexpr int kEnter = GLFW_KEY_ENTER;
inline constexpr int kKeypadEnter = GLFW_KEY_KP_ENTER;
inline constexpr int kF3 = GLFW_KEY_F3;
inline constexpr int kF5 = GLFW_KEY_F5;
inline constexpr int kF8 = GLFW_KEY_F8;
inline constexpr int kF11 = GLFW_KEY_F11;
inline constexpr int kF = GLFW_KEY_F;
inline constexpr int kEqual = GLFW_KEY_EQUAL;  // '+' is Shift+'=' on US layouts: zoom in takes both
inline constexpr int kMinus = GLFW_KEY_MINUS;
inline constexpr int kKeypadAdd = GLFW_KEY_KP_ADD;
inline constexpr int kKeypadSubtract = GLFW_KEY_KP_SUBTRACT;
inline constexpr int kLeft = GLFW_KEY_LEFT;
inline constexpr int kRight = GLFW_KEY_RIGHT;
inline constexpr int kUp = GLFW_KEY_UP;
inline constexpr int kDown = GLFW_KEY_DOWN;

// ---- the key table: every shortcut the app answers, one row per key; the Help > Keyboard shortcuts dialog is
// generated from it (shortcutHelp), so a key is listed exactly when it works.
enum class Action : uint8_t {
  Open, Save, SaveAs, Undo, Redo, Search, SearchNext, SearchPrevious, Confirm, Run, Unpin, Quit,
  Fit, ZoomIn, ZoomOut, PanLeft, PanRight, PanUp, PanDown, NextProblem, PreviousProblem, MaximisePane,
  OpenBox, CloseBox,
};
enum class Mod : uint8_t { None, Ctrl, Shift, CtrlShift, AnyShift };  // AnyShift: with or without Shift, no Ctrl
struct KeyBinding {
  Action action;
  int key;            // GLFW key code
  Mod mod;
  const char* label;  // as the help writes the key
  const char* what;   // what it does (the help's second column; rows of one action share the first's)
};
inline constexpr KeyBinding kBindings[] = {
    {Action::Open, 'O', Mod::Ctrl, "Ctrl+O", "Open a plan"},
    {Action::Save, 'S', Mod::Ctrl, "Ctrl+S", "Save"},
    {Action::SaveAs, 'S', Mod::CtrlShift, "Ctrl+Shift+S", "Save as"},
    {Action::Undo, 'Z', Mod::Ctrl, "Ctrl+Z", "Undo"},
    {Action::Redo, 'Z', Mod::CtrlShift, "Ctrl+Shift+Z", "Redo"},
    {Action::Redo, 'Y', Mod::Ctrl, "Ctrl+Y", "Redo"},
    {Action::Search, 'F', Mod::Ctrl, "Ctrl+F", "Search nodes by name or op"},
    {Action::SearchNext, GLFW_KEY_F3, Mod::None, "F3", "Next search hit"},
    {Action::SearchPrevious, GLFW_KEY_F3, Mod::Shift, "Shift+F3", "Previous search hit"},
    {Action::Confirm, GLFW_KEY_ENTER, Mod::None, "Enter", "Confirm a dialog; in the search field, go to the next hit"},
    {Action::Confirm, GLFW_KEY_KP_ENTER, Mod::None, "Keypad Enter", "Confirm a dialog"},
    {Action::Fit, GLFW_KEY_F, Mod::None, "F", "Graph: fit (the deepest module level whose labels are readable)"},
    {Action::OpenBox, GLFW_KEY_E, Mod::None, "E", "Graph: open the module box under the mouse (or the selection's)"},
    {Action::CloseBox, GLFW_KEY_E, Mod::Shift, "Shift+E", "Graph: close the layer or module around the selection"},
    {Action::ZoomIn, GLFW_KEY_EQUAL, Mod::AnyShift, "+", "Graph: zoom in"},
    {Action::ZoomIn, GLFW_KEY_KP_ADD, Mod::None, "Keypad +", "Graph: zoom in"},
    {Action::ZoomOut, GLFW_KEY_MINUS, Mod::None, "-", "Graph: zoom out"},
    {Action::ZoomOut, GLFW_KEY_KP_SUBTRACT, Mod::None, "Keypad -", "Graph: zoom out"},
    {Action::PanLeft, GLFW_KEY_LEFT, Mod::None, "Left", "Graph: pan left"},
    {Action::PanRight, GLFW_KEY_RIGHT, Mod::None, "Right", "Graph: pan right"},
    {Action::PanUp, GLFW_KEY_UP, Mod::None, "Up", "Graph: pan up"},
    {Action::PanDown, GLFW_KEY_DOWN, Mod::None, "Down", "Graph: pan down"},
    {Action::NextProblem, GLFW_KEY_F8, Mod::None, "F8", "Select the next problem (centred in the graph)"},
    {Action::PreviousProblem, GLFW_KEY_F8, Mod::Shift, "Shift+F8", "Select the previous problem"},
    {Action::MaximisePane, GLFW_KEY_F11, Mod::None, "F11", "Maximise the pane under the mouse; again: restore the panes"},
    {Action::Run, GLFW_KEY_F5, Mod::None, "F5", "Run the plan"},
    {Action::Unpin, GLFW_KEY_ESCAPE, Mod::None, "Esc", "Unpin the device; cancel or close a dialog"},
    {Action::Quit, 'Q', Mod::Ctrl, "Ctrl+Q", "Quit"},
};

// Whether a binding's key went down this frame with its modifiers (no repeat unless `repeat`).
inline bool bindingPressed(const KeyBinding& b, bool repeat = false) {
  const ImGuiIO& io = ImGui::GetIO();
  bool mods = !io.KeyAlt;
  switch (b.mod) {
    case Mod::None: mods = mods && !io.KeyCtrl && !io.KeyShift; break;
    case Mod::Ctrl: mods = mods && io.KeyCtrl && !io.KeyShift; break;
    case Mod::Shift: mods = mods && !io.KeyCtrl && io.KeyShift; break;
    case Mod::CtrlShift: mods = mods && io.KeyCtrl && io.KeyShift; break;
    case Mod::AnyShift: mods = mods && !io.KeyCtrl; break;
  }
  return mods && b.key >= 0 && b.key < 512 && ImGui::IsKeyPressed(b.key, repeat);
}
// Whether any key of `a` was pressed this frame.
inline bool actionPressed(Action a, bool repeat = false) {
  for (const KeyBinding& b : kBindings)
    if (b.action == a && bindingPressed(b, repeat)) return true;
  return false;
}

// The help's rows, in table order: one per action, its keys joined with " / " ("Ctrl+Shift+Z / Ctrl+Y").
struct HelpRow {
  std::string keys, what;
};
inline std::vector<HelpRow> shortcutHelp() {
  std::vector<HelpRow> rows;
  std::vector<Action> seen;
  for (const KeyBinding& b : kBindings) {
    bool found = false;
    for (size_t i = 0; i < seen.size(); ++i)
      if (seen[i] == b.action) {
        rows[i].keys += std::string(" / ") + b.label;
        found = true;
      }
    if (found) continue;
    seen.push_back(b.action);
    rows.push_back(HelpRow{b.label, b.what});
  }
  return rows;
}

// io.KeyMap: ImGui's named keys -> GLFW codes, as imgui_impl_glfw sets them (the headless platform sets the same).
inline void mapImGuiKeys(ImGuiIO& io) {
  const int keys[][2] = {{ImGuiKey_Tab, GLFW_KEY_TAB},         {ImGuiKey_LeftArrow, GLFW_KEY_LEFT},
                         {ImGuiKey_RightArrow, GLFW_KEY_RIGHT}, {ImGuiKey_UpArrow, GLFW_KEY_UP},
                         {ImGuiKey_DownArrow, GLFW_KEY_DOWN},   {ImGuiKey_PageUp, GLFW_KEY_PAGE_UP},
                         {ImGuiKey_PageDown, GLFW_KEY_PAGE_DOWN}, {ImGuiKey_Home, GLFW_KEY_HOME},
                         {ImGuiKey_End, GLFW_KEY_END},          {ImGuiKey_Insert, GLFW_KEY_INSERT},
                         {ImGuiKey_Delete, GLFW_KEY_DELETE},    {ImGuiKey_Backspace, GLFW_KEY_BACKSPACE},
                         {ImGuiKey_Space, GLFW_KEY_SPACE},      {ImGuiKey_Enter, GLFW_KEY_ENTER},
                         {ImGuiKey_Escape, GLFW_KEY_ESCAPE},    {ImGuiKey_KeyPadEnter, GLFW_KEY_KP_ENTER},
                         {ImGuiKey_A, GLFW_KEY_A},              {ImGuiKey_C, GLFW_KEY_C},
                         {ImGuiKey_V, GLFW_KEY_V},              {ImGuiKey_X, GLFW_KEY_X},
                         {ImGuiKey_Y, GLFW_KEY_Y},              {ImGuiKey_Z, GLFW_KEY_Z}};
  for (const auto& k : keys) io.KeyMap[k[0]] = k[1];
}

}  // namespace ss::views::keys
