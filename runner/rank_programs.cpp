// runner/rank_programs.h, the Torch half: the reference alone, then one thread per rank running its own program
// (Gloo over loopback through RankComm, a 1-d mesh of N ranks), AutoSP's all-to-all as a real collective, size
// arithmetic on the rank, the per-rank losses' mean against the reference.
#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include <chrono>
#include <cmath>
#include <latch>
#include <limits>
#include <thread>

#include "core/check/autosp_slices.h"
#include "core/model/placement_parse.h"
#include "core/model/saturate.h"
#include "core/model/units.h"
#include "runner/blas.h"
#include "runner/rank_programs.h"
#include "runner/rank_programs_internal.h"
#include "runner/run_data.h"
#include "runner/runner.h"
#include "runner/torch_internal.h"

namespace ss::runner {

using Clock = RankClock;
double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

namespace {

// Python's floor division and modulo on integers (the graphs' `s38 // 2`).
int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// An integer operand of a size expression: a literal, or a 0-dim integer tensor computed earlier.
int64_t intOperand(const Arg& a, const std::vector<at::Tensor>& inputs, int& next) {
  if (a.kind == Arg::Kind::Int) return a.i;
  if (a.kind == Arg::Kind::Bool) return a.b ? 1 : 0;
  if (a.isTensor()) {
    const at::Tensor& t = inputs.at(next++);
    if (t.defined() && t.dim() == 0 && at::isIntegralType(t.scalar_type(), false)) return t.item<int64_t>();
  }
  throw std::runtime_error("size arithmetic on something that is not an integer");
}

}  // namespace

at::Tensor sizeTensor(int64_t v) { return at::scalar_tensor(v, at::kLong); }

std::optional<std::vector<at::Tensor>> sizeArithmetic(const Node& node, const std::vector<at::Tensor>& inputs) {
  const std::string op = node.op;
  if (op.rfind("operator.", 0) != 0 && op.rfind("_operator.", 0) != 0) return std::nullopt;
  const std::string name = node.opName();
  if (name == "getitem") return std::nullopt;
  // Every operand comes from the program (a literal or an earlier size), so every step is checked: a signed
  // overflow is undefined behaviour, and INT64_MIN / -1 traps (SIGFPE) on x86.
  const auto overflow = [&op](int64_t a, int64_t b) {
    return std::runtime_error(op + " of " + std::to_string(a) + " and " + std::to_string(b) + " overflows 64 bits");
  };
  int next = 0;
  if (name == "neg" && node.args.size() == 1) {
    const int64_t a = intOperand(node.args[0], inputs, next);
    if (a == std::numeric_limits<int64_t>::min()) throw std::runtime_error(op + " of " + std::to_string(a) + " overflows 64 bits");
    return std::vector<at::Tensor>{sizeTensor(-a)};
  }
  if (node.args.size() != 2) throw std::runtime_error(op + " with " + std::to_string(node.args.size()) + " operands");
  const int64_t a = intOperand(node.args[0], inputs, next), b = intOperand(node.args[1], inputs, next);
  int64_t v = 0;
  if (name == "add") {
    if (__builtin_add_overflow(a, b, &v)) throw overflow(a, b);
  } else if (name == "sub") {
    if (__builtin_sub_overflow(a, b, &v)) throw overflow(a, b);
  } else if (name == "mul") {
    if (__builtin_mul_overflow(a, b, &v)) throw overflow(a, b);
  } else if (name == "floordiv" || name == "mod") {
    if (b == 0) throw std::runtime_error(op + " by zero");
    if (a == std::numeric_limits<int64_t>::min() && b == -1) {
      if (name == "floordiv") throw overflow(a, b);
      v = 0;  // the remainder is 0; computing it through the quotient would trap
    } else {
      v = name == "floordiv" ? floorDiv(a, b) : a - floorDiv(a, b) * b;
    }
  } else {
    throw std::runtime_error("the runner computes no " + op + " on sizes");
  }
  return std::vector<at::Tensor>{sizeTensor(v)};
}

std::string shapeText(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

namespace {

// DeepSpeed's autosp::all_to_all over the rank's N-rank group (see the header's contract), through RankComm's
// all_to_all: x [.., a, .., b, ..] sharded on the gather dim (each rank's piece), redistributed to the scatter dim.
at::Tensor autoSpAllToAll(RankComm& comm, const Node& node, const std::vector<at::Tensor>& inputs) {
  const int64_t ranks = comm.mesh().size();
  if (node.args.size() < 3 || !node.args[0].isTensor() || !node.args[1].isInt() || !node.args[2].isInt())
    throw std::runtime_error("autosp.all_to_all expects (x, scatter_idx, gather_idx, name)");
  const at::Tensor x = inputs.at(0);
  const int64_t scatter = node.args[1].i, gather = node.args[2].i;
  // Every rank checks and then compares what all ranks hand in, so that a bad call fails on every rank alike
  // (DeepSpeed's all_to_all_single would fail or hang on mismatched sizes).
  std::vector<int64_t> mine{x.dim(), scatter, gather};
  for (int64_t d = 0; d < 4; ++d) mine.push_back(d < x.dim() ? x.size(d) : -1);
  at::Tensor row = at::tensor(mine, at::kLong).reshape({1, static_cast<int64_t>(mine.size())});
  const std::string where = "node " + node.name + " (autosp.all_to_all)";
  at::Tensor all = comm.redistribute(row, {ranks, row.size(1)}, *parseSpec("S(0)"), *parseSpec("R"), where);
  for (int64_t r = 1; r < ranks; ++r)
    if (!at::equal(all[r], all[0])) {
      auto rowOf = [&](int64_t k) {
        auto v = all[k];
        std::vector<int64_t> s;
        for (int64_t d = 0; d < v[0].item<int64_t>() && d < 4; ++d) s.push_back(v[3 + d].item<int64_t>());
        return shapeText(s) + " (scatter " + std::to_string(v[1].item<int64_t>()) + ", gather " +
               std::to_string(v[2].item<int64_t>()) + ")";
      };
      throw std::runtime_error("autosp.all_to_all: the ranks hand different inputs: rank 0 " + rowOf(0) + ", rank " +
                               std::to_string(r) + " " + rowOf(r));
    }
  if (x.dim() != 4)
    throw std::runtime_error("autosp.all_to_all takes a 4-d [B, N, S, H] tensor; got " + shapeText(x.sizes().vec()));
  if (!((scatter == 1 && gather == 2) || (scatter == 2 && gather == 1)))
    throw std::runtime_error("autosp.all_to_all(x, " + std::to_string(scatter) + ", " + std::to_string(gather) +
                             "): DeepSpeed's kernel scatters dim 1 and gathers dim 2, or the reverse; nothing else");
  if (x.size(scatter) % ranks != 0)
    throw std::runtime_error("autosp.all_to_all: scatter dim " + std::to_string(scatter) + " of " +
                             shapeText(x.sizes().vec()) + " is not divisible by the " + std::to_string(ranks) +
                             " ranks");
  std::vector<int64_t> global = x.sizes().vec();
  global[gather] *= ranks;
  return comm.redistribute(x.contiguous(), global, *parseSpec("S(" + std::to_string(gather) + ")"),
                           *parseSpec("S(" + std::to_string(scatter) + ")"), where);
}

// The loss: the first tensor the graph returns, a scalar.
double lossOf(const Plan& plan, const Values& values) {
  const int out = plan.graph.outputNode();
  if (out < 0 || values.at(out).empty() || !values[out][0].defined())
    throw std::runtime_error("the graph returns no tensor (its loss)");
  const at::Tensor& t = values[out][0];
  if (t.numel() != 1) throw std::runtime_error("the graph's output " + shapeText(t.sizes().vec()) + " is not a scalar loss");
  return t.item<double>();
}

struct Prepared {
  Plan reference;
  std::vector<Plan> ranks;
  // reference placeholder node -> the same name in each rank's program (-1: not there)
  std::vector<std::vector<int>> placeholderOf;
};

std::optional<RunError> prepare(const RankPrograms& p, Prepared& out) {
  auto bound = bindSymbols(p.reference, p.symbols);
  if (!bound) return RunError{"load", -1, -1, "", "reference: " + bound.error().message};
  out.reference = std::move(*bound);
  for (size_t r = 0; r < p.ranks.size(); ++r) {
    auto b = bindSymbols(p.ranks[r], p.symbols);
    if (!b) return RunError{"load", static_cast<int>(r), -1, "", "rank " + std::to_string(r) + "'s program: " + b.error().message};
    out.ranks.push_back(std::move(*b));
  }
  const Graph& ref = out.reference.graph;
  for (size_t r = 0; r < out.ranks.size(); ++r) {
    const Graph& g = out.ranks[r].graph;
    std::vector<int> map(ref.size(), -1);
    for (int n = 0; n < g.size(); ++n) {
      const Node& node = g.nodes[n];
      if (node.kind != NodeKind::Placeholder) continue;
      const int k = ref.find(node.name);
      const std::string who = "rank " + std::to_string(r) + "'s placeholder '" + node.name + "'";
      if (k < 0 || ref.nodes[k].kind != NodeKind::Placeholder)
        return RunError{"load", static_cast<int>(r), n, node.name, who + " is not a placeholder of the reference"};
      if (node.outputs.at(0) != ref.nodes[k].outputs.at(0))
        return RunError{"load", static_cast<int>(r), n, node.name,
                        who + " is " + node.shapeText() + " " + dtypeName(node.outputs[0].dtype) + ", the reference's " +
                            ref.nodes[k].shapeText() + " " + dtypeName(ref.nodes[k].outputs[0].dtype)};
      map[k] = n;
    }
    out.placeholderOf.push_back(std::move(map));
  }
  return std::nullopt;
}

}  // namespace

std::vector<at::Tensor> wholeInputs(const RankPrograms& p, const Plan& ref, int b, uint64_t seed, at::ScalarType floatType) {
  std::vector<at::Tensor> out(ref.graph.size());
  for (int n = 0; n < ref.graph.size(); ++n) {
    if (ref.graph.nodes[n].kind != NodeKind::Placeholder) continue;
    if (auto v = symbolPlaceholderValue(ref, n, p.symbols)) out[n] = sizeTensor(*v);
    else out[n] = placeholderData(ref, n, b, seed, floatType);
  }
  return out;
}

ExecEnv asWrittenEnv(const Plan& plan, int64_t rank, int batch, const std::atomic<bool>* stop, at::ScalarType floatType) {
  ExecEnv env;
  env.plan = &plan;
  env.rank = rank;
  env.batch = batch;
  env.asWritten = true;
  env.floatType = floatType;
  env.stop = stop;
  env.releaseDead = true;
  env.keep = {plan.graph.outputNode()};
  return env;
}

Values clonedPlaceholders(const std::vector<at::Tensor>& wholes) {
  Values values(wholes.size());
  for (size_t n = 0; n < wholes.size(); ++n)
    if (wholes[n].defined()) values[n] = {wholes[n].clone()};
  return values;
}

RunError errorAt(const Plan& plan, const char* stage, int rank, const NodeError& e) {
  RunError err;
  err.stage = stage;
  err.rank = rank;
  err.nodeIndex = e.node;
  err.node = e.node >= 0 && e.node < plan.graph.size() ? plan.graph.nodes[e.node].name : "";
  err.message = e.what();
  return err;
}

std::optional<RunError> placeholderMemoryRefusal(const Plan& ref, int64_t copies, const RunOptions& options,
                                                 RunReport& report) {
  int64_t bytes = 0;
  for (const Node& n : ref.graph.nodes)
    if (n.kind == NodeKind::Placeholder && n.outputs.at(0).known)
      bytes = ss::satAdd(bytes, ss::satMul(n.outputs[0].numel(), int64_t{8}));
  report.memoryEstimateBytes = ss::satMul(bytes, copies);
  report.memoryAvailableBytes = options.memoryLimitBytes > 0 ? options.memoryLimitBytes : availableMemoryBytes();
  if (report.memoryAvailableBytes > 0 && report.memoryEstimateBytes > report.memoryAvailableBytes / 10 * 8)
    return RunError{"memory", -1, -1, "",
                    "the placeholders alone need " + formatBytes(report.memoryEstimateBytes) + " but only " +
                        formatBytes(report.memoryAvailableBytes) + " is available (80% allowed)"};
  return std::nullopt;
}

ProgramsRun::ProgramsRun(const RankPrograms& programs, const RunOptions& options, const DeviceMesh& mesh,
                         const RankProgramsEventSink& onEvent, const std::atomic<bool>* cancelFlag)
    : batches(options.batches > 0 ? options.batches : 3),
      cancel(cancelFlag),
      programs_(programs),
      options_(options),
      mesh_(mesh),
      onEvent_(onEvent) {
  const int ranks = static_cast<int>(mesh.size());
  report.planName = programs.name;
  report.ranks = ranks;
  report.meshShape = mesh.shape();
  report.device = options.device;
  report.backend = "gloo";
  report.rtol = options.rtol >= 0 ? options.rtol : 1e-4;
  report.seed = options.seed.value_or(0);
  report.localised = false;
  cores_ = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  report.blas = detectBlas().toString();
  report.referenceThreads = cores_;
  report.threadsPerRank = std::max(1, cores_ / std::max(ranks, 1));
  report.computingRanks = ranks;
  RunEvent e;
  e.kind = RunEvent::Kind::Started;
  e.text = programs.name;
  emit(e);
  for (const std::string& n : programs.notes) report.notes.push_back(n);
}

void ProgramsRun::emit(const RunEvent& e) {
  if (!onEvent_) return;
  std::lock_guard<std::mutex> lock(eventMutex_);
  onEvent_(e);
}

void ProgramsRun::note(const std::string& text) {
  report.notes.push_back(text);
  RunEvent e;
  e.kind = RunEvent::Kind::Note;
  e.text = text;
  emit(e);
}

void ProgramsRun::rankDone(int rank, int batch, int nodes) {
  RunEvent e;
  e.kind = RunEvent::Kind::Progress;
  e.rank = rank;
  e.batch = batch;
  e.node = e.nodes = nodes;
  emit(e);
}

void ProgramsRun::addBatch(const BatchResult& b) {
  report.batches.push_back(b);
  RunEvent e;
  e.kind = RunEvent::Kind::Batch;
  e.batch = b.batch;
  e.batchResult = b;
  emit(e);
}

bool ProgramsRun::admitted() {
  if (auto refused = rankProgramsRefusal(programs_)) {
    report.error = *refused;
    return false;
  }
  if (options_.device != "cpu") {
    report.error = RunError{"setup", -1, -1, "", "rank programs run on CPU ranks only (--device cpu)"};
    return false;
  }
  return true;
}

bool ProgramsRun::runReference(const Plan& ref, const std::function<void(int)>& body) {
  auto t0 = Clock::now();
  at::set_num_threads(cores_);
  setBlasThreads(cores_);
  report.blasThreads = detectBlas().threads;
  for (int b = 0; b < batches; ++b) {
    try {
      at::NoGradGuard noGrad;
      body(b);
    } catch (const NodeError& e) {
      report.error = errorAt(ref, "reference", -1, e);
    } catch (const RunStopped&) {
      report.error = RunError{"cancelled", -1, -1, "", "cancelled"};
    } catch (const std::exception& e) {
      report.error = RunError{"reference", -1, -1, "", conciseMessage(e)};
    }
    if (report.error) return false;
  }
  report.referenceSeconds = secondsSince(t0);
  return true;
}

bool ProgramsRun::runRanks(const std::function<const Plan&(int)>& planOf,
                           const std::function<void(int, RankComm&)>& body) {
  const int ranks = static_cast<int>(mesh_.size());
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(options_.timeoutSec * 1000));
  c10::intrusive_ptr<c10d::Store> store = c10::make_intrusive<c10d::HashStore>();
  store->setTimeout(timeout);
  Rendezvous rv;
  std::vector<std::optional<RunError>> errors(ranks);
  std::latch connected(ranks);
  setBlasThreads(report.threadsPerRank);
  auto t1 = Clock::now();
  auto rankMain = [&](int rank) {
    int stage = 0;
    bool done = false;
    try {
      at::set_num_threads(report.threadsPerRank);
      at::NoGradGuard noGrad;
      RankComm comm(mesh_, rank, store, rv, timeout);
      stage = 1;
      connected.arrive_and_wait();
      body(rank, comm);
      done = true;
    } catch (const NodeError& e) {
      errors[rank] = errorAt(planOf(rank), "sharded", rank, e);
    } catch (const RunStopped&) {
      // another rank failed or the run was cancelled
    } catch (const CollectiveError& e) {
      errors[rank] = RunError{"collective", rank, -1, "", e.what()};
    } catch (const std::exception& e) {
      errors[rank] = RunError{stage == 0 ? "setup" : "sharded", rank, -1, "", conciseMessage(e)};
    }
    if (stage == 0) connected.count_down();
    if (!done) rv.fail(rank);
  };
  {
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r) threads.emplace_back(rankMain, r);
    for (auto& t : threads) t.join();
  }
  report.shardedSeconds = secondsSince(t1);
  for (int r = 0; r < ranks; ++r) {
    if (!errors[r]) continue;
    if (!report.error) report.error = errors[r];
    else if (report.error->message != errors[r]->message || report.error->node != errors[r]->node)
      note("also " + errors[r]->toString());
    else note(sameErrorNote(r));
  }
  if (!report.error && cancel && cancel->load()) report.error = RunError{"cancelled", -1, -1, "", "cancelled"};
  return !report.error;
}

