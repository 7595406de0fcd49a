// runPlan: options, scale, memory check, placeholder data from the seed, the reference run, the sharded run on
// rank threads (Gloo), loss combination, gradient ratio, the outputs' verdict, error collection. See
// runner/runner.h for the contract.
//
// A plan without a loss node (a joint graph: autoparallel's, with tangents among its inputs) runs the same way: its
// tangents are drawn from the seed like any input, nothing runs a backward (the graph computes its gradients
// itself), and the verdict is its outputs': every floating output (forward results and gradients), each rank's
// block of it against the reference by the spec it ends in (run_data.h combineOutputMeasures).
//
// Memory and threads (docs/performance.md, "Runs"): whole placeholders are made once (parameters once per run,
// inputs once per batch) and shared read-only by the reference and every rank, each rank's piece a view of them
// unless the graph mutates tensors in place; each node's value is dropped after its last reader; the reference's
// compared outputs are kept in the compute dtype only until rank 0 has compared its batch; gradients of
// replicated parameters are summed over ranks into one shared buffer. One thread budget: the reference uses
// every core (intra-op and BLAS); in the sharded run ranks x threads per rank <= cores.
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#ifdef SHARDSCOPE_CUDA
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#endif

#include <malloc.h>

#include <chrono>
#include <cmath>
#include <latch>
#include <limits>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/model/layout.h"
#include "core/model/limits.h"
#include "core/ops/op_safety.h"
#include "core/redistribute/redistribute.h"
#include "core/redistribute/replica.h"
#include "runner/distributed.h"
#include "runner/divergence_measure.h"
#include "runner/blas.h"
#include "runner/plan_scale.h"
#include "runner/reuse_allocator.h"
#include "runner/run_data.h"
#include "runner/runner.h"
#include "runner/torch_internal.h"

