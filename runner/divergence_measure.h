#pragma once
// Torch side of localisation (runner/divergence.h has the contract): the reference values a run keeps, and the
// per-rank measurement of a node's outputs against them. Included by runner/*.cpp only (Torch headers).
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "core/model/layout.h"
#include "runner/divergence.h"
#include "runner/torch_internal.h"

namespace ss::runner {

// `whole` cut to one rank's block of a layout (exact global indices: uneven, empty and strided pieces).
// A view when every dim is one interval.
at::Tensor sliceToShard(const at::Tensor& whole, const RankShard& shard);

// The reference run's values per batch, detached, shared read-only by every rank thread. Each value lives until
// the last of the `consumers` rank threads has measured its node (done()), so the sharded run holds only the
// values between its slowest and its fastest rank, not the whole batch (seed 1 at real size: ~0.7 GB).
class ReferenceStore {
 public:
  ReferenceStore(const Plan& plan, int batches, int consumers);
  // Whether output k of node n is measured: decided from the plan alone (so every rank and process measures
  // the same outputs in the same order): a call node's output with a spec and a known meta that is its only
  // output or is read by some node, or an AutoSP-tagged input (sliced by its tag, not by its spec).
  bool measured(int node, int output) const;
  // Keeps node n's measured outputs of batch b (and their facts), as the reference run produces them.
  void keep(int batch, int node, const std::vector<at::Tensor>& outputs);
  // The kept reference value, undefined when none (not measured, or not a tensor).
  const at::Tensor& value(int batch, int node, int output) const;
  const ReferenceFactsMap& facts() const { return facts_; }
  // One rank thread is done with node n of batch b (measured it, or took its measures from another rank): the
  // last of the consumers frees the node's kept values. Thread-safe against value() of other nodes; every
  // consumer calls it once per node it passes, after its own value() reads of that node.
  void done(int batch, int node);
  // Bytes the kept values take (what localisation adds to a run's memory).
  int64_t bytes() const { return bytes_; }

 private:
  const Plan& plan_;
  std::vector<std::vector<bool>> measured_;        // [node][output]
  std::vector<std::vector<std::vector<at::Tensor>>> values_;  // [batch][node][output]
  std::vector<std::vector<std::atomic<int>>> passed_;         // [batch][node]: consumers done with it
  int consumers_;
  ReferenceFactsMap facts_;
  int64_t bytes_ = 0;
  at::Tensor none_;
};

// One rank's block of a value against the reference's whole `ref`: `value` should be this rank's block of `spec`
// (shape checked); Partial mesh dims are reduced over their groups first (a collective: every rank of a group calls
// this for the same values in the same order; a rank whose value has the wrong shape sends zeros of the right one).
// Fills shapeOk, shape, numel and the norms of `m`; nullopt when the spec does not fit the reference's shape (the
// same on every rank). `where` names the value in a collective's error.
std::optional<BlockMeasure> measureBlock(const Plan& plan, const at::Tensor& ref, const ShardingSpec& spec,
                                         const at::Tensor& value, int64_t rank, RankComm* comm, const std::string& where);

// Measures node n's measured outputs on this rank right after the node ran and appends them to `out`.
// Partial mesh dims are reduced over their groups first (collectives: every rank of a group calls this for the
// same nodes in the same order; a rank whose value has the wrong shape sends zeros of the right one). Never
// throws for a value it cannot compare (it records a shape mismatch); collective failures propagate.
void measureNode(const Plan& plan, const ReferenceStore& refs, int batch, int node,
                 const std::vector<at::Tensor>& outputs, int64_t rank, RankComm* comm, std::vector<BlockMeasure>& out);

}  // namespace ss::runner
