#pragma once
// What the mesh and tensor views show for the current selection: a list of candidate tensors (a node's
// outputs; for a selected edge, the producer's layout as it arrives, the layout the consumer wants, and the
// redistribute's target). Plain C++, unit-tested.
#include <optional>
#include <string>
#include <vector>

#include "core/model/plan.h"
#include "views/model/selection.h"

namespace ss::views {

struct FocusTensor {
  std::string label;                 // "values -> index_put input 2, as it arrives"
  TensorMeta meta;
  std::optional<ShardingSpec> spec;  // nullopt: the plan gives none
  int producer = -1;                 // node producing the tensor
  // Said under the picture: where sizes come from when the graph's are symbolic ("sizes: hints of s72=8,
  // s70=2 (the log's create_symbol records); the graph holds any size"); empty when nothing needs saying.
  std::string note;
};

std::vector<FocusTensor> focusCandidates(const Plan& plan, const Selection& sel);

// A real AutoSP graph (plan.autoSpSliced): for a sliced input or its slice, the tensors the mesh view draws at
// the symbols' hint sizes: the full input (as the plan places it), its part per rank as AutoSP slices it and,
// when AutoSP slices another dim than the sequence, the sequence dim sliced (what the fix does). Empty for any
// other node, or without hints.
std::vector<FocusTensor> autoSpSlicedCandidates(const Plan& plan, int node);
// The Inspector's lines for such a node: "primals_4: sliced by AutoSP on dim 1 (symbol s70, hint 2)", the
// symbol's source, the rank's part, the sequence dim against the sliced one. Empty for any other node.
struct AutoSpSliceLine {
  std::string text;
  bool error = false;  // the sliced dim is not the sequence's
};
std::vector<AutoSpSliceLine> autoSpSliceLines(const Plan& plan, int node);

// How AutoSP lays out a tagged input: every mesh dim that shards it in `planned` slices the tag's dimension
// instead (AutoSP slices along the tag whatever the plan assumes). nullopt when nothing is sharded or the dim
// is out of range.
std::optional<ShardingSpec> autoSpLayout(const ShardingSpec& planned, const AutoSpTag& tag, int rank);

// The two tensor dims a 2-D picture of a tensor of `rank` dims should draw by default: sharded dims first
// (in tensor order), then the largest remaining dims. Returns -1 for missing dims (rank < 2).
std::pair<int, int> defaultDrawDims(const TensorMeta& meta, const std::optional<ShardingSpec>& spec);

// One-line "[16, 32, 1, 64]" when every non-empty rank has the same local shape, else "uneven: [..] .. [..]".
std::string localShapeSummary(const Plan& plan, const TensorMeta& meta, const ShardingSpec& spec);

}  // namespace ss::views
