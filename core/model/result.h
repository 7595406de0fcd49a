#pragma once
// Result<T>: a value or a located error, for everything a user can type or load.
//
// Contract: an Error carries a one-line message and where it happened: a 1-based column inside a one-line text
// (placement strings, CLI flags), a 1-based line:col inside a file, or a JSON pointer. `toString(file)` gives the
// single line users see: `FILE:LINE:COL: what`, `FILE: /json/pointer: what`, or `what (column N)`.
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace ss {

struct Error {
  std::string message;
  int line = 0;          // 1-based; 0 = unknown
  int column = 0;        // 1-based; 0 = unknown
  std::string pointer;   // JSON pointer ("/nodes/3/placement"); empty = none

  Error() = default;
  Error(std::string msg, int line_ = 0, int column_ = 0, std::string pointer_ = {})
      : message(std::move(msg)), line(line_), column(column_), pointer(std::move(pointer_)) {}

  static Error at(std::string msg, int col) { return Error{std::move(msg), 0, col, {}}; }
  static Error atLine(std::string msg, int line, int col) { return Error{std::move(msg), line, col, {}}; }
  static Error atPointer(std::string msg, std::string ptr) { return Error{std::move(msg), 0, 0, std::move(ptr)}; }

  // One line for the user. `file` may be empty (a string typed on the command line or in the UI).
  std::string toString(const std::string& file = {}) const { return oneLine(located(file)); }

  // Escapes what user text can carry into a message and must not reach a terminal or a JSON report raw: control
  // characters (a quoted name holding a newline, a NUL byte) as \n, \r, \t or \xNN, so a message always stays on
  // one line, and bytes that are not well-formed UTF-8 (a file's stray \xff, which nlohmann echoes in its parse
  // errors) as \xNN, so a message is always valid UTF-8 (json::dump throws on anything else). Well-formed UTF-8
  // passes unchanged.
  static std::string oneLine(std::string s) {
    size_t i = 0;
    while (i < s.size() && static_cast<unsigned char>(s[i]) >= 0x20 && static_cast<unsigned char>(s[i]) < 0x7f) ++i;
    if (i == s.size()) return s;
    std::string out = s.substr(0, i);
    static const char* hex = "0123456789abcdef";
    while (i < s.size()) {
      const unsigned char c = static_cast<unsigned char>(s[i]);
      if (c >= 0x20 && c < 0x7f) {
        out += static_cast<char>(c);
        ++i;
        continue;
      }
      if (const size_t n = c >= 0x80 ? utf8Length(s, i) : 0; n > 0) {
        out.append(s, i, n);
        i += n;
        continue;
      }
      if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else if (c == '\t') out += "\\t";
      else { out += "\\x"; out += hex[c >> 4]; out += hex[c & 15]; }
      ++i;
    }
    return out;
  }

  // Length of the well-formed UTF-8 sequence starting at s[i] (RFC 3629: no overlong forms, no surrogates, at most
  // U+10FFFF); 0 when there is none.
  static size_t utf8Length(const std::string& s, size_t i) {
    const auto at = [&](size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
    const unsigned c = at(i);
    size_t n = 0;
    unsigned lo = 0x80, hi = 0xbf;  // the allowed range of the second byte
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c == 0xe0) { n = 3; lo = 0xa0; }
    else if ((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef) n = 3;
    else if (c == 0xed) { n = 3; hi = 0x9f; }
    else if (c == 0xf0) { n = 4; lo = 0x90; }
    else if (c >= 0xf1 && c <= 0xf3) n = 4;
    else if (c == 0xf4) { n = 4; hi = 0x8f; }
    else return 0;
    if (at(i + 1) < lo || at(i + 1) > hi) return 0;
    for (size_t k = 2; k < n; ++k)
      if (at(i + k) < 0x80 || at(i + k) > 0xbf) return 0;
    return n;
  }

 private:
  std::string located(const std::string& file) const {
    std::string out;
    if (!file.empty()) out += file;
    if (line > 0) {
      out += (out.empty() ? "" : ":") + std::to_string(line) + ":" + std::to_string(column > 0 ? column : 1);
      return out + ": " + message;
    }
    if (!pointer.empty()) return out + (out.empty() ? "" : ": ") + pointer + ": " + message;
    if (column > 0) {
      if (out.empty()) return message + " (column " + std::to_string(column) + ")";
      return out + ":1:" + std::to_string(column) + ": " + message;
    }
    return out.empty() ? message : out + ": " + message;
  }
};

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error e) : v_(std::move(e)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& { check(); return std::get<0>(v_); }
  T& value() & { check(); return std::get<0>(v_); }
  T&& value() && { check(); return std::get<0>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  void check() const {
    if (!ok()) throw std::logic_error("Result::value() on error: " + std::get<1>(v_).message);
  }
  std::variant<T, Error> v_;
};

}  // namespace ss