namespace ss::runner {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kLocalisedBatches = 1;  // batches localisation compares node by node
double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// True when some op writes into a tensor in place (its schema's `Tensor(a!)`: add_, index_put_, mul.out(..., out=w)):
// then every rank needs its own copy of the placeholders instead of views of the shared ones.
bool mutatesInPlace(const std::vector<bool>& writers) {
  return std::find(writers.begin(), writers.end(), true) != writers.end();
}

at::ScalarType floatTypeOf(const RunOptions& o) {
  if (o.computeDtype == "f64") return at::kDouble;
  if (o.computeDtype == "planned") return at::ScalarType::Undefined;
  return at::kFloat;
}

// Serialises events from several threads; progress at most every ~1/20 of a graph per rank, with an ETA for the
// whole run from the measured pace: while the reference runs, its pace (the sharded run assumed as long); in the
// sharded run, rank 0's pace once it has done a twentieth of its work, else the reference's.
struct Events {
  const EventSink& sink;
  std::mutex mutex;
  int batches = 1;
  Clock::time_point refStart = Clock::now(), shardStart = Clock::now();
  double refSeconds = -1;  // set when the reference is done
  double eta(int rank, int batch, int done, int total) {
    double units = batch + (total > 0 ? static_cast<double>(done) / total : 0.0);  // batches done
    if (rank < 0) {
      double elapsed = secondsSince(refStart);
      if (units <= 0.02) return -1;
      double pace = elapsed / units;
      return pace * (batches - units) + pace * batches;
    }
    double elapsed = secondsSince(shardStart);
    if (units >= 0.05 * batches) return elapsed / units * (batches - units);
    if (refSeconds > 0) return std::max(0.0, refSeconds - elapsed);
    return -1;
  }
  void emit(const RunEvent& e) {
    if (!sink) return;
    std::lock_guard<std::mutex> lock(mutex);
    sink(e);
  }
  void note(RunReport& report, const std::string& text) {
    report.notes.push_back(text);
    RunEvent e;
    e.kind = RunEvent::Kind::Note;
    e.text = text;
    emit(e);
  }
  std::function<void(int, int)> progress(int rank, int batch) {
    return [this, rank, batch](int done, int total) {
      int step = std::max(total / 20, 1);
      if (done != total && done % step != 0) return;
      RunEvent e;
      e.kind = RunEvent::Kind::Progress;
      e.rank = rank;
      e.batch = batch;
      e.node = done;
      e.nodes = total;
      if (rank <= 0) e.etaSec = eta(rank, batch, done, total);
      emit(e);
    };
  }
};

// error, losses, measures (localisation, in execution order) and the compared outputs' measures: what travels
// between processes (runner/distributed.h).
struct RankOutcome : RankResult {
  // Under deduplication: measures this rank takes from the rank that computed the node (same value, same block
  // of the reference), inserted at `at` in `measures` once the ranks are done.
  struct MeasureCopy {
    size_t at;
    int batch, node;
    int64_t from;
  };
  std::vector<MeasureCopy> measureCopies;
};

// Fills each rank's copied measures in from the ranks they were taken from (runPlanIn, after the threads end).
void resolveMeasureCopies(std::vector<RankOutcome>& outcomes) {
  std::vector<std::vector<BlockMeasure>> merged(outcomes.size());
  for (size_t r = 0; r < outcomes.size(); ++r) {
    const RankOutcome& o = outcomes[r];
    size_t next = 0;
    for (const auto& c : o.measureCopies) {
      while (next < c.at && next < o.measures.size()) merged[r].push_back(o.measures[next++]);
      for (const BlockMeasure& m : outcomes.at(c.from).measures)  // a computing rank's own measures only
        if (m.batch == c.batch && m.node == c.node) merged[r].push_back(m);
    }
    while (next < o.measures.size()) merged[r].push_back(o.measures[next++]);
  }
  for (size_t r = 0; r < outcomes.size(); ++r)
    if (!outcomes[r].measureCopies.empty()) outcomes[r].measures = std::move(merged[r]);
}

// Node n's measured outputs are the same on every rank of its sharing class: the values are (core/redistribute/replica.h) and
// so are the reference blocks, as long as the specs do not shard (nor reduce a Partial over) a sharing dim.
bool measuresShared(const Plan& plan, const ReplicaPlan& rp, int n) {
  const auto& outs = plan.specs.at(n).outputs;
  for (int d = 0; d < plan.mesh.ndim(); ++d) {
    if (!(rp.share[n] & (1u << d))) continue;
    for (const auto& spec : outs)
      if (spec && !(*spec)[d].isReplicate()) return false;
  }
  return true;
}

RunError nodeError(const Plan& plan, const char* stage, int rank, const NodeError& e) {
  RunError err;
  err.stage = stage;
  err.rank = rank;
  err.nodeIndex = e.node;
  err.node = e.node >= 0 && e.node < plan.graph.size() ? plan.graph.nodes[e.node].name : "";
  err.message = e.what();
  return err;
}

// Sets report.error to a run-level error of `stage` (no rank, no node) and returns false: the run stops.
bool failRun(RunReport& report, const std::string& stage, const std::string& msg) {
  report.error = RunError{stage, -1, -1, "", msg};
  return false;
}

// Fills the report's header from the plan and the options, emits Started; returns the number of batches.
int startReport(const Plan& input, const RunOptions& options, RunReport& report, Events& events) {
  report.planName = input.name;
  report.ranks = static_cast<int>(input.mesh.size());
  report.meshShape = input.mesh.shape();
  report.device = options.device;
  report.backend = "gloo";
  report.scale = options.scale;
  report.rtol = options.rtol >= 0 ? options.rtol : defaultTolerance(input, options);
  report.seed = options.seed.value_or(input.run.seed);
  const int batches = options.batches > 0 ? options.batches : std::max(input.run.batches, 1);
  events.batches = batches;
  {
    RunEvent e;
    e.kind = RunEvent::Kind::Started;
    e.text = input.name;
    events.emit(e);
  }
  return batches;
}

// Safety: false (report.error set, further unsafe nodes noted) when the plan must not run at all.
bool safeToRun(const Plan& input, const RunOptions& options, RunReport& report) {
  if (auto unsafe = unsafeNodes(input.graph); !unsafe.empty()) {
    report.error = RunError{"unsafe-op", -1, unsafe[0].node, unsafe[0].name, unsafe[0].reason};
    for (size_t k = 1; k < unsafe.size() && k < 16; ++k) report.notes.push_back("also " + unsafe[k].toString());
    return false;
  }
  if (auto refused = refusalBeforeRun(input, options, &report.notes)) {
    report.error = *refused;
    return false;
  }
  return true;
}

// Checks --device, sets `gpus` (0: CPU), `nccl` and report.backend; false (report.error set) when it cannot run.
bool chooseDevice(const RunOptions& options, int ranks, RunReport& report, Events& events, int& gpus, bool& nccl) {
  if (options.device == "cuda") {
#ifdef SHARDSCOPE_CUDA
    gpus = static_cast<int>(c10::cuda::device_count());  // 0 when there is no driver or no device
    if (gpus == 0)
      return failRun(report, "setup", "--device cuda: no CUDA device is available here; use --device cpu");
    nccl = gpus >= ranks;
    report.backend = nccl ? "nccl" : "gloo";
    if (!nccl)
      events.note(report, std::to_string(ranks) + " ranks share " + std::to_string(gpus) +
                              " GPU(s): collectives go through Gloo, staged through host memory (NCCL refuses two "
                              "ranks on one GPU)");
#else
    return failRun(report, "setup",
                   "this runner was built without CUDA (configure with -DSHARDSCOPE_CUDA=ON and a CUDA "
                   "LibTorch); use --device cpu");
#endif
  } else if (options.device != "cpu") {
    return failRun(report, "setup", "unknown device '" + options.device + "' (cpu or cuda)");
  }
  return true;
}

// Sets `lossNode` (-1: the plan names none, and its outputs are the verdict); false (report.error set) when the
// scaled plan is not executable (loss node, outputs, specs, shapes).
bool checkExecutable(const Plan& plan, RunReport& report, int& lossNode) {
  lossNode = plan.run.lossNode.empty() ? -1 : plan.graph.find(plan.run.lossNode);
  if (!plan.run.lossNode.empty() && lossNode < 0)
    return failRun(report, "load", "loss node '" + plan.run.lossNode + "' is not in the graph");
  if (lossNode < 0 && comparedOutputs(plan, -1).empty())
    return failRun(report, "load",
                   "the plan names no loss node (run.loss) and returns no floating value with a spec to compare");
  if (plan.specs.size() != static_cast<size_t>(plan.graph.size()))
    return failRun(report, "load", "the plan has no specs per node");
  if (auto why = plan.shapelessPlaceholder()) return failRun(report, "load", *why);
  return true;
}

// Puts the memory estimate and what is available in the report; false (report.error set) when over 80% of it.
bool memoryFits(const Plan& plan, const RunOptions& options, RunReport& report) {
  MemoryEstimate mem = estimateMemory(plan, options);
  report.memoryEstimateBytes = mem.totalBytes;
  report.memoryAvailableBytes = options.memoryLimitBytes > 0 ? options.memoryLimitBytes : availableMemoryBytes();
  if (report.memoryAvailableBytes > 0 && mem.totalBytes > report.memoryAvailableBytes / 10 * 8)
    return failRun(report, "memory",
                   "this run " + mem.toString() + " but only " + formatBytes(report.memoryAvailableBytes) +
                       " is available (80% allowed); try --scale 2 or more");
  return true;
}

// The state runPlanIn's sections share: the run's inputs and the scaled plan (runPlanIn), the data made once for
// the whole run (prepareRun), the threads per rank (budgetThreads), the reference's results (runReference).
struct RunState {
  RunState(Cluster* cluster, const RunOptions& options, const std::atomic<bool>* cancel, RunReport& report,
           Events& events, const Plan& plan, int batches, int ranks, int gpus, bool nccl, int lossNode)
      : cluster(cluster), options(options), cancel(cancel), report(report), events(events), plan(plan),
        batches(batches), ranks(ranks), gpus(gpus), nccl(nccl), lossNode(lossNode) {}

