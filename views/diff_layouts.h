#pragma once
// Compare mode in the Edge and Mesh views: the selected tensor's layout in plan A and in plan B, side by side on
// their meshes. Edge: the layout the consumer really receives on that edge (after its redistribute; as a solver's
// apply pass plans it; or, with none, what the producer delivers). Mesh: the node's output spec.
// `edgeLayoutsAB` / `outputLayoutsAB` are the record pass (plain C++, unit-tested); `drawLayoutPair` draws it.
#include <cstdint>
#include <string>

#include "core/plan/diff.h"
#include "core/model/plan.h"

namespace ss::views {

struct LayoutSide {
  bool valid = false;
  std::string why;          // when !valid: "not in B", "no placement"
  std::string caption;      // "receives RS(0) after its redistribute RS(1) -> RS(0)"
  TensorMeta meta;
  ShardingSpec spec;
  std::string shapes;       // localShapeSummary: "[4, 128, 1, 64]"
};

struct LayoutPair {
  std::string title;        // "values -> index_put (input 2) in A and in B"
  LayoutSide a, b;
  bool differs = false;     // both valid and the specs (or meshes, or shapes) differ
};

LayoutPair edgeLayoutsAB(const Plan& a, const Plan& b, const PlanDiff& d, int nodeA, int input);
LayoutPair outputLayoutsAB(const Plan& a, const Plan& b, const PlanDiff& d, int nodeA, int output);

// Draws the pair in `height` pixels of the current window (two grids side by side, labelled A and B).
void drawLayoutPair(const Plan& a, const Plan& b, const LayoutPair& p, float height, int64_t pinnedRank);

}  // namespace ss::views
