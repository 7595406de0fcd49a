#pragma once
// Shape inference for FX graphs read without annotations (repro scripts), from the op table's shape facts
// (core/ops/op_shapes.h: plain C++ rules for the ops that
// make up transformer graphs (pointwise with broadcasting, matmuls, views, reductions, indexing, attention,
// losses, c10d functional collectives...). LibTorch stays out of core, so this is a table of rules, not the
// dispatcher; what it cannot infer it names.
//
// Contract: fills `outputs` of call nodes whose metas are unknown, in topological order, from their inputs'
// metas and their literal args. Never throws; a node whose inputs are unknown or whose op has no rule stays
// unknown and is counted under its op in `unresolved` ("aten.foo.default: 3 nodes (first foo_1)").
// Returns how many nodes got shapes.
#include <string>
#include <vector>

#include "core/model/graph.h"

namespace ss::fx {

// `annotated[i]` false marks nodes whose text gave no meta of their own (tuple producers whose metas came from
// getitems): they are re-derived too, so outputs no getitem printed are filled in.
int inferShapes(Graph& g, std::vector<std::string>& unresolved, const std::vector<bool>* annotated = nullptr);

}  // namespace ss::fx
