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

  // Escapes the control characters that user text can carry into a message (a quoted name holding a newline,
  // a NUL byte) as \n, \r, \t or \xNN, so a message always stays on one line. Other bytes pass unchanged.
  static std::string oneLine(std::string s) {
    size_t i = 0;
    while (i < s.size() && static_cast<unsigned char>(s[i]) >= 0x20 && s[i] != 0x7f) ++i;
    if (i == s.size()) return s;
    std::string out = s.substr(0, i);
    static const char* hex = "0123456789abcdef";
    for (; i < s.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(s[i]);
      if (c >= 0x20 && c != 0x7f) { out += static_cast<char>(c); continue; }
      if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else if (c == '\t') out += "\\t";
      else { out += "\\x"; out += hex[c >> 4]; out += hex[c & 15]; }
    }
    return out;
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
