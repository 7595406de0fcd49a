#pragma once
// DeepSpeed AutoSP's slicing of its inputs as a real graph after its passes holds it (the rank-local aten joint
// graph of a TORCH_TRACE log; tests/data/real/autosp/), read from the graph alone: which placeholder is sliced,
// on which dim, into how many parts, whose part, and the sequence AutoSP's all-to-alls gather. The checker
// (autosp_graph.h) judges the sliced dim against the sequence; annotateAutoSpSlices gives the plan what the mesh
// view draws.
//
// Shapes in the graph are symbolic (`i64[s72, s70]`, `(s70//2)`); the log's create_symbol records give each
// symbol's hint (the size it was traced with). With hints the sizes are concrete, and said to be hints.
#include <set>
#include <string>
#include <vector>

#include "core/model/autosp_sliced.h"
#include "core/model/plan.h"

namespace ss {

inline constexpr const char* kAutoSpAllToAllOp = "autosp.all_to_all.default";
inline constexpr const char* kAutoSpMeshDimName = "sp";

// The size symbols of a printed size: "2*s72" -> {s72}; "(s70//2)" -> {s70}; "32" -> {}.
std::set<std::string> sizeSymbols(const std::string& size);

// A slice as AutoSP makes it: node `node` is aten.slice.Tensor(x, dim, start, end) with a symbolic bound, x a
// placeholder with symbolic sizes (through whole-range slices, which AOT autograd prints for untouched dims).
struct AutoSpSliceNode {
  int node = -1;
  int placeholder = -1;  // -1: not such a slice
  int dim = -1;          // normalised to [0, rank)
};
AutoSpSliceNode autoSpSliceAt(const Graph& g, int node);
// Every such slice, in graph order.
std::vector<AutoSpSliceNode> autoSpSliceNodes(const Graph& g);

// The sequence AutoSP's all-to-alls gather: the first `autosp.all_to_all.default(x, scatter, gather, name)` whose
// output's gathered size is symbolic, its node, that size ("2*s72") and its symbols ({s72}). node -1: none.
struct AutoSpSequence {
  int node = -1;
  std::string gatheredSize;
  std::set<std::string> symbols;
};
AutoSpSequence autoSpSequence(const Graph& g);
// The dim of placeholder `p` whose size carries one of the sequence's symbols (the last such), or -1.
int autoSpSequenceDim(const Node& p, const AutoSpSequence& seq);

// Every input AutoSP slices (one entry per slice node, in graph order), with `hints` for the sizes. The sequence
// dim of an input whose symbols the all-to-alls do not gather (labels) is the one the other inputs of its rank
// have. Empty when the graph has no AutoSP slice.
std::vector<AutoSpSlicedInput> findAutoSpSlicedInputs(const Graph& g, const SymbolHints& hints);

// Gives a plan read from such a graph what the mesh view needs, when it has AutoSP slices that agree on their
// divisor and the plan has no mesh of its own (the default 1-rank mesh): the 1-d SP mesh `sp` of that size;
// each slice's output Shard(dim) (this rank's part of the placeholder); plan.autoSpSliced. The placeholders keep
// no spec: every rank is handed the full input (Replicate), but a Replicate input to a slice declared Shard
// would be an output-spec mismatch to the checker, which judges a global plan, not a rank's graph where the
// slice is the sharding. Returns whether it changed the plan.
bool annotateAutoSpSlices(Plan& plan, const SymbolHints& hints);

}  // namespace ss
