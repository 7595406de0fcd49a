#include "core/run/run_report.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

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

const char* runVerdictName(RunVerdict v) {
  switch (v) {
    case RunVerdict::Match: return "match";
    case RunVerdict::Mismatch: return "mismatch";
    case RunVerdict::Failed: return "failed";
    case RunVerdict::Refused: return "refused";
  }
  return "failed";
}

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

void to_json(nlohmann::json& j, const RunOptions& o) {
  j = {{"device", o.device}, {"batches", o.batches}, {"rtol", o.rtol}, {"scale", o.scale},
       {"timeout_s", o.timeoutSec}, {"budget_s", o.budgetSec}, {"compute_dtype", o.computeDtype}, {"gradients", o.gradients},
       {"memory_limit_bytes", o.memoryLimitBytes}, {"localise", o.localise}, {"distributed", o.distributed},
       {"dedup", o.dedup}, {"threads_per_rank", o.threadsPerRank}, {"require_sandbox", o.requireSandbox}};
  j["seed"] = o.seed ? nlohmann::json(*o.seed) : nlohmann::json(nullptr);
}

void from_json(const nlohmann::json& j, RunOptions& o) {
  o = RunOptions{};
  getIf(j, "device", o.device);
  getIf(j, "batches", o.batches);
  getIf(j, "rtol", o.rtol);
  getIf(j, "scale", o.scale);
  getIf(j, "timeout_s", o.timeoutSec);
  getIf(j, "budget_s", o.budgetSec);
  getIf(j, "compute_dtype", o.computeDtype);
  getIf(j, "gradients", o.gradients);
  getIf(j, "memory_limit_bytes", o.memoryLimitBytes);
  getIf(j, "localise", o.localise);
  getIf(j, "dedup", o.dedup);
  getIf(j, "threads_per_rank", o.threadsPerRank);
  getIf(j, "distributed", o.distributed);
  getIf(j, "require_sandbox", o.requireSandbox);
  if (j.contains("seed") && !j["seed"].is_null()) o.seed = j["seed"].get<uint64_t>();
}

void to_json(nlohmann::json& j, const BatchResult& b) {
  nlohmann::json losses = nlohmann::json::array();
  for (double l : b.rankLosses) losses.push_back(num(l));
  j = {{"batch", b.batch}, {"rank_losses", losses}, {"mean", num(b.mean)}, {"combined", num(b.combined)},
       {"reference", num(b.reference)}, {"rel_error", num(b.relError)}, {"match", b.match},
       {"grad_ratio", num(b.gradRatio)}, {"outputs_compared", b.outputsCompared},
       {"output_rel_error", num(b.outputRelError)}};
}

void from_json(const nlohmann::json& j, BatchResult& b) {
  b = BatchResult{};
  getIf(j, "batch", b.batch);
  if (j.contains("rank_losses"))
    for (const auto& v : j["rank_losses"]) b.rankLosses.push_back(v.is_null() ? kNaN : v.get<double>());
  b.mean = numFrom(j, "mean", 0);
  b.combined = numFrom(j, "combined", 0);
  b.reference = numFrom(j, "reference", 0);
  b.relError = numFrom(j, "rel_error", 0);
  getIf(j, "match", b.match);
  b.gradRatio = numFrom(j, "grad_ratio", kNaN);
  getIf(j, "outputs_compared", b.outputsCompared);
  b.outputRelError = numFrom(j, "output_rel_error", kNaN);
}

void to_json(nlohmann::json& j, const RunError& e) {
  j = {{"stage", e.stage}, {"rank", e.rank}, {"node_index", e.nodeIndex}, {"node", e.node},
       {"message", e.message}};
}

void from_json(const nlohmann::json& j, RunError& e) {
  e = RunError{};
  getIf(j, "stage", e.stage);
  getIf(j, "rank", e.rank);
  getIf(j, "node_index", e.nodeIndex);
  getIf(j, "node", e.node);
  getIf(j, "message", e.message);
}

void to_json(nlohmann::json& j, const Divergence& d) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& r : d.ranks) {
    nlohmann::json x = {{"rank", r.rank}, {"rel_error", num(r.relError)}, {"wrong", r.wrong}};
    if (!r.shape.empty() || !r.expectedShape.empty()) {
      x["shape"] = r.shape;
      x["expected_shape"] = r.expectedShape;
    }
    ranks.push_back(x);
  }
  j = {{"node", d.node}, {"node_index", d.nodeIndex}, {"output", d.output}, {"batch", d.batch},
       {"rel_error", num(d.relError)}, {"spec", d.spec}, {"ranks", ranks}, {"wrong_ranks", d.wrongRanks},
       {"disagreeing_replicas", d.disagreeingReplicas}, {"shape_mismatch", d.shapeMismatch}, {"detail", d.detail}};
  if (!d.tag.empty()) {
    j["tag"] = d.tag;
    j["sliced_dim"] = d.slicedDim;
    j["planned_dims"] = d.plannedDims;
  }
}