  Cluster* cluster;
  const RunOptions& options;
  const std::atomic<bool>* cancel;
  RunReport& report;
  Events& events;
  const Plan& plan;  // scaled
  int batches, ranks, gpus;
  bool nccl;
  int lossNode;

  // prepareRun
  at::ScalarType floatType = at::kFloat;
  std::vector<int> params;
  bool wantGrads = false;
  uint64_t seed = 0;
  std::vector<double> refLoss, refGradNorm;
  std::vector<int> compared;
  std::vector<std::vector<at::Tensor>> refOutputs;  // per batch, until every rank of this process compared it
  std::mutex outputsMutex;
  std::vector<int> outputsTaken;                    // per batch: ranks that compared their outputs
  int firstRank = 0, endRank = 0;
  std::optional<ReferenceStore> refs;
  std::vector<bool> writers;
  bool copyPieces = false;
  std::vector<bool> recordGrad;
  std::optional<Placeholders> wholes;
  ReplicaPlan replicas;
  bool dedup = false;
  std::optional<ReplicaExchange> exchange;

  // budgetThreads
  int perRank = 1;

  // The device of a rank's tensors (the reference's: rank 0's).
  c10::Device deviceOf(int rank) const {
    return gpus > 0 ? c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(std::max(rank, 0) % gpus))
                    : c10::Device(c10::kCPU);
  }
};

