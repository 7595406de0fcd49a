#pragma once
// Values exchanged with the plan runner (runner/, the `shardscope-runner` child process): what to run
// (RunOptions), what it streams while running (RunEvent, one JSON object per line) and what it found (RunReport).
//
// Contract: plain values, no Torch. JSON conversion round-trips (fromJson(toJson(x)) == x up to NaN fields).
// A RunReport's verdict decides the `shardscope run` exit code: Match 0, Mismatch 1, Refused 2 (the plan was
// refused before anything ran: an op off the allow-list of core/ops/op_safety.h, or over the memory bound), Failed 3.
// Losses per batch: `rankLosses[r]` is rank r's local loss; `combined` merges them as the loss node's output
// spec says (mesh dims with Partial(sum) are summed, every other mesh dim averaged; for a replicated or
// AutoSP-style local-mean loss that is the mean of the ranks); `relError = |combined - reference| / |reference|`
// (absolute error when the reference is 0). `gradRatio` = ||sum over ranks of each rank's gradient of the
// replicated parameters|| / ||reference gradient|| (what an all-reduce(sum) of gradients gives; AutoSP's
// sp_size factor shows here); NaN when the plan has no such parameter or gradients were not computed.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/model/result.h"

namespace ss {

struct RunOptions {
  std::string device = "cpu";     // "cpu" or "cuda"
  int batches = 0;                // 0 = the plan's run.batches
  double rtol = -1;               // < 0 = the plan's run.rtol
  int scale = 1;                  // divide sizes by this (runner/plan_scale.h); 1 = real sizes
  double timeoutSec = 60;         // a collective waiting longer than this fails the run
  double budgetSec = 900;         // wall-clock budget of the whole run (stage "budget" when exceeded); <= 0: none
  std::optional<uint64_t> seed;   // nullopt = the plan's run.seed
  std::string computeDtype = "f32";  // floating tensors run in "f32", "f64" or "planned" (the plan's dtypes)
  bool gradients = true;          // compute parameter gradients (gradRatio)
  int64_t memoryLimitBytes = 0;   // 0 = MemAvailable from /proc/meminfo
  bool localise = true;           // compare every node with the reference (first_divergence); --no-localise
  bool distributed = false;       // join torch.distributed's env:// rendezvous (runner/distributed.h)
  // Replica deduplication (core/redistribute/replica.h): ranks known to compute identical values compute them once and share
  // them; the results are the same bits as without (--no-dedup). Off by itself for distributed and CUDA runs.
  bool dedup = true;
  int threadsPerRank = 0;         // intra-op and BLAS threads per rank in the sharded run; 0 = the thread budget
  bool requireSandbox = false;    // refuse (exit 2) unless every layer of the runner's sandbox is active
  bool operator==(const RunOptions&) const = default;
};

struct BatchResult {
  int batch = 0;
  std::vector<double> rankLosses;
  double mean = 0;        // plain mean of rankLosses
  double combined = 0;    // the sharded loss (see contract)
  double reference = 0;
  double relError = 0;
  bool match = false;     // relError <= rtol (with a loss) and outputRelError <= rtol (when outputs were compared)
  double gradRatio = 0;   // NaN when not computed
  // The graph's other outputs (forward results and a joint graph's gradients), each assembled from the ranks' blocks
  // by the spec it ends in and compared with the reference: max over them of ||sharded - reference|| /
  // ||reference||; NaN when none. Part of `match`. A plan without a loss node has no losses (rankLosses empty,
  // the loss fields NaN): its outputs alone are the verdict.
  int outputsCompared = 0;
  double outputRelError = 0;
  std::string worstOutput;  // the compared output with the largest error: "view_3 (the gradient of primals_1)"
};

// One layer of the runner child's OS containment (runner/sandbox.h): "network", "no-new-privs", "filesystem",
// "capabilities", "seccomp".
struct SandboxLayer {
  std::string name;
  bool active = false;
  std::string detail;     // what it does when active, why it is missing otherwise
  bool operator==(const SandboxLayer&) const = default;
};

struct RunError {
  // "load", "scale", "unsafe-op", "memory", "setup", "reference", "sharded", "collective", "budget", "cancelled",
  // "crash", "limits", "shapes", "sandbox". "unsafe-op", "memory", "limits" (ranks or threads past what a run takes),
  // "shapes" (a shape error of the op shape rules), "sandbox" (--require-sandbox without a complete sandbox) and
  // "scale" (a --scale that would change the plan's meaning, runner/plan_scale.h) are refusals before anything ran
  // (verdict Refused, exit 2).
  std::string stage;
  int rank = -1;          // -1: not rank-specific (the reference run, setup)
  int nodeIndex = -1;
  std::string node;       // node name, empty when not at a node
  std::string message;    // one line
  std::string toString() const;  // "rank 3, node index_put: shape mismatch: ..."
  bool refused() const {
    return stage == "unsafe-op" || stage == "memory" || stage == "limits" || stage == "shapes" || stage == "sandbox" ||
           stage == "scale";
  }
  bool operator==(const RunError&) const = default;
};

// The note a run adds for each further rank that failed at the same node with the same message as the report's
// error: "also rank 3 at the same node, same error". One source for the runner that writes it and the Run view
// that folds these notes into one line after the error ("ranks 1-7: same error").
std::string sameErrorNote(int rank);
// The rank a sameErrorNote names; nullopt for any other note.
std::optional<int> sameErrorNoteRank(const std::string& note);
// Ranks as ascending ranges: {1, 2, 3, 5} -> "ranks 1-3, 5"; {4} -> "rank 4"; {} -> "".
std::string rankRanges(std::vector<int> ranks);

// One rank's view of a divergent node output: its block's relative error against the reference's block (for a
// Partial spec: the block after reducing the Partial mesh dims), and its local shape when the plan says another.
struct RankDivergence {
  int rank = 0;
  double relError = 0;    // NaN (null in JSON) when the shape differs
  bool wrong = false;     // relError > rtol, or the shape differs
  std::vector<int64_t> shape;          // this rank's local shape (only filled when it differs)
  std::vector<int64_t> expectedShape;  // what the node's spec gives for this rank
  bool operator==(const RankDivergence&) const = default;
};

// The first node output, in execution order, whose sharded value departs from the reference beyond rtol
// (runner/divergence.h says how ranks' values are combined), or the first whose replicas disagree.
struct Divergence {
  std::string node;
  int nodeIndex = -1;
  int output = 0;
  int batch = 0;
  double relError = 0;          // ||combined - reference|| / ||reference||; NaN (null) when a shape differs
  std::string spec;             // the node output's spec, mesh notation ("S(0)R")
  std::vector<RankDivergence> ranks;            // every rank
  std::vector<int> wrongRanks;                  // ranks whose block is wrong
  std::vector<std::vector<int>> disagreeingReplicas;  // rank groups that should hold the same values and do not
  bool shapeMismatch = false;   // some rank's local shape is not the spec's
  std::string tag;              // tagged input: its AutoSP tag ("input_id"); empty otherwise
  int slicedDim = -1;           // tagged input: the dim the tag slices
  std::vector<int> plannedDims; // tagged input: the tensor dims the spec shards
  std::string detail;           // one line for people
  bool operator==(const Divergence&) const = default;
};
void to_json(nlohmann::json& j, const Divergence& d);
void from_json(const nlohmann::json& j, Divergence& d);

enum class RunVerdict : uint8_t { Match, Mismatch, Failed, Refused };
const char* runVerdictName(RunVerdict v);  // "match", "mismatch", "failed", "refused"

struct RunReport {
  std::string planName;
  int ranks = 0;
  std::vector<int64_t> meshShape;
  std::string device = "cpu";
  std::string backend;          // "gloo", "nccl"
  int scale = 1;
  double rtol = 1e-4;
  uint64_t seed = 0;
  std::vector<BatchResult> batches;
  std::optional<RunError> error;
  std::vector<std::string> notes;  // what the user should know (e.g. "ranks share GPUs: collectives via Gloo")
  int64_t memoryEstimateBytes = 0;
  int64_t memoryAvailableBytes = 0;
  double referenceSeconds = 0;
  double shardedSeconds = 0;
  // Where the products ran: the BLAS library LibTorch's sgemm resolved to (its file), its thread count, and the
  // thread budget of the run (rank threads x intra-op threads per rank <= cores).
  std::string blas;             // e.g. "OpenBLAS 0.3.21 (/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3)"
  int blasThreads = 0;          // threads the BLAS itself uses per call (0 unknown)
  int threadsPerRank = 0;       // intra-op threads of each rank thread in the sharded run
  int referenceThreads = 0;     // intra-op threads of the reference run
  // Replica deduplication: ranks that compute the graph's largest call node (ranks when off or not sharing).
  int computingRanks = 0;
  int64_t peakRssBytes = 0;     // the runner process's peak resident memory (VmHWM)
  // Localisation (RunOptions::localise): whether it ran, the first divergent node output, and (a finding of its
  // own) the first node output whose replicas disagree with each other.
  bool localised = false;
  std::optional<Divergence> firstDivergence;
  std::optional<Divergence> replicaDisagreement;
  int processes = 1;            // --distributed: processes that ran the mesh's ranks
  std::vector<SandboxLayer> sandbox;  // the child's containment, layer by layer (empty: run in-process)
  int64_t addressSpaceLimitBytes = 0; // the child's RLIMIT_AS (0: none set)

