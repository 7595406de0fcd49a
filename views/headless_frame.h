#pragma once
// The one headless ImGui set-up (no window, no GL), shared by the view tests (tests/views/harness.h), the graph
// view tests, shardscope_bench and the app's headless platform (app/gui/platform_headless.cpp). It sets ImGui up
// as the real GLFW + OpenGL 3 backends do where that changes what views draw: RendererHasVtxOffset (draw lists
// over 64k vertices split the same way), a framebuffer scale of 1, 60 frames per second, a built font atlas.
// Each frame builds the draw lists the OpenGL 3 backend would receive; nothing is rendered.
#include <functional>

#include <imgui.h>

namespace ss::views {

// What the OpenGL 3 backend declares (imgui_impl_opengl3: RendererHasVtxOffset); call once per context.
inline void setUpHeadlessBackend(ImGuiIO& io) {
  io.IniFilename = nullptr;
  io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
}
// What the GLFW backend sets before each frame, for a window of `display` pixels at scale 1.
inline void headlessNewFrame(ImGuiIO& io, ImVec2 display) {
  io.DisplaySize = display;
  io.DisplayFramebufferScale = ImVec2(1, 1);
  io.DeltaTime = 1.0f / 60.0f;
}
// Builds the font atlas (after fonts are added); no texture is made.
inline void buildHeadlessFontAtlas() {
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
}

class HeadlessFrame {
 public:
  // `setUp` runs on the new context before the font atlas is built (fonts, theme).
  explicit HeadlessFrame(ImVec2 display, const std::function<void()>& setUp = {}) : display_(display) {
    ImGui::CreateContext();
    setUpHeadlessBackend(ImGui::GetIO());
    if (setUp) setUp();
    buildHeadlessFontAtlas();
  }
  ~HeadlessFrame() { ImGui::DestroyContext(); }
  HeadlessFrame(const HeadlessFrame&) = delete;
  HeadlessFrame& operator=(const HeadlessFrame&) = delete;

  // One frame: `body` inside an undecorated window named `window` that covers the display, then Render().
  void frame(const std::function<void()>& body, const char* window = "view",
             ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove) {
    headlessNewFrame(ImGui::GetIO(), display_);
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(display_);
    ImGui::Begin(window, nullptr, flags);
    body();
    ImGui::End();
    ImGui::Render();
  }

 private:
  ImVec2 display_;
};

}  // namespace ss::views