// Makes the data shared by the whole run in `run`; false (report.error set) when this process has too many ranks.
bool prepareRun(RunState& run) {
  const Plan& plan = run.plan;
  const RunOptions& options = run.options;
  const int batches = run.batches;
  run.floatType = floatTypeOf(options);
  run.params = replicatedParams(plan);
  run.wantGrads = options.gradients && !run.params.empty() && run.lossNode >= 0;
  run.seed = run.report.seed;
  run.refLoss = std::vector<double>(batches, std::nan(""));
  run.refGradNorm = std::vector<double>(batches, std::nan(""));
  run.compared = comparedOutputs(plan, run.lossNode);
  run.refOutputs = std::vector<std::vector<at::Tensor>>(batches);
  run.outputsTaken = std::vector<int>(batches, 0);
  if (run.lossNode < 0)
    run.events.note(run.report, "no loss node: the verdict compares the plan's " + std::to_string(run.compared.size()) +
                                    " floating outputs (forward results and gradients), each assembled from the "
                                    "ranks by the spec it ends in; tangents are drawn from the seed like inputs");
  // Localisation: the reference's values of the first batch, compared inside the sharded run (docs/runner.md: one
  // batch of kept values is what localisation adds to the peak; seed 1 at real size: ~0.7 GB a batch).
  const int firstRank = run.cluster ? static_cast<int>(run.cluster->block().first) : 0;
  const int endRank = run.cluster ? static_cast<int>(run.cluster->block().end) : run.ranks;
  run.firstRank = firstRank;
  run.endRank = endRank;
  if (endRank - firstRank > limits::kMaxRunRanks)
    return failRun(run.report, "limits",
                   "this process would run " + std::to_string(endRank - firstRank) +
                       " ranks, one thread each; at most " + std::to_string(limits::kMaxRunRanks) +
                       " (start more processes)");
  if (options.localise) run.refs.emplace(plan, std::min(batches, kLocalisedBatches), endRank - firstRank);
  run.writers = inPlaceWriters(plan);
  run.copyPieces = mutatesInPlace(run.writers);
  run.recordGrad = run.wantGrads ? lossAncestors(plan, run.lossNode) : std::vector<bool>{};
  run.wholes.emplace(plan, run.seed, run.floatType);
  // Replica deduplication between this process's rank threads (core/redistribute/replica.h); not across processes (values are
  // handed over in memory) nor on GPUs (a rank's tensors live on its own device).
  run.replicas = replicaClasses(plan, run.recordGrad, run.writers);
  run.dedup = options.dedup && run.replicas.enabled && !run.cluster && run.gpus == 0 && run.ranks > 1;
  run.exchange.emplace(std::chrono::milliseconds(static_cast<int64_t>(options.timeoutSec * 1000)));
  return true;
}

// Sets run.perRank and the report's thread counts (noting a slow BLAS); gives every core to the reference.
void budgetThreads(RunState& run) {
  RunReport& report = run.report;
  const int ranks = run.ranks;
  const bool dedup = run.dedup;
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  // Under deduplication the cores go to the ranks that compute the largest node (the others wait for its value).
  const int workers =
      dedup ? static_cast<int>(std::max<int64_t>(run.replicas.busiestWorkers(), 1)) : std::max(ranks, 1);
  const int perRank = run.options.threadsPerRank > 0 ? run.options.threadsPerRank : std::max(1, cores / workers);
  run.perRank = perRank;
  report.computingRanks = dedup ? workers : ranks;
  {
    BlasInfo blas = detectBlas();
    report.blas = blas.toString();
    if (!blas.optimized)
      run.events.note(report, "products run on " + blas.name +
                                  " (tens of times slower than OpenBLAS): install libopenblas0-pthread "
                                  "(scripts/common.sh)");
  }
  report.referenceThreads = cores;
  report.threadsPerRank = perRank;
  at::set_num_threads(cores);
  setBlasThreads(cores);
  report.blasThreads = detectBlas().threads;
}

// Runs reference batch `b` on whole tensors: loss, outputs, gradient norm (and kept values) into `run`; may throw.
void runReferenceBatch(RunState& run, int b) {
  const Plan& plan = run.plan;
  const int lossNode = run.lossNode;
  const bool wantGrads = run.wantGrads;
  const bool copyPieces = run.copyPieces;
  Placeholders& wholes = *run.wholes;
  auto& refs = run.refs;
  Values values(plan.graph.size());
  for (int n = 0; n < plan.graph.size(); ++n)
    if (plan.graph.nodes[n].kind == NodeKind::Placeholder) {
      at::Tensor whole = wholes.whole(n, b);
      at::Tensor t = (copyPieces ? whole.clone() : whole.detach()).to(run.deviceOf(0));
      if (wantGrads && plan.graph.nodes[n].placeholderKind == PlaceholderKind::Param && t.is_floating_point())
        t.requires_grad_(true);
      values[n] = {t};
    }
  wholes.taken(b, 1);
  ExecEnv env;
  env.plan = &plan;
  env.floatType = run.floatType;
  env.device = run.deviceOf(0);
  env.stop = run.cancel;
  env.progress = run.events.progress(-1, b);
  env.releaseDead = true;
  if (lossNode >= 0) env.keep = {lossNode};
  env.aliasSameTypeCopies = !copyPieces;
  env.recordGrad = run.recordGrad;
  if (refs && b < kLocalisedBatches)  // kept as each node runs: releaseDead drops values after their last reader
    env.afterNode = [&, b](int n, const std::vector<at::Tensor>& outs) { refs->keep(b, n, outs); };
  runGraph(env, values);
  run.refOutputs[b] = collectOutputs(plan, values, run.compared);
  if (lossNode < 0) return;
  run.refLoss[b] = lossValue(plan, lossNode, values);
  const at::Tensor loss = values[lossNode][0];
  if (wantGrads && loss.requires_grad()) {
    // Only the placeholders (gradients) and the loss are needed by the backward's own saved tensors.
    for (int n = 0; n < plan.graph.size(); ++n)
      if (plan.graph.nodes[n].kind != NodeKind::Placeholder) values[n].clear();
    loss.backward();
    run.refGradNorm[b] = gradNorm(values, run.params);
  }
}

