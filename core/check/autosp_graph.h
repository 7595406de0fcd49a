#pragma once
// DeepSpeed AutoSP's passes as a real graph shows them: the aten joint graph that AOT autograd compiles after
// AutoSP (a TORCH_TRACE log's aot_joint_graph record; tests/data/real/autosp/). No tags survive into any graph
// text, so the sequence dim is read from what the graph does with it:
// - AutoSP's Ulysses all-to-all (`autosp.all_to_all.default(x, scatter_idx, gather_idx, name)`) gathers the
//   sequence: the symbols of its output's gathered size (`2*s72`, `s72`) name the sequence's size symbol;
// - AutoSP's slicing of a tagged input is `aten.slice.Tensor(x, dim, start, end)` of a placeholder (through
//   whole-range slices) whose bounds are symbolic scalars (`rank * (s // sp)`); the dim it slices has its own
//   size symbol in the placeholder's annotation.
// A slice of another dim than the one carrying the sequence symbol is a seq-dim-mismatch error at the slicing
// node, naming both dims (seed 2: AutoSP reads the sequence from shape[1] and slices dim 1, whatever seq_dim
// mark_dynamic was given). A tagged input whose own symbols do not meet the all-to-all's (the labels: Dynamo gives
// them symbols of their own) is judged like the input ids when it is sliced alike: the tagged inputs share their
// sequence dim.
#include <vector>

#include "core/model/diagnostics.h"
#include "core/model/plan.h"

namespace ss {

// Plan-wide pass: nothing unless the graph has AutoSP all-to-alls with symbolic sizes.
std::vector<Diagnostic> checkAutoSpGraph(const Plan& plan);

}  // namespace ss
