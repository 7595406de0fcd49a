#pragma once
// Localisation: which node first departs from the reference, on which ranks (plain C++, no Torch; the
// measurements come from runner/divergence_measure.cpp, one list per rank).
//
// Contract:
// - Every rank measures, right after a node ran, each measured output (ReferenceStore::measured decides, from
//   the plan only, so every rank and process measures the same outputs in the same order): its local value V
//   against its block E of the reference (the node spec's layout of the reference value on that rank; for
//   Partial mesh dims V is first reduced over them with their op: sum, avg, max, min). It records ||V - E||,
//   ||V||, ||E||, E's element count, and whether V has E's shape.
// - localise() combines them per (batch, node, output) in execution order (batches first):
//   - a rank's error is ||V - E|| / max(||E||, floor), floor = ||R|| * sqrt(numel(E) / numel(R)) (so tiny or
//     all-zero blocks are judged against the tensor's scale, not against 0); a rank is wrong when its error
//     exceeds rtol or its shape differs from the spec's;
//   - the node's error is sqrt(sum over ranks of ||V - E||^2 / replicas) / ||R||, replicas = product of the
//     mesh dims that do not shard it (each block counted once);
//   - replicas (ranks with the same coordinates on every sharding mesh dim) must agree: their ||V|| and
//     ||V - E|| must match within rtol of the block's scale; a group that does not is listed;
//   - the first output that is wrong (node error > rtol, a wrong rank, a shape mismatch, or disagreeing
//     replicas) is the first divergence; the first with disagreeing replicas is reported on its own too.
// - A rank that stopped early has no measures for later nodes: those are judged on the ranks that have them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/model/plan.h"
#include "core/run/run_report.h"

namespace ss::runner {

struct BlockMeasure {
  int batch = 0;
  int node = 0;
  int output = 0;
  bool shapeOk = true;
  double diff = 0;      // ||V - E||
  double self = 0;      // ||V|| (with diff: the replica fingerprint)
  double expected = 0;  // ||E||
  int64_t numel = 0;    // elements of E
  std::vector<int64_t> shape;  // V's shape, only when !shapeOk
  bool operator==(const BlockMeasure&) const = default;
};

// The reference value's facts for one measured (batch, node, output).
struct ReferenceFacts {
  double norm = 0;
  int64_t numel = 0;
  std::vector<int64_t> shape;
};
using MeasureKey = std::tuple<int, int, int>;  // batch, node, output
using ReferenceFactsMap = std::map<MeasureKey, ReferenceFacts>;

struct Localisation {
  std::optional<Divergence> first;     // the first divergent output
  std::optional<Divergence> replicas;  // the first output whose replicas disagree
};

Localisation localise(const Plan& plan, const ReferenceFactsMap& refs,
                      const std::vector<std::vector<BlockMeasure>>& perRank, double rtol);

// Compact text for sending one rank's measures between processes (runner/distributed.cpp); decode returns
// nothing for malformed text.
std::string encodeMeasures(const std::vector<BlockMeasure>& m);
std::optional<std::vector<BlockMeasure>> decodeMeasures(const std::string& text);

}  // namespace ss::runner
