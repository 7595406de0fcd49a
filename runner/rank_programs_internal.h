#pragma once
// What the two rank-program runs share (runner/rank_programs.cpp: one program per rank, AutoSP's;
// runner/spmd_programs.cpp: one SPMD program on every rank of a mesh, autoparallel's applied graph). Torch side,
// included by those two files only.
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/run/rank_programs.h"
#include "runner/rank_programs.h"
#include "runner/torch_internal.h"

namespace ss::runner {

using RankClock = std::chrono::steady_clock;
double secondsSince(RankClock::time_point t);
std::string shapeText(const std::vector<int64_t>& s);
// A size as the graph computes it: a 0-dim int64 tensor.
at::Tensor sizeTensor(int64_t v);
// operator.floordiv / mul / add / sub / mod / neg on integers (a symbolic graph's `s38 // 2`); nullopt for any
// other op.
std::optional<std::vector<at::Tensor>> sizeArithmetic(const Node& node, const std::vector<at::Tensor>& inputs);
// The whole placeholders of batch b, by reference node (Sym placeholders: their value as a 0-dim tensor).
std::vector<at::Tensor> wholeInputs(const RankPrograms& p, const Plan& ref, int b, uint64_t seed,
                                    at::ScalarType floatType = at::kFloat);
// An executor for a graph run as written (no spec rewriting): `plan` on `rank` (-1: the reference), dead values
// released, its output kept.
ExecEnv asWrittenEnv(const Plan& plan, int64_t rank, int batch, const std::atomic<bool>* stop,
                     at::ScalarType floatType = at::kFloat);
// Values of a graph whose placeholders are its own copies of `wholes` (by node).
Values clonedPlaceholders(const std::vector<at::Tensor>& wholes);
RunError errorAt(const Plan& plan, const char* stage, int rank, const NodeError& e);
// Memory: the whole placeholders `copies` times (8 bytes an element) against 80 % of the allowance; fills the
// report's estimate and allowance, and returns the refusal (stage "memory") when they do not fit.
std::optional<RunError> placeholderMemoryRefusal(const Plan& ref, int64_t copies, const RunOptions& options,
                                                 RunReport& report);

// The frame both runs share: the report's header and events, the refusals before anything runs, the reference
// phase (every core) and one thread per rank of `mesh` (Gloo over loopback through RankComm, the cores shared),
// each timed, their errors put into the report (the first as its error, the others as notes).
class ProgramsRun {
 public:
  ProgramsRun(const RankPrograms& programs, const RunOptions& options, const DeviceMesh& mesh,
              const RankProgramsEventSink& onEvent, const std::atomic<bool>* cancel);
  RunReport report;
  const int batches;
  const std::atomic<bool>* const cancel;
  void emit(const RunEvent& e);
  void note(const std::string& text);
  void rankDone(int rank, int batch, int nodes);  // a rank finished a batch (a Progress event)
  void addBatch(const BatchResult& b);            // a batch's verdict: into the report, and as an event
  // rankProgramsRefusal, another device than the CPU: report.error set, false.
  bool admitted();
  // body(b) for every batch on every core; an error stops the run (report.error, at `ref`'s node): false.
  bool runReference(const Plan& ref, const std::function<void(int batch)>& body);
  // body(rank, comm) on one thread per rank, each running every batch; an error on one rank stops the others
  // (report.error, at planOf(rank)'s node; the other ranks' as notes); a cancelled run is an error too: false.
  bool runRanks(const std::function<const Plan&(int rank)>& planOf, const std::function<void(int rank, RankComm&)>& body);

 private:
  const RankPrograms& programs_;
  RunOptions options_;
  DeviceMesh mesh_;
  RankProgramsEventSink onEvent_;
  std::mutex eventMutex_;
  int cores_ = 1;
};

// The SPMD run (programs.spmd set): see runner/rank_programs.h.
RunReport runSpmdPrograms(const RankPrograms& programs, const RunOptions& options, const RankProgramsEventSink& onEvent,
                          const std::atomic<bool>* cancel);

}  // namespace ss::runner
