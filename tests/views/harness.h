#pragma once
// Headless ImGui for view tests: a context with the embedded fonts and the dark theme, frames without GL, and
// mouse/keyboard driving through ImGuiIO (1.86 API: MousePos, MouseDown[], KeysDown[]).
#include <imgui.h>

#include <functional>
#include <string>

#include "core/io/load.h"
#include "views/Fonts.h"
#include "views/Theme.h"

namespace ss::views::test {

inline std::string fixture(const std::string& name) { return std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/views/data/" + name; }

inline Plan loadFixture(const std::string& name) {
  Result<Plan> p = loadPlanFile(fixture(name));
  if (!p.ok()) throw std::runtime_error(p.error().toString(name));
  return std::move(p).value();
}

// Owns an ImGui context for the duration of a test (views run inside a full-screen window).
class ImGuiHarness {
 public:
  explicit ImGuiHarness(float w = 1400, float h = 900) : w_(w), h_(h) {
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    loadFonts(15.0f, 1.0f);
    unsigned char* px = nullptr;
    int tw = 0, th = 0;
    ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&px, &tw, &th);
    applyTheme(ThemeKind::Dark);
  }
  ~ImGuiHarness() { ImGui::DestroyContext(); }
  ImGuiHarness(const ImGuiHarness&) = delete;
  ImGuiHarness& operator=(const ImGuiHarness&) = delete;

  // One frame with `body` drawn inside a window covering the display. Returns the vertex count drawn.
  int frame(const std::function<void()>& body) {
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(w_, h_);
    io.DeltaTime = 1.0f / 60.0f;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(w_, h_));
    ImGui::Begin("##test", nullptr, ImGuiWindowFlags_NoDecoration);
    body();
    ImGui::End();
    ImGui::Render();
    return ImGui::GetDrawData()->TotalVtxCount;
  }

 private:
  float w_, h_;
};

inline void mouseTo(float x, float y) { ImGui::GetIO().MousePos = ImVec2(x, y); }
inline void mouseButton(bool down) { ImGui::GetIO().MouseDown[0] = down; }

}  // namespace ss::views::test
