#pragma once
// The plan runner's public API (plain C++, no Torch types): execute an executable Plan as a single-device
// reference and as a sharded run on mesh-size ranks, and compare the losses. docs/runner.md is the user guide.
//
// Contract of runPlan:
// - The reference runs the whole graph on whole tensors. The sharded run starts one thread per rank, each with a
//   ProcessGroupGloo per mesh dim over loopback; each rank holds only its local shards (core's layout), runs every
//   op through the ATen dispatcher on them with shape arguments rewritten to local shapes, and performs exactly
//   the plan's redistributes. A missing redistribute stays missing.
// - AutoSP: a tagged input is sliced along its tag's dimension (a bare key: dim 1) over the sequence-parallel
//   group (run.sp_size ranks, else the whole mesh), whatever its spec says.
// - Placeholders come from the seed: parameters N(0, 1/fan_in) (same for every batch), float inputs and tangents
//   N(0, 1) per batch, integer inputs uniform in the range their consumer accepts (embedding rows, classes, the
//   indexed dim). Floating tensors compute in options.computeDtype (default f32).
// - Errors never escape: the report carries them (rank, node, one line). One rank failing stops the others at
//   their next node or collective; a collective waiting longer than options.timeoutSec fails with its name.
// - `onEvent` is called from several threads (serialised by runPlan); `cancel` stops the run between nodes.
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/model/plan.h"
#include "core/run/run_report.h"

namespace ss::runner {

using EventSink = std::function<void(const RunEvent&)>;

RunReport runPlan(const Plan& plan, const RunOptions& options, const EventSink& onEvent = {},
                  const std::atomic<bool>* cancel = nullptr);

// Why a plan cannot be run before anything starts (stage "limits" or "shapes", a refusal: exit 2), or nullopt:
// - more ranks in this process than limits::kMaxRunRanks (a local run starts a thread per rank), or more
//   threads per rank than limits::kMaxThreadsPerRank;
// - a shape error of the checker's op shape rules (core/ops/op_shapes.h, the `shape-mismatch` errors of
//   `shardscope check`): a kernel given inputs that cannot go together may read or write past them, so such a
//   plan never reaches one (the first such node is named; notes list up to 15 more).
// Called by the runner child before its sandbox and by runPlan itself.
std::optional<RunError> refusalBeforeRun(const Plan& plan, const RunOptions& options, std::vector<std::string>* notes = nullptr);

// Bytes a run needs at most: every node's outputs (in the compute dtype) for the reference, plus every rank's
// local outputs, times 2 for autograd's saved tensors and gradients. Exact numbers, nothing allocated.
struct MemoryEstimate {
  int64_t referenceBytes = 0;
  int64_t shardedBytes = 0;   // all ranks together
  int64_t totalBytes = 0;
  std::string toString() const;  // "needs 3.1 GiB (reference 1.2 GiB + 8 ranks 1.9 GiB)"
};
MemoryEstimate estimateMemory(const Plan& plan, const RunOptions& options);
int64_t availableMemoryBytes();  // MemAvailable from /proc/meminfo; 0 when unknown

// The machine's float product speed: [m, k] x [k, n] on every core (one warm-up, then the best of 3), as
// {"gflops": ..., "blas": "...", "threads": cores, "seconds": best}. For scripts/bench_run.sh's bound.
std::string gemmBenchJson(int64_t m, int64_t k, int64_t n);

}  // namespace ss::runner
