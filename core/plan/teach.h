#pragma once
// Teaching: a redistribute as DTensor plans it (ss::planRedistribute), expanded into the block movements each of
// its steps makes on the mesh: which rank sends which block (global index ranges) to which rank, in which round,
// what each rank holds after, and the bytes each rank sends. Used by `shardscope teach` and the Teach view.
//
// Contract: nothing here plans. The steps are the planner's, one TeachStep each, in its order, and each is
// expanded with the algorithm the cost model assumes (docs/cost-model.md), inside every process group along the
// step's mesh dim at once (group position = the rank's coordinate on that mesh dim, k = the group size):
//  - all_gather (S -> R): ring, k-1 rounds; in round r position i sends position i+1 the block that position
//    i-r held before the step (its own in round 0, then the ones it received).
//  - reduce_scatter (P -> S): ring, k-1 rounds; in round r position i sends position i+1 its running sum of the
//    chunk that position i-r-1 ends with; the receiver adds its own partial values. After the last round
//    position i holds its chunk summed over all k ranks.
//  - all_reduce (P -> R): ring reduce-scatter of k chunks of the block (cut along its first dim of extent >= k,
//    else its longest dim), then a ring all_gather of the reduced chunks: 2(k-1) rounds.
//  - all_to_all (S(i) -> S(j)): one round; position p sends position q the part of its block that q holds after.
//  - chunk (R -> S) and divide (R -> P): no transfers; each rank keeps its chunk / holds its copy as a partial.
// Uneven shards travel padded to the full chunk (DTensor pads before these collectives): `paddedElements` is
// what goes on the wire, `elements` the real data; a transfer of an empty shard is padding only.
//
// Shard orders and _StridedShard: the layout between two steps is the previous one with the step's mesh dim
// changed (a new split is innermost when either end has a non-default order, as the planner does). The last
// layout is checked against the target's; when they differ the expansion is refused (never a wrong picture).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/plan/edit.h"
#include "core/model/layout.h"
#include "core/model/plan.h"
#include "core/redistribute/redistribute.h"

namespace ss {

// Teaching frames list every rank; a mesh above this is refused (the text and the pictures would be unreadable).
inline constexpr int64_t kMaxTeachRanks = 256;

// A box of global indices: per tensor dim, the intervals covered (usually one; strided shards give several).
struct Block {
  std::vector<DimSlice> dims;
  int64_t numel() const;  // saturates at INT64_MAX
  bool empty() const;     // some dim covers nothing
  // Half-open global ranges per dim: "[0:4, 2:4]"; several parts "[0:2+4:6, 0:3]"; a scalar "[]".
  std::string toString() const;
  bool operator==(const Block&) const = default;
};

Block blockOf(const RankShard& s);                  // the rank's slices as a Block
Block intersect(const Block& a, const Block& b);    // per dim intersection (both of the same rank)

struct Transfer {
  int round = 0;                 // 0-based; rounds run one after another, transfers of a round at once
  int64_t src = 0, dst = 0;      // ranks
  Block block;                   // global indices of the data sent
  int64_t elements = 0;          // real elements in `block`
  int64_t paddedElements = 0;    // what travels: the block padded to the full chunk of uneven shards
  int64_t bytes = 0;             // paddedElements * dtype bytes
  bool reduces = false;          // the receiver combines it with its own partial values (reduce phases)
  std::vector<int64_t> contributors;  // reduce kinds: ranks whose partial values the sent data combines
  int64_t paddingElements() const { return paddedElements - elements; }
};

struct RankBytes {
  int64_t sent = 0, received = 0;  // bytes on the wire over the whole step (padding included)
};

struct TeachStep {
  RedistributeStep step;            // the planner's step: kind, mesh dim, from -> to, its bytes and time
  ShardingSpec before, after;       // the whole spec before and after this step
  std::vector<RankShard> layoutAfter;  // per rank, in rank order
  std::vector<std::vector<int64_t>> groups;  // process groups along the step's mesh dim, ranks in position order
  int rounds = 0;                   // 0 for the local kinds
  std::vector<Transfer> transfers;  // by round, then by source position
  std::vector<RankBytes> bytes;     // per rank
  int64_t maxBytesSent() const;     // the largest rank's share (the planner reports this one)
  // "all_to_all on mesh dim 1 (tp): S(1) -> S(0)"
  std::string headline() const;
  // What each rank does and holds after, one line each (for the text output and the view's side text).
  std::vector<std::string> lines(const TensorMeta& meta, const DeviceMesh& mesh) const;
};

struct TeachPlan {
  bool possible = true;
  std::string whyNot;               // when !possible
  TensorMeta meta;
  DeviceMesh mesh;
  ShardingSpec from, to;
  RedistributePlan plan;            // the planner's answer
  std::vector<RankShard> layoutBefore;  // per rank, before the first step
  std::vector<TeachStep> steps;
  // The whole text `shardscope teach` prints: the tensor, the start layout, then every step.
  std::string text() const;
};

TeachPlan teachRedistribute(const TensorMeta& meta, const DeviceMesh& mesh, const ShardingSpec& from,
                            const ShardingSpec& to, const CostModel& cost = {});

// ---- The playground (File > New tensor...): teaching without a file ----------------------------------------
// A plan of one tensor `t` (a placeholder laid out `spec`) read by one `relayout` (aten.clone): the edge
// relayout input 0 carries the layout shown so far (t's output) and the one chosen next (relayout's input), with
// a redistribute between them when they differ. Choosing placements is one undoable command.
inline constexpr const char* kPlaygroundName = "playground";
inline constexpr int kPlaygroundTensor = 0, kPlaygroundRelayout = 1;  // node indices
Plan makePlayground(const TensorMeta& meta, const DeviceMesh& mesh, const ShardingSpec& spec);
bool isPlayground(const Plan& plan);
// The command that makes `next` the layout chosen: the tensor takes the layout chosen so far, relayout wants
// `next`, and the redistribute between them is recorded (removed when they are equal).
Command choosePlaygroundLayout(const Plan& plan, const ShardingSpec& next);

// The edge a plan's description points at: "... Look at: NODE input N ..." (the teaching samples end their
// descriptions so; docs/teach.md). The app opens a clean plan on it. nullopt when absent or not an edge.
struct EdgeRef {
  int node = -1, input = -1;
};
std::optional<EdgeRef> lookAtEdge(const Plan& plan);

// "r3 (0,3)" : a rank and its mesh coordinate.
std::string rankLabel(const DeviceMesh& mesh, int64_t rank);

}  // namespace ss
