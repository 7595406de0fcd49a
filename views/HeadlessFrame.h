#pragma once
// An ImGui context with no window and no GL, for measuring and testing views (shardscope_bench, the graph view
// tests): each frame builds the draw lists the OpenGL 3 backend would receive; nothing is rendered.
#include <functional>

#include <imgui.h>

namespace ss::views {

class HeadlessFrame {
 public:
  explicit HeadlessFrame(ImVec2 display) {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = display;
    io.DeltaTime = 1.f / 60.f;
    io.IniFilename = nullptr;
    io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;  // as the OpenGL 3 backend: draw lists over 64k vertices
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);  // builds the font atlas; no texture is made
  }
  ~HeadlessFrame() { ImGui::DestroyContext(); }
  HeadlessFrame(const HeadlessFrame&) = delete;
  HeadlessFrame& operator=(const HeadlessFrame&) = delete;

  // One frame: `body` inside an undecorated window named `window` that covers the display, then Render().
  void frame(const std::function<void()>& body, const char* window = "view") {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
    ImGui::Begin(window, nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove);
    body();
    ImGui::End();
    ImGui::Render();
  }
};

}  // namespace ss::views
