// core/check/autosp_graph.h: AutoSP's sliced dim against the sequence its all-to-alls gather.
#include "core/check/autosp_graph.h"

#include <string>

#include "core/check/autosp_slices.h"

namespace ss {

std::vector<Diagnostic> checkAutoSpGraph(const Plan& plan) {
  const Graph& g = plan.graph;
  // The sequence: the first all-to-all whose gathered size is symbolic (core/check/autosp_slices.h).
  const AutoSpSequence seq = autoSpSequence(g);
  const int a2a = seq.node;
  const std::string& gatheredSize = seq.gatheredSize;
  std::vector<Diagnostic> out;
  if (a2a < 0) return out;

  struct Sliced {
    int node;
    AutoSpSliceNode s;
  };
  std::vector<Sliced> slices;
  for (const AutoSpSliceNode& s : autoSpSliceNodes(g)) slices.push_back({s.node, s});

  // The inputs whose own symbols name the sequence: their sequence dim, and whether AutoSP sliced another.
  int seqDimOfInputs = -1, slicedDimOfInputs = -1, rankOfInputs = -1;
  std::string inputName;
  std::vector<const Sliced*> unresolved;
  auto report = [&](const Sliced& x, int seqDim, const std::string& why) {
    const Node& p = g.nodes[x.s.placeholder];
    Diagnostic d;
    d.severity = Severity::Error;
    d.kind = DiagKind::SeqDimMismatch;
    d.node = x.node;
    d.message = "AutoSP slices dim " + std::to_string(x.s.dim) + " (" + p.symbolicShape[x.s.dim] + ") of " + p.name +
                " " + p.shapeText() + ", but the sequence is dim " + std::to_string(seqDim) + " (" +
                p.symbolicShape[seqDim] + ")" + why;
    d.fix = "slice dim " + std::to_string(seqDim) + ": tag the input (key, " + std::to_string(seqDim) +
            ") and let AutoSP's passes read and slice the tagged dim; here, Fix all (or `shardscope fix`) moves "
            "this slice to dim " + std::to_string(seqDim) + " as DeepSpeed's fixed passes do";
    out.push_back(std::move(d));
  };
  for (const Sliced& x : slices) {
    const Node& p = g.nodes[x.s.placeholder];
    const int seqDim = autoSpSequenceDim(p, seq);
    if (seqDim < 0) {
      unresolved.push_back(&x);
      continue;
    }
    seqDimOfInputs = seqDim;
    slicedDimOfInputs = x.s.dim;
    rankOfInputs = static_cast<int>(p.symbolicShape.size());
    inputName = p.name;
    if (seqDim != x.s.dim)
      report(x, seqDim, ": " + g.nodes[a2a].name + " (AutoSP's all-to-all) gathers the sequence as " + gatheredSize);
  }
  // Tagged inputs with symbols of their own, sliced as the input ids were: the same verdict, said so.
  for (const Sliced* x : unresolved) {
    const Node& p = g.nodes[x->s.placeholder];
    if (seqDimOfInputs < 0 || static_cast<int>(p.symbolicShape.size()) != rankOfInputs ||
        x->s.dim != slicedDimOfInputs || seqDimOfInputs == x->s.dim)
      continue;
    report(*x, seqDimOfInputs, ", as for " + inputName + " (the tagged inputs share their sequence dim)");
  }
  return out;
}

}  // namespace ss
