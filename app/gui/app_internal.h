#pragma once
// Internal to the GuiApp implementation files (gui_app.cpp, gui_app_dialogs.cpp): dialog names and helpers.
#include <imgui.h>

#include "views/ui_probe.h"

namespace ss::app::detail {

inline constexpr const char* kModalUnsaved = "Unsaved changes";
inline constexpr const char* kModalRecover = "Recover unsaved edits?";
inline constexpr const char* kModalAbout = "About shardscope";
inline constexpr const char* kModalShortcuts = "Keyboard shortcuts";
inline constexpr const char* kModalError = "Problem";
inline constexpr const char* kModalNewTensor = "New tensor";

// A dialog button whose place tests can find (views/ui_probe.h).
inline bool modalButton(const char* label, const char* probe) {
  const bool pressedNow = ImGui::Button(label);
  views::probeItem(probe);
  return pressedNow;
}

}  // namespace ss::app::detail