// Runs every reference batch, timed; false (report.error set) when it failed or was cancelled.
bool runReference(RunState& run) {
  RunReport& report = run.report;
  auto t0 = Clock::now();
  run.events.refStart = t0;
  for (int b = 0; b < run.batches; ++b) {
    try {
      runReferenceBatch(run, b);
    } catch (const NodeError& e) {
      report.error = nodeError(run.plan, "reference", -1, e);
      return false;
    } catch (const RunStopped&) {
      return failRun(report, "cancelled", "cancelled");
    } catch (const std::exception& e) {
      return failRun(report, "reference", conciseMessage(e));
    }
  }
  report.referenceSeconds = secondsSince(t0);
  run.events.refSeconds = report.referenceSeconds;
  // The reference's freed tensors sit in the main thread's malloc arena, which the rank threads (arenas of their
  // own) would not reuse: give them back to the system before the ranks allocate.
  ::malloc_trim(0);
  return true;
}

// What the rank threads of the sharded run share besides the RunState: runSharded's locals and results.
struct RankLinks {
  std::chrono::milliseconds timeout;
  c10::intrusive_ptr<c10d::Store>& store;
  RankRendezvous& rv;
  const std::string& glooHost;
  std::atomic<bool>& stop;  // set on cancel only
  std::latch& connected;
  std::vector<RankOutcome>& outcomes;
  GradSum& gradSum;
};

// Runs batch `b` on `rank`: its pieces, the graph (measured if localised), its loss into `out`, its gradients summed.
void runRankBatch(RunState& run, RankLinks& links, RankComm& comm, const c10::Device& device, RankOutcome& out,
                  int rank, int b) {
  const Plan& plan = run.plan;
  const int lossNode = run.lossNode;
  const bool wantGrads = run.wantGrads;
  const bool copyPieces = run.copyPieces;
  const bool dedup = run.dedup;
  const ReplicaPlan& replicas = run.replicas;
  const std::vector<int>& compared = run.compared;
  auto& refs = run.refs;
  auto& refOutputs = run.refOutputs;
  Placeholders& wholes = *run.wholes;
  Values values(plan.graph.size());
  for (int n = 0; n < plan.graph.size(); ++n)
    if (plan.graph.nodes[n].kind == NodeKind::Placeholder) {
      at::Tensor t;
      try {
        t = localPiece(plan, n, wholes.whole(n, b), rank, copyPieces).to(device);
      } catch (const std::exception& e) {
        throw NodeError(n, conciseMessage(e));
      }
      if (wantGrads && plan.graph.nodes[n].placeholderKind == PlaceholderKind::Param && t.is_floating_point())
        t.requires_grad_(true);
      values[n] = {t};
    }
  wholes.taken(b, run.endRank - run.firstRank);  // this process's ranks take pieces
  ExecEnv env;
  env.plan = &plan;
  env.rank = rank;
  env.comm = &comm;
  env.floatType = run.floatType;
  env.device = device;
  env.stop = &links.stop;
  auto progress = run.events.progress(rank, b);
  env.progress = [&](int done, int total) {
    if (run.cancel && run.cancel->load() && !links.stop.load()) {
      links.stop = true;
      links.rv.abort("cancelled");
    }
    progress(done, total);
  };
  env.releaseDead = true;
  if (lossNode >= 0) env.keep = {lossNode};
  env.aliasSameTypeCopies = !copyPieces;
  env.recordGrad = run.recordGrad;
  if (dedup) {
    env.replicas = &replicas;
    env.exchange = &*run.exchange;
    env.batch = b;
  }
  if (refs && b < kLocalisedBatches)
    env.afterNode = [&, b](int n, const std::vector<at::Tensor>& outs) {
      if (dedup && !replicas.computes(n, rank) && measuresShared(plan, replicas, n)) {
        out.measureCopies.push_back({out.measures.size(), b, n, replicas.leaderOf(replicas.share[n], rank)});
      } else {
        measureNode(plan, *refs, b, n, outs, rank, &comm, out.measures);
      }
      refs->done(b, n);
    };
  runGraph(env, values);
  out.losses.push_back(lossNode >= 0 ? lossValue(plan, lossNode, values) : std::nan(""));
  // Compared now, so neither this batch's outputs nor (after this process's last rank) the reference's outlive it.
  std::vector<BlockMeasure> measured = measureOutputs(plan, compared, refOutputs[b], values, rank, &comm, b);
  out.outputMeasures.insert(out.outputMeasures.end(), measured.begin(), measured.end());
  {
    std::lock_guard<std::mutex> lock(run.outputsMutex);
    if (++run.outputsTaken[b] == run.endRank - run.firstRank) refOutputs[b].clear();
  }
  if (lossNode < 0) {
    values.clear();
    return;
  }
  const at::Tensor loss = values[lossNode][0];
  // Under deduplication only twin leaders run the backward: a twin's would be the same (core/redistribute/replica.h).
  const bool backward = wantGrads && (!dedup || replicas.twinLeader(rank));
  if (backward && loss.requires_grad()) {
    for (int n = 0; n < plan.graph.size(); ++n)
      if (plan.graph.nodes[n].kind != NodeKind::Placeholder) values[n].clear();
    loss.backward();
    links.gradSum.add(b, values, run.params, dedup ? static_cast<int>(replicas.twinCount()) : 1);
  } else if (wantGrads && dedup && loss.requires_grad()) {
    links.gradSum.add(b, values, run.params, 0);
  }
  values.clear();
}

