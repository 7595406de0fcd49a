#pragma once
// The platform layer: one small interface between the app and the window system, with a GLFW + OpenGL 3
// implementation (the desktop, and `render` under Xvfb with a hidden window) and a headless one (ImGui frames
// without GL: tests). The app creates the ImGui context before init() and destroys it after shutdown().
//
// Frame contract: beginFrame() (polls input, backend NewFrame) -> ImGui::NewFrame() ... ImGui::Render() ->
// endFrame() (draws and swaps; capture() must be called between Render and endFrame to read the back buffer).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ss::app {

struct PlatformOptions {
  int width = 1600, height = 1000;
  bool visible = true;           // false: hidden window (render verb)
  std::string title = "shardscope";
};

class Platform {
 public:
  virtual ~Platform() = default;
  // Creates the window and the ImGui backends; `error` says why not (e.g. no DISPLAY).
  virtual bool init(const PlatformOptions& opts, std::string& error) = 0;
  virtual void shutdown() = 0;
  virtual void beginFrame() = 0;
  virtual void endFrame(const float clearColor[4]) = 0;
  // Blocks until an input event arrives or `timeoutS` passes; returns true when events arrived.
  virtual bool waitEvents(double timeoutS) = 0;
  virtual bool closeRequested() const = 0;
  virtual void setCloseRequested(bool v) = 0;
  virtual void setTitle(const std::string& title) = 0;
  virtual std::vector<std::string> takeDroppedFiles() = 0;
  virtual float contentScale() const = 0;
  // The window's size in screen coordinates (remembered between runs).
  virtual void windowSize(int& width, int& height) const = 0;
  // After the font atlas changed between frames.
  virtual void fontsChanged() = 0;
  // RGBA8 of the back buffer, top row first. False when this platform draws nothing (headless).
  virtual bool capture(std::vector<unsigned char>& rgba, int& width, int& height) = 0;
};

std::unique_ptr<Platform> makeGlfwPlatform();

// Headless: a fixed display size, 60 Hz frames, input injected by tests through ImGuiIO; drops through `drop`.
class HeadlessPlatform : public Platform {
 public:
  bool init(const PlatformOptions& opts, std::string& error) override;
  void shutdown() override {}
  void beginFrame() override;
  void endFrame(const float[4]) override {}
  bool waitEvents(double) override {
    const bool had = events_ > 0;
    events_ = 0;
    return had;
  }
  bool closeRequested() const override { return close_; }
  void setCloseRequested(bool v) override { close_ = v; }
  void setTitle(const std::string& title) override { title_ = title; }
  std::vector<std::string> takeDroppedFiles() override { return std::move(drops_); }
  float contentScale() const override { return 1.0f; }
  void windowSize(int& w, int& h) const override {
    w = width_;
    h = height_;
  }
  void fontsChanged() override;
  bool capture(std::vector<unsigned char>&, int&, int&) override { return false; }

  const std::string& title() const { return title_; }
  void drop(std::string path) {
    drops_.push_back(std::move(path));
    ++events_;
  }
  void postEvent() { ++events_; }  // as if the user moved the mouse
  void resize(int w, int h) { width_ = w; height_ = h; }

 private:
  int width_ = 1600, height_ = 1000;
  int events_ = 0;
  bool close_ = false;
  std::string title_;
  std::vector<std::string> drops_;
};

}  // namespace ss::app
