#include "core/io/trace/trace_log.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "core/io/file.h"
#include "core/io/trace/md5.h"

namespace ss {

const TraceRecord* TraceLog::artifact(std::string_view name) const {
  for (auto it = records.rbegin(); it != records.rend(); ++it)
    if (it->kind == "artifact" && it->name == name) return &*it;
  return nullptr;
}

bool keepAutoparallelArtifacts(const TraceRecord& r) {
  return (r.kind == "artifact" && (r.name.rfind("autoparallel_", 0) == 0 || r.name == kTorchVersionArtifact)) ||
         r.kind == kAotJointGraphRecord;
}

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// tlparse's glog regex `([VIWEC])(\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2}).(\d{6}) (\d+)([^:]+):(\d+)\] (.)`, by hand.
// Returns the offset of the envelope (the char after "] "), or npos; `caller` gets "path:line".
size_t matchRecordPrefix(std::string_view l, std::string_view* caller) {
  auto digits = [&](size_t at, size_t n) {
    if (at + n > l.size()) return false;
    for (size_t i = 0; i < n; ++i)
      if (!isDigit(l[at + i])) return false;
    return true;
  };
  if (l.size() < 24 || std::string_view("VIWEC").find(l[0]) == std::string_view::npos) return std::string_view::npos;
  if (!digits(1, 4) || l[5] != ' ' || !digits(6, 2) || l[8] != ':' || !digits(9, 2) || l[11] != ':' ||
      !digits(12, 2) || !digits(15, 6) || l[21] != ' ')
    return std::string_view::npos;
  size_t i = 22;
  const size_t pidStart = i;
  while (i < l.size() && isDigit(l[i])) ++i;
  if (i == pidStart) return std::string_view::npos;
  const size_t pathStart = i;
  while (i < l.size() && l[i] != ':') ++i;
  if (i == pathStart || i >= l.size()) return std::string_view::npos;
  ++i;
  const size_t lineStart = i;
  while (i < l.size() && isDigit(l[i])) ++i;
  if (i == lineStart || i + 2 >= l.size() || l[i] != ']' || l[i + 1] != ' ') return std::string_view::npos;
  std::string_view path = l.substr(pathStart, i - pathStart);
  while (!path.empty() && path.front() == ' ') path.remove_prefix(1);
  if (caller) *caller = std::string_view(path.data(), static_cast<size_t>(l.data() + i - path.data()));
  return i + 2;
}

std::string_view lineAt(std::string_view text, size_t& pos) {
  const size_t end = text.find('\n', pos);
  std::string_view l = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
  pos = end == std::string_view::npos ? text.size() + 1 : end + 1;
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  return l;
}

// The payload being read: the record it belongs to, its lines' md5 so far and the digest has_payload gives.
struct PayloadReader {
  // The record whose payload lines are being read.
  TraceRecord* open = nullptr;
  Md5 md5;
  std::string expected;
  int payloadLines = 0;
  int pendingEmpty = 0;  // empty lines seen inside the open payload, not yet known to belong to it

  // Closes the open record's payload, if any: an error when it has no lines, or a kept one's md5 does not match.
  Result<bool> finish(bool atEof) {
    if (!open) return true;
    TraceRecord& r = *open;
    open = nullptr;
    if (payloadLines == 0 && pendingEmpty > 0) {  // a payload of empty lines only, their tabs stripped
      payloadLines = 1;
      --pendingEmpty;
    }
    if (payloadLines == 0)
      return Error::atLine(atEof ? "the log ends where this record's payload should follow (the file is cut short)"
                                 : "this record announces a payload (has_payload) but no payload lines follow",
                           r.line, 1);
    // Editors that strip trailing whitespace turn a lone-tab line (an empty payload line) into an empty line:
    // empty lines inside a payload were taken as payload lines when more followed (below); trailing ones count
    // when the md5 then matches.
    Md5 withEmpties = md5;
    for (int k = 0; k < pendingEmpty; ++k) withEmpties.update("\n");
    const std::string got = md5.hexDigest();
    if (got != expected && pendingEmpty > 0 && withEmpties.hexDigest() == expected) {
      if (r.kept) r.payload.append(static_cast<size_t>(pendingEmpty), '\n');
      pendingEmpty = 0;
      return true;
    }
    pendingEmpty = 0;
    // A record this reader does not use may carry a damaged payload (tlparse counts those and goes on); one it
    // reads may not.
    if (got != expected && !r.kept) return true;
    if (got != expected) {
      if (atEof)
        return Error::atLine("the payload of this " + r.kind + (r.name.empty() ? "" : " '" + r.name + "'") +
                                 " record is cut short: the file ends before its md5 " + expected + " matches",
                             r.line, 1);
      return Error::atLine("the payload of this " + r.kind + (r.name.empty() ? "" : " '" + r.name + "'") +
                               " record does not match its md5: has_payload is " + expected + ", the " +
                               std::to_string(payloadLines) + " payload lines hash to " + got +
                               " (the log was edited or damaged)",
                           r.line, 1);
    }
    return true;
  }

