#pragma once
// Headless ImGui for view tests: views/headless_frame.h's set-up with the embedded fonts and the dark theme, and
// mouse/keyboard driving through ImGuiIO (1.86 API: MousePos, MouseDown[], KeysDown[]).
#include <imgui.h>

#include <cstdlib>
#include <functional>
#include <string>

#include "core/io/load/load.h"
#include "views/fonts.h"
#include "views/headless_frame.h"
#include "views/theme.h"

namespace ss::views::test {

inline std::string fixture(const std::string& name) { return std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/views/data/" + name; }

inline Plan loadFixture(const std::string& name) {
  Result<Plan> p = loadPlanFile(fixture(name));
  if (!p.ok()) throw std::runtime_error(p.error().toString(name));
  return std::move(p).value();
}

// Points the app's run client at this build's shardscope-runner (unless SHARDSCOPE_RUNNER already names one) and
// says whether runs must work here: true in Torch builds, where a run panel test that finds no runner fails
// instead of skipping. Call before the RunPanel (or the GuiApp owning it) is made: it looks the runner up then.
inline bool useBuiltRunner() {
#ifdef SHARDSCOPE_RUNNER_BINARY
  if (!std::getenv("SHARDSCOPE_RUNNER")) ::setenv("SHARDSCOPE_RUNNER", SHARDSCOPE_RUNNER_BINARY, 1);
  return true;
#else
  return false;
#endif
}

// Owns an ImGui context for the duration of a test (views run inside a full-screen window).
class ImGuiHarness : public HeadlessFrame {
 public:
  explicit ImGuiHarness(float w = 1400, float h = 900)
      : HeadlessFrame(ImVec2(w, h), [] {
          loadFonts(15.0f, 1.0f);
          applyTheme(ThemeKind::Dark);
        }) {}

  // One frame with `body` drawn inside a window covering the display. Returns the vertex count drawn.
  int frame(const std::function<void()>& body) {
    HeadlessFrame::frame(body, "##test", ImGuiWindowFlags_NoDecoration);
    return ImGui::GetDrawData()->TotalVtxCount;
  }
};

inline void mouseTo(float x, float y) { ImGui::GetIO().MousePos = ImVec2(x, y); }
inline void mouseButton(bool down) { ImGui::GetIO().MouseDown[0] = down; }

}  // namespace ss::views::test
