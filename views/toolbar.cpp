#include "views/toolbar.h"

#include <imgui.h>

#include "views/model/text_fit.h"
#include "views/ui_probe.h"

namespace ss::views {

ToolbarFlow::ToolbarFlow(std::string name) : name_(std::move(name)) {
  right_ = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  const ImVec2 wp = ImGui::GetWindowPos(), ws = ImGui::GetWindowSize();
  probeRect("toolbar." + name_, Rect{wp.x, wp.y, wp.x + ws.x, wp.y + ws.y});
}

bool ToolbarFlow::fits(float width) const {
  // SameLine() would put the control one item spacing after the previous one.
  return !first_ && ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width <= right_;
}

void ToolbarFlow::next(float width) {
  if (fits(width)) ImGui::SameLine();
  first_ = false;
}

void ToolbarFlow::text(const std::string& s, unsigned colour, const char* item) {
  auto width = [](const std::string& t) { return ImGui::CalcTextSize(t.c_str(), nullptr, false).x; };
  next(width(s));
  const std::string shown = elideToWidth(s, right_ - ImGui::GetCursorScreenPos().x, width);
  if (colour != 0) ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::TextUnformatted(shown.c_str());
  if (colour != 0) ImGui::PopStyleColor();
  if (shown != s && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.c_str());
  if (item != nullptr) probe(item);
}

void ToolbarFlow::probe(const std::string& item) const { probeItem("toolbar." + name_ + "." + item); }

float ToolbarFlow::textWidth(const char* text) { return ImGui::CalcTextSize(text, nullptr, true).x; }

float ToolbarFlow::buttonWidth(const char* label) {
  return textWidth(label) + ImGui::GetStyle().FramePadding.x * 2;
}

float ToolbarFlow::smallButtonWidth(const char* label) {
  return textWidth(label) + ImGui::GetStyle().FramePadding.x * 2;  // SmallButton keeps the horizontal padding
}

float ToolbarFlow::checkboxWidth(const char* label) {
  const float t = textWidth(label);
  return ImGui::GetFrameHeight() + (t > 0 ? ImGui::GetStyle().ItemInnerSpacing.x + t : 0);
}

float ToolbarFlow::labelledWidth(float itemWidth, const char* label) {
  const float t = textWidth(label);
  return itemWidth + (t > 0 ? ImGui::GetStyle().ItemInnerSpacing.x + t : 0);
}

}  // namespace ss::views
