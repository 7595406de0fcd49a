// DebugMode's records from its debug_string() text and its save_logs JSON (core/io/dtensor/program.h).
//
// A text line is `<2 + 2 * depth spaces><record>`; records: `aten::mm(args)  ->  out`, `-> output: P(sum)`,
// `redistribute_input [implicit] (4, RS(1) -> RS(0))`, `redistribute_input(t: f32[8, 16], trace: P(sum)->R)`,
// `[nn.Mod] MLP.w1`, and with record_stack_trace a `# File: ...` line (after an empty line) before a record.
#include <nlohmann/json.hpp>

#include "core/io/dtensor/program.h"

namespace ss {

namespace {

constexpr std::string_view kRedistributeCall = "redistribute_input";
constexpr std::string_view kModulePrefix = "[nn.Mod] ";
constexpr std::string_view kOutputPrefix = "-> output: ";
constexpr std::string_view kArrow = "  ->  ";

// The index of the ')' closing the '(' at `open` (brackets of every kind balanced), npos when none.
size_t closingParen(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) return c == ')' ? i : std::string_view::npos;
    }
  }
  return std::string_view::npos;
}

// The redistribute record's parenthesised part: `(4, RS(1) -> RS(0))` (outer) or `(t$1: f32[8], trace: S(0)->R)`.
Result<bool> readRedistributeBody(std::string_view body, DebugRecord& r, int line, int col) {
  if (const size_t t = body.find(", trace: "); t != std::string_view::npos) {
    r.outer = false;
    r.args = std::string(body.substr(0, t));
    r.trace = std::string(body.substr(t + 9));
    return true;
  }
  const size_t comma = body.find(", ");
  const size_t arrow = body.find(" -> ");
  if (comma == std::string_view::npos || arrow == std::string_view::npos || arrow < comma)
    return Error::atLine("expected `(ARG, SRC -> DST)` or `(TENSOR, trace: PATH)` after redistribute_input", line, col);
  r.outer = true;
  r.args = std::string(body.substr(0, comma));
  r.src = std::string(body.substr(comma + 2, arrow - comma - 2));
  r.dst = std::string(body.substr(arrow + 4));
  return true;
}

}  // namespace

const char* redistributeTagName(RedistributeTag t) {
  switch (t) {
    case RedistributeTag::Implicit: return "implicit";
    case RedistributeTag::Explicit: return "explicit";
    case RedistributeTag::Untagged: return "untagged";
  }
  return "?";
}

bool looksLikeDebugModeText(std::string_view text) {
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  // The first non-empty line: indented (DebugMode indents every record by at least two spaces; Python code and
  // FX text never start indented) and one of DebugMode's record forms.
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(pos, end - pos);
    pos = end + 1;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (l.find_first_not_of(' ') == std::string_view::npos) continue;
    const size_t s = l.find_first_not_of(' ');
    if (s < 2) return false;
    const std::string_view r = l.substr(s);
    for (std::string_view p : {std::string_view("aten::"), std::string_view("_c10d_functional::"), std::string_view("prims::"),
                               kModulePrefix, kRedistributeCall, std::string_view("# File: "),
                               std::string_view("[record function] "), std::string_view("<method"),
                               std::string_view("<built-in"), std::string_view("torch.")})
      if (r.starts_with(p)) return true;
    return false;
  }
  return false;
}

bool looksLikeDebugModeLogs(std::string_view head) {
  return head.find(std::string("\"format\": \"") + kDebugModeLogsFormat + "\"") != std::string_view::npos;
}

