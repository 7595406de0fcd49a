// Opening DTensor programs: one file, or a folder of one run's per-rank files (core/io/dtensor/program.h).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "core/io/dtensor/program.h"
#include "core/io/file.h"

namespace ss {

namespace {

namespace fs = std::filesystem;

// "debug_mode.rank2.txt" -> 2 (the last `rank<N>` in the name), -1 when none.
int rankInName(const std::string& name) {
  static const std::regex re("rank_?([0-9]+)");
  int rank = -1;
  for (auto it = std::sregex_iterator(name.begin(), name.end(), re); it != std::sregex_iterator(); ++it)
    rank = std::stoi((*it)[1].str());
  return rank;
}

struct RankFile {
  std::string path;
  int rank = -1;
  ProgramSource source;
  std::string text;
};

Result<std::vector<DebugRecord>> recordsOfText(std::string_view text, ProgramSource source) {
  if (source == ProgramSource::DebugModeText) return readDebugModeText(text);
  auto j = parseJsonText(text);
  if (!j) return j.error();
  return readDebugModeLogs(*j);
}

// The records of one file, errors located and naming it.
Result<std::vector<DebugRecord>> recordsOf(const RankFile& f) {
  auto r = recordsOfText(f.text, f.source);
  if (!r) return Error{r.error().toString(f.path)};
  return r;
}

// The first 64 KiB of a file (what format detection reads).
// The first 64 KiB, empty for what cannot be read (a FIFO is refused by readFileHead, never waited on).
std::string headOf(const std::string& path) {
  auto head = readFileHead(path, size_t{1} << 16);
  return head ? *head : std::string{};
}

std::string recordText(const DebugRecord& r) {
  return r.name + "(" + r.args + ")" + (r.output.empty() ? "" : " -> " + r.output) + r.src + r.dst + r.trace;
}

}  // namespace

std::optional<ProgramSource> detectProgramSource(std::string_view text) {
  std::string_view head = text.substr(0, 8192);
  const size_t s = head.find_first_not_of(" \t\r\n");
  if (s != std::string_view::npos && head[s] == '{') {
    if (looksLikeDebugModeLogs(head)) return ProgramSource::DebugModeLogs;
    if (looksLikeCommDebugJson(head)) return ProgramSource::CommDebugJson;
    return std::nullopt;
  }
  if (looksLikeDebugModeText(text)) return ProgramSource::DebugModeText;
  return std::nullopt;
}

Result<DTensorProgram> programFromText(std::string_view text, ProgramSource source, const ProgramOptions& opts) {
  if (source == ProgramSource::CommDebugJson) {
    auto j = parseJsonText(text);
    if (!j) return j.error();
    return programFromCommDebugJson(*j, opts);
  }
  auto rs = recordsOfText(text, source);
  if (!rs) return rs.error();
  auto p = programFromDebugRecords(*rs, opts);
  if (p) p->source = source;
  return p;
}

Result<DTensorProgram> loadDTensorProgram(const std::string& path, const ProgramOptions& baseOpts) {
  std::vector<RankFile> files;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<fs::path> entries;
    for (const auto& e : fs::directory_iterator(path, ec))
      if (e.is_regular_file(ec)) entries.push_back(e.path());
    std::sort(entries.begin(), entries.end());
    for (const auto& p : entries) {
      auto src = detectProgramSource(headOf(p.string()));
      if (!src) continue;
      auto t = readFileText(p.string());
      if (!t) return Error{t.error().toString(p.string())};
      files.push_back({p.string(), rankInName(p.filename().string()), *src, std::move(*t)});
    }
    if (files.empty()) return Error{path + ": a folder with no DebugMode or CommDebugMode file"};
    // One run: one kind of file, one per rank.
    std::set<std::string> kinds;
    for (const RankFile& f : files) {
      std::string name = fs::path(f.path).filename().string();
      name = std::regex_replace(name, std::regex("rank_?[0-9]+"), "rank*");
      kinds.insert(name);
    }
    if (kinds.size() > 1) {
      std::string list;
      for (const std::string& k : kinds) list += (list.empty() ? "" : ", ") + k;
      return Error{path + ": a folder of several recordings (" + list + "): open one file, or a folder holding one per rank"};
    }
    std::stable_sort(files.begin(), files.end(), [](const RankFile& a, const RankFile& b) { return a.rank < b.rank; });
  } else {
    auto t = readFileText(path);
    if (!t) return Error{t.error().toString(path)};
    auto src = detectProgramSource(*t);
    if (!src) return Error{path + ": not a DebugMode trace, DebugMode save_logs JSON or CommDebugMode JSON dump"};
    files.push_back({path, rankInName(fs::path(path).filename().string()), *src, std::move(*t)});
  }
  ProgramOptions opts = baseOpts;
  if (opts.worldSize == 0 && files.size() > 1) opts.worldSize = static_cast<int>(files.size());
  const RankFile& first = files.front();
  DTensorProgram prog;
  if (first.source == ProgramSource::CommDebugJson) {
    auto j = parseJsonText(first.text);
    if (!j) return Error{j.error().toString(first.path)};
    auto p = programFromCommDebugJson(*j, opts);
    if (!p) return Error{p.error().toString(first.path)};
    prog = std::move(*p);
    for (size_t k = 1; k < files.size(); ++k) {
      auto other = parseJsonText(files[k].text);
      if (!other) return Error{other.error().toString(files[k].path)};
      if (*other != *j) prog.rankDifferences.push_back("rank " + std::to_string(files[k].rank) + "'s dump differs from rank " + std::to_string(first.rank) + "'s");
    }
  } else {
    auto rs = recordsOf(first);
    if (!rs) return rs.error();
    auto p = programFromDebugRecords(*rs, opts);
    if (!p) return Error{p.error().toString(first.path)};
    prog = std::move(*p);
    prog.source = first.source;
    for (size_t k = 1; k < files.size(); ++k) {
      auto other = recordsOf(files[k]);
      if (!other) return other.error();
      size_t differing = 0, firstAt = 0;
      const size_t n = std::max(rs->size(), other->size());
      for (size_t i = 0; i < n; ++i) {
        const bool same = i < rs->size() && i < other->size() && recordText((*rs)[i]) == recordText((*other)[i]);
        if (!same && differing++ == 0) firstAt = i;
      }
      if (differing == 0) continue;
      std::string msg = "rank " + std::to_string(files[k].rank) + ": " + std::to_string(differing) + " of " + std::to_string(n) +
                        " records differ from rank " + std::to_string(first.rank) + "'s, first at record " + std::to_string(firstAt + 1);
      if (firstAt < other->size()) msg += " (line " + std::to_string((*other)[firstAt].line) + ": " + recordText((*other)[firstAt]) + ")";
      prog.rankDifferences.push_back(std::move(msg));
    }
  }
  for (const RankFile& f : files) prog.files.push_back(f.path);
  return prog;
}

bool isDTensorProgramPath(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path, ec)) {
      if (!e.is_regular_file(ec)) continue;
      if (detectProgramSource(headOf(e.path().string()))) return true;
    }
    return false;
  }
  return detectProgramSource(headOf(path)).has_value();
}

}  // namespace ss
