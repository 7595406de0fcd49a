#pragma once
// What a run feeds its ranks and compares afterwards (runPlan, runner/run_plan.cpp): each placeholder's whole
// tensor from the seed and each rank's piece of it; the outputs, losses and gradient norms that are compared.
// Internal to the runner (LibTorch).
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/model/plan.h"
#include "core/run/run_report.h"
#include "runner/divergence.h"
#include "runner/torch_internal.h"

namespace ss::runner {

// The verdict's tolerance when the run names none (--rtol): the plan's run.rtol (1e-4 unless the plan says
// otherwise), which fits runs that compute in f32 or f64 (the default: a bf16 graph computed in f32 differs from its
// reference by the order of sums only); computing in the plan's own dtypes (--dtype planned), at least what its
// narrowest floating dtype rounds to: bf16 (8 significant bits, unit roundoff 2^-8 = 3.9e-3) 1e-2, f16 (11 bits,
// 4.9e-4) 1e-3.
double defaultTolerance(const Plan& plan, const RunOptions& options);

// Exclusive upper bound for an integer input: what its consumer accepts (followed through view-like ops).
int64_t integerBound(const Plan& plan, int node, int depth = 0);

// The whole (global) tensor for a placeholder in a batch: deterministic in (seed, batch, node).
at::Tensor placeholderData(const Plan& plan, int n, int batch, uint64_t seed, at::ScalarType floatType);

// Own storage for a piece when the graph may write into it (an in-place op), else a contiguous view of `t`.
at::Tensor ownIf(const at::Tensor& t, bool copy);

// This rank's piece of a placeholder: AutoSP tags slice their tag's dim whatever the spec says; otherwise the
// spec's layout (Partial(sum) mesh dims: the value on coordinate 0, zeros elsewhere). A view of `whole` (shared
// by every rank) unless `copy`.
at::Tensor localPiece(const Plan& plan, int n, const at::Tensor& whole, int64_t rank, bool copy);

// Floating parameters that every rank holds whole (replicated, untagged): their summed gradients are compared.
std::vector<int> replicatedParams(const Plan& plan);

// The output-node inputs a run compares: every floating one with a known final spec (outputSpec), other than the
// loss: a graph's forward results and, in a joint graph, its gradients.
std::vector<int> comparedOutputs(const Plan& plan, int lossNode);
// The spec the output node's input k ends in: its redistribute's `to`, else its producer's output spec.
std::optional<ShardingSpec> outputSpec(const Plan& plan, int k);
// "view_3 (the gradient of primals_1)": the value output k returns, and whose gradient it is when known.
std::string outputLabel(const Plan& plan, int k);

// The output node's values `which` (detached, on the CPU, in the compute dtype).
std::vector<at::Tensor> collectOutputs(const Plan& plan, const Values& values, const std::vector<int>& which);

// This rank's block of each compared output against the reference's whole value (runner/divergence_measure.h
// measureBlock: Partial mesh dims reduced over their groups, so every rank calls it for the same batch): one
// BlockMeasure per entry of `which` (output = its position there), in order.
std::vector<BlockMeasure> measureOutputs(const Plan& plan, const std::vector<int>& which,
                                         const std::vector<at::Tensor>& reference, const Values& values, int64_t rank,
                                         RankComm* comm, int batch);

// A batch's output verdict, assembled from every rank's blocks: per output ||sharded - reference|| /
// ||reference|| over the blocks of all ranks (each block of a spec is held by as many ranks as any other, so this
// is the whole tensor's relative error, replicas included); infinite when a rank's block has the wrong shape.
struct OutputsVerdict {
  double relError = 0;  // the worst output's; NaN when nothing is compared
  int worst = -1;       // its position in the compared outputs
};
OutputsVerdict combineOutputMeasures(const std::vector<const std::vector<BlockMeasure>*>& perRank, int batch,
                                     size_t outputs);

// ||sharded - reference|| / ||reference|| (in double), the largest over the pairs; infinity when a pair's shapes
// differ or a value is missing. Used by the applied-graph re-run's per-output verdict.
double maxRelError(const std::vector<at::Tensor>& sharded, const std::vector<at::Tensor>& reference);

double lossValue(const Plan& plan, int lossNode, const Values& values);

// ||gradients of `params}|| over all of them (a parameter without a gradient counts as zeros), in double.
double gradNorm(const Values& values, const std::vector<int>& params);

// Nodes the loss depends on (the only ones whose autograd history its backward can reach).
std::vector<bool> lossAncestors(const Plan& plan, int lossNode);

// Whole placeholder tensors, made once and shared read-only: parameters (the same every batch) for the whole run,
// inputs per batch until each of their `consumers` has taken its pieces. Thread-safe.
class Placeholders {
 public:
  Placeholders(const Plan& plan, uint64_t seed, at::ScalarType floatType) : plan_(plan), seed_(seed), float_(floatType) {}
  at::Tensor whole(int n, int batch) {
    std::lock_guard<std::mutex> lock(m_);
    const Node& node = plan_.graph.nodes[n];
    bool param = node.placeholderKind == PlaceholderKind::Param || node.placeholderKind == PlaceholderKind::Buffer;
    auto& slot = param ? params_[n] : batches_[batch].tensors[n];
    if (!slot.defined()) slot = placeholderData(plan_, n, batch, seed_, float_);
    return slot;
  }
  // One consumer (the reference, or a rank) has taken every piece of `batch`: the last one frees its inputs.
  void taken(int batch, int consumers) {
    std::lock_guard<std::mutex> lock(m_);
    auto it = batches_.find(batch);
    if (it != batches_.end() && ++it->second.takenBy >= consumers) batches_.erase(it);
  }
  void clear() {
    std::lock_guard<std::mutex> lock(m_);
    params_.clear();
    batches_.clear();
  }

