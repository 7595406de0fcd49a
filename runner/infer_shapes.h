#pragma once
// Shape inference on meta tensors through LibTorch's dispatcher: the second pass after core's plain C++ rules
// (core/io/fx/infer.h) for graphs read without annotations. Plain C++ header; the Torch code is in
// runner/infer_shapes.cpp, run by `shardscope-runner infer-shapes` (a child process, like runs).
//
// Contract: fills the outputs of call nodes whose metas are unknown by executing the graph in order on meta
// tensors (no data, no memory) with the runner's executor (runner/torch_internal.h: runGraph, reference mode,
// dtypes as planned). Placeholders need known metas. Ops with no tensor inputs (factories) are never executed
// (core's rules size them from their args). An op that fails (no meta kernel, not in this LibTorch) is named
// in `unresolved` with the reason, and every node depending on it stays unknown, counted under that op.
// Never throws.
#include <string>
#include <vector>

#include "core/model/plan.h"

namespace ss::runner {

struct MetaInferReport {
  int inferred = 0;                      // nodes whose metas this pass filled
  std::vector<std::string> unresolved;   // "aten.foo.default: 3 nodes (first foo_1): <reason>"
  std::vector<int> changed;              // node indices filled
};
MetaInferReport inferShapesOnMeta(Plan& plan);

// `shardscope-runner infer-shapes FILE [-o OUT.plan.json] [--json]`: loads FILE (FX text gets core's rules
// first), runs inferShapesOnMeta, writes the native plan to OUT, prints a summary (or with --json:
// {"inferred": N, "unresolved": [...], "nodes": {"name": [{"shape": [...], "dtype": "bf16"}, ...]}}).
// Exit code 0 when every meta is known, 1 when some stay unknown, 2 for unusable input.
int inferShapesMain(int argc, char** argv);

}  // namespace ss::runner