Result<std::vector<DebugRecord>> readDebugModeText(std::string_view text) {
  std::vector<DebugRecord> out;
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::string stack;
  size_t pos = 0;
  int line = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(pos, end - pos);
    pos = end + 1;
    ++line;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    const size_t s = l.find_first_not_of(' ');
    if (s == std::string_view::npos) continue;
    if (s < 2 || (s % 2) != 0)
      return Error::atLine("expected a DebugMode record indented by 2 + 2 x depth spaces", line, static_cast<int>(s) + 1);
    const std::string_view rec = l.substr(s);
    const int col = static_cast<int>(s) + 1;
    DebugRecord r;
    r.depth = static_cast<int>(s - 2) / 2;
    r.line = line;
    if (rec.starts_with("# ")) {
      stack = std::string(rec);
      continue;
    }
    if (rec.starts_with(kModulePrefix)) {
      r.kind = DebugRecordKind::Module;
      r.name = std::string(rec.substr(kModulePrefix.size()));
    } else if (rec.starts_with(kOutputPrefix)) {
      r.kind = DebugRecordKind::OutputPlacement;
      r.output = std::string(rec.substr(kOutputPrefix.size()));
    } else if (rec.starts_with(kRedistributeCall)) {
      r.kind = DebugRecordKind::Redistribute;
      std::string_view rest = rec.substr(kRedistributeCall.size());
      if (rest.starts_with(" [implicit] ")) r.tag = RedistributeTag::Implicit, rest.remove_prefix(12);
      else if (rest.starts_with(" [explicit] ")) r.tag = RedistributeTag::Explicit, rest.remove_prefix(12);
      const size_t close = rest.empty() || rest.front() != '(' ? std::string_view::npos : closingParen(rest, 0);
      if (close == std::string_view::npos)
        return Error::atLine("expected `(...)` after redistribute_input", line, col + static_cast<int>(kRedistributeCall.size()));
      if (auto ok = readRedistributeBody(rest.substr(1, close - 1), r, line, col); !ok) return ok.error();
      if (rest.substr(close + 1).starts_with(kArrow)) r.output = std::string(rest.substr(close + 1 + kArrow.size()));
    } else {
      const size_t open = rec.find('(');
      const size_t close = open == std::string_view::npos ? open : closingParen(rec, open);
      if (open == std::string_view::npos || close == std::string_view::npos) {
        r.kind = DebugRecordKind::Other;  // an annotation or a call DebugMode printed some other way
        r.name = std::string(rec);
      } else {
        r.name = std::string(rec.substr(0, open));
        r.args = std::string(rec.substr(open + 1, close - open - 1));
        std::string_view after = rec.substr(close + 1);
        if (after.starts_with(kArrow)) r.output = std::string(after.substr(kArrow.size()));
        // Dispatch-level calls name their namespace (`aten::`, `_c10d_functional::`); torch-level ones
        // (record_torchfunction) do not and make no node.
        r.kind = r.name.find("::") != std::string::npos ? DebugRecordKind::Op : DebugRecordKind::Other;
      }
    }
    r.stack = std::move(stack);
    stack.clear();
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::vector<DebugRecord>> readDebugModeLogs(const nlohmann::json& j) {
  if (!j.is_object() || j.value("format", "") != kDebugModeLogsFormat)
    return Error::atPointer(std::string("expected DebugMode's save_logs JSON ({\"format\": \"") + kDebugModeLogsFormat + "\"})", "/format");
  auto logs = j.find("logs");
  if (logs == j.end() || !logs->is_array()) return Error::atPointer("expected an array of records", "/logs");
  std::vector<DebugRecord> out;
  out.reserve(logs->size());
  auto str = [](const nlohmann::json& e, const char* key) -> std::string {
    auto it = e.find(key);
    return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  for (size_t i = 0; i < logs->size(); ++i) {
    const nlohmann::json& e = (*logs)[i];
    const std::string ptr = "/logs/" + std::to_string(i);
    if (!e.is_object()) return Error::atPointer("expected a record object", ptr);
    auto depth = e.find("call_depth");
    if (depth == e.end() || !depth->is_number_integer() || depth->get<int64_t>() < 0 || depth->get<int64_t>() > 100000)
      return Error::atPointer("expected a call depth (an integer >= 0)", ptr + "/call_depth");
    DebugRecord r;
    r.depth = depth->get<int>();
    r.line = static_cast<int>(i) + 1;
    r.stack = str(e, "stack_trace");
    const std::string type = str(e, "type");
    if (type == "op") {
      r.name = str(e, "op_name");
      r.args = str(e, "args_str") + str(e, "kwargs_str");
      r.output = str(e, "output_str");
      if (r.output.starts_with(kArrow)) r.output.erase(0, kArrow.size());
      r.kind = r.name.find("::") != std::string::npos ? DebugRecordKind::Op : DebugRecordKind::Other;
    } else if (type == "redistribute") {
      r.kind = DebugRecordKind::Redistribute;
      const bool outer = e.value("is_outer_call", false);
      const bool expl = e.value("is_explicit", false);
      r.args = str(e, "arg_str");
      r.trace = str(e, "transform_info_str");
      r.outer = outer;
      // As the text prints it: the outer call carries the tag; an explicit one is printed with its trace.
      r.tag = expl ? RedistributeTag::Explicit : outer ? RedistributeTag::Implicit : RedistributeTag::Untagged;
      if (outer) {
        r.src = str(e, "src_placement_str");
        r.dst = str(e, "dst_placement_str");
      }
    } else if (type == "output_placement") {
      r.kind = DebugRecordKind::OutputPlacement;
      r.output = str(e, "placements_str");
    } else {
      r.kind = DebugRecordKind::Other;
      r.name = type;
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace ss