  // Adds payload line `l` (a tab, then the text) to the open record, after the empty lines pending before it.
  void addLine(std::string_view l) {
    for (; pendingEmpty > 0; --pendingEmpty) {
      if (payloadLines++ > 0) md5.update("\n");
      if (open->kept && payloadLines > 1) open->payload += '\n';
    }
    if (payloadLines++ > 0) md5.update("\n");
    md5.update(l.substr(1));
    if (open->kept) {
      if (payloadLines > 1) open->payload += '\n';
      open->payload.append(l.substr(1));
    }
  }
};

// An error when the envelope (from `env` on) nests deeper than limits::kMaxJsonDepth levels.
Result<bool> checkNesting(std::string_view l, size_t env, int lineNo) {
  int depth = 0;
  bool inStr = false;
  for (size_t i = env; i < l.size(); ++i) {
    const char c = l[i];
    if (inStr) {
      if (c == '\\') ++i;
      else if (c == '"') inStr = false;
    } else if (c == '"') {
      inStr = true;
    } else if (c == '{' || c == '[') {
      if (++depth > limits::kMaxJsonDepth)
        return Error::atLine("the record's envelope nests deeper than " + std::to_string(limits::kMaxJsonDepth) + " levels",
                             lineNo, static_cast<int>(i + 1));
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return true;
}

// The record's stack (the envelope's, else its kind's) into rec.stack, file numbers looked up in `strings`.
void readStack(const nlohmann::ordered_json& j, const nlohmann::ordered_json& meta,
               const std::map<int64_t, std::shared_ptr<const std::string>>& strings, TraceRecord& rec) {
  const nlohmann::ordered_json* stack = nullptr;
  if (auto s = j.find("stack"); s != j.end() && s->is_array()) stack = &*s;
  else if (meta.is_object())
    if (auto s2 = meta.find("stack"); s2 != meta.end() && s2->is_array()) stack = &*s2;
  if (stack)
    for (const auto& f : *stack) {
      if (!f.is_object()) continue;
      TraceFrame fr;
      if (auto x = f.find("line"); x != f.end() && x->is_number_integer()) fr.line = x->get<int>();
      if (auto x = f.find("name"); x != f.end() && x->is_string()) fr.name = x->get<std::string>();
      if (auto x = f.find("filename"); x != f.end()) {
        if (x->is_number_integer()) {
          auto it = strings.find(x->get<int64_t>());
          fr.fileName = it != strings.end() ? it->second
                                            : std::make_shared<const std::string>("<file #" + std::to_string(x->get<int64_t>()) + ">");
        } else if (x->is_string()) {
          fr.fileName = std::make_shared<const std::string>(x->get<std::string>());
        }
      }
      rec.stack.push_back(std::move(fr));
    }
}

// A create_symbol record's symbol, hint and source (symbolic_shapes.py writes "val" as a string: "8").
void readSymbol(const nlohmann::ordered_json& meta, int lineNo, std::vector<TraceSymbol>& symbols) {
  auto sym = meta.find("symbol");
  if (sym == meta.end() || !sym->is_string()) return;
  TraceSymbol t;
  t.symbol = sym->get<std::string>();
  t.line = lineNo;
  if (auto v = meta.find("val"); v != meta.end()) {
    if (v->is_number_integer()) t.hint = v->get<int64_t>();
    else if (v->is_string()) {
      const std::string& x = v->get_ref<const std::string&>();
      int64_t n = 0;
      auto [end, ec] = std::from_chars(x.data(), x.data() + x.size(), n);
      if (ec == std::errc() && end == x.data() + x.size()) t.hint = n;
    }
  }
  if (auto src = meta.find("source"); src != meta.end() && src->is_string()) t.source = src->get<std::string>();
  symbols.push_back(std::move(t));
}

// Reads line `lineNo`'s envelope (from `env` on) as a record; "str" records into `strings`, a digest into
// `expected`, a create_symbol record's symbol into `symbols`.
Result<TraceRecord> readRecord(std::string_view l, size_t env, std::string_view caller, int lineNo,
                               std::map<int64_t, std::shared_ptr<const std::string>>& strings, std::string& expected,
                               std::vector<TraceSymbol>& symbols) {
  // ordered_json: the record kind is the envelope's first key as written (nlohmann::json sorts keys).
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(l.substr(env));
  } catch (const nlohmann::ordered_json::parse_error& e) {
    std::string msg = e.what();
    if (auto p = msg.find(": syntax error"); p != std::string::npos) msg = msg.substr(p + 2);
    return Error::atLine("the record's envelope is not valid JSON: " + msg, lineNo,
                         static_cast<int>(env + (e.byte > 0 ? e.byte : 1)));
  }
  if (!j.is_object() || j.empty())
    return Error::atLine("the record's envelope is not a JSON object naming a record kind", lineNo, static_cast<int>(env + 1));
  TraceRecord rec;
  rec.line = lineNo;
  rec.kind = j.begin().key();
  rec.caller = std::string(caller);
  const nlohmann::ordered_json& meta = j.begin().value();
  if (rec.kind == "str" && meta.is_array() && meta.size() == 2 && meta[0].is_string() && meta[1].is_number_integer())
    strings[meta[1].get<int64_t>()] = std::make_shared<const std::string>(meta[0].get<std::string>());
  if (meta.is_object()) {
    if (auto n = meta.find("name"); n != meta.end() && n->is_string()) rec.name = n->get<std::string>();
    if (auto n = meta.find("encoding"); n != meta.end() && n->is_string()) rec.encoding = n->get<std::string>();
  }
  if (auto r = j.find("rank"); r != j.end() && r->is_number_integer()) rec.rank = r->get<int>();
  if (rec.kind == "create_symbol" && meta.is_object()) readSymbol(meta, lineNo, symbols);
  readStack(j, meta, strings, rec);
  if (auto h = j.find("has_payload"); h != j.end()) {
    if (!h->is_string() || h->get_ref<const std::string&>().size() != 32)
      return Error::atLine("has_payload is not an md5 digest (32 hex digits)", lineNo, static_cast<int>(env + 1));
    rec.hasPayload = true;
    rec.payloadLine = lineNo + 1;
    expected = h->get<std::string>();
    std::transform(expected.begin(), expected.end(), expected.begin(), [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  }
  return rec;
}

}  // namespace

bool looksLikeTraceLog(std::string_view text) {
  size_t pos = 0;
  while (pos <= text.size()) {
    std::string_view l = lineAt(text, pos);
    if (l.find_first_not_of(" \t") == std::string_view::npos) continue;
    return matchRecordPrefix(l, nullptr) != std::string_view::npos && l.find("] {", 20) != std::string_view::npos;
  }
  return false;
}

Result<TraceLog> readTraceLog(std::string_view text, const TraceKeep& keep) {
  TraceLog log;
  std::map<int64_t, std::shared_ptr<const std::string>> strings;
  size_t pos = 0;
  int lineNo = 0;
  PayloadReader payload;
  while (pos <= text.size()) {
    const bool lastLineEmpty = pos == text.size();
    std::string_view l = lineAt(text, pos);
    ++lineNo;
    if (lastLineEmpty && l.empty()) break;  // the newline that ends the file
    if (payload.open && l.empty()) {
      ++payload.pendingEmpty;
      continue;
    }
    if (!l.empty() && l.front() == '\t') {
      if (!payload.open) {
        ++log.skippedLines;
        continue;
      }
      payload.addLine(l);
      continue;
    }
    if (auto r = payload.finish(false); !r) return r.error();
    std::string_view caller;
    const size_t env = matchRecordPrefix(l, &caller);
    if (env == std::string_view::npos) {
      ++log.skippedLines;
      continue;
    }
    if (l[env] != '{') {  // a plain log line with the glog prefix: not a structured record
      ++log.skippedLines;
      continue;
    }
    // Nesting is bounded before the parser recurses (a line of 10^6 '[' must not overflow the stack).
    if (auto r = checkNesting(l, env, lineNo); !r) return r.error();
    Result<TraceRecord> parsed = readRecord(l, env, caller, lineNo, strings, payload.expected, log.symbols);
    if (!parsed) return parsed.error();
    TraceRecord& rec = *parsed;
    if (log.rank < 0 && rec.rank >= 0) log.rank = rec.rank;
    rec.kept = rec.hasPayload && keep && keep(rec);
    log.records.push_back(std::move(rec));
    if (log.records.back().hasPayload) {
      payload.open = &log.records.back();
      payload.md5 = Md5();
      payload.payloadLines = 0;
    }
  }
  if (auto r = payload.finish(true); !r) return r.error();
  if (log.records.empty()) return Error::atLine("no TORCH_TRACE record in this file", 1, 1);
  return log;
}

Result<std::vector<TraceLog>> readTraceLogPath(const std::string& path, const TraceKeep& keep) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::string> files;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path, ec))
      if (e.is_regular_file(ec)) files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(path);
  }
  std::vector<TraceLog> logs;
  for (const auto& f : files) {
    auto text = readFileText(f);
    if (!text) return Error{text.error().toString(f)};
    if (files.size() > 1 && !looksLikeTraceLog(*text)) continue;  // a folder may hold other files
    auto log = readTraceLog(*text, keep);
    if (!log) return Error{log.error().toString(f)};
    log->file = f;
    if (log->rank < 0) {
      // dedicated_log_torch_trace_rank_<N>_<random>.log
      const std::string base = fs::path(f).filename().string();
      if (auto p = base.find("rank_"); p != std::string::npos) {
        size_t q = p + 5;
        int r = 0;
        bool any = false;
        while (q < base.size() && isDigit(base[q])) { r = r * 10 + (base[q++] - '0'); any = true; }
        if (any && r < (1 << 20)) log->rank = r;
      }
    }
    logs.push_back(std::move(*log));
  }
  if (logs.empty()) return Error{path + ": no TORCH_TRACE log in this folder"};
  std::stable_sort(logs.begin(), logs.end(), [](const TraceLog& a, const TraceLog& b) { return a.rank < b.rank; });
  return logs;
}

}  // namespace ss