 private:
  struct Batch {
    std::map<int, at::Tensor> tensors;
    int takenBy = 0;
  };
  const Plan& plan_;
  uint64_t seed_;
  at::ScalarType float_;
  std::mutex m_;
  std::map<int, at::Tensor> params_;
  std::map<int, Batch> batches_;
};

// The sum over ranks of each rank's gradients of `params`, per batch, in one shared buffer per parameter
// (all ranks are threads of this process): the last rank to add takes the norm and frees the buffers.
class GradSum {
 public:
  GradSum(int ranks, int batches) : ranks_(ranks), norms_(batches, std::nan("")), pending_(batches) {}
  // `times`: how many ranks' gradients this rank's stand for (a twin leader's, under deduplication; 0 for a twin
  // that ran no backward).
  void add(int batch, const Values& values, const std::vector<int>& params, int times = 1) {
    std::lock_guard<std::mutex> lock(m_);
    Pending& p = pending_.at(batch);
    if (p.sums.empty()) p.sums.resize(params.size());
    for (size_t k = 0; k < params.size() && times > 0; ++k) {
      at::Tensor g = values.at(params[k]).at(0).grad();
      if (!g.defined()) continue;
      // In the gradient's own dtype (f32 by default): 8 addends cost ~1e-7 relative, far below what the ratio
      // reports, and half the memory of a double buffer (87 MB for seed 1's weight at real size).
      if (!p.sums[k].defined()) p.sums[k] = at::zeros(g.sizes(), g.options());
      if (times == 1) p.sums[k].add_(g.detach());
      else p.sums[k].add_(g.detach(), times);
    }
    if (++p.added < ranks_) return;
    double sq = 0;
    for (const at::Tensor& t : p.sums)
      if (t.defined()) {
        const double n = t.norm().item<double>();
        sq += n * n;
      }
    norms_[batch] = std::sqrt(sq);
    p.sums.clear();
  }
  double norm(int batch) const { return norms_.at(batch); }

 private:
  struct Pending {
    std::vector<at::Tensor> sums;
    int added = 0;
  };
  int ranks_;
  std::mutex m_;
  std::vector<double> norms_;
  std::vector<Pending> pending_;
};

}  // namespace ss::runner
