#pragma once
// `--scale N`: a smaller copy of a plan that keeps every ratio that matters for sharding bugs.
//
// Contract: every tensor dim size divisible by N is divided by N; a dim that a view/reshape merges from several
// dims becomes the product of their scaled sizes (so 16 x 128 -> 2048 becomes 4 x 32 -> 128 at N = 4, not 512),
// and a dim it splits into several becomes the product of theirs. Sizes not divisible by N stay (73 heads stay
// 73, so slicing `[..., :-2, :]` still gives 71). Size arguments of view/reshape/expand/factory ops follow their
// node's scaled output shape; other integer arguments (slice bounds, dims) are unchanged. Mesh, specs,
// redistributes and tags are unchanged, so per-rank local shapes shrink by the same factors:
// seed 1 at N = 4 gives [4, 8, 1, 16] against [1, 32, 1, 16] instead of [16, 32, 1, 64] against [4, 128, 1, 64].
// Fails (naming the node) when the scaled shapes would disagree with each other, and refuses (naming the node, the
// dim and its sizes) a factor that would change what the plan means, so a scale it accepts gives the verdict of
// scale 1: a dim larger than 1 that would become 1 (it would broadcast), or a sharded dim (by a spec, a
// redistribute's end or an AutoSP tag) whose split over its ranks would stop being even or change its uneven
// chunks. The runner reports that as stage "scale", a refusal (exit 2).
#include "core/model/plan.h"

namespace ss::runner {

Result<Plan> scalePlan(const Plan& plan, int factor);

}  // namespace ss::runner
