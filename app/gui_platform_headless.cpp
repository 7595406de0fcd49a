#include <imgui.h>

#include "app/gui_platform.h"

namespace ss::app {

bool HeadlessPlatform::init(const PlatformOptions& opts, std::string& /*error*/) {
  width_ = opts.width;
  height_ = opts.height;
  title_ = opts.title;
  fontsChanged();
  return true;
}

void HeadlessPlatform::fontsChanged() {
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);  // builds the atlas; no texture needed
}

void HeadlessPlatform::beginFrame() {
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(static_cast<float>(width_), static_cast<float>(height_));
  io.DisplayFramebufferScale = ImVec2(1, 1);
  io.DeltaTime = 1.0f / 60.0f;
}

}  // namespace ss::app
