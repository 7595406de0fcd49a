#include "core/run/run_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/model/enum_names.h"

namespace ss {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// NaN and infinities travel as null (JSON has no such numbers) and come back as NaN.
nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }
double numFrom(const nlohmann::json& j, const char* key, double dflt) {
  auto it = j.find(key);
  if (it == j.end()) return dflt;
  if (it->is_null()) return kNaN;
  return it->get<double>();
}
template <class T>
void getIf(const nlohmann::json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) out = it->get<T>();
}

// ---- record fields ----
// Each record's JSON fields are one list that both its to_json and its from_json walk, so a key is spelled once.
// Why not NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(_WITH_DEFAULT): (1) the keys are snake_case and the members camelCase
// (only SandboxLayer's three and a few single-word fields match); (2) its from_json differs from these readers: it
// throws for a present `null` (type_error 302) and for a document that is no object (type_error 306), where these
// readers keep the default for a null or absent key (getIf) and read a non-object as all defaults; (3) it defines
// inline functions, while run_report.h declares these as ordinary functions other files link against.
// A list is in the order from_json reads the keys (which wrong field a document reports first); nlohmann::json
// sorts an object's keys, so the order written does not matter.
template <class S, class M>
struct Plain {  // j[key] = value; read with getIf
  const char* key;
  M S::*member;
};
template <class S>
struct Num {  // a double written with num() (NaN and infinities as null); null reads back as NaN
  const char* key;
  double S::*member;
  double absent;  // the value when the key is absent
};
template <class S, class T>
struct Opt {  // nullopt as null; a null or absent key reads as nullopt
  const char* key;
  std::optional<T> S::*member;
};
template <class S>
struct Custom {  // what the format needs beyond the above (a list of records, a list of nullable numbers)
  const char* key;
  void (*put)(nlohmann::json& j, const char* key, const S& s);
  void (*take)(const nlohmann::json& j, const char* key, S& s);
};

template <class S, class M>
constexpr Plain<S, M> plain(const char* key, M S::*member) { return {key, member}; }
template <class S>
constexpr Num<S> nullableNum(const char* key, double S::*member, double absent) { return {key, member, absent}; }
template <class S, class T>
constexpr Opt<S, T> opt(const char* key, std::optional<T> S::*member) { return {key, member}; }
template <class S>
constexpr Custom<S> custom(const char* key, void (*put)(nlohmann::json&, const char*, const S&),
                           void (*take)(const nlohmann::json&, const char*, S&)) {
  return {key, put, take};
}

template <class S, class M>
void put(nlohmann::json& j, const S& s, const Plain<S, M>& f) { j[f.key] = s.*f.member; }
template <class S>
void put(nlohmann::json& j, const S& s, const Num<S>& f) { j[f.key] = num(s.*f.member); }
template <class S, class T>
void put(nlohmann::json& j, const S& s, const Opt<S, T>& f) {
  j[f.key] = s.*f.member ? nlohmann::json(*(s.*f.member)) : nlohmann::json(nullptr);
}
template <class S>
void put(nlohmann::json& j, const S& s, const Custom<S>& f) { f.put(j, f.key, s); }

template <class S, class M>
void take(const nlohmann::json& j, S& s, const Plain<S, M>& f) { getIf(j, f.key, s.*f.member); }
template <class S>
void take(const nlohmann::json& j, S& s, const Num<S>& f) { s.*f.member = numFrom(j, f.key, f.absent); }
template <class S, class T>
void take(const nlohmann::json& j, S& s, const Opt<S, T>& f) {
  if (j.contains(f.key) && !j[f.key].is_null()) s.*f.member = j[f.key].template get<T>();
}
template <class S>
void take(const nlohmann::json& j, S& s, const Custom<S>& f) { f.take(j, f.key, s); }

template <class S, class Fields>
void putFields(nlohmann::json& j, const S& s, const Fields& fields) {
  std::apply([&](const auto&... f) { (put(j, s, f), ...); }, fields);
}
template <class S, class Fields>
void takeFields(const nlohmann::json& j, S& s, const Fields& fields) {
  std::apply([&](const auto&... f) { (take(j, s, f), ...); }, fields);
}

