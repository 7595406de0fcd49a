#include "core/io/fx/lexer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

namespace ss::fx {

LineIndex::LineIndex(std::string_view text) {
  starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts_.push_back(i + 1);
}

std::pair<int, int> LineIndex::at(size_t offset) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  size_t line = static_cast<size_t>(it - starts_.begin());  // 1-based
  return {static_cast<int>(line), static_cast<int>(offset - starts_[line - 1] + 1)};
}

static bool isDigit(char c) { return c >= '0' && c <= '9'; }

void Cursor::skipSpace() {
  // Newlines inside a logical line (open brackets) are plain space; a backslash continuation too. A comment runs
  // to the end of its physical line: skipped as space, its text kept for takeComment() (descriptor comments of
  // `expanded_def` code sit inside the def's and the return's brackets).
  while (pos_ < end_) {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\\') {
      ++pos_;
    } else if (c == '#') {
      size_t e = pos_;
      while (e < end_ && text_[e] != '\n') ++e;
      comment_ = text_.substr(pos_ + 1, e - pos_ - 1);
      pos_ = e;
    } else {
      break;
    }
  }
}

std::string_view Cursor::takeComment() {
  std::string_view c = comment_;
  comment_ = {};
  while (!c.empty() && (c.front() == ' ' || c.front() == '\t')) c.remove_prefix(1);
  while (!c.empty() && (c.back() == ' ' || c.back() == '\r' || c.back() == '\t')) c.remove_suffix(1);
  return c;
}

bool Cursor::accept(char c) {
  if (peek() == c) {
    ++pos_;
    return true;
  }
  return false;
}

bool Cursor::accept(std::string_view word) {
  skipSpace();
  if (rest().substr(0, word.size()) != word) return false;
  size_t after = pos_ + word.size();
  if (isNameChar(word.back()) && after < end_ && isNameChar(text_[after])) return false;
  pos_ = after;
  return true;
}

Result<bool> Cursor::expect(char c, std::string_view what) {
  if (accept(c)) return true;
  if (atEnd()) return error("expected " + std::string(what) + " but the line ends");
  return error("expected " + std::string(what) + " but found '" + std::string(1, text_[pos_]) + "'");
}

std::string_view Cursor::name() {
  skipSpace();
  if (pos_ >= end_ || !isNameStart(text_[pos_])) return {};
  size_t b = pos_;
  while (pos_ < end_ && isNameChar(text_[pos_])) ++pos_;
  return text_.substr(b, pos_ - b);
}

std::string_view Cursor::dottedName() {
  skipSpace();
  size_t b = pos_;
  if (name().empty()) return {};
  while (pos_ + 1 < end_ && text_[pos_] == '.' && isNameStart(text_[pos_ + 1])) {
    ++pos_;
    name();
  }
  return text_.substr(b, pos_ - b);
}

Result<std::string> Cursor::stringLiteral() {
  skipSpace();
  size_t start = pos_;
  char q = peekRaw();
  if (q != '\'' && q != '"') return error("expected a string");
  ++pos_;
  std::string out;
  while (pos_ < end_ && text_[pos_] != q) {
    char c = text_[pos_];
    if (c == '\n') return errorAt(start, "string is not closed on its line");
    if (c == '\\' && pos_ + 1 < end_) {
      char e = text_[++pos_];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case '0': out += '\0'; break;
        default: out += e; break;
      }
      ++pos_;
      continue;
    }
    out += c;
    ++pos_;
  }
  if (pos_ >= end_) return errorAt(start, "string is not closed");
  ++pos_;
  return out;
}

bool Cursor::atNumber() {
  skipSpace();
  if (pos_ >= end_) return false;
  char c = text_[pos_];
  return isDigit(c) || (c == '.' && pos_ + 1 < end_ && isDigit(text_[pos_ + 1]));
}