// The thread of `rank`: connects it, runs every batch, records its error; leaving early stops its groups' ranks.
void runRank(RunState& run, RankLinks& links, int rank) {
  const Plan& plan = run.plan;
  Cluster* cluster = run.cluster;
  RankRendezvous& rv = links.rv;
  RankOutcome& out = links.outcomes[rank];
  int stage = 0;  // 0 setup, 1 running
  try {
    at::set_num_threads(run.perRank);
    const c10::Device device = run.deviceOf(rank);
#ifdef SHARDSCOPE_CUDA
    c10::cuda::OptionalCUDAGuard guard;
    if (device.is_cuda()) guard.set_device(device);
#endif
    RankComm comm(plan.mesh, rank, cluster ? cluster->newClient() : links.store, rv, links.timeout, device, run.nccl,
                  links.glooHost);
    stage = 1;
    links.connected.arrive_and_wait();
    for (int b = 0; b < run.batches; ++b) runRankBatch(run, links, comm, device, out, rank, b);
  } catch (const NodeError& e) {
    out.error = nodeError(plan, "sharded", rank, e);
  } catch (const RunStopped&) {
    // another rank failed or the run was cancelled: not this rank's error
  } catch (const CollectiveError& e) {
    out.error = RunError{"collective", rank, -1, "", e.what()};
  } catch (const std::exception& e) {
    out.error = RunError{stage == 0 ? "setup" : "sharded", rank, -1, "", conciseMessage(e)};
  }
  if (stage == 0) links.connected.count_down();  // failed in setup: the others need not wait for this rank
  // A rank that leaves early (failed or stopped) makes the ranks that share a group with it stop at their next
  // collective there (where they would wait forever for real), not between nodes: ranks that fail at the same
  // node all get there and report it.
  if (out.error || out.losses.size() < static_cast<size_t>(run.batches)) {
    rv.fail(rank);
    run.exchange->abort();
  }
}

// Runs this process's ranks, a thread each; sizes `outcomes` and makes `gradSum`, which the ranks fill in.
void runSharded(RunState& run, std::vector<RankOutcome>& outcomes, std::optional<GradSum>& gradSum) {
  Cluster* cluster = run.cluster;
  const int ranks = run.ranks;
  auto timeout = std::chrono::milliseconds(static_cast<int64_t>(run.options.timeoutSec * 1000));
  c10::intrusive_ptr<c10d::Store> store;
  if (cluster) {
    store = cluster->store();
  } else {
    store = c10::make_intrusive<c10d::HashStore>();
    store->setTimeout(timeout);
  }
  Rendezvous localRv;
  RankRendezvous& rv = cluster ? static_cast<RankRendezvous&>(cluster->rendezvous()) : localRv;
  const std::string glooHost = cluster ? cluster->glooHost() : std::string("127.0.0.1");
  if (cluster && cluster->process() == 0)
    run.events.note(run.report, std::to_string(cluster->processes()) + " processes of " +
                                    std::to_string(run.endRank - run.firstRank) + " rank(s) each, rendezvous at " +
                                    cluster->where());
  std::atomic<bool> stop{false};  // set on cancel only
  outcomes = std::vector<RankOutcome>(ranks);
  gradSum.emplace(ranks, run.batches);
  // Every local rank has its Gloo pairs connected before any rank runs: a rank with nothing to wait for (a plan
  // without collectives, or a taker of shared replicas) would otherwise finish and close its pairs while a
  // slower rank is still connecting to it ("Connection closed by peer" in that rank's setup).
  std::latch connected(run.endRank - run.firstRank);
  setBlasThreads(run.perRank);
  auto t0 = Clock::now();
  run.events.shardStart = t0;
  RankLinks links{timeout, store, rv, glooHost, stop, connected, outcomes, *gradSum};
  {
    std::vector<std::thread> threads;
    for (int r = run.firstRank; r < run.endRank; ++r)
      threads.emplace_back([&run, &links, r] { runRank(run, links, r); });
    for (auto& t : threads) t.join();
  }
  run.report.shardedSeconds = secondsSince(t0);
  run.wholes->clear();
}

