#pragma once
// Replica classes of a plan's sharded run: which ranks are known to hold bit-identical values, so that
// one rank per class computes a value and the others share it read-only (the runner's replica deduplication).
//
// Contract. A set of mesh dims R "holds" for a value when every two ranks whose coordinates differ only along
// dims of R hold bit-identical local values. The rules, each from how the runner computes (runner/):
// - placeholder: its Replicate mesh dims (a Shard dim picks a piece by that coordinate; a Partial(sum) dim puts
//   zeros off coordinate 0); an AutoSP-tagged one none (sliced by the flat rank);
// - call node: the intersection over its inputs (after their redistributes), none for a random op (rand*,
//   dropout, bernoulli, ...), and for an op whose shape arguments the runner rewrites to the rank's local shape
//   (view, reshape, expand, factories, *_backward) minus the mesh dims where its output spec shards;
// - an input edge with a redistribute: the producer's dims, then per step of core's plan (the runner performs
//   exactly those steps, in order) along mesh dim d: d joins when the step ends Replicate (all_gather and
//   all_reduce give every member of the group the same bits), d leaves otherwise (chunk, all_to_all,
//   reduce_scatter, divide depend on the coordinate along d). A step along d keeps every other dim: two groups
//   along d whose members are pairwise identical compute identical results.
// The computing ranks of a value are the leaders of its classes (coordinate 0 along the sharing dims); a rank off
// them takes the leader's value. An edge's collective is run by every rank with coordinate 0 along the producer's
// sharing dims minus the dims the redistribute touches: each process group it uses then consists of such ranks
// only, so every collective still sees all its members (the groups of the other ranks are skipped whole).
//
// Gradients (autograd runs the backward on each rank that calls it, with the adjoint collectives of the
// forward's redistributes): nodes whose history is recorded (`recorded`, the loss's ancestors) share only along
// the twin dims T: dims that hold for every recorded value and that no redistribute into a recorded node touches.
// Ranks differing only along T compute the same forward and backward (their twin leader's), so only twin leaders
// run the backward, each gradient standing for twinCount() ranks; their backward collectives need only them.
//
// Off (`enabled == false`, `whyNot`) when a node writes a tensor in place (a shared tensor would be written once
// per sharer's class, not once per rank). Pure function of the plan; no Torch.
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/plan.h"

namespace ss {

// Mesh dims as a bit set (bit d = mesh dim d; kMaxMeshDims <= 8).
using MeshDims = uint32_t;

struct ReplicaPlan {
  bool enabled = true;
  std::string whyNot;                   // when !enabled: "node add_ writes a tensor in place"
  DeviceMesh mesh;
  std::vector<MeshDims> holds;          // per node: dims that hold for its outputs (the fact, before sharing)
  std::vector<MeshDims> share;          // per node: the dims it is shared along (holds, restricted to T if recorded)
  std::vector<std::vector<MeshDims>> edgeHolds;    // per node, per input: after the input's redistribute
  std::vector<std::vector<MeshDims>> edgeShare;    // idem, the sharing dims
  std::vector<std::vector<MeshDims>> edgeTouched;  // dims the input's redistribute steps run along (0: none)
  MeshDims twins = 0;                   // T (all dims when nothing is recorded)

  // The rank with the coordinates of `rank`, zero along `dims`.
  int64_t leaderOf(MeshDims dims, int64_t rank) const;
  bool isLeader(MeshDims dims, int64_t rank) const { return leaderOf(dims, rank) == rank; }
  int64_t classSize(MeshDims dims) const;  // ranks per class
  // Node n's outputs: computed by this rank (else taken from leaderOf(share[n], rank)).
  bool computes(int n, int64_t rank) const { return isLeader(share[n], rank); }
  // Input k of node n has a redistribute and this rank runs its steps (a member of their process groups).
  bool runsEdge(int n, int k, int64_t rank) const;
  // Ranks that take input k of node n from `leader` (a leader of edgeShare[n][k]): they compute n but do not run
  // the edge themselves.
  int edgeTakers(int n, int k, int64_t leader) const;
  // Ranks one twin leader's gradient stands for.
  int64_t twinCount() const { return classSize(twins); }
  bool twinLeader(int64_t rank) const { return isLeader(twins, rank); }
  // Ranks that compute at least one of the graph's call nodes, weighted by work: the number of computing ranks of
  // the call node with the largest output (the thread budget gives the cores to those).
  int64_t busiestWorkers() const { return busiest_; }

  int64_t busiest_ = 1;
};

std::string meshDimsString(MeshDims dims, const DeviceMesh& mesh);  // "{dim0, dim1}", "{}"

// `recorded`: per node, whether autograd records its history (empty: nothing is recorded). `writers`: per node,
// whether it writes one of its arguments in place, as the op's schema says (the runner reads LibTorch's); empty:
// as writesInPlace's name rule says. Any writer turns sharing off.
ReplicaPlan replicaClasses(const Plan& plan, const std::vector<bool>& recorded, const std::vector<bool>& writers = {});

// True for ops whose value is drawn at random (never shared): rand*, randn*, randint*, randperm, dropout,
// native_dropout, bernoulli, normal, uniform, multinomial, poisson, exponential, cauchy, geometric, log_normal.
bool isRandomOp(const std::string& opName);

// Ops whose shape arguments the runner rewrites to the rank's local shape (runner/exec_graph.cpp) and that the
// rules above restrict: views (view, reshape, _unsafe_view), expand, factories (full, zeros, ones, empty*, rand,
// randn, new_*), and *_backward ops that rebuild their forward input's sizes.
bool isViewOp(const std::string& opName);
bool isFactoryOp(const std::string& opName);
bool hasLocalShapeArgs(const std::string& opName);

// The name rule for in-place writes, where no schema is at hand (core alone; collectives the runner emulates): the
// op's name ends in '_' (add_, index_put_, copy_) or its overload is an out= form ("mul.out").
bool writesInPlace(const Node& node);

}  // namespace ss
