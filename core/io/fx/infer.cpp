// FX shape inference: the driver over the op table's shape facts (core/ops/op_shapes.h), in topological order.
#include "core/io/fx/infer.h"

#include <algorithm>
#include <map>

#include "core/ops/op_shapes.h"

namespace ss::fx {

int inferShapes(Graph& g, std::vector<std::string>& unresolved, const std::vector<bool>* annotated) {
  struct Miss {
    int count = 0;
    std::string first;
  };
  std::map<std::string, Miss> misses;
  int inferred = 0;
  const ops::MetaLookup lookup = [&g](TensorRef r) { return g.meta(r); };
  for (int i = 0; i < g.size(); ++i) {
    Node& n = g.nodes[i];
    if (n.kind != NodeKind::Call) continue;
    bool anyUnknown = n.outputs.empty();
    for (auto& m : n.outputs) anyUnknown |= !m.known;
    bool rederive = annotated && i < static_cast<int>(annotated->size()) && !(*annotated)[i];
    if (!anyUnknown && !rederive) continue;
    ops::ShapeResult res = ops::inferOutputs(n, lookup);
    std::vector<TensorMeta>& r = res.outputs;
    // A rule that ran and found only data-dependent outputs (symbolic scalars, sizes read at run time) is no miss:
    // there is nothing more to know from the text. A rule that could not run (unknown inputs, no rule) is.
    const bool ran = res.verdict == ops::ShapeVerdict::Known;
    const bool anyKnown = std::any_of(r.begin(), r.end(), [](const TensorMeta& m) { return m.known; });
    if (!ran || r.empty() || !anyKnown) {
      if (ran && !r.empty()) {
        // keep what the rule knows of outputs the text left unknown: a scalar's dtype (SymInt, SymBool), a
        // tensor's dtype and its symbolic sizes (-1)
        for (size_t k = 0; k < n.outputs.size() && k < r.size(); ++k)
          if (!n.outputs[k].known && (r[k].dtype != DType::Unknown || !r[k].shape.empty())) n.outputs[k] = r[k];
        continue;
      }
      if (!anyUnknown) continue;
      Miss& m = misses[n.op];
      if (m.count++ == 0) m.first = n.name;
      continue;
    }
    // Keep what was known (a getitem annotation may have filled one output of a tuple already).
    if (r.size() < n.outputs.size()) r.resize(n.outputs.size(), TensorMeta{{}, DType::Unknown, false});
    for (size_t k = 0; k < n.outputs.size(); ++k)
      if (n.outputs[k].known) r[k] = n.outputs[k];
    if (r == n.outputs) continue;
    n.outputs = std::move(r);
    ++inferred;
  }
  for (auto& [op, m] : misses)
    unresolved.push_back(op + ": " + std::to_string(m.count) + (m.count == 1 ? " node" : " nodes") + " (first " +
                         m.first + ")");
  return inferred;
}

}  // namespace ss::fx