// Gathers the ranks' outcomes (process 0), errors and localisation into the report; true: combine the batches.
bool collectRankResults(RunState& run, std::vector<RankOutcome>& outcomes) {
  Cluster* cluster = run.cluster;
  RunReport& report = run.report;
  Events& events = run.events;
  const std::atomic<bool>* cancel = run.cancel;
  const int ranks = run.ranks, batches = run.batches, firstRank = run.firstRank, endRank = run.endRank;
  if (cluster) {
    std::vector<RankResult> mine;
    for (int r = firstRank; r < endRank; ++r) mine.push_back(outcomes[r]);
    auto all = cluster->gatherResults(mine);
    if (!all) {
      report.error = RunError{"distributed", -1, -1, "", all.error().message};
      return false;
    }
    if (cluster->process() != 0) return false;  // process 0 makes the report; shareReport brings it here
    for (int r = 0; r < ranks; ++r)
      if (r < firstRank || r >= endRank) static_cast<RankResult&>(outcomes[r]) = std::move(all->at(r));
  }
  for (int r = 0; r < ranks; ++r) {
    if (!outcomes[r].error) continue;
    if (!report.error) report.error = outcomes[r].error;
    else if (report.error->message != outcomes[r].error->message || report.error->node != outcomes[r].error->node)
      events.note(report, "also " + outcomes[r].error->toString());
    else if (r < 16) events.note(report, sameErrorNote(r));
  }
  // A rank that stopped early without an error of its own, while no rank failed (a process gone): say so.
  for (int r = 0; r < ranks && !report.error; ++r)
    if (!outcomes[r].error && outcomes[r].losses.size() < static_cast<size_t>(batches) && !(cancel && cancel->load())) {
      std::string why = cluster ? cluster->lostPeer() : std::string();
      report.error = RunError{cluster ? "distributed" : "sharded", r, -1, "",
                              "rank " + std::to_string(r) + " stopped before batch " +
                                  std::to_string(outcomes[r].losses.size()) + (why.empty() ? "" : ": " + why)};
    }
  if (run.refs && !(cancel && cancel->load())) {
    resolveMeasureCopies(outcomes);
    std::vector<std::vector<BlockMeasure>> measures;
    for (auto& o : outcomes) measures.push_back(std::move(o.measures));
    Localisation loc = localise(run.plan, run.refs->facts(), measures, report.rtol);
    report.localised = true;
    report.firstDivergence = loc.first;
    report.replicaDisagreement = loc.replicas;
  }
  if (report.error) return false;
  if (cancel && cancel->load()) return failRun(report, "cancelled", "cancelled");
  return true;
}

// Puts each batch's result (combined loss, compared outputs, gradient ratio) in the report and emits it; notes a ratio.
void reportBatches(RunState& run, const std::vector<RankOutcome>& outcomes, const GradSum& gradSum) {
  const Plan& plan = run.plan;
  RunReport& report = run.report;
  const int ranks = run.ranks;
  const std::vector<int>& compared = run.compared;
  // Combine per-rank losses as the loss node's spec says: Partial(sum) mesh dims sum, the others average.
  const bool hasLoss = run.lossNode >= 0;
  double divisor = static_cast<double>(ranks);
  const auto& lossSpecs = hasLoss ? plan.specs[run.lossNode].outputs : std::vector<std::optional<ShardingSpec>>{};
  if (!lossSpecs.empty() && lossSpecs[0])
    for (int d = 0; d < plan.mesh.ndim(); ++d) {
      const Placement& p = (*lossSpecs[0])[d];
      if (p.isPartial() && p.reduce == ReduceOp::Sum) divisor /= static_cast<double>(plan.mesh.dimSize(d));
    }
  for (int b = 0; b < run.batches; ++b) {
    BatchResult br;
    br.batch = b;
    double sum = 0;
    for (int r = 0; r < ranks; ++r) {
      br.rankLosses.push_back(outcomes[r].losses.at(b));
      sum += outcomes[r].losses.at(b);
    }
    br.mean = sum / ranks;
    br.combined = sum / divisor;
    br.reference = run.refLoss[b];
    double diff = std::fabs(br.combined - br.reference);
    br.relError = br.reference != 0 ? diff / std::fabs(br.reference) : diff;
    if (!hasLoss) {
      br.rankLosses.clear();
      br.mean = br.combined = br.reference = br.relError = std::nan("");
    }
    std::vector<const std::vector<BlockMeasure>*> perRank;
    for (const RankOutcome& o : outcomes) perRank.push_back(&o.outputMeasures);
    const OutputsVerdict ov = combineOutputMeasures(perRank, b, compared.size());
    br.outputsCompared = static_cast<int>(compared.size());
    br.outputRelError = ov.relError;
    if (ov.worst >= 0) br.worstOutput = outputLabel(plan, compared[ov.worst]);
    br.match = (!hasLoss || (std::isfinite(br.relError) && br.relError <= report.rtol)) &&
               (compared.empty() || (std::isfinite(br.outputRelError) && br.outputRelError <= report.rtol));
    // Gradients are summed in this process (GradSum): over processes there is no such sum yet, so no ratio.
    double shardedNorm = run.cluster ? std::nan("") : gradSum.norm(b);
    br.gradRatio = run.refGradNorm[b] > 0 ? shardedNorm / run.refGradNorm[b] : std::nan("");
    report.batches.push_back(br);
    RunEvent e;
    e.kind = RunEvent::Kind::Batch;
    e.batch = b;
    e.batchResult = br;
    run.events.emit(e);
  }
  if (!run.params.empty() && run.options.gradients && !report.batches.empty() &&
      std::isfinite(report.batches[0].gradRatio) && std::fabs(report.batches[0].gradRatio - 1.0) > 1e-3)
    run.events.note(report, "summed over ranks, the gradients of replicated parameters are " +
                                std::to_string(report.batches[0].gradRatio).substr(0, 6) +
                                "x the reference's (the gradient of the sum of per-rank losses: with local-mean "
                                "losses this is AutoSP's sp_size factor)");
}

