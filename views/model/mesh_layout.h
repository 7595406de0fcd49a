#pragma once
// Record pass of the mesh picture, shared by the mesh and edge views: where each device cell goes, what shard
// it holds, which cells hold the same data, and the block it holds inside a miniature of the global tensor.
// Plain C++ (no ImGui), unit-tested; the views only walk the records with an ImDrawList.
//
// Coordinate contract: every Rect is in pixels relative to the top-left of the area passed in (x right, y down).
// Miniature rects are fractions of the global tensor, drawn like a matrix: y (rows, down) along tensor dim
// `dimA`, x (columns, across) along `dimB` (whole width when dimB < 0), both in [0, 1].
//
// Arrangement: a 1-D mesh is a row (wrapped into a near-square grid past 16 ranks); a 2-D mesh has mesh dim 0
// down and mesh dim 1 across; 3-D and higher are a row of 2-D slices of the last two dims, one per index of
// the leading dims. At most kMaxDrawnRanks cells are laid out; the rest are counted in `hiddenRanks`.
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/layout.h"
#include "core/model/plan.h"

namespace ss::views {

inline constexpr int64_t kMaxDrawnRanks = 4096;

struct Rect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  float w() const { return x1 - x0; }
  float h() const { return y1 - y0; }
  bool contains(float x, float y) const { return x >= x0 && x < x1 && y >= y0 && y < y1; }
};

struct MeshCell {
  int64_t rank = 0;
  Rect rect;
  RankShard shard;           // local shape, offsets, exact slices, empty, partial
  int group = 0;             // cells with the same group hold identical data (replicas); 0.. in rank order
  int groupSize = 1;         // how many cells share this group
  std::vector<Rect> mini;    // the block(s) this rank holds in the miniature (several for strided shards)
  bool wrong = false;        // the last run found this rank's block wrong (markWrongRanks)
};

struct MeshLabel {
  std::string text;
  float x = 0, y = 0;        // top-left of the text
  bool vertical = false;     // row label (drawn left of the grid)
};

struct MeshGridLayout {
  std::vector<MeshCell> cells;     // in rank order
  std::vector<MeshLabel> labels;
  float width = 0, height = 0;     // used extent
  float cellW = 0, cellH = 0;
  int groups = 0;
  int64_t hiddenRanks = 0;
  std::string error;               // the spec does not fit the tensor/mesh: nothing else is filled
  // Index into `cells` of the cell under (x, y), or -1.
  int cellAt(float x, float y) const;
};

struct MeshGridOptions {
  float width = 600, height = 400;  // available area
  float labelLeft = 60;             // room for row labels
  float labelTop = 20;              // room for column labels
  float gap = 6;
  float minCellW = 40, minCellH = 30, maxCellW = 260, maxCellH = 170;
  int dimA = -1, dimB = -1;         // tensor dims of the miniature (-1: defaultDrawDims)
};

MeshGridLayout layoutMeshGrid(const DeviceMesh& mesh, const TensorMeta& meta, const ShardingSpec& spec,
                              const MeshGridOptions& opts);

// The last run's first divergent node output (RunReport::firstDivergence) and the ranks whose block was wrong.
struct DivergenceMarks {
  int node = -1;                // -1: none
  int output = 0;
  std::vector<int> wrongRanks;
  bool operator==(const DivergenceMarks&) const = default;
};
// Marks the cells of `wrongRanks` wrong (ranks not laid out are ignored); returns how many were marked.
int markWrongRanks(MeshGridLayout& grid, const std::vector<int>& wrongRanks);

// Global-index fraction intervals [start/size, end/size] of a slice; the whole [0, 1] for an unknown dim.
std::vector<std::pair<float, float>> sliceFractions(const DimSlice& s, int64_t size);

}  // namespace ss::views
