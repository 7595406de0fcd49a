#pragma once
// The op table's shape facts: for one call node, given its tensor inputs' metas and its literal arguments, the
// metas of its outputs, or that its inputs cannot go together. The one source of op shape semantics: FX shape
// inference (core/io/fx/infer.h) fills unknown outputs from it, and the checker (core/check/check.cpp) compares every
// declared output against it and reports inputs that do not fit (so an applied graph, whose shapes are local, is
// checked alone). Sharding semantics live in core/rules/*; the op table (core/ops/op_table.h) holds both rules with the op's
// other facts.
//
// Contract: total (never throws), pure, cheap enough to run twice per node of a 100k-node graph. A rule:
//   - Known: one meta per output (an entry may be unknown: an output whose size depends on data);
//   - Mismatch: the inputs (as shaped) cannot feed the op; `input` names the tensor input (input index, see
//     core/model/graph.h) and `message` names the shapes that collide, e.g. "index_put: values of shape [16, 32, 1, 64]
//     do not broadcast to the slots they fill in self, [4, 128, 1, 64]";
//   - Unknown: an input's meta or a needed argument is unknown (symbolic sizes), or the op has no shape rule.
// When `argsComplete` is false (an autoparallel export: args are the tensor inputs only) only rules that read
// nothing but tensor inputs run; the others are Unknown rather than reading a missing argument as its default.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/graph.h"

namespace ss::ops {

enum class ShapeVerdict : uint8_t { Unknown, Known, Mismatch };

struct ShapeResult {
  ShapeVerdict verdict = ShapeVerdict::Unknown;
  std::vector<TensorMeta> outputs;  // Known: one per output
  int input = -1;                   // Mismatch: the tensor input that does not fit (-1: the op as a whole)
  std::string message;              // Mismatch: what collides, with both shapes
};

// The meta of a tensor reference; nullptr (or an unknown meta) when it is not known.
using MetaLookup = std::function<const TensorMeta*(TensorRef)>;

ShapeResult inferOutputs(const Node& n, const MetaLookup& meta, bool argsComplete = true);
inline ShapeResult inferOutputs(const Node& n, const Graph& g, bool argsComplete = true) {
  return inferOutputs(n, [&g](TensorRef r) { return g.meta(r); }, argsComplete);
}
// True when the op (any namespace/overload spelling, as rules::ruleKey reads it) has a shape rule.
bool hasShapeRule(std::string_view op);

}  // namespace ss::ops
