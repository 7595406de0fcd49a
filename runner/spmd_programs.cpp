// runner/rank_programs.h, the SPMD half: one program (autoparallel's applied graph) on every rank of the plan's mesh,
// each rank's placeholders its pieces of the reference's whole tensors by the plan's specs, the program's
// collectives run over Gloo on the mesh dims their process groups map to, the outputs put back together by the
// plan's output specs and compared with the reference (the plan's joint graph on one device).

#include <algorithm>
#include <cmath>

#include "core/model/layout.h"
#include "runner/divergence_measure.h"
#include "runner/rank_programs_internal.h"
#include "runner/run_data.h"
#include "runner/runner.h"

namespace ss::runner {
namespace {

// The placements of a collective's group: `p` on the group's mesh dim (every mesh dim for the flattened mesh),
// Replicate elsewhere.
ShardingSpec onGroup(const DeviceMesh& mesh, int meshDim, const Placement& p) {
  ShardingSpec s = ShardingSpec::replicated(mesh.ndim());
  for (int d = 0; d < mesh.ndim(); ++d)
    if (meshDim == kAllMeshDims || meshDim == d) s.placements[d] = p;
  return s;
}

int64_t normDim(int64_t d, int64_t rank, const std::string& what) {
  if (d < -rank || d >= rank) throw std::runtime_error(what + ": dim " + std::to_string(d) + " of a " + std::to_string(rank) + "-d tensor");
  return d < 0 ? d + rank : d;
}

// Every member of the group hands in the same shape (the graph's collectives require it; Gloo would fail or hang
// on different ones): a tiny gather of each member's shape first, so that every member fails alike, naming both.
void agreeOnShape(RankComm& comm, int meshDim, const at::Tensor& x, const std::string& where) {
  constexpr int64_t kMaxDims = 16;
  if (x.dim() > kMaxDims) throw std::runtime_error(where + ": tensors above 16 dims are not supported");
  std::vector<int64_t> row(kMaxDims + 1, -1);
  row[0] = x.dim();
  for (int64_t d = 0; d < x.dim(); ++d) row[d + 1] = x.size(d);
  const DeviceMesh& mesh = comm.mesh();
  const int64_t n = spmdGroupSize(mesh, meshDim);
  at::Tensor mine = at::tensor(row, at::kLong).reshape({1, kMaxDims + 1});
  at::Tensor all = comm.redistribute(mine, {n, kMaxDims + 1}, onGroup(mesh, meshDim, Placement::shard(0)),
                                     ShardingSpec::replicated(mesh.ndim()), where);
  for (int64_t k = 0; k < n; ++k)
    if (!at::equal(all[k], all[0])) {
      auto shapeOf = [&](int64_t r) {
        std::vector<int64_t> s;
        for (int64_t d = 0; d < all[r][0].item<int64_t>(); ++d) s.push_back(all[r][d + 1].item<int64_t>());
        return shapeText(s);
      };
      throw std::runtime_error(where + ": the group's members hand in different shapes: " + shapeOf(0) + " and " +
                               shapeOf(k));
    }
}

// One collective of the program on this rank (core/run/rank_programs.h SpmdCollective has the argument orders):
// the equivalent redistribute of RankComm on the group's mesh dim(s).
at::Tensor runCollective(RankComm& comm, const SpmdPrograms& spmd, const Node& node, const std::vector<at::Tensor>& inputs) {
  auto c = readSpmdCollective(node);
  if (!c) throw std::runtime_error(c.error().message);
  if (inputs.empty() || !inputs[0].defined()) throw std::runtime_error(node.op + ": no input tensor");
  if (c->kind == SpmdCollective::Kind::Wait) return inputs[0];  // each collective completed where it was called
  const DeviceMesh& mesh = comm.mesh();
  auto it = spmd.groupDims.find(c->group);
  if (it == spmd.groupDims.end()) throw std::runtime_error(node.op + ": process group '" + c->group + "' maps to no mesh dim");
  const int dim = it->second;
  const int64_t n = spmdGroupSize(mesh, dim);
  if (n < 1 || (c->groupSize > 0 && c->groupSize != n))
    throw std::runtime_error(node.op + ": group size " + std::to_string(c->groupSize) + " on a mesh dim of " + std::to_string(n));
  const std::string where = "node " + node.name + " (" + node.opName() + " on group '" + c->group + "')";
  at::Tensor x = inputs[0].contiguous();
  agreeOnShape(comm, dim, x, where);
  const ShardingSpec R = ShardingSpec::replicated(mesh.ndim());
  std::vector<int64_t> global = x.sizes().vec();
  auto needDims = [&](int64_t k) {
    if (x.dim() < k) throw std::runtime_error(where + ": a " + std::to_string(x.dim()) + "-d input");
  };
  auto divisible = [&](int64_t d) {
    if (x.size(d) % n != 0)
      throw std::runtime_error(where + ": dim " + std::to_string(d) + " of " + shapeText(x.sizes().vec()) +
                               " is not divisible by the group's " + std::to_string(n) + " ranks");
  };
  auto partialOf = [&](const std::string& op) { return Placement::partial(*reduceOpFromName(op)); };
  switch (c->kind) {
    case SpmdCollective::Kind::AllGather:
      needDims(1);
      global[0] *= n;
      return comm.redistribute(x, global, onGroup(mesh, dim, Placement::shard(0)), R, where);
    case SpmdCollective::Kind::ReduceScatter:
      needDims(1);
      divisible(0);
      return comm.redistribute(x, global, onGroup(mesh, dim, partialOf(c->reduceOp)),
                               onGroup(mesh, dim, Placement::shard(0)), where);
    case SpmdCollective::Kind::AllReduce:
      return comm.redistribute(x, global, onGroup(mesh, dim, partialOf(c->reduceOp)), R, where);
    case SpmdCollective::Kind::ShardDimAllToAll: {
      const int64_t g = normDim(c->gatherDim, x.dim(), where), s = normDim(c->shardDim, x.dim(), where);
      divisible(s);
      global[g] *= n;
      return comm.redistribute(x, global, onGroup(mesh, dim, Placement::shard(static_cast<int>(g))),
                               onGroup(mesh, dim, Placement::shard(static_cast<int>(s))), where);
    }
    case SpmdCollective::Kind::AllToAll: {
      // Chunk j of dim 0 goes to member j; what arrives is concatenated on dim 0 in member order. As layouts: member
      // i holds row i of G[n, n, c, ...] (S(0)) and receives column i (S(1)).
      needDims(1);
      divisible(0);
      const int64_t chunk = x.size(0) / n;
      if (!c->splits.empty() && c->splits[0] != chunk)
        throw std::runtime_error(where + ": split sizes of " + std::to_string(c->splits[0]) + " for chunks of " + std::to_string(chunk));
      std::vector<int64_t> rows{1, n, chunk};
      for (int64_t d = 1; d < x.dim(); ++d) rows.push_back(x.size(d));
      std::vector<int64_t> g = rows;
      g[0] = n;
      at::Tensor moved = comm.redistribute(x.reshape(rows), g, onGroup(mesh, dim, Placement::shard(0)),
                                           onGroup(mesh, dim, Placement::shard(1)), where);
      return moved.reshape(x.sizes());
    }
    case SpmdCollective::Kind::Wait: break;
  }
  return inputs[0];
}

struct Prepared {
  Plan reference, program;
  std::vector<Plan> rankPrograms;  // per rank: the program with its local chunks at the rank's coordinate
  std::vector<int> placeholderOf;  // program placeholder node -> reference node
  int refOut = -1, progOut = -1;
  std::vector<ShardingSpec> outputSpecs;            // per returned tensor: how the ranks hold it
  std::vector<std::vector<int64_t>> outputShapes;   // per returned tensor: its whole shape (the reference's)
  std::vector<int> measuredBy;     // reference node -> the program node whose value measures it, -1 none
};

// The program's placeholders must be the reference's, each with the shape the plan's spec gives every rank; the
// program must return as many tensors as the reference. Every mismatch is a load error naming it.
std::optional<RunError> prepare(const RankPrograms& p, Prepared& out, std::vector<std::string>& notes) {
  auto bound = bindSymbols(p.reference, p.symbols);
  if (!bound) return RunError{"load", -1, -1, "", "reference: " + bound.error().message};
  out.reference = std::move(*bound);
  auto prog = bindSymbols(p.ranks.at(0), p.symbols);
  if (!prog) return RunError{"load", -1, -1, "", "the program: " + prog.error().message};
  out.program = std::move(*prog);
  const Plan& ref = out.reference;
  const Graph& g = out.program.graph;
  const DeviceMesh& mesh = ref.mesh;
  out.placeholderOf.assign(g.size(), -1);
  for (int n = 0; n < g.size(); ++n) {
    const Node& node = g.nodes[n];
    if (node.kind != NodeKind::Placeholder || symbolPlaceholderValue(out.program, n, p.symbols)) continue;
    const int k = ref.graph.find(node.name);
    const std::string who = "the program's placeholder '" + node.name + "'";
    if (k < 0 || ref.graph.nodes[k].kind != NodeKind::Placeholder)
      return RunError{"load", -1, n, node.name, who + " is not a placeholder of the reference"};
    const TensorMeta& mine = node.outputs.at(0);
    const TensorMeta& whole = ref.graph.nodes[k].outputs.at(0);
    if (!mine.known || !whole.known) return RunError{"load", -1, n, node.name, who + " has no known shape"};
    if (mine.dtype != whole.dtype)
      return RunError{"load", -1, n, node.name, who + " is " + dtypeName(mine.dtype) + ", the reference's " + dtypeName(whole.dtype)};
    const auto& specs = ref.specs.at(k).outputs;
    const ShardingSpec spec = !specs.empty() && specs[0] ? *specs[0] : ShardingSpec::replicated(mesh.ndim());
    for (int64_t r = 0; r < mesh.size(); ++r) {
      auto local = localShape(whole.shape, mesh, spec, r);
      if (!local) return RunError{"load", static_cast<int>(r), n, node.name, who + ": spec " + spec.toMeshString() + ": " + local.error().message};
      if (*local != mine.shape)
        return RunError{"load", static_cast<int>(r), n, node.name,
                        who + " is " + shapeToString(mine.shape) + "; the plan's spec " + spec.toMeshString() + " of " +
                            shapeToString(whole.shape) + " gives rank " + std::to_string(r) + " " + shapeToString(*local) +
                            " (an SPMD program runs only where every rank's pieces have the traced shapes)"};
    }
    out.placeholderOf[n] = k;
  }
  out.refOut = ref.graph.outputNode();
  out.progOut = g.outputNode();
  if (out.refOut < 0 || out.progOut < 0) return RunError{"load", -1, -1, "", "a graph without an output node"};
  const auto& refRets = ref.graph.inputs(out.refOut);
  if (refRets.size() != g.inputs(out.progOut).size())
    return RunError{"load", -1, out.progOut, "", "the program returns " + std::to_string(g.inputs(out.progOut).size()) +
                                                     " tensors, the reference " + std::to_string(refRets.size())};
  for (size_t i = 0; i < refRets.size(); ++i) {
    const TensorMeta* m = ref.graph.meta(refRets[i]);
    if (!m || !m->known) return RunError{"load", -1, out.refOut, "", "the reference's output " + std::to_string(i) + " has no known shape"};
    auto spec = ref.consumerSpec(out.refOut, static_cast<int>(i));
    if (!spec) notes.push_back("output " + std::to_string(i) + " (" + ref.graph.nodes[refRets[i].node].name +
                               ") has no spec in the plan: compared as replicated");
    out.outputSpecs.push_back(spec ? *spec : ShardingSpec::replicated(mesh.ndim()));
    out.outputShapes.push_back(m->shape);
  }
  // The apply pass's local chunks, traced with the tracing rank's index: each rank takes its own.
  for (int64_t r = 0; r < mesh.size(); ++r) {
    Plan mine = out.program;
    const auto coord = mesh.coordOf(r);
    for (const auto& [n, d] : p.spmd->rankChunks)
      mine.graph.nodes[n].args[1] = Arg::integer(d == kAllMeshDims ? r : coord[d]);
    out.rankPrograms.push_back(std::move(mine));
  }
  // Localisation: the matcher's program node for each reference node (the first that computes it).
  out.measuredBy.assign(ref.graph.size(), -1);
  const auto& refOf = p.spmd->referenceOf;
  for (int n = 0; n < g.size() && n < static_cast<int>(refOf.size()); ++n)
    if (g.nodes[n].kind == NodeKind::Call && refOf[n] >= 0 && refOf[n] < ref.graph.size() && out.measuredBy[refOf[n]] < 0)
      out.measuredBy[refOf[n]] = n;
  return std::nullopt;
}

// Each returned tensor made whole from the ranks' pieces by its output spec; every rank takes part, each gets them
// all. A piece that is not the spec's local shape on its rank fails the run, naming the output.
std::vector<at::Tensor> assembleOutputs(const Prepared& prep, const std::vector<at::Tensor>& outs, int rank, RankComm& comm) {
  const Plan& ref = prep.reference;
  const DeviceMesh& mesh = ref.mesh;
  std::vector<at::Tensor> wholes;
  for (size_t i = 0; i < outs.size(); ++i) {
    const ShardingSpec& spec = prep.outputSpecs[i];
    const std::string name = ref.graph.nodes[ref.graph.inputs(prep.refOut)[i].node].name;
    auto local = localShape(prep.outputShapes[i], mesh, spec, rank);
    if (!local || *local != outs[i].sizes().vec())
      throw NodeError(prep.progOut, "output " + std::to_string(i) + " (the reference's " + name + "): rank " +
                                        std::to_string(rank) + " holds " + shapeText(outs[i].sizes().vec()) +
                                        ", the plan's spec " + spec.toMeshString() + " of " +
                                        shapeText(prep.outputShapes[i]) + " gives " +
                                        (local ? shapeText(*local) : local.error().message));
    wholes.push_back(spec.isReplicated() ? outs[i]
                                         : comm.redistribute(outs[i], prep.outputShapes[i], spec,
                                                             ShardingSpec::replicated(mesh.ndim()),
                                                             "output " + std::to_string(i) + " (" + name + ")"));
  }
  return wholes;
}

at::ScalarType floatTypeFor(const RunOptions& o) {
  if (o.computeDtype == "f64") return at::kDouble;
  if (o.computeDtype == "planned") return at::ScalarType::Undefined;
  return at::kFloat;
}

}  // namespace

RunReport runSpmdPrograms(const RankPrograms& programs, const RunOptions& options, const RankProgramsEventSink& onEvent,
                          const std::atomic<bool>* cancel) {
  const DeviceMesh& mesh = programs.reference.mesh;
  const int ranks = static_cast<int>(programs.rankCount());
  ProgramsRun run(programs, options, mesh, onEvent, cancel);
  RunReport& report = run.report;
  const int batches = run.batches;
  if (!run.admitted()) return report;
  Prepared prep;
  if (auto e = prepare(programs, prep, report.notes)) {
    report.error = *e;
    return report;
  }
  const Plan& ref = prep.reference;
  const Plan& prog = prep.program;
  if (auto e = placeholderMemoryRefusal(ref, ranks + 1, options, report)) {
    report.error = *e;
    return report;
  }
  const at::ScalarType floatType = floatTypeFor(options);
  // In the graph's own bf16 / f16 (--dtype planned), every op rounds to 8 (11) significant bits and sharding moves
  // where the roundings fall: llama3_2d measured 2.7e-3 on its output and 1.5e-2 on its worst gradient, so the
  // default tolerance there is 5e-2 (f32 and f64 runs keep 1e-4: only the order of sums differs).
  if (options.rtol < 0 && floatType == at::ScalarType::Undefined &&
      std::any_of(ref.graph.nodes.begin(), ref.graph.nodes.end(), [](const Node& n) {
        return std::any_of(n.outputs.begin(), n.outputs.end(),
                           [](const TensorMeta& m) { return m.dtype == DType::BF16 || m.dtype == DType::F16; });
      })) {
    report.rtol = 5e-2;
    run.note("--dtype planned on a bf16/f16 graph: rtol 5e-2 unless --rtol is given");
  }
  run.note("applied graph: the one program on each of the " + std::to_string(ranks) + " ranks, its collectives over "
           "Gloo on the mesh dims their groups map to; the reference runs the joint graph alone; verdict: every "
           "output put together from the ranks by the plan's output specs against the reference's (columns "
           "reference / sharded: the norm of output 0)");
  const uint64_t seed = report.seed;
  // Localisation on batch 0: the reference keeps the values of the nodes the program computes too.
  std::optional<ReferenceStore> refs;
  if (options.localise) refs.emplace(ref, 1, ranks);

  // ---- reference ----
  std::vector<std::vector<at::Tensor>> wholes(batches), refOutputs(batches);
  const bool refDone = run.runReference(ref, [&](int b) {
    wholes[b] = wholeInputs(programs, ref, b, seed, floatType);
    Values values = clonedPlaceholders(wholes[b]);
    ExecEnv env = asWrittenEnv(ref, -1, b, cancel, floatType);
    env.callOverride = [&ref](int n, const std::vector<at::Tensor>& inputs) -> std::optional<std::vector<at::Tensor>> {
      if (isSpmdCollectiveNode(ref.graph.nodes[n]))
        throw std::runtime_error("the reference graph calls a collective: it is not one device's graph");
      return sizeArithmetic(ref.graph.nodes[n], inputs);
    };
    if (refs && b == 0) env.afterNode = [&](int n, const std::vector<at::Tensor>& outs) {
      if (prep.measuredBy[n] >= 0) refs->keep(0, n, outs);
    };
    runGraph(env, values);
    refOutputs[b] = values[prep.refOut];
  });
  if (!refDone) return report;
  // Reference values no program node measures are not kept; the others go when every rank has measured them.

  // ---- ranks ----
  std::vector<std::vector<BlockMeasure>> measures(ranks);
  std::vector<std::vector<double>> outputErrors(batches);  // rank 0: per output, rel. error against the reference
  std::vector<std::pair<double, double>> firstNorms(batches, {std::nan(""), std::nan("")});  // output 0: ref, sharded
  const bool ranksDone = run.runRanks([&](int rank) -> const Plan& { return prep.rankPrograms[rank]; },
                                      [&](int rank, RankComm& comm) {
    const Plan& prog = prep.rankPrograms[rank];
    for (int b = 0; b < batches; ++b) {
      Values values(prog.graph.size());
      for (int n = 0; n < prog.graph.size(); ++n) {
        const int k = prep.placeholderOf[n];
        if (k >= 0) values[n] = {localPiece(ref, k, wholes[b][k], rank, /*copy=*/true)};
        else if (auto v = symbolPlaceholderValue(prog, n, programs.symbols)) values[n] = {sizeTensor(*v)};
      }
      ExecEnv env = asWrittenEnv(prog, rank, b, cancel, floatType);
      env.callOverride = [&](int n, const std::vector<at::Tensor>& inputs) -> std::optional<std::vector<at::Tensor>> {
        const Node& node = prog.graph.nodes[n];
        if (isSpmdCollectiveNode(node)) return std::vector<at::Tensor>{runCollective(comm, *programs.spmd, node, inputs)};
        return sizeArithmetic(node, inputs);
      };
      if (refs && b == 0) env.afterNode = [&](int n, const std::vector<at::Tensor>& outs) {
        const int p = programs.spmd->referenceOf[n];
        if (p < 0 || prep.measuredBy[p] != n) return;
        measureNode(ref, *refs, 0, p, outs, rank, &comm, measures[rank]);
        refs->done(0, p);
      };
      runGraph(env, values);
      // The outputs, put back together by the plan's output specs (every rank takes part; rank 0 compares).
      const std::vector<at::Tensor> assembled = assembleOutputs(prep, values[prep.progOut], rank, comm);
      if (rank == 0) {
        for (size_t i = 0; i < assembled.size(); ++i)
          outputErrors[b].push_back(maxRelError({assembled[i]}, {refOutputs[b][i]}));
        if (!assembled.empty())
          firstNorms[b] = {refOutputs[b][0].to(at::kDouble).norm().item<double>(),
                           assembled[0].to(at::kDouble).norm().item<double>()};
      }
      run.rankDone(rank, b, prog.graph.size());
    }
  });
  if (!ranksDone) return report;
  if (refs) {
    Localisation loc = localise(ref, refs->facts(), measures, report.rtol);
    report.localised = true;
    auto withAppliedName = [&](std::optional<Divergence>& d) {
      if (d && d->nodeIndex >= 0 && prep.measuredBy[d->nodeIndex] >= 0)
        d->detail += " (the applied graph's " + prog.graph.nodes[prep.measuredBy[d->nodeIndex]].name + ")";
    };
    report.firstDivergence = loc.first;
    report.replicaDisagreement = loc.replicas;
    withAppliedName(report.firstDivergence);
    withAppliedName(report.replicaDisagreement);
  }
  for (int b = 0; b < batches; ++b) {
    BatchResult br;
    br.batch = b;
    br.reference = firstNorms[b].first;
    br.combined = br.mean = firstNorms[b].second;
    br.relError = outputErrors[b].empty() ? std::nan("") : outputErrors[b][0];
    br.outputsCompared = static_cast<int>(outputErrors[b].size());
    br.outputRelError = 0;
    bool finite = !outputErrors[b].empty();
    for (double e : outputErrors[b]) {
      finite = finite && std::isfinite(e);
      br.outputRelError = std::max(br.outputRelError, e);
    }
    br.match = finite && br.outputRelError <= report.rtol;
    br.gradRatio = std::nan("");
    run.addBatch(br);
  }
  return report;
}

}  // namespace ss::runner
