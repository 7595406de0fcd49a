// The headless platform: views/headless_frame.h's set-up (as the GLFW + OpenGL 3 backends do), no window, no GL.
#include <imgui.h>

#include "app/gui/platform.h"
#include "views/headless_frame.h"

namespace ss::app {

bool HeadlessPlatform::init(const PlatformOptions& opts, std::string& /*error*/) {
  width_ = opts.width;
  height_ = opts.height;
  title_ = opts.title;
  views::setUpHeadlessBackend(ImGui::GetIO());
  fontsChanged();
  return true;
}

void HeadlessPlatform::fontsChanged() { views::buildHeadlessFontAtlas(); }

void HeadlessPlatform::beginFrame() {
  views::headlessNewFrame(ImGui::GetIO(), ImVec2(static_cast<float>(width_), static_cast<float>(height_)));
}

}  // namespace ss::app
