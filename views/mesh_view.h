#pragma once
// Mesh view: the device mesh as a grid; for the selected tensor every device cell shows its shard (local shape,
// offsets, a miniature of the global tensor with its block highlighted). Empty shards are greyed, Partial ones
// hatched with their reduce op, replicas marked; hover gives exact numbers; click pins a device.
#include <cstdint>

#include <imgui.h>

#include "core/model/diagnostics.h"
#include "core/model/plan.h"
#include "views/model/mesh_layout.h"
#include "views/model/selection.h"

namespace ss::views {

struct MeshViewState {
  int focus = 0;                 // index into focusCandidates()
  int dimA = -1, dimB = -1;      // miniature dims (-1: automatic)
  uint64_t seenGeneration = ~uint64_t{0};
  int64_t hoveredRank = -1;      // last frame's hovered device (tests read it)
  int cellsDrawn = 0;            // last frame's cell count (tests read it)
  DivergenceMarks divergence;    // set by the app from the last run: wrong blocks of the divergent node
  int wrongCellsDrawn = 0;       // last frame's cells marked wrong (tests read it)
  std::string unsized;           // last frame: the printed sizes of a symbolic tensor shown without a layout, or ""
};

void drawMeshView(const Plan& plan, const Diagnostics& diags, MeshViewState& state, Selection& sel,
                  CommandQueue& cmds);

// Draws a laid-out mesh grid at `origin` (screen pixels). `compact` shows only rank and local shape (edge view).
// Returns the index of the hovered cell or -1, and shows its tooltip.
int drawMeshGrid(ImDrawList* dl, ImVec2 origin, const MeshGridLayout& grid, const DeviceMesh& mesh,
                 const TensorMeta& meta, const ShardingSpec& spec, int64_t pinnedRank, bool compact);

// Hatches a rectangle with diagonal lines (Partial shards).
void drawHatch(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 color, float spacing);

}  // namespace ss::views