RunReport runRankPrograms(const RankPrograms& programs, const RunOptions& options, const RankProgramsEventSink& onEvent,
                          const std::atomic<bool>* cancel) {
  if (programs.spmd) return runSpmdPrograms(programs, options, onEvent, cancel);
  const int ranks = static_cast<int>(programs.ranks.size());
  const DeviceMesh mesh({std::max(ranks, 1)}, {kAutoSpMeshDimName});
  ProgramsRun run(programs, options, mesh, onEvent, cancel);
  RunReport& report = run.report;
  const int batches = run.batches;
  if (!run.admitted()) return report;
  Prepared prep;
  if (auto e = prepare(programs, prep)) {
    report.error = *e;
    return report;
  }
  const Plan& ref = prep.reference;
  // Memory: the whole placeholders once for the reference and once per rank (each rank gets its own copy).
  if (auto e = placeholderMemoryRefusal(ref, ranks + 1, options, report)) {
    report.error = *e;
    return report;
  }
  run.note("rank programs: " + std::to_string(ranks) + " ranks, each running its own graph as written; the reference "
           "runs the whole graph alone; verdict: the mean of the per-rank losses");
  const uint64_t seed = report.seed;

  // ---- reference ----
  std::vector<double> refLoss(batches, 0);
  std::vector<std::vector<at::Tensor>> wholes(batches);
  const bool refDone = run.runReference(ref, [&](int b) {
    wholes[b] = wholeInputs(programs, ref, b, seed);
    Values values = clonedPlaceholders(wholes[b]);
    ExecEnv env = asWrittenEnv(ref, -1, b, cancel);
    env.callOverride = [&ref](int n, const std::vector<at::Tensor>& inputs) -> std::optional<std::vector<at::Tensor>> {
      const Node& node = ref.graph.nodes[n];
      if (node.op == kAutoSpAllToAllOp)
        throw std::runtime_error("the reference graph calls autosp.all_to_all (a collective): it is not one device's graph");
      return sizeArithmetic(node, inputs);
    };
    runGraph(env, values);
    refLoss[b] = lossOf(ref, values);
  });
  if (!refDone) return report;

  // ---- ranks ----
  std::vector<std::vector<double>> losses(ranks);
  const bool ranksDone = run.runRanks([&](int rank) -> const Plan& { return prep.ranks[rank]; }, [&](int rank, RankComm& comm) {
    const Plan& plan = prep.ranks[rank];
    for (int b = 0; b < batches; ++b) {
      Values values(plan.graph.size());
      for (int k = 0; k < ref.graph.size(); ++k) {
        const int n = prep.placeholderOf[rank][k];
        if (n >= 0) values[n] = {wholes[b][k].clone()};  // every rank its own copy: a graph may write in place
      }
      ExecEnv env = asWrittenEnv(plan, rank, b, cancel);
      env.callOverride = [&](int n, const std::vector<at::Tensor>& inputs) -> std::optional<std::vector<at::Tensor>> {
        const Node& node = plan.graph.nodes[n];
        if (node.op == kAutoSpAllToAllOp) return std::vector<at::Tensor>{autoSpAllToAll(comm, node, inputs)};
        return sizeArithmetic(node, inputs);
      };
      runGraph(env, values);
      losses[rank].push_back(lossOf(plan, values));
      run.rankDone(rank, b, plan.graph.size());
    }
  });
  if (!ranksDone) return report;
  for (int b = 0; b < batches; ++b) {
    BatchResult br;
    br.batch = b;
    double sum = 0;
    for (int r = 0; r < ranks; ++r) {
      br.rankLosses.push_back(losses[r].at(b));
      sum += losses[r][b];
    }
    br.mean = br.combined = sum / ranks;
    br.reference = refLoss[b];
    const double diff = std::fabs(br.combined - br.reference);
    br.relError = br.reference != 0 ? diff / std::fabs(br.reference) : diff;
    br.match = std::isfinite(br.relError) && br.relError <= report.rtol;
    br.gradRatio = std::nan("");  // forward programs: no gradients
    run.addBatch(br);
  }
  return report;
}

}  // namespace ss::runner
