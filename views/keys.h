#pragma once
// Key codes the app, the views and the tests use: GLFW's (ImGui 1.86 indexes io.KeysDown by the backend's key
// code; the GLFW backend and the headless platform both use GLFW's numbers, so shortcuts and tests agree). Named
// here once from GLFW's own header, which is only read for its constants (no GL, no GLFW calls).
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <imgui.h>

namespace ss::views::keys {

inline constexpr int kEscape = GLFW_KEY_ESCAPE;
inline constexpr int kEnter = GLFW_KEY_ENTER;
inline constexpr int kF3 = GLFW_KEY_F3;
inline constexpr int kF5 = GLFW_KEY_F5;
inline constexpr int kF = GLFW_KEY_F;
inline constexpr int kKeyE = GLFW_KEY_E;  // graph: open the box under the mouse; Shift+E closes around the selection

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
