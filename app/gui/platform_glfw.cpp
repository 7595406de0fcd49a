// GLFW + OpenGL 3 platform. Input callbacks are installed before ImGui's backend so it chains to them: they
// count events, which is how the idle loop knows a redraw is needed (no busy redraw when nothing changes).
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "app/gui/platform.h"

namespace ss::app {
namespace {

std::string g_glfwError;

void onGlfwError(int code, const char* what) {
  g_glfwError = what ? what : "unknown GLFW error";
  (void)code;
}

class GlfwPlatform : public Platform {
 public:
  bool init(const PlatformOptions& opts, std::string& error) override {
    glfwSetErrorCallback(onGlfwError);
    if (!glfwInit()) {
      error = "cannot open a window: " + g_glfwError;
      if (std::getenv("DISPLAY") == nullptr && std::getenv("WAYLAND_DISPLAY") == nullptr) {
        error += " (no DISPLAY: run under a desktop session, or `xvfb-run -a shardscope ...` for headless rendering)";
      }
      return false;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_VISIBLE, opts.visible ? GLFW_TRUE : GLFW_FALSE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    window_ = glfwCreateWindow(opts.width, opts.height, opts.title.c_str(), nullptr, nullptr);
    if (window_ == nullptr) {
      error = "cannot create an OpenGL 3.3 window: " + g_glfwError;
      glfwTerminate();
      return false;
    }
    glfwSetWindowUserPointer(window_, this);
    glfwMakeContextCurrent(window_);
    glfwSwapInterval(1);
    // Our callbacks first: ImGui's backend chains to them.
    glfwSetCursorPosCallback(window_, [](GLFWwindow* w, double, double) { self(w)->events_++; });
    glfwSetMouseButtonCallback(window_, [](GLFWwindow* w, int, int, int) { self(w)->events_++; });
    glfwSetScrollCallback(window_, [](GLFWwindow* w, double, double) { self(w)->events_++; });
    glfwSetKeyCallback(window_, [](GLFWwindow* w, int, int, int, int) { self(w)->events_++; });
    glfwSetCharCallback(window_, [](GLFWwindow* w, unsigned int) { self(w)->events_++; });
    glfwSetWindowFocusCallback(window_, [](GLFWwindow* w, int) { self(w)->events_++; });
    glfwSetCursorEnterCallback(window_, [](GLFWwindow* w, int) { self(w)->events_++; });
    glfwSetFramebufferSizeCallback(window_, [](GLFWwindow* w, int, int) { self(w)->events_++; });
    glfwSetWindowRefreshCallback(window_, [](GLFWwindow* w) { self(w)->events_++; });
    glfwSetWindowContentScaleCallback(window_, [](GLFWwindow* w, float, float) { self(w)->events_++; });
    glfwSetDropCallback(window_, [](GLFWwindow* w, int n, const char** paths) {
      for (int i = 0; i < n; ++i) self(w)->drops_.emplace_back(paths[i]);
      self(w)->events_++;
    });
    glfwSetWindowCloseCallback(window_, [](GLFWwindow* w) { self(w)->events_++; });
    ImGui_ImplGlfw_InitForOpenGL(window_, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");
    return true;
  }

  void shutdown() override {
    if (window_ == nullptr) return;
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    glfwDestroyWindow(window_);
    glfwTerminate();
    window_ = nullptr;
  }

  void beginFrame() override {
    glfwPollEvents();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
  }

  void endFrame(const float c[4]) override {
    setClear(c);
    drawData();
    glfwSwapBuffers(window_);
    drawn_ = false;
  }

  bool waitEvents(double timeoutS) override {
    const uint64_t before = events_;
    if (timeoutS > 0) glfwWaitEventsTimeout(timeoutS);
    else glfwPollEvents();
    return events_ != before;
  }

  bool closeRequested() const override { return glfwWindowShouldClose(window_) != 0; }
  void setCloseRequested(bool v) override { glfwSetWindowShouldClose(window_, v ? GLFW_TRUE : GLFW_FALSE); }
  void setTitle(const std::string& t) override {
    if (t != title_) glfwSetWindowTitle(window_, t.c_str());
    title_ = t;
  }
  std::vector<std::string> takeDroppedFiles() override { return std::move(drops_); }
  float contentScale() const override {
    float x = 1, y = 1;
    glfwGetWindowContentScale(window_, &x, &y);
    return x > 0 ? x : 1.0f;
  }
  void windowSize(int& w, int& h) const override { glfwGetWindowSize(window_, &w, &h); }
  void fontsChanged() override {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  bool capture(std::vector<unsigned char>& rgba, int& w, int& h) override {
    drawData();
    glfwGetFramebufferSize(window_, &w, &h);
    rgba.assign(static_cast<size_t>(w) * static_cast<size_t>(h) * 4, 0);
    glFinish();
    glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    // GL rows are bottom-up: flip to top row first.
    const size_t row = static_cast<size_t>(w) * 4;
    std::vector<unsigned char> tmp(row);
    for (int y = 0; y < h / 2; ++y) {
      unsigned char* a = rgba.data() + static_cast<size_t>(y) * row;
      unsigned char* b = rgba.data() + static_cast<size_t>(h - 1 - y) * row;
      std::memcpy(tmp.data(), a, row);
      std::memcpy(a, b, row);
      std::memcpy(b, tmp.data(), row);
    }
    return true;
  }

  void setClear(const float c[4]) { for (int i = 0; i < 4; ++i) clear_[i] = c[i]; }

 private:
  static GlfwPlatform* self(GLFWwindow* w) { return static_cast<GlfwPlatform*>(glfwGetWindowUserPointer(w)); }
  void drawData() {
    if (drawn_) return;
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_, &w, &h);
    glViewport(0, 0, w, h);
    glClearColor(clear_[0], clear_[1], clear_[2], clear_[3]);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    drawn_ = true;
  }

  GLFWwindow* window_ = nullptr;
  uint64_t events_ = 0;
  std::vector<std::string> drops_;
  std::string title_;
  float clear_[4] = {0.1f, 0.1f, 0.11f, 1.0f};
  bool drawn_ = false;
};

}  // namespace

std::unique_ptr<Platform> makeGlfwPlatform() { return std::make_unique<GlfwPlatform>(); }

}  // namespace ss::app
