#pragma once
// The whole app on the headless platform, for tests: a private config/state folder per test (nothing touches the
// user's files), the app with probing on, frames and key presses through ImGuiIO.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include <imgui.h>

#include "app/gui/app.h"
#include "app/gui/platform.h"
#include "tests/views/harness.h"
#include "views/keys.h"
#include "views/ui_probe.h"

namespace ss::app::test {

namespace fs = std::filesystem;

// A private config/state folder per test so nothing touches the user's files.
struct TempDirs {
  fs::path root;
  TempDirs() {
    root = fs::temp_directory_path() / ("shardscope-views-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    fs::remove_all(root);
    fs::create_directories(root);
    ::setenv("SHARDSCOPE_CONFIG_DIR", (root / "config").c_str(), 1);
    ::setenv("SHARDSCOPE_STATE_DIR", (root / "state").c_str(), 1);
  }
  ~TempDirs() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  static int& counter() {
    static int n = 0;
    return n;
  }
};

inline GuiOptions testOptions(bool recovery = false) {
  GuiOptions o = GuiOptions::isolated();
  o.recovery = recovery;
  return o;
}

struct AppFixture {
  TempDirs dirs;
  HeadlessPlatform platform;
  GuiApp app;
  explicit AppFixture(GuiOptions o = testOptions()) : app(platform, std::move(o)) {
    std::string err;
    REQUIRE(app.init(err));
    views::setProbing(true);
    views::clearProbes();
  }
  ~AppFixture() { views::setProbing(false); }
  void frames(int n) {
    for (int i = 0; i < n; ++i) app.frame();
  }
  void click(const views::Rect& r) {
    views::test::mouseTo((r.x0 + r.x1) * 0.5f, (r.y0 + r.y1) * 0.5f);
    frames(1);
    views::test::mouseButton(true);
    frames(1);
    views::test::mouseButton(false);
    frames(2);
  }
  // Waits (stepping the app) until the run in progress reports, at most `limit`; then draws two frames.
  void waitForRun(std::chrono::seconds limit = std::chrono::seconds(120)) {
    const auto t0 = std::chrono::steady_clock::now();
    while (app.runPanel().active() && std::chrono::steady_clock::now() - t0 < limit) {
      app.step(0.05);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    frames(2);
  }
  // Runs the plan on screen through F5 to its report.
  void runToEnd() {
    key(views::keys::kF5, false);
    waitForRun();
  }
  void key(int k, bool ctrl, bool shift = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = ctrl;
    io.KeyShift = shift;
    io.KeysDown[k] = true;
    frames(1);
    io.KeysDown[k] = false;
    io.KeyCtrl = false;
    io.KeyShift = false;
    frames(1);
  }
};

}  // namespace ss::app::test