// The run in this process: all ranks (cluster == nullptr) or the cluster's block of them.
RunReport runPlanIn(Cluster* cluster, const Plan& input, const RunOptions& options, const EventSink& onEvent,
                    const std::atomic<bool>* cancel) {
  // Big tensors' pages are faulted in once per run, not once per batch and rank (runner/reuse_allocator.h).
  // Declared first, so destroyed last: once every tensor of this run is freed, its kept pages go back.
  installReuseAllocator();
  struct KeptMemoryRelease {
    ~KeptMemoryRelease() { releaseKeptMemory(); }
  } releaseAtEnd;
  RunReport report;
  Events events{onEvent, {}};
  const int batches = startReport(input, options, report, events);

  // ---- safety: refuse before anything runs (core/ops/op_safety.h) ----
  if (!safeToRun(input, options, report)) return report;

  // ---- device ----
  const int ranks = static_cast<int>(input.mesh.size());
  int gpus = 0;
  bool nccl = false;
  if (!chooseDevice(options, ranks, report, events, gpus, nccl)) return report;

  // ---- plan ----
  auto scaled = scalePlan(input, options.scale);
  if (!scaled) {
    failRun(report, "scale", scaled.error().message);
    return report;
  }
  // A solver's plan runs as the native plan it amounts to: its planned transitions as redistributes.
  scaled->adoptPlannedTransitions();
  const Plan& plan = *scaled;
  int lossNode = -1;
  if (!checkExecutable(plan, report, lossNode)) return report;

  // ---- memory ----
  if (!memoryFits(plan, options, report)) return report;
  // Declared after `scaled` (its plan) and `releaseAtEnd`, so destroyed before both.
  RunState run(cluster, options, cancel, report, events, plan, batches, ranks, gpus, nccl, lossNode);
  if (!prepareRun(run)) return report;

  // ---- threads: one budget for rank threads, ATen's intra-op pool and the BLAS ----
  budgetThreads(run);

  // ---- reference ----
  if (!runReference(run)) return report;

  // ---- sharded ----
  std::vector<RankOutcome> outcomes;
  std::optional<GradSum> gradSum;
  runSharded(run, outcomes, gradSum);

  // ---- results (process 0 of a cluster gathers every process's ranks) ----
  if (!collectRankResults(run, outcomes)) return report;
  reportBatches(run, outcomes, *gradSum);
  return report;
}

}  // namespace

RunReport runPlan(const Plan& input, const RunOptions& options, const EventSink& onEvent,
                  const std::atomic<bool>* cancel) {
  if (!options.distributed) return runPlanIn(nullptr, input, options, onEvent, cancel);
  RunReport report;
  report.planName = input.name;
  report.ranks = static_cast<int>(input.mesh.size());
  report.meshShape = input.mesh.shape();
  auto env = DistributedEnv::fromEnvironment();
  if (!env) {
    report.error = RunError{"distributed", -1, -1, "", env.error().message};
    return report;
  }
  auto timeout = std::chrono::milliseconds(static_cast<int64_t>(options.timeoutSec * 1000));
  auto cluster = Cluster::join(*env, input.mesh.size(), timeout);
  if (!cluster) {
    report.error = RunError{"distributed", -1, -1, "", cluster.error().message};
    return report;
  }
  return (*cluster)->shareReport(runPlanIn(cluster->get(), input, options, onEvent, cancel));
}

std::string gemmBenchJson(int64_t m, int64_t k, int64_t n) {
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  at::set_num_threads(cores);
  setBlasThreads(cores);
  at::Generator gen = at::detail::createCPUGenerator(1);
  at::Tensor a = at::randn({m, k}, gen, at::kFloat), b = at::randn({k, n}, gen, at::kFloat);
  at::Tensor c = at::mm(a, b);
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < 3; ++r) {
    auto t = Clock::now();
    at::mm_out(c, a, b);
    best = std::min(best, secondsSince(t));
  }
  const double gflops = 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n) / best / 1e9;
  BlasInfo blas = detectBlas();
  return nlohmann::json{{"gflops", gflops}, {"seconds", best}, {"threads", blas.threads}, {"blas", blas.toString()}}
      .dump();
}

}  // namespace ss::runner