Result<Cursor::Number> Cursor::number() {
  skipSpace();
  size_t b = pos_;
  bool isFloat = false;
  while (pos_ < end_) {
    char c = text_[pos_];
    if (isDigit(c) || c == '_') {
      ++pos_;
    } else if (c == '.') {
      isFloat = true;
      ++pos_;
    } else if ((c == 'e' || c == 'E') && pos_ > b) {
      isFloat = true;
      ++pos_;
      if (pos_ < end_ && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ >= end_ || !isDigit(text_[pos_])) return errorAt(b, "malformed number exponent");
    } else {
      break;
    }
  }
  if (pos_ < end_ && isNameStart(text_[pos_]))
    return errorAt(b, "malformed number '" + std::string(text_.substr(b, pos_ + 1 - b)) + "'");
  std::string digits;
  for (size_t i = b; i < pos_; ++i)
    if (text_[i] != '_') digits += text_[i];
  if (digits.empty()) return errorAt(b, "expected a number");
  Number n;
  if (!isFloat) {
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n.i);
    if (ec == std::errc::result_out_of_range) {
      // Python ints are unbounded; FX only prints int64 values, so a bigger one is a broken file.
      return errorAt(b, "integer " + digits + " does not fit in 64 bits");
    }
    if (ec != std::errc() || p != digits.data() + digits.size()) return errorAt(b, "malformed integer");
    return n;
  }
  n.isInt = false;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n.f);
  if (ec == std::errc::result_out_of_range) {
    n.f = digits.find("e-") != std::string::npos || digits.find("E-") != std::string::npos ? 0.0 : HUGE_VAL;
    return n;
  }
  if (ec != std::errc() || p != digits.data() + digits.size()) return errorAt(b, "malformed float '" + digits + "'");
  return n;
}

Error Cursor::errorAt(size_t offset, std::string msg) const {
  auto [l, c] = lines_.at(std::min(offset, text_.size()));
  return Error::atLine(std::move(msg), l, c);
}

std::vector<LogicalLine> splitLogicalLines(std::string_view text) {
  std::vector<LogicalLine> out;
  size_t i = 0, n = text.size();
  while (i < n) {
    LogicalLine ll;
    ll.begin = i;
    // indentation
    size_t j = i;
    while (j < n && (text[j] == ' ' || text[j] == '\t')) {
      ll.indent += text[j] == '\t' ? 8 : 1;
      ++j;
    }
    ll.blank = j >= n || text[j] == '\n' || (text[j] == '\r' && (j + 1 >= n || text[j + 1] == '\n'));
    ll.comment = j < n && text[j] == '#';
    int depth = 0;
    char quote = 0;
    bool inComment = false;
    for (; j < n; ++j) {
      char c = text[j];
      if (c == '\n') {
        inComment = false;
        if (depth <= 0 && !quote) break;
        if (quote) quote = 0;  // an unclosed string ends at the line; the parser reports it
        continue;
      }
      if (inComment) continue;
      if (quote) {
        if (c == '\\') ++j;
        else if (c == quote) quote = 0;
        continue;
      }
      if (c == '#') inComment = true;
      else if (c == '\'' || c == '"') quote = c;
      else if (c == '(' || c == '[' || c == '{') ++depth;
      else if (c == ')' || c == ']' || c == '}') --depth;
      else if (c == '\\' && j + 1 < n && text[j + 1] == '\n') ++j;  // explicit continuation
    }
    j = std::min(j, n);  // a backslash as the very last byte steps past the end
    ll.end = j;
    if (ll.end > ll.begin && text[ll.end - 1] == '\r') --ll.end;
    out.push_back(ll);
    i = j < n ? j + 1 : n;
  }
  return out;
}

std::string pythonFloat(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  // Shortest round-trip digits in scientific form, then laid out as Python's repr does: fixed notation for
  // exponents in [-4, 16), scientific with a two-digit exponent otherwise.
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  (void)ec;
  std::string s(buf, p);
  bool neg = s[0] == '-';
  if (neg) s.erase(0, 1);
  size_t e = s.find('e');
  std::string mant = s.substr(0, e);
  int exp = std::stoi(s.substr(e + 1));
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  if (exp >= -4 && exp < 16) {
    if (exp >= 0) {
      if (static_cast<int>(digits.size()) <= exp + 1) {
        out = digits + std::string(exp + 1 - digits.size(), '0') + ".0";
      } else {
        out = digits.substr(0, exp + 1) + "." + digits.substr(exp + 1);
      }
    } else {
      out = "0." + std::string(-exp - 1, '0') + digits;
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    out += eb;
  }
  return neg ? "-" + out : out;
}

std::string pythonString(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
  }
  return out + "'";
}

}  // namespace ss::fx