  RunVerdict verdict() const;   // Refused/Failed when error; Mismatch when a batch does not match (or none ran)
  int exitCode() const;         // 0, 1, 2, 3
  std::string summary() const;  // multi-line human table
};

// Streamed by the runner while it works, one JSON object per line on its stdout.
struct RunEvent {
  enum class Kind : uint8_t { Started, Progress, Note, Batch, Report };
  Kind kind = Kind::Note;
  int rank = -1;          // Progress: -1 = reference run
  int batch = -1;
  int node = -1;          // Progress: nodes done so far on that rank in that batch
  int nodes = 0;          // Progress: nodes to run
  std::string text;       // Note text; Started: plan name
  std::optional<BatchResult> batchResult;  // Batch
  std::optional<RunReport> report;         // Report (the last event)
  double etaSec = -1;     // Progress: seconds left for the whole run, from the reference's pace (< 0: unknown)
};

void to_json(nlohmann::json& j, const RunOptions& o);
void from_json(const nlohmann::json& j, RunOptions& o);
void to_json(nlohmann::json& j, const BatchResult& b);
void from_json(const nlohmann::json& j, BatchResult& b);
void to_json(nlohmann::json& j, const RunError& e);
void from_json(const nlohmann::json& j, RunError& e);
void to_json(nlohmann::json& j, const RunReport& r);
void from_json(const nlohmann::json& j, RunReport& r);
void to_json(nlohmann::json& j, const RunEvent& e);
void from_json(const nlohmann::json& j, RunEvent& e);

// One event line (no newline) and its parser (errors name the problem; never throws).
std::string runEventLine(const RunEvent& e);
Result<RunEvent> parseRunEventLine(const std::string& line);

}  // namespace ss