void from_json(const nlohmann::json& j, Divergence& d) {
  d = Divergence{};
  getIf(j, "node", d.node);
  getIf(j, "node_index", d.nodeIndex);
  getIf(j, "output", d.output);
  getIf(j, "batch", d.batch);
  d.relError = numFrom(j, "rel_error", 0);
  getIf(j, "spec", d.spec);
  if (j.contains("ranks"))
    for (const auto& x : j["ranks"]) {
      RankDivergence r;
      getIf(x, "rank", r.rank);
      r.relError = numFrom(x, "rel_error", 0);
      getIf(x, "wrong", r.wrong);
      getIf(x, "shape", r.shape);
      getIf(x, "expected_shape", r.expectedShape);
      d.ranks.push_back(r);
    }
  getIf(j, "wrong_ranks", d.wrongRanks);
  getIf(j, "disagreeing_replicas", d.disagreeingReplicas);
  getIf(j, "shape_mismatch", d.shapeMismatch);
  getIf(j, "detail", d.detail);
  getIf(j, "tag", d.tag);
  getIf(j, "sliced_dim", d.slicedDim);
  getIf(j, "planned_dims", d.plannedDims);
}

void to_json(nlohmann::json& j, const RunReport& r) {
  j = {{"plan", r.planName}, {"ranks", r.ranks}, {"mesh_shape", r.meshShape}, {"device", r.device},
       {"backend", r.backend}, {"scale", r.scale}, {"rtol", r.rtol}, {"seed", r.seed},
       {"batches", r.batches}, {"notes", r.notes}, {"memory_estimate_bytes", r.memoryEstimateBytes},
       {"memory_available_bytes", r.memoryAvailableBytes}, {"reference_s", r.referenceSeconds},
       {"sharded_s", r.shardedSeconds}, {"blas", r.blas}, {"blas_threads", r.blasThreads},
       {"threads_per_rank", r.threadsPerRank}, {"reference_threads", r.referenceThreads},
       {"computing_ranks", r.computingRanks}, {"peak_rss_bytes", r.peakRssBytes}, {"verdict", runVerdictName(r.verdict())}, {"exit_code", r.exitCode()}};
  j["error"] = r.error ? nlohmann::json(*r.error) : nlohmann::json(nullptr);
  j["localised"] = r.localised;
  j["first_divergence"] = r.firstDivergence ? nlohmann::json(*r.firstDivergence) : nlohmann::json(nullptr);
  j["replica_disagreement"] = r.replicaDisagreement ? nlohmann::json(*r.replicaDisagreement) : nlohmann::json(nullptr);
  j["processes"] = r.processes;
  nlohmann::json layers = nlohmann::json::array();
  for (const SandboxLayer& l : r.sandbox) layers.push_back({{"name", l.name}, {"active", l.active}, {"detail", l.detail}});
  j["sandbox"] = layers;
  j["address_space_limit_bytes"] = r.addressSpaceLimitBytes;
}

void from_json(const nlohmann::json& j, RunReport& r) {
  r = RunReport{};
  getIf(j, "plan", r.planName);
  getIf(j, "ranks", r.ranks);
  getIf(j, "mesh_shape", r.meshShape);
  getIf(j, "device", r.device);
  getIf(j, "backend", r.backend);
  getIf(j, "scale", r.scale);
  getIf(j, "rtol", r.rtol);
  getIf(j, "seed", r.seed);
  getIf(j, "batches", r.batches);
  getIf(j, "notes", r.notes);
  getIf(j, "memory_estimate_bytes", r.memoryEstimateBytes);
  getIf(j, "memory_available_bytes", r.memoryAvailableBytes);
  getIf(j, "reference_s", r.referenceSeconds);
  getIf(j, "sharded_s", r.shardedSeconds);
  getIf(j, "blas", r.blas);
  getIf(j, "blas_threads", r.blasThreads);
  getIf(j, "threads_per_rank", r.threadsPerRank);
  getIf(j, "reference_threads", r.referenceThreads);
  getIf(j, "computing_ranks", r.computingRanks);
  getIf(j, "peak_rss_bytes", r.peakRssBytes);
  if (j.contains("error") && !j["error"].is_null()) r.error = j["error"].get<RunError>();
  getIf(j, "localised", r.localised);
  if (j.contains("first_divergence") && !j["first_divergence"].is_null())
    r.firstDivergence = j["first_divergence"].get<Divergence>();
  if (j.contains("replica_disagreement") && !j["replica_disagreement"].is_null())
    r.replicaDisagreement = j["replica_disagreement"].get<Divergence>();
  getIf(j, "processes", r.processes);
  getIf(j, "address_space_limit_bytes", r.addressSpaceLimitBytes);
  if (j.contains("sandbox") && j["sandbox"].is_array())
    for (const auto& l : j["sandbox"]) {
      SandboxLayer layer;
      getIf(l, "name", layer.name);
      getIf(l, "active", layer.active);
      getIf(l, "detail", layer.detail);
      r.sandbox.push_back(layer);
    }
}

namespace {
const char* kindName(RunEvent::Kind k) {
  switch (k) {
    case RunEvent::Kind::Started: return "started";
    case RunEvent::Kind::Progress: return "progress";
    case RunEvent::Kind::Note: return "note";
    case RunEvent::Kind::Batch: return "batch";
    case RunEvent::Kind::Report: return "report";
  }
  return "note";
}
}  // namespace

void to_json(nlohmann::json& j, const RunEvent& e) {
  j = {{"event", kindName(e.kind)}};
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
  if (kind == "started") e.kind = RunEvent::Kind::Started;
  else if (kind == "progress") e.kind = RunEvent::Kind::Progress;
  else if (kind == "note") e.kind = RunEvent::Kind::Note;
  else if (kind == "batch") e.kind = RunEvent::Kind::Batch;
  else if (kind == "report") e.kind = RunEvent::Kind::Report;
  else throw std::invalid_argument("unknown event '" + kind + "'");
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
