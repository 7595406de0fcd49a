#pragma once
// A cursor over Python-like text as torch.fx prints it: the pieces FX graph code is made of (names, numbers,
// strings, brackets), with exact line:col for every error. Used by the FX text reader (core/io/fx/text.cpp).
//
// Contract: the cursor works on the whole file text and never reads past a logical line's end (`end`); every
// failure is an Error with the 1-based line and column of the offending character. Numbers follow Python:
// ints are int64 (out of range is an error), floats accept `1e-05`, `.5`, `2.`; `inf`/`nan` are names.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/result.h"

namespace ss::fx {

// What the reader takes as a Python name (ASCII, as FX writes names); the writer refuses anything else.
inline bool isNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
inline bool isNameChar(char c) { return isNameStart(c) || (c >= '0' && c <= '9'); }

// Maps byte offsets to 1-based line:col; built once per file.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  std::pair<int, int> at(size_t offset) const;

 private:
  std::vector<size_t> starts_;
};

class Cursor {
 public:
  Cursor(std::string_view text, const LineIndex& lines, size_t begin, size_t end)
      : text_(text), lines_(lines), pos_(begin), end_(end) {}

  size_t pos() const { return pos_; }
  void seek(size_t p) { pos_ = p; }
  size_t end() const { return end_; }
  bool atEnd() { skipSpace(); return pos_ >= end_; }
  char peek() { skipSpace(); return pos_ < end_ ? text_[pos_] : '\0'; }
  char peekRaw() const { return pos_ < end_ ? text_[pos_] : '\0'; }
  bool accept(char c);
  bool accept(std::string_view word);  // a whole word (not a prefix of a longer name)
  Result<bool> expect(char c, std::string_view what);

  // A Python identifier at the cursor; empty when there is none.
  std::string_view name();
  // A dotted name `torch.ops.aten.mm.default`; empty when none.
  std::string_view dottedName();
  // A string literal ('...' or "..."), decoded (\\, \', \", \n, \t).
  Result<std::string> stringLiteral();
  struct Number {
    bool isInt = true;
    int64_t i = 0;
    double f = 0;
  };
  // A number literal without sign.
  Result<Number> number();
  bool atNumber();
  bool atString() { char c = peek(); return c == '\'' || c == '"'; }

  Error error(std::string msg) const { return errorAt(pos_, std::move(msg)); }
  Error errorAt(size_t offset, std::string msg) const;
  std::string_view rest() const { return text_.substr(pos_, end_ > pos_ ? end_ - pos_ : 0); }
  void skipSpace();
  // The text of the last comment skipped since the last call (without '#' and surrounding blanks), then forgets
  // it; empty when none was.
  std::string_view takeComment();

 private:
  std::string_view text_;
  const LineIndex& lines_;
  size_t pos_, end_;
  std::string_view comment_;
};

// Splits text into logical lines: physical lines joined while brackets are open (outside strings/comments).
// Each entry is [begin, end) into the text, without the newline; `indent` counts leading spaces (tab = 8).
struct LogicalLine {
  size_t begin = 0, end = 0;
  int indent = 0;
  bool blank = false;    // only spaces
  bool comment = false;  // first non-space char is '#'
};
std::vector<LogicalLine> splitLogicalLines(std::string_view text);

// Python repr of a float: shortest round-trip digits, `1e-05`, `2.0`, `inf`, `-inf`, `nan`.
std::string pythonFloat(double v);
// Python repr of a string with single quotes.
std::string pythonString(std::string_view s);

}  // namespace ss::fx
