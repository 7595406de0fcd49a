#pragma once
// Rank programs: a run of N graphs, one per rank, each executed on its own rank exactly as written, against a
// reference graph run alone on one device. This is what a compiler pass that rewrites the graph per rank leaves
// (DeepSpeed AutoSP: each rank's graph after its passes slices the inputs itself, with the rank baked into the
// slice bounds, and calls `autosp.all_to_all` over the sequence-parallel group). There are no specs and no
// localisation: the graphs say everything. docs/runner.md, "Rank programs". Plain C++ (no Torch types).
//
// Contract:
// - Every program and the reference are forward graphs whose output's first tensor is the loss (a scalar).
// - Size symbols are bound to given values (`symbols`, a TORCH_TRACE log's create_symbol hints): a Sym
//   placeholder by its name (Dynamo names them after their symbol: `s38: "Sym(s38)"`), a tensor placeholder's
//   symbolic sizes ("s38") by the symbol printed there. A symbol without a value is a load error naming it.
// - Placeholders match by name: each program's tensor placeholders must be the reference's, with the same shape and
//   dtype; every rank gets the same whole tensors as the reference (from the seed, as runPlan makes them).
// - `autosp.all_to_all.default(x, scatter_idx, gather_idx, name)` runs as DeepSpeed's kernel computes it over the
//   N ranks (deepspeed/compile/custom_ops/all_to_all.py): x is 4-d; scatter_idx 1 splits dim 1 into N chunks,
//   chunk j goes to rank j, the received chunks are concatenated on dim 2 in rank order; scatter_idx 2 the same
//   with dims 2 and 1. Anything else (another dim pair, a scatter dim not divisible by N, ranks handing different
//   shapes) fails at that node on every rank, naming rank and node. Size arithmetic (operator.floordiv, mul,
//   add, sub, mod on integers) runs on the rank.
// - Safety as for any run: the allow-list before anything runs and at every node, the op contracts, the child's
//   sandbox and its address-space cap; the placeholders' bytes (whole tensors, once per rank and the reference)
//   are bounded by 80 % of the memory allowance (stage "memory").
// - Verdict per batch: the mean of the per-rank losses against the reference's, within rtol (AutoSP's own test).
#include <atomic>
#include <functional>

#include "core/run/rank_programs.h"
#include "core/run/run_report.h"

namespace ss::runner {

using RankProgramsEventSink = std::function<void(const RunEvent&)>;
RunReport runRankPrograms(const RankPrograms& programs, const RunOptions& options,
                          const RankProgramsEventSink& onEvent = {}, const std::atomic<bool>* cancel = nullptr);

}  // namespace ss::runner
