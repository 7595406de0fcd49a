#pragma once
// Inspector: the selected node's op, args, shapes, source location, input and output specs in mesh-centric,
// tensor-centric and DTensor long notation. Editable: each mesh dim's placement (combos) for outputs and inputs,
// the AutoSP tag's seq_dim, insert/remove a redistribute per input, and "Fix all". Every edit is queued as an
// ss::Command (undo/redo through the document).
#include <string>
#include <vector>

#include "core/model/diagnostics.h"
#include "core/model/plan.h"
#include "core/plan/edit.h"
#include "views/model/selection.h"

namespace ss::views {

struct InspectorViewState {
  char tagKey[64] = "input_id";
  std::string fixMessage;  // "nothing to fix" after a click that found nothing
};

// Choices offered for one mesh dim of a tensor of `tensorRank` dims: R, S(0..rank-1), P(sum|avg|max|min|product),
// plus `current` when it is something else (a strided shard).
std::vector<Placement> placementChoices(int tensorRank, const Placement& current);
// `spec` with mesh dim `meshDim` set to `p` (shard order dropped: it may no longer fit).
ShardingSpec withPlacement(const ShardingSpec& spec, int meshDim, const Placement& p);
// Python-like rendering of an argument: "[16, 128, 73, 64]", "index", "torch.bfloat16".
std::string argToString(const Arg& a, const Graph& g);

// `history`: the document's edits; Fix all keeps the outputs the user set by hand (views/model/fix_all.h).
void drawInspectorView(const Plan& plan, const Diagnostics& diags, const EditHistory& history,
                       InspectorViewState& state, Selection& sel, CommandQueue& cmds);

}  // namespace ss::views
