#pragma once
// The graph overview as a module hierarchy (Model Explorer's answer to size): collapsed modules are laid out as one
// box each, so a real log's 600 or 9,000 nodes open as a few dozen labelled boxes that Fit can show readably.
//
// Levels, coarsest first, from the module paths the layout input carries (core/draw/graph_layout.h: blocks are
// instances "layers.7 (forward)", families group the instances "layers.* (forward)"):
//   Families: every family is one box ("layers.* (forward)  32 blocks, 3,104 nodes");
//   Blocks:   every instance is one box ("layers.7 (forward)  97 nodes"), families open;
//   Nodes:    everything open (the plain layout, stamped blocks framed).
// A ModuleExpansion says which family and which instance is open; the view opens and closes them one by one
// (click, keys) from the level Fit chose. Graph inputs (sources: parameters, constants) whose every consumer lies
// in one collapsed box are drawn inside it, so a collapsed layer carries its weights.
//
// Contract: layoutOverview returns a GraphLayout of the SAME nodes and edges as the input (views, selection and
// diagnostics keep their node indexes): the members of a collapsed box all share the box's rectangle, and its
// block (GraphLayout::blocks) is marked `collapsed` with the box's bounds. Only the boxes and open nodes are laid
// out (a quotient graph: one unit per box, edges between units deduplicated), so expanding one layer of a big
// model costs a layout of the units on screen, not of the whole graph. Edges whose units fall out of topological
// order (a free node between two parts of one box) are kept in the result and marked long (drawn as stubs).
// Deterministic, as layoutGraph is.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/draw/graph_layout.h"

namespace ss {

enum class OverviewLevel : uint8_t { Families, Blocks, Nodes };
const char* overviewLevelName(OverviewLevel level);  // "modules", "layers", "nodes"

struct ModuleExpansion {
  std::set<int> openFamilies;  // LayoutInput::blockFamily ids shown as their instances
  std::set<int> openBlocks;    // block instances (LayoutInput::block ids) shown node by node
  bool operator==(const ModuleExpansion&) const = default;
};

// The expansion of a whole level: Families opens nothing, Blocks every family, Nodes everything.
ModuleExpansion expansionAt(const LayoutInput& in, OverviewLevel level);
// Whether the input has any module block (without them every level is the plain layout).
bool hasModuleBlocks(const LayoutInput& in);

// The unit a node is drawn in under `x`: its collapsed family, its collapsed block, or itself.
struct OverviewUnits {
  std::vector<int> unitOf;       // per node: unit index (units in order of their first node)
  std::vector<int> firstNode;    // per unit: its first node
  std::vector<int> box;          // per unit: output block index when the unit is a collapsed box, else -1
  int count() const { return static_cast<int>(firstNode.size()); }
};
OverviewUnits overviewUnits(const LayoutInput& in, const ModuleExpansion& x);

// Longest path, in units, under `x`: the rows a layout of that expansion needs (cheap; Fit's level choice).
int overviewDepth(const LayoutInput& in, const ModuleExpansion& x);

// The compact layout (see the contract). Returns nullopt only when cancelled through `progress`.
std::optional<GraphLayout> layoutOverview(const LayoutInput& in, const ModuleExpansion& x, const LayoutOptions& opts = {},
                                          LayoutProgress* progress = nullptr);

// The deepest level whose layout fits `viewPx` (width, height) with a row at least `minRowPx` tall on screen
// (labels readable), estimated from the level's depth and widest row without laying it out; Families when none
// does. A graph without module blocks: Nodes.
OverviewLevel chooseOverviewLevel(const LayoutInput& in, double viewW, double viewH, double minRowPx,
                                  const LayoutOptions& opts = {});

}  // namespace ss
