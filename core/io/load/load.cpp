#include "core/io/load/load.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <random>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>

#include "core/io/autoparallel/artifacts.h"
#include "core/io/dtensor/compiled.h"
#include "core/io/dtensor/program.h"
#include "core/io/formats.h"
#include "core/io/native/plan_json.h"
#include "core/io/trace/trace_log.h"
#include "core/model/enum_names.h"

namespace ss {

using json = nlohmann::json;

namespace {
constexpr EnumName<FileKind> kFileKindNames[] = {
    {FileKind::NativePlan, "shardscope plan"},
    {FileKind::AutoparallelJson, "autoparallel JSON export"},
    {FileKind::AutoparallelPlacements, "autoparallel placements file"},
    {FileKind::FxText, "FX graph text"},
    {FileKind::TorchTrace, "TORCH_TRACE log"},
    {FileKind::Unknown, "unknown"}};
static_assert(enumTableCovers(kFileKindNames, FileKind::Unknown) && enumNamesValid(kFileKindNames));
}  // namespace

const char* fileKindName(FileKind k) { return enumName(kFileKindNames, k, "unknown"); }

namespace {

std::string_view skipBomAndSpace(std::string_view t) {
  if (t.size() >= 3 && static_cast<unsigned char>(t[0]) == 0xEF && static_cast<unsigned char>(t[1]) == 0xBB &&
      static_cast<unsigned char>(t[2]) == 0xBF)
    t.remove_prefix(3);
  while (!t.empty() && (t.front() == ' ' || t.front() == '\n' || t.front() == '\r' || t.front() == '\t'))
    t.remove_prefix(1);
  return t;
}


FileKind kindFromJson(const json& j) {
  if (!j.is_object()) return FileKind::Unknown;
  if (auto f = j.find("format"); f != j.end() && f->is_string() && *f == "shardscope-plan") return FileKind::NativePlan;
  if (j.contains("placements") && (j.contains("mesh_shape") || j.contains("version"))) return FileKind::AutoparallelPlacements;
  if (j.contains("nodes") && j.contains("mesh") && !j.contains("format")) return FileKind::AutoparallelJson;
  if (j.contains("nodes") && j.contains("mesh")) return FileKind::NativePlan;
  return FileKind::Unknown;
}

}  // namespace

FileKind detectFileKind(std::string_view text) {
  std::string_view t = skipBomAndSpace(text);
  if (t.empty()) return FileKind::Unknown;
  if (t.front() == '{') {
    std::string_view head = t.substr(0, 8192);
    if (head.find("\"shardscope-plan\"") != std::string_view::npos) return FileKind::NativePlan;
    if (head.find("\"mesh_shape\"") != std::string_view::npos || head.find("\"placements\"") != std::string_view::npos)
      return FileKind::AutoparallelPlacements;
    if (head.find("\"nodes\"") != std::string_view::npos || head.find("\"mesh\"") != std::string_view::npos)
      return FileKind::AutoparallelJson;
    return FileKind::Unknown;
  }
  // Before any graph marker: a log's payloads hold graph code ("class GraphModule", "torch.ops.").
  if (looksLikeTraceLog(t)) return FileKind::TorchTrace;
  std::string_view head = t.substr(0, 65536);
  for (std::string_view marker : {"class GraphModule", "def forward", "graph():", "torch.ops.", "def load_args", "import torch"})
    if (head.find(marker) != std::string_view::npos) return FileKind::FxText;
  return FileKind::Unknown;
}



namespace {
Result<Plan> loadPlanTextImpl(std::string_view text, bool paddedTail) {
  FileKind k = detectFileKind(text);
  if (k == FileKind::FxText) return readFxText(text);
  // DTensor programs as DebugMode / CommDebugMode recorded them (detected by core/io/dtensor's detectProgramSource:
  // none of the kinds above).
  if (k == FileKind::Unknown)
    if (auto src = detectProgramSource(text)) {
      auto p = programFromText(text, *src);
      if (!p) return p.error();
      return std::move(p->plan);
    }
  if (k == FileKind::TorchTrace) {
    // A compiled DTensor program: read as one (its Dynamo graph is the plan), or refused; never as another plan.
    if (looksLikeCompiledDTensorLog(text)) {
      auto c = readCompiledDTensorLog(text, "");
      if (!c) return c.error();
      return std::move(c->plan);
    }
    auto log = readTraceLog(text);
    if (!log) return log.error();
    auto arts = artifactsFromTraceLog(*log);
    if (!arts) return arts.error();
    return planFromArtifacts(*arts);
  }
  // simdjson straight into the Plan (~5-10x the DOM readers). On any error the fast readers decline and the DOM
  // reader below reads the file again and reports the located message.
  if (k == FileKind::NativePlan) {
    if (auto fast = planFromJsonTextFast(text, paddedTail)) {
      fast->sourceFormat = PlanFormat::Native;
      return fast;
    }
  }
  if (k == FileKind::AutoparallelJson)
    if (auto fast = readAutoparallelJsonTextFast(text, paddedTail)) return fast;
  std::string_view t = skipBomAndSpace(text);
  if (t.empty()) return Error::atLine("the file is empty (expected a plan: JSON or FX graph text)", 1, 1);
  if (t.front() != '{' && t.front() != '[')
    return Error::atLine("not a plan file: expected a JSON object (shardscope plan, autoparallel export), FX graph text "
                         "(print_readable, a repro script) or a TORCH_TRACE log", lineColOf(text, text.size() - t.size()).first,
                         lineColOf(text, text.size() - t.size()).second);
  auto j = parseJsonText(text);
  if (!j) return j.error();
  switch (kindFromJson(*j)) {
    case FileKind::NativePlan: {
      auto p = planFromJson(*j);
      if (p) p->sourceFormat = PlanFormat::Native;
      return p;
    }
    case FileKind::AutoparallelJson: return readAutoparallelJson(*j);
    case FileKind::AutoparallelPlacements:
      return Error::atPointer("this is a placements file: it needs a graph (check GRAPH --placements FILE)", "");
    default:
      return Error::atPointer(
          "unknown JSON document: expected a shardscope plan ({\"format\": \"shardscope-plan\"}), an autoparallel "
          "export ({\"mesh\", \"nodes\"}) or a placements file",
          "");
  }
}

}  // namespace

Result<Plan> loadPlanText(std::string_view text, const std::string&) { return loadPlanTextImpl(text, false); }

Result<Plan> loadPlanFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec) && isDTensorProgramPath(path)) {
    auto p = loadDTensorProgram(path);
    if (!p) return p.error();
    return std::move(p->plan);
  }
  if (std::filesystem::is_directory(path, ec)) {
    auto logs = readTraceLogPath(path);
    if (!logs) return logs.error();
    auto arts = artifactsFromTraceLog(logs->front());
    if (!arts) return Error{arts.error().toString(logs->front().file)};
    auto p = planFromArtifacts(*arts);
    if (!p) return Error{p.error().toString(logs->front().file)};
    return p;
  }
  auto file = readPaddedFile(path, kJsonTailPadding);
  if (!file) return file.error();
  return loadPlanTextImpl(file->text(), true);
}

Result<Plan> loadPlanFileWithPlacements(const std::string& path, const std::string& placementsPath) {
  Result<Plan> plan = loadPlanFile(path);
  if (!plan) return Error{plan.error().toString(path)};
  if (placementsPath.empty()) return plan;
  Result<std::string> text = readFileText(placementsPath);
  if (!text) return Error{text.error().toString(placementsPath)};
  Result<nlohmann::json> j = parseJsonText(*text);
  if (!j) return Error{j.error().toString(placementsPath)};
  Result<Plan> applied = applyPlacementsJson(*plan, *j);
  if (!applied) return Error{applied.error().toString(placementsPath)};
  return applied;
}

Result<bool> savePlanFile(const Plan& plan, const std::string& path) {
  return writeFileAtomic(path, writePlanString(plan));
}

}  // namespace ss