std::string fmt(double v, const char* f = "%.6g") {
  if (std::isnan(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

std::string RunError::toString() const {
  std::string out;
  if (rank >= 0) out += "rank " + std::to_string(rank);
  if (!node.empty()) out += (out.empty() ? "" : ", ") + std::string("node ") + node;
  if (rank < 0 && stage == "reference") out = "reference run" + (out.empty() ? "" : ", " + out);
  return out.empty() ? message : out + ": " + message;
}

namespace {
constexpr const char* kSameErrorHead = "also rank ";
constexpr const char* kSameErrorTail = " at the same node, same error";
}  // namespace

std::string sameErrorNote(int rank) { return kSameErrorHead + std::to_string(rank) + kSameErrorTail; }

std::optional<int> sameErrorNoteRank(const std::string& note) {
  const std::string head = kSameErrorHead, tail = kSameErrorTail;
  if (note.size() <= head.size() + tail.size() || note.compare(0, head.size(), head) != 0 ||
      note.compare(note.size() - tail.size(), tail.size(), tail) != 0)
    return std::nullopt;
  const std::string digits = note.substr(head.size(), note.size() - head.size() - tail.size());
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoi(digits);
}

std::string rankRanges(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  if (ranks.empty()) return "";
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (i > 0) out += ", ";
    out += std::to_string(ranks[i]);
    if (j > i) out += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

namespace {
constexpr EnumName<RunVerdict> kVerdictNames[] = {
    {RunVerdict::Match, "match"}, {RunVerdict::Mismatch, "mismatch"}, {RunVerdict::Failed, "failed"},
    {RunVerdict::Refused, "refused"}};
static_assert(enumTableCovers(kVerdictNames, RunVerdict::Refused) && enumNamesValid(kVerdictNames));
}  // namespace

const char* runVerdictName(RunVerdict v) { return enumName(kVerdictNames, v, "failed"); }

RunVerdict RunReport::verdict() const {
  if (error) return error->refused() ? RunVerdict::Refused : RunVerdict::Failed;
  if (batches.empty()) return RunVerdict::Mismatch;
  for (const auto& b : batches)
    if (!b.match) return RunVerdict::Mismatch;
  return RunVerdict::Match;
}

int RunReport::exitCode() const {
  switch (verdict()) {
    case RunVerdict::Match: return 0;
    case RunVerdict::Mismatch: return 1;
    case RunVerdict::Failed: return 3;
    case RunVerdict::Refused: return 2;
  }
  return 3;
}

std::string RunReport::summary() const {
  std::ostringstream os;
  os << "plan " << planName << ": " << ranks << " ranks (mesh";
  for (size_t i = 0; i < meshShape.size(); ++i) os << (i ? "x" : " ") << meshShape[i];
  os << ")";
  if (processes > 1) os << " in " << processes << " processes";
  os << ", " << device << "/" << backend << ", seed " << seed << ", scale " << scale << ", rtol " << fmt(rtol)
     << "\n";
  for (const auto& n : notes) os << "note: " << n << "\n";
  if (!batches.empty()) {
    os << "batch  reference      sharded        rel.error   verdict   grad ratio  outputs     per-rank losses\n";
    for (const auto& b : batches) {
      char line[320];
      std::string outs = b.outputsCompared > 0 ? std::to_string(b.outputsCompared) + ": " + fmt(b.outputRelError, "%.2g")
                                               : std::string("-");
      std::snprintf(line, sizeof line, "%-6d %-14s %-14s %-11s %-9s %-11s %-11s ", b.batch,
                    fmt(b.reference, "%.8g").c_str(), fmt(b.combined, "%.8g").c_str(), fmt(b.relError, "%.3g").c_str(),
                    b.match ? "match" : "DIFFERS", fmt(b.gradRatio, "%.4g").c_str(), outs.c_str());
      os << line;
      for (size_t r = 0; r < b.rankLosses.size(); ++r) os << (r ? " " : "") << fmt(b.rankLosses[r], "%.6g");
      os << "\n";
    }
    // The output that differs most, in the batch where it differs most.
    const BatchResult* worst = nullptr;
    for (const auto& b : batches)
      if (!b.worstOutput.empty() && (!worst || !(b.outputRelError <= worst->outputRelError))) worst = &b;
    if (worst)
      os << "outputs: " << worst->outputsCompared << " compared (forward results and gradients, assembled from the ranks); "
         << "largest error " << fmt(worst->outputRelError, "%.3g") << " at " << worst->worstOutput << ", batch "
         << worst->batch << "\n";
  }
  if (!blas.empty())
    os << "blas: " << blas << ", " << blasThreads << " thread" << (blasThreads == 1 ? "" : "s") << " per call; threads: "
       << "reference " << referenceThreads << ", " << ranks << " ranks x " << threadsPerRank
       << (computingRanks > 0 && computingRanks < ranks
               ? "; replicas shared: " + std::to_string(computingRanks) + " ranks compute the largest node"
               : std::string())
       << "\n";
  if (!sandbox.empty()) {
    std::string on, off;
    for (const SandboxLayer& l : sandbox)
      (l.active ? on : off) += (l.active ? (on.empty() ? "" : ", ") : (off.empty() ? "" : "; ")) + l.name +
                                (l.active ? std::string() : " (" + l.detail + ")");
    os << "sandbox: " << (on.empty() ? "none" : on) << (off.empty() ? "" : "; missing: " + off) << "\n";
  }
  if (peakRssBytes > 0) os << "peak memory: " << fmt(static_cast<double>(peakRssBytes) / (1 << 20), "%.0f") << " MiB\n";
  if (error) os << "error (" << error->stage << "): " << error->toString() << "\n";
  if (firstDivergence) os << "first divergence: " << firstDivergence->detail << "\n";
  else if (localised) os << "first divergence: none (every node within rtol)\n";
  if (replicaDisagreement && (!firstDivergence || replicaDisagreement->nodeIndex != firstDivergence->nodeIndex))
    os << "replicas disagree: " << replicaDisagreement->detail << "\n";
  os << "verdict: " << runVerdictName(verdict());
  if (referenceSeconds > 0 || shardedSeconds > 0)
    os << " (reference " << fmt(referenceSeconds, "%.2f") << " s, sharded " << fmt(shardedSeconds, "%.2f") << " s)";
  os << "\n";
  return os.str();
}

// ---- JSON ----

namespace {

constexpr std::tuple kRunOptionsFields{
    plain("device", &RunOptions::device),
    plain("batches", &RunOptions::batches),
    plain("rtol", &RunOptions::rtol),
    plain("scale", &RunOptions::scale),
    plain("timeout_s", &RunOptions::timeoutSec),
    plain("budget_s", &RunOptions::budgetSec),
    plain("compute_dtype", &RunOptions::computeDtype),
    plain("gradients", &RunOptions::gradients),
    plain("memory_limit_bytes", &RunOptions::memoryLimitBytes),
    plain("localise", &RunOptions::localise),
    plain("dedup", &RunOptions::dedup),
    plain("threads_per_rank", &RunOptions::threadsPerRank),
    plain("distributed", &RunOptions::distributed),
    plain("require_sandbox", &RunOptions::requireSandbox),
    opt("seed", &RunOptions::seed),
};

// rank_losses: an array of nullable numbers. Read as it always was: each element of whatever the key holds (a
// null holds none, a number is one), null as NaN.
void putRankLosses(nlohmann::json& j, const char* key, const BatchResult& b) {
  nlohmann::json losses = nlohmann::json::array();
  for (double l : b.rankLosses) losses.push_back(num(l));
  j[key] = losses;
}
void takeRankLosses(const nlohmann::json& j, const char* key, BatchResult& b) {
  if (j.contains(key))
    for (const auto& v : j[key]) b.rankLosses.push_back(v.is_null() ? kNaN : v.get<double>());
}

constexpr std::tuple kBatchResultFields{
    plain("batch", &BatchResult::batch),
    custom<BatchResult>("rank_losses", putRankLosses, takeRankLosses),
    nullableNum("mean", &BatchResult::mean, 0),
    nullableNum("combined", &BatchResult::combined, 0),
    nullableNum("reference", &BatchResult::reference, 0),
    nullableNum("rel_error", &BatchResult::relError, 0),
    plain("match", &BatchResult::match),
    nullableNum("grad_ratio", &BatchResult::gradRatio, kNaN),  // absent: NaN (not computed), not the member's 0
    plain("outputs_compared", &BatchResult::outputsCompared),
    nullableNum("output_rel_error", &BatchResult::outputRelError, kNaN),
    plain("worst_output", &BatchResult::worstOutput),
};

constexpr std::tuple kRunErrorFields{
    plain("stage", &RunError::stage),
    plain("rank", &RunError::rank),
    plain("node_index", &RunError::nodeIndex),
    plain("node", &RunError::node),
    plain("message", &RunError::message),
};

constexpr std::tuple kRankDivergenceFields{
    plain("rank", &RankDivergence::rank),
    nullableNum("rel_error", &RankDivergence::relError, 0),
    plain("wrong", &RankDivergence::wrong),
};
constexpr std::tuple kRankDivergenceShapeFields{  // written only when either shape is filled
    plain("shape", &RankDivergence::shape),
    plain("expected_shape", &RankDivergence::expectedShape),
};

// ranks: an array of RankDivergence objects (no to_json of their own: only a Divergence holds them). Read as it
// always was: each element of whatever the key holds, a non-object element as a default rank.
void putRanks(nlohmann::json& j, const char* key, const Divergence& d) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankDivergence& r : d.ranks) {
    nlohmann::json x = nlohmann::json::object();
    putFields(x, r, kRankDivergenceFields);
    if (!r.shape.empty() || !r.expectedShape.empty()) putFields(x, r, kRankDivergenceShapeFields);
    ranks.push_back(x);
  }
  j[key] = ranks;
}
void takeRanks(const nlohmann::json& j, const char* key, Divergence& d) {
  if (j.contains(key))
    for (const auto& x : j[key]) {
      RankDivergence r;
      takeFields(x, r, kRankDivergenceFields);
      takeFields(x, r, kRankDivergenceShapeFields);
      d.ranks.push_back(r);
    }
}

constexpr std::tuple kDivergenceFields{
    plain("node", &Divergence::node),
    plain("node_index", &Divergence::nodeIndex),
    plain("output", &Divergence::output),
    plain("batch", &Divergence::batch),
    nullableNum("rel_error", &Divergence::relError, 0),
    plain("spec", &Divergence::spec),
    custom<Divergence>("ranks", putRanks, takeRanks),
    plain("wrong_ranks", &Divergence::wrongRanks),
    plain("disagreeing_replicas", &Divergence::disagreeingReplicas),
    plain("shape_mismatch", &Divergence::shapeMismatch),
    plain("detail", &Divergence::detail),
};
constexpr std::tuple kDivergenceTagFields{  // written only for a tagged input (tag not empty)
    plain("tag", &Divergence::tag),
    plain("sliced_dim", &Divergence::slicedDim),
    plain("planned_dims", &Divergence::plannedDims),
};

constexpr std::tuple kSandboxLayerFields{
    plain("name", &SandboxLayer::name),
    plain("active", &SandboxLayer::active),
    plain("detail", &SandboxLayer::detail),
};

// sandbox: an array of SandboxLayer objects; read only when the key holds an array.
void putSandbox(nlohmann::json& j, const char* key, const RunReport& r) {
  nlohmann::json layers = nlohmann::json::array();
  for (const SandboxLayer& l : r.sandbox) {
    nlohmann::json x = nlohmann::json::object();
    putFields(x, l, kSandboxLayerFields);
    layers.push_back(x);
  }
  j[key] = layers;
}
void takeSandbox(const nlohmann::json& j, const char* key, RunReport& r) {
  if (j.contains(key) && j[key].is_array())
    for (const auto& l : j[key]) {
      SandboxLayer layer;
      takeFields(l, layer, kSandboxLayerFields);
      r.sandbox.push_back(layer);
    }
}

// The report's stored fields; to_json adds "verdict" and "exit_code", derived (from_json ignores them).
constexpr std::tuple kRunReportFields{
    plain("plan", &RunReport::planName),
    plain("ranks", &RunReport::ranks),
    plain("mesh_shape", &RunReport::meshShape),
    plain("device", &RunReport::device),
    plain("backend", &RunReport::backend),
    plain("scale", &RunReport::scale),
    plain("rtol", &RunReport::rtol),
    plain("seed", &RunReport::seed),
    plain("batches", &RunReport::batches),
    plain("notes", &RunReport::notes),
    plain("memory_estimate_bytes", &RunReport::memoryEstimateBytes),
    plain("memory_available_bytes", &RunReport::memoryAvailableBytes),
    plain("reference_s", &RunReport::referenceSeconds),
    plain("sharded_s", &RunReport::shardedSeconds),
    plain("blas", &RunReport::blas),
    plain("blas_threads", &RunReport::blasThreads),
    plain("threads_per_rank", &RunReport::threadsPerRank),
    plain("reference_threads", &RunReport::referenceThreads),
    plain("computing_ranks", &RunReport::computingRanks),
    plain("peak_rss_bytes", &RunReport::peakRssBytes),
    opt("error", &RunReport::error),
    plain("localised", &RunReport::localised),
    opt("first_divergence", &RunReport::firstDivergence),
    opt("replica_disagreement", &RunReport::replicaDisagreement),
    plain("processes", &RunReport::processes),
    plain("address_space_limit_bytes", &RunReport::addressSpaceLimitBytes),
    custom<RunReport>("sandbox", putSandbox, takeSandbox),
};

}  // namespace

void to_json(nlohmann::json& j, const RunOptions& o) {
  j = nlohmann::json::object();
  putFields(j, o, kRunOptionsFields);
}

void from_json(const nlohmann::json& j, RunOptions& o) {
  o = RunOptions{};
  takeFields(j, o, kRunOptionsFields);
}

void to_json(nlohmann::json& j, const BatchResult& b) {
  j = nlohmann::json::object();
  putFields(j, b, kBatchResultFields);
}

void from_json(const nlohmann::json& j, BatchResult& b) {
  b = BatchResult{};
  takeFields(j, b, kBatchResultFields);
}

void to_json(nlohmann::json& j, const RunError& e) {
  j = nlohmann::json::object();
  putFields(j, e, kRunErrorFields);
}

void from_json(const nlohmann::json& j, RunError& e) {
  e = RunError{};
  takeFields(j, e, kRunErrorFields);
}

void to_json(nlohmann::json& j, const Divergence& d) {
  j = nlohmann::json::object();
  putFields(j, d, kDivergenceFields);
  if (!d.tag.empty()) putFields(j, d, kDivergenceTagFields);
}

void from_json(const nlohmann::json& j, Divergence& d) {
  d = Divergence{};
  takeFields(j, d, kDivergenceFields);
  takeFields(j, d, kDivergenceTagFields);
}

void to_json(nlohmann::json& j, const RunReport& r) {
  j = nlohmann::json::object();
  putFields(j, r, kRunReportFields);
  j["verdict"] = runVerdictName(r.verdict());
  j["exit_code"] = r.exitCode();
}

void from_json(const nlohmann::json& j, RunReport& r) {
  r = RunReport{};
  takeFields(j, r, kRunReportFields);
}

namespace {
constexpr EnumName<RunEvent::Kind> kEventKindNames[] = {
    {RunEvent::Kind::Started, "started"}, {RunEvent::Kind::Progress, "progress"}, {RunEvent::Kind::Note, "note"},
    {RunEvent::Kind::Batch, "batch"},     {RunEvent::Kind::Report, "report"}};
static_assert(enumTableCovers(kEventKindNames, RunEvent::Kind::Report) && enumNamesValid(kEventKindNames));
}  // namespace

// A RunEvent stays hand-written: which keys a line holds depends on the event kind and on the values (a line
// carries only what its kind uses), and "result" and "report" read a present null as a default record.
void to_json(nlohmann::json& j, const RunEvent& e) {
  j = {{"event", enumName(kEventKindNames, e.kind, "note")}};
  if (e.rank != -1 || e.kind == RunEvent::Kind::Progress) j["rank"] = e.rank;
  if (e.batch >= 0) j["batch"] = e.batch;
  if (e.kind == RunEvent::Kind::Progress) {
    j["node"] = e.node;
    j["nodes"] = e.nodes;
    if (e.etaSec >= 0) j["eta_s"] = e.etaSec;
  }
  if (!e.text.empty()) j["text"] = e.text;
  if (e.batchResult) j["result"] = *e.batchResult;
  if (e.report) j["report"] = *e.report;
}

void from_json(const nlohmann::json& j, RunEvent& e) {
  e = RunEvent{};
  std::string kind = j.at("event").get<std::string>();
  auto k = enumFromName(kEventKindNames, kind);
  if (!k) throw std::invalid_argument("unknown event '" + kind + "'");
  e.kind = *k;
  getIf(j, "rank", e.rank);
  getIf(j, "batch", e.batch);
  getIf(j, "node", e.node);
  getIf(j, "nodes", e.nodes);
  getIf(j, "eta_s", e.etaSec);
  getIf(j, "text", e.text);
  if (j.contains("result")) e.batchResult = j["result"].get<BatchResult>();
  if (j.contains("report")) e.report = j["report"].get<RunReport>();
}

std::string runEventLine(const RunEvent& e) { return nlohmann::json(e).dump(); }

Result<RunEvent> parseRunEventLine(const std::string& line) {
  try {
    auto j = nlohmann::json::parse(line);
    return j.get<RunEvent>();
  } catch (const std::exception& ex) {
    return Error{std::string("bad runner event line: ") + ex.what(), 0, 0, {}};
  }
}

}  // namespace ss
