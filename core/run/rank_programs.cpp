// core/run/rank_programs.h: symbols bound into the graphs, the programs read from TORCH_TRACE
// logs, their text form for the runner child, and the refusals before anything runs. No Torch here.
#include <algorithm>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"
#include "core/io/trace/trace_log.h"
#include "core/model/limits.h"
#include "core/ops/op_safety.h"
#include "core/run/rank_programs.h"

namespace ss {
namespace {

constexpr const char* kTextFormat = "shardscope-rank-programs";
constexpr const char* kDynamoOutputGraph = "dynamo_output_graph";     // a record kind of its own
constexpr const char* kBeforePreGradGraph = "before_pre_grad_graph";  // an artifact (Inductor's input)

bool isSymbolPlaceholder(const Node& n) {
  return n.kind == NodeKind::Placeholder && n.symbolicShape.empty() && !n.outputs.empty() && !n.outputs[0].known &&
         n.outputs[0].shape.empty();
}

bool allDigits(const std::string& s) {
  return !s.empty() && s.size() < 19 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::optional<int64_t> symbolPlaceholderValue(const Plan& plan, int node, const std::map<std::string, int64_t>& symbols) {
  if (node < 0 || node >= plan.graph.size() || !isSymbolPlaceholder(plan.graph.nodes[node])) return std::nullopt;
  auto it = symbols.find(plan.graph.nodes[node].name);
  if (it == symbols.end()) return std::nullopt;
  return it->second;
}

Result<Plan> bindSymbols(const Plan& input, const std::map<std::string, int64_t>& symbols) {
  Plan plan = input;
  for (Node& n : plan.graph.nodes) {
    if (n.kind != NodeKind::Placeholder) continue;
    if (isSymbolPlaceholder(n)) {
      if (!symbols.count(n.name))
        return Error{"placeholder '" + n.name + "' (a size symbol, or a tensor of unknown shape) has no value"};
      continue;
    }
    if (n.symbolicShape.empty()) continue;
    std::vector<int64_t> shape;
    for (const std::string& size : n.symbolicShape) {
      if (allDigits(size)) {
        shape.push_back(std::stoll(size));
        continue;
      }
      auto it = symbols.find(size);
      if (it == symbols.end())
        return Error{"placeholder '" + n.name + "' has size " + size + ", which is not a symbol with a value"};
      shape.push_back(it->second);
    }
    if (!shapeWithinLimits(shape)) return Error{"placeholder '" + n.name + "': its sizes with the symbols bound are past the limits of a tensor"};
    n.outputs.at(0).shape = shape;
    n.outputs.at(0).known = true;
    n.symbolicShape.clear();
  }
  return plan;
}

bool holdsRankPrograms(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string where = fs::is_directory(path, ec) ? path : fs::path(path).parent_path().string();
  if (!fs::is_directory(path, ec)) {
    auto text = readFileText(path);
    if (text && looksLikeRankProgramsText(*text)) return true;
    if (!text || !looksLikeTraceLog(*text)) return false;
  }
  auto logs = readTraceLogPath(where.empty() ? "." : where, [](const TraceRecord&) { return false; });
  if (!logs) return false;
  bool dynamo = false, after = false;
  for (const TraceLog& log : *logs)
    for (const TraceRecord& r : log.records) {
      dynamo = dynamo || r.kind == kDynamoOutputGraph;
      after = after || (r.kind == "artifact" && r.name == kBeforePreGradGraph);
    }
  return dynamo && after;
}

Result<RankPrograms> loadRankPrograms(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool folder = fs::is_directory(path, ec);
  if (!folder) {
    auto text = readFileText(path);
    if (text && looksLikeRankProgramsText(*text)) {
      auto p = readRankProgramsText(*text);
      if (!p) return Error{path + ": " + p.error().message};
      return p;
    }
  }
  std::string where = folder ? path : fs::path(path).parent_path().string();
  if (where.empty()) where = ".";
  auto keep = [](const TraceRecord& r) {
    return r.kind == kDynamoOutputGraph || (r.kind == "artifact" && r.name == kBeforePreGradGraph) ||
           (r.kind == "artifact" && r.name == kTorchVersionArtifact);
  };
  auto logs = readTraceLogPath(where, keep);
  if (!logs) return logs.error();
  RankPrograms out;
  out.name = folder ? path : where;
  // The logs that hold a graph after the backend's passes, by rank (a log without a rank is refused: its place
  // among the ranks is unknown).
  std::map<int, const TraceLog*> byRank;
  for (const TraceLog& log : *logs) {
    if (!log.artifact(kBeforePreGradGraph)) continue;
    if (log.rank < 0) return Error{log.file + ": the log names no rank (no \"rank\" in its records)"};
    if (byRank.count(log.rank)) return Error{log.file + ": a second log of rank " + std::to_string(log.rank)};
    byRank[log.rank] = &log;
  }
  if (byRank.empty()) return Error{where + ": no log holds a " + kBeforePreGradGraph + " artifact"};
  if (static_cast<int64_t>(byRank.size()) > limits::kMaxRunRanks)
    return Error{where + ": " + std::to_string(byRank.size()) + " rank logs; a local run takes at most " +
                 std::to_string(limits::kMaxRunRanks)};
  int expect = 0;
  for (const auto& [rank, log] : byRank)
    if (rank != expect++) return Error{where + ": no log of rank " + std::to_string(expect - 1) + " (ranks must be 0..N-1)"};
  // Symbols: every log's create_symbol hints; a symbol hinted differently by two ranks is refused.
  for (const auto& [rank, log] : byRank)
    for (const TraceSymbol& s : log->symbols) {
      if (!s.hint) continue;
      if (!s.source.empty()) out.symbolSources.emplace(s.symbol, s.source);
      auto [it, fresh] = out.symbols.emplace(s.symbol, *s.hint);
      if (!fresh && it->second != *s.hint)
        return Error{log->file + ": symbol " + s.symbol + " has hint " + std::to_string(*s.hint) + " here and " +
                     std::to_string(it->second) + " in another rank's log"};
    }
  auto graphOf = [](const TraceLog& log, const TraceRecord& r, const char* what) -> Result<Plan> {
    const std::string label = log.file + ":" + std::to_string(r.payloadLine);
    auto plan = loadPlanText(r.payload, label);
    if (!plan) return Error{plan.error().toString(label) + " (the " + what + ")"};
    return plan;
  };
  // The reference: the first rank's graph before the passes (every rank's is the same whole model).
  const TraceLog& first = *byRank.begin()->second;
  const TraceRecord* dynamo = nullptr;
  for (const TraceRecord& r : first.records)
    if (r.kind == kDynamoOutputGraph && r.kept) dynamo = &r;
  if (!dynamo) return Error{first.file + ": no " + std::string(kDynamoOutputGraph) + " record (the reference graph)"};
  auto ref = graphOf(first, *dynamo, kDynamoOutputGraph);
  if (!ref) return ref.error();
  out.reference = std::move(*ref);
  out.notes.push_back("reference: " + std::string(kDynamoOutputGraph) + " of " + first.file + " line " +
                      std::to_string(dynamo->line));
  for (const auto& [rank, log] : byRank) {
    const TraceRecord* after = log->artifact(kBeforePreGradGraph);
    auto plan = graphOf(*log, *after, kBeforePreGradGraph);
    if (!plan) return plan.error();
    out.ranks.push_back(std::move(*plan));
    out.notes.push_back("rank " + std::to_string(rank) + ": " + kBeforePreGradGraph + " of " + log->file + " line " +
                        std::to_string(after->line));
  }
  return out;
}

std::string writeRankProgramsText(const RankPrograms& p) {
  // Native plans keep no symbolic sizes: the graphs travel with their placeholders' symbols bound (a graph that
  // cannot be bound travels as it is, and the child reports why).
  auto bound = [&](const Plan& plan) {
    auto b = bindSymbols(plan, p.symbols);
    return writePlanString(b ? *b : plan);
  };
  nlohmann::json j;
  j["format"] = kTextFormat;
  j["version"] = 1;
  j["name"] = p.name;
  j["symbols"] = p.symbols;
  j["symbol_sources"] = p.symbolSources;
  j["notes"] = p.notes;
  j["reference"] = nlohmann::json::parse(bound(p.reference));
  j["ranks"] = nlohmann::json::array();
  for (const Plan& r : p.ranks) j["ranks"].push_back(nlohmann::json::parse(bound(r)));
  return j.dump();
}

bool looksLikeRankProgramsText(std::string_view text) {
  const size_t head = std::min<size_t>(text.size(), 64);
  return text.substr(0, head).find(std::string("\"format\":\"") + kTextFormat + "\"") != std::string_view::npos;
}

Result<RankPrograms> readRankProgramsText(std::string_view text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text, nullptr, true, false);
  } catch (const std::exception& e) {
    return Error{std::string("rank programs: not JSON: ") + e.what()};
  }
  if (!j.is_object() || j.value("format", "") != kTextFormat || !j.contains("ranks") || !j["ranks"].is_array() ||
      !j.contains("reference"))
    return Error{std::string("rank programs: not a ") + kTextFormat + " document"};
  RankPrograms p;
  try {
    p.name = j.value("name", "");
    p.symbols = j.value("symbols", std::map<std::string, int64_t>{});
    p.symbolSources = j.value("symbol_sources", std::map<std::string, std::string>{});
    p.notes = j.value("notes", std::vector<std::string>{});
  } catch (const std::exception& e) {
    return Error{std::string("rank programs: ") + e.what()};
  }
  if (static_cast<int64_t>(j["ranks"].size()) > limits::kMaxRunRanks)
    return Error{"rank programs: " + std::to_string(j["ranks"].size()) + " ranks; a local run takes at most " +
                 std::to_string(limits::kMaxRunRanks)};
  auto ref = loadPlanText(j["reference"].dump(), "<reference>");
  if (!ref) return Error{ref.error().toString("<reference>")};
  p.reference = std::move(*ref);
  for (size_t r = 0; r < j["ranks"].size(); ++r) {
    const std::string label = "<rank " + std::to_string(r) + ">";
    auto plan = loadPlanText(j["ranks"][r].dump(), label);
    if (!plan) return Error{plan.error().toString(label)};
    p.ranks.push_back(std::move(*plan));
  }
  return p;
}

std::optional<RunError> rankProgramsRefusal(const RankPrograms& p) {
  auto unsafeIn = [](const Plan& plan, const std::string& which) -> std::optional<RunError> {
    auto unsafe = unsafeNodes(plan.graph);
    if (unsafe.empty()) return std::nullopt;
    return RunError{"unsafe-op", -1, unsafe[0].node, unsafe[0].name, which + ": " + unsafe[0].reason};
  };
  if (auto e = unsafeIn(p.reference, "reference")) return e;
  for (size_t r = 0; r < p.ranks.size(); ++r)
    if (auto e = unsafeIn(p.ranks[r], "rank " + std::to_string(r) + "'s program")) {
      e->rank = static_cast<int>(r);
      return e;
    }
  if (p.ranks.empty()) return RunError{"load", -1, -1, "", "no rank programs"};
  if (static_cast<int64_t>(p.ranks.size()) > limits::kMaxRunRanks)
    return RunError{"limits", -1, -1, "", std::to_string(p.ranks.size()) + " ranks; a local run takes at most " +
                                              std::to_string(limits::kMaxRunRanks)};
  return std::nullopt;
}

}  // namespace ss
