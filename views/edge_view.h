#pragma once
// Edge view: for the selected edge (consumer node, input), the producer's layout as it arrives and the
// layout the consumer wants, side by side on the mesh (stacked when the pane is narrow) with every rank's local
// shape, and the redistribute that turns one into the other: one collective per mesh dim with bytes and
// estimated time (ss::planRedistribute). Offers to insert the redistribute, or remove an existing one.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/diagnostics.h"
#include "core/model/plan.h"
#include "core/redistribute/redistribute.h"
#include "views/model/selection.h"

namespace ss::views {

// Everything the view shows about one edge, computed apart from drawing (unit-tested).
struct EdgeSummary {
  bool valid = false;
  std::string why;                        // when !valid: why there is nothing to show
  int consumer = -1, input = -1, producer = -1;
  std::string title;                      // "values -> index_put (input 2)"
  TensorMeta meta;
  std::optional<ShardingSpec> have, want; // have: producer output; want: consumer input spec
  std::string haveShapes, wantShapes;     // localShapeSummary of each
  bool differs = false;                   // have != want
  const Redistribute* existing = nullptr; // a redistribute the plan already has on this edge
  RedistributePlan redistribute;          // have -> want (empty steps when equal)
  std::vector<const Diagnostic*> diagnostics;  // on this edge
};

EdgeSummary summarizeEdge(const Plan& plan, const Diagnostics& diags, int consumer, int input);
// The input of `node` most worth showing: the first with an edge diagnostic, else the first whose specs differ,
// else 0; -1 when the node has no tensor inputs.
int interestingInput(const Plan& plan, const Diagnostics& diags, int node);

struct EdgeViewState {
  uint64_t seenGeneration = ~uint64_t{0};
  int input = -1;              // the shown input when the selection is a node
  bool sideBySide = true;      // last frame's arrangement (tests read it)
  bool playRequested = false;  // the Play button: the app shows this edge's redistribute in the Teach view
};

void drawEdgeView(const Plan& plan, const Diagnostics& diags, EdgeViewState& state, Selection& sel,
                  CommandQueue& cmds);

}  // namespace ss::views
