#pragma once
// Tensor view: the global tensor of the selected node/edge, two of its dims drawn (the user picks them), each
// block coloured by the devices that hold it; exact for uneven shards (blocks are cut at the real torch.chunk
// boundaries, drawn in proportion to their sizes).
//
// Record pass (plain C++, unit-tested): `tensorBlocks` cuts the drawn 2-D plane at every boundary any rank's
// slice has, and lists, per block, the ranks whose slices cover it (ranks that hold any part of the other dims
// count: the picture is a projection). Coordinates are fractions of the global extent in [0, 1], drawn like a
// matrix: y (rows, down) along dimA, x (columns, across) along dimB.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/model/diagnostics.h"
#include "core/model/plan.h"
#include "views/model/mesh_layout.h"
#include "views/model/selection.h"

namespace ss::views {

inline constexpr int kMaxTensorCuts = 128;  // per axis; past this, neighbouring cuts merge (sub-pixel anyway)

struct TensorBlock {
  Rect frac;                       // [0, 1] fractions: y along dimA (rows), x along dimB (columns)
  int64_t a0 = 0, a1 = 0;          // global index range [a0, a1) along dimA
  int64_t b0 = 0, b1 = 0;          // along dimB (0..1 when dimB < 0)
  std::vector<int64_t> holders;    // ranks holding it, ascending; empty when more than kMaxListedHolders
  int64_t holderCount = 0;         // how many ranks hold it (saturating)
  int64_t lowestHolder = -1;       // the lowest of them; -1 when nobody
  int group = 0;                   // distinct holder sets numbered by their lowest rank
  std::pair<size_t, size_t> groupKey{0, 0};  // (row holders, column holders) ids: equal keys, equal sets
};

// Above this many holders a block keeps only their count and lowest rank (a replicated tensor on 10^6 ranks).
inline constexpr int64_t kMaxListedHolders = 4096;

struct TensorBlocks {
  int dimA = -1, dimB = -1;
  std::vector<TensorBlock> blocks;
  std::string error;
  bool merged = false;             // some cuts were merged (kMaxTensorCuts)
};

TensorBlocks tensorBlocks(const DeviceMesh& mesh, const TensorMeta& meta, const ShardingSpec& spec, int dimA, int dimB);

// "r0-3, r6" for a sorted rank list.
std::string rankListString(const std::vector<int64_t>& ranks);
// A block's holders as the view prints them: "r0-3, r6", "nobody", or "1048576 ranks from r0".
std::string holdersString(const TensorBlock& b);

struct TensorViewState {
  int focus = 0;
  int dimA = -1, dimB = -1;
  uint64_t seenGeneration = ~uint64_t{0};
  int blocksDrawn = 0;
  int hoveredBlock = -1;
  std::string blocksKey;   // what `blocks` was computed from (mesh, spec, shape, dims)
  TensorBlocks blocks;
};

void drawTensorView(const Plan& plan, const Diagnostics& diags, TensorViewState& state, Selection& sel,
                    CommandQueue& cmds);

}  // namespace ss::views
