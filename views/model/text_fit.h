#pragma once
// Text that fits a cell: the longest start of a string that fits a width, with "..." after it (Compare and Teach
// cells, issue 42). The width is measured by the caller's function (the view's font), so this stays plain C++
// and tests measure with a fixed advance.
#include <functional>
#include <string>

namespace ss::views {

using TextWidthFn = std::function<float(const std::string&)>;

inline constexpr const char* kEllipsis = "...";

// `text` when width(text) <= maxWidth; else the longest start of it (cut between UTF-8 characters) followed by
// "..." that fits; "" when not even "..." fits.
std::string elideToWidth(const std::string& text, float maxWidth, const TextWidthFn& width);

// A stand-in measure for record passes run without a font: `advance` pixels per UTF-8 character.
TextWidthFn fixedAdvanceWidth(float advance);

}  // namespace ss::views
