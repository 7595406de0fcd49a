#include "views/model/text_fit.h"

namespace ss::views {

std::string elideToWidth(const std::string& text, float maxWidth, const TextWidthFn& width) {
  if (width(text) <= maxWidth) return text;
  // Longest start that fits with the ellipsis: the width grows with the length, so search the cut points.
  std::string best;
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    if (cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) continue;  // inside a character
    std::string candidate = text.substr(0, cut) + kEllipsis;
    if (width(candidate) > maxWidth) break;
    best = std::move(candidate);
  }
  return best;
}

TextWidthFn fixedAdvanceWidth(float advance) {
  return [advance](const std::string& s) {
    int chars = 0;
    for (const char c : s) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
    return advance * static_cast<float>(chars);
  };
}

}  // namespace ss::views
