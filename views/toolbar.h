#pragma once
// Toolbars that never clip: a row of controls that wraps to a new line when the next control would cross the
// window's right edge (ImGui 1.86 has no layout engine: a plain ImGui::SameLine() row runs past a narrow pane
// and its last controls are cut off, issue 42).
//
// Use: make one ToolbarFlow per toolbar, then before each control call `next(width)` with the control's width
// (the *Width helpers below compute it as ImGui will draw it), draw the control, and call `probe("name")` so
// tests can find it (views/ui_probe.h: "toolbar.<toolbar>.<name>", and "toolbar.<toolbar>" for the window's
// visible rect). `next` puts the control on the current line when it fits, else on the next line.
#include <string>

namespace ss::views {

class ToolbarFlow {
 public:
  explicit ToolbarFlow(std::string name);  // at the cursor; the row ends at the window's content edge
  // Before each control: SameLine when `width` fits after the previous control, else a new line.
  void next(float width);
  // Whether a control of `width` would go on the current line (false before the first control).
  bool fits(float width) const;
  // Right after the control: its rect is probed as "toolbar.<name>.<item>".
  void probe(const std::string& item) const;
  // A text piece of the row in `colour` (ImU32; 0: the style's text colour): wraps like a control, and when even
  // a line of its own is too narrow it is elided with "..." (views/model/text_fit.h), the whole text as tooltip.
  // Probed as "toolbar.<name>.<item>" when `item` is given.
  void text(const std::string& s, unsigned colour = 0, const char* item = nullptr);
  float right() const { return right_; }  // screen x where the row must end
  void setRight(float x) { right_ = x; }    // a row narrower than the window (a column of a split view)

  // Widths of common controls as ImGui 1.86 sizes them with the current style and font.
  static float textWidth(const char* text);          // ImGui::Text / TextDisabled (label part before "##")
  static float buttonWidth(const char* label);       // ImGui::Button
  static float smallButtonWidth(const char* label);  // ImGui::SmallButton
  static float checkboxWidth(const char* label);     // ImGui::Checkbox
  static float labelledWidth(float itemWidth, const char* label);  // a sized item (input, combo) plus its label

 private:
  std::string name_;
  float right_ = 0;
  bool first_ = true;
};

}  // namespace ss::views
