// The checker (core/check/check.h): per node, the specs on its edges, its rule, its shapes and its shards.
//
// Sections: edge helpers (what arrives on an edge), redistribute wording, per-node checks (specs, edges, rule,
// shapes, shards, AutoSP tags), Checker (full run, incremental update, merge).
//
// What "arrives" on an edge (consumer n, input i): the `to` of a redistribute on that edge, else the producer's
// output spec. In an autoparallel export every edge whose src differs from its dst is a transition the solver
// planned and its apply pass inserts, so there the consumer's declared input spec arrives (and the edge is
// reported as "redistribute-required", info). Rules always run on what arrives.
//
// AutoSP sequence dim: an AutoSP-tagged input (plan.tags) is sliced by AutoSP along its tag's dimension (a bare
// key means dim 1). "The dimension the plan's own specs treat as its sequence" is read from the specs:
//   - Only sequence-parallel mesh dims count: those named sp, seq, cp, context or ulysses (or starting so);
//     when none is so named, every mesh dim not named for another kind of parallelism (dp, ddp, fsdp, hsdp,
//     tp, pp, ep, batch), and when run.sp_size > 0, only those of that size. (A batch shard on a "dp" dim is
//     data parallelism, not the sequence.)
//   - (1) The placeholder's own output spec: if its sequence-parallel mesh dims shard exactly one tensor dim,
//     that is the plan's sequence dim; (2) otherwise the first consumer whose declared input spec for it does.
//   - When no spec shards it on such a mesh dim there is nothing to compare and no diagnostic.
// A tag whose effective dim differs is a "seq-dim-mismatch" error: AutoSP would slice another dim than the one
// the rest of the plan treats as the sequence.
#include "core/check/check.h"
#include "core/check/autosp_graph.h"
#include "core/check/torch_version.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "core/model/layout.h"
#include "core/ops/op_safety.h"
#include "core/ops/op_shapes.h"
#include "core/rules/engine.h"

namespace ss {

namespace {

std::string placementWord(const Placement& p) {
  switch (p.kind) {
    case PlacementKind::Replicate: return "Replicate()";
    case PlacementKind::Shard: return "Shard(" + std::to_string(p.dim) + ")";
    case PlacementKind::StridedShard:
      return "_StridedShard(" + std::to_string(p.dim) + ", sf=" + std::to_string(p.splitFactor) + ")";
    case PlacementKind::Partial: return std::string("Partial(") + reduceOpName(p.reduce) + ")";
  }
  return "?";
}

// "all_to_all on mesh dim 1 (dim1), Shard(1) -> Shard(0), 48.0 KiB per rank, 3.3 us"
std::string describePlan(const RedistributePlan& rp, const DeviceMesh& mesh) {
  if (!rp.possible) return rp.whyNot;
  std::string out;
  for (const auto& s : rp.steps) {
    if (s.kind == CollectiveKind::None) continue;
    if (!out.empty()) out += ", then ";
    out += std::string(collectiveName(s.kind)) + " on mesh dim " + std::to_string(s.meshDim) + " (" +
           mesh.dimName(s.meshDim) + "), " + placementWord(s.from) + " -> " + placementWord(s.to);
  }
  if (out.empty()) return "no communication";
  return out + ", " + formatBytes(rp.totalBytes()) + " per rank, " + formatTimeUs(rp.totalTimeUs());
}

// What a node check reads besides the plan: its tensor inputs and users come from the graph's own index
// (Graph::reindex, which every reader and edit path keeps current), the redistributes from the checker's.
struct NodeEnv {
  const Plan& plan;
  const CheckOptions& opts;
  const RedistIndex& redist;
  TorchVersionJudge judge;  // the DTensor that judges version-dependent verdicts (Plan::torchVersion)
};

const TensorMeta* metaOf(const Plan& plan, TensorRef r) {
  if (r.node < 0 || r.node >= plan.graph.size()) return nullptr;
  const auto& outs = plan.graph.nodes[r.node].outputs;
  if (r.output < 0 || r.output >= static_cast<int>(outs.size()) || !outs[r.output].known) return nullptr;
  return &outs[r.output];
}

// The producer's declared output spec for `r`; nullptr when it has none. (Pointers, not copies: the checker
// visits every edge, and a ShardingSpec copy allocates.)
const ShardingSpec* outSpec(const Plan& plan, TensorRef r) {
  if (r.node < 0 || r.node >= static_cast<int>(plan.specs.size())) return nullptr;
  const auto& outs = plan.specs[r.node].outputs;
  if (r.output < 0 || r.output >= static_cast<int>(outs.size()) || !outs[r.output]) return nullptr;
  return &*outs[r.output];
}

// Node n's declared spec for input i; nullptr when it declares none.
const ShardingSpec* declaredIn(const Plan& plan, int n, int i) {
  if (n >= static_cast<int>(plan.specs.size())) return nullptr;
  const auto& ins = plan.specs[n].inputs;
  return i < static_cast<int>(ins.size()) && ins[i] ? &*ins[i] : nullptr;
}

// A spec is usable for a tensor when it validates against the mesh and the tensor's rank.
bool usable(const ShardingSpec* s, const Plan& plan, const TensorMeta* meta) {
  return s && validateSpec(*s, plan.mesh, meta ? meta->rank() : -1).empty();
}
bool usable(const ShardingSpec& s, const Plan& plan, const TensorMeta* meta) { return usable(&s, plan, meta); }

// "primals_1 (proj.weight)": a parameter placeholder by name, with its module path when it has one.
std::string paramLabel(const Plan& plan, int p) {
  const Node& n = plan.graph.nodes[p];
  return n.modulePath.empty() || n.modulePath == n.name ? n.name : n.name + " (" + n.modulePath + ")";
}

Diagnostic make(Severity sev, DiagKind kind, int node, int input, std::string message) {
  Diagnostic d;
  d.severity = sev;
  d.kind = kind;
  d.node = node;
  d.input = input;
  d.message = std::move(message);
  return d;
}

// Uneven and empty shards of one output: one diagnostic for the first dim that has them.
void checkShards(const Plan& plan, int n, int o, const ShardingSpec& spec, const TensorMeta& meta,
                 std::vector<Diagnostic>& out) {
  for (int d = 0; d < meta.rank(); ++d) {
    // Fast path, nearly every dim of a real plan, without allocating: the splits of dim d divide it evenly in any
    // order exactly when the product of their mesh dim sizes divides it. Then there is nothing to report.
    int64_t split = 1;
    bool sharded = false;
    for (int m = 0; m < spec.meshDims() && m < plan.mesh.ndim(); ++m)
      if (spec[m].isShard(d)) {
        sharded = true;
        split *= std::max<int64_t>(1, plan.mesh.dimSize(m));
        if (split > (int64_t{1} << 40)) break;  // no real mesh is this large; let the exact path decide
      }
    if (!sharded || (split <= (int64_t{1} << 40) && meta.shape[d] % split == 0)) continue;
    std::vector<int> dims = spec.meshDimsSharding(d);
    if (dims.empty()) continue;
    std::set<int64_t> sizes{meta.shape[d]};
    bool uneven = false, empty = false;
    int64_t ranks = 1;
    for (int m : dims) {
      int64_t k = plan.mesh.dimSize(m);
      ranks *= k;
      std::set<int64_t> next;
      for (int64_t s : sizes) {
        if (s % k != 0) uneven = true;
        for (int64_t c : chunkSizes(s, k)) {
          next.insert(c);
          if (c == 0) empty = true;
        }
      }
      sizes = std::move(next);
    }
    if (!uneven) continue;
    std::string sizesText;
    for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) sizesText += (sizesText.empty() ? "" : ", ") + std::to_string(*it);
    std::string where = plan.graph.nodes[n].outputs.size() > 1 ? "output " + std::to_string(o) + " " : "";
    Diagnostic diag = make(Severity::Warning, empty ? DiagKind::EmptyShard : DiagKind::UnevenShard, n, -1,
                           where + "dim " + std::to_string(d) + " of size " + std::to_string(meta.shape[d]) +
                               " splits over " + std::to_string(ranks) + " ranks (" + spec.toMeshString() +
                               ") into local sizes " + sizesText +
                               (empty ? ": some ranks hold no elements" : ": shards are uneven"));
    diag.have = spec;
    diag.fix = empty ? "shard a larger dim, or fewer ranks on this dim" : "pad the dim to a multiple of " +
                                                                              std::to_string(ranks) + ", or shard another dim";
    out.push_back(std::move(diag));
    return;
  }
}

// The mesh dims that carry sequence parallelism (see the file comment).
std::vector<bool> sequenceMeshDims(const Plan& plan) {
  const int M = plan.mesh.ndim();
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  auto startsWithAny = [](const std::string& s, std::initializer_list<const char*> ps) {
    for (const char* p : ps)
      if (s.rfind(p, 0) == 0) return true;
    return false;
  };
  std::vector<bool> named(M, false), other(M, false);
  bool anyNamed = false;
  for (int m = 0; m < M; ++m) {
    if (!plan.mesh.hasNames()) break;
    std::string n = lower(plan.mesh.dimNames()[m]);
    named[m] = startsWithAny(n, {"sp", "seq", "cp", "context", "ulysses"});
    other[m] = startsWithAny(n, {"dp", "ddp", "fsdp", "hsdp", "tp", "pp", "ep", "batch"});
    anyNamed |= named[m];
  }
  if (anyNamed) return named;
  std::vector<bool> out(M, false);
  for (int m = 0; m < M; ++m)
    out[m] = !other[m] && (plan.run.spSize <= 0 || plan.mesh.dimSize(m) == plan.run.spSize);
  return out;
}

void checkSeqDim(const NodeEnv& env, int n, std::vector<Diagnostic>& out) {
  const Plan& plan = env.plan;
  auto tagIt = plan.tags.find(n);
  if (tagIt == plan.tags.end()) return;
  const AutoSpTag& tag = tagIt->second;
  const Node& node = plan.graph.nodes[n];
  if (node.outputs.empty() || !node.outputs[0].known) return;
  int rank = node.outputs[0].rank();
  if (tag.effectiveDim() < 0 || tag.effectiveDim() >= rank) return;  // an invalid-tag (Plan::validatePlanWide)
  std::vector<bool> seqMesh = sequenceMeshDims(plan);
  auto shardedDims = [&](const ShardingSpec& s) {
    std::set<int> dims;
    for (int m = 0; m < s.meshDims() && m < static_cast<int>(seqMesh.size()); ++m)
      if (seqMesh[m] && s[m].isShard() && s[m].dim < rank) dims.insert(s[m].dim);
    return dims;
  };
  std::optional<ShardingSpec> basis;
  std::string from;
  if (const ShardingSpec* s = outSpec(plan, {n, 0}); s && shardedDims(*s).size() == 1) {
    basis = *s;
    from = "its own spec";
  } else {
    for (const auto& [c, i] : plan.graph.users(n)) {
      const ShardingSpec* d = declaredIn(plan, c, i);
      if (d && shardedDims(*d).size() == 1) {
        basis = *d;
        from = plan.graph.nodes[c].name + "'s input spec";
        break;
      }
    }
  }
  if (!basis) return;
  int planDim = *shardedDims(*basis).begin();
  int tagDim = tag.effectiveDim();
  if (tagDim == planDim) return;
  ShardingSpec autosp = *basis;
  for (int m = 0; m < autosp.meshDims() && m < static_cast<int>(seqMesh.size()); ++m)
    if (seqMesh[m] && autosp[m].isShard()) autosp.placements[m].dim = tagDim;
  Diagnostic d = make(Severity::Error, DiagKind::SeqDimMismatch, n, -1,
                      node.name + " is tagged " + tag.toString() + (tag.seqDim ? "" : " (a bare key: AutoSP slices dim 1)") +
                          ", so AutoSP shards dim " + std::to_string(tagDim) + " of " + shapeToString(node.outputs[0].shape) +
                          ", but the plan treats dim " + std::to_string(planDim) + " as the sequence (" + from + " is " +
                          basis->toMeshString() + ")");
  d.have = autosp;
  d.want = basis;
  d.fix = "tag it (" + tag.key + ", " + std::to_string(planDim) + ")";
  out.push_back(std::move(d));
}

// Output specs: validateNode's findings become `out`; the usable declared ones go into ctx.declaredOut; uneven shards.
void checkOutputSpecs(const NodeEnv& env, int n, rules::RuleContext& ctx, std::vector<Diagnostic>& out) {
  const Plan& plan = env.plan;
  const Node& node = plan.graph.nodes[n];
  // The rule context owns the one copy of the declared output specs (invalid ones are dropped from it).
  std::vector<std::optional<ShardingSpec>>& declaredOut = ctx.declaredOut;
  if (n < static_cast<int>(plan.specs.size())) declaredOut = plan.specs[n].outputs;
  else declaredOut.clear();
  // The plan's own rules (invalid specs, redistributes that do not fit) come from Plan::validateNode, the one
  // rulebook; below, what they refuse is only left out of the inference.
  {
    const auto& refsN = plan.graph.inputs(n);
    int small[16];  // no allocation for the usual few inputs
    std::vector<int> large(refsN.size() > 16 ? refsN.size() : 0);
    int* redistOf = large.empty() ? small : large.data();
    for (size_t i = 0; i < refsN.size(); ++i) redistOf[i] = env.redist.find(n, static_cast<int>(i));
    out = plan.validateNode(n, std::span<const int>(redistOf, refsN.size()));
  }
  for (size_t o = 0; o < declaredOut.size(); ++o) {
    if (!declaredOut[o]) continue;
    const TensorMeta* meta = o < node.outputs.size() && node.outputs[o].known ? &node.outputs[o] : nullptr;
    if (!usable(*declaredOut[o], plan, meta)) {
      declaredOut[o].reset();
      continue;
    }
    if (meta && env.opts.reportUnevenShards) checkShards(plan, n, static_cast<int>(o), *declaredOut[o], *meta, out);
  }
}

// Edges: findings on each input edge into `out`, what arrives into ctx; returns whether an edge lacks its redistribute.
bool checkEdges(const NodeEnv& env, int n, bool autoparallel, rules::RuleContext& ctx, std::vector<Diagnostic>& out) {
  const Plan& plan = env.plan;
  const Node& node = plan.graph.nodes[n];
  const auto& refs = plan.graph.inputs(n);
  bool edgeMissing = false;  // then the output the rule computes follows from the missing edge: not reported
  ctx.node = &node;
  ctx.mesh = &plan.mesh;
  ctx.inMetas.clear();
  ctx.inSpecs.resize(refs.size());
  ctx.argsComplete = plan.sourceFormat != PlanFormat::AutoparallelJson;
  for (size_t i = 0; i < refs.size(); ++i) {
    const int in = static_cast<int>(i);
    const TensorMeta* meta = metaOf(plan, refs[i]);
    ctx.inMetas.push_back(meta);
    const ShardingSpec* producer = outSpec(plan, refs[i]);
    if (producer && !usable(producer, plan, meta)) producer = nullptr;  // reported at the producer
    const ShardingSpec* declared = declaredIn(plan, n, in);
    // At the output, a gradient with no input spec must end in its parameter's placement (Plan::consumerSpec).
    int gradParam = -1;
    if (!declared && node.kind == NodeKind::Output && (declared = plan.gradientTargetSpec(in)))
      gradParam = plan.gradientParamOf(in);
    if (declared && !usable(declared, plan, meta)) declared = nullptr;  // reported by validateNode
    const ShardingSpec* arriving = producer;
    static const std::string unknownName = "?";
    const std::string& producerName =
        refs[i].node >= 0 && refs[i].node < plan.graph.size() ? plan.graph.nodes[refs[i].node].name : unknownName;
    if (const int rk = env.redist.find(n, in); rk >= 0) {
      const Redistribute& r = plan.redistributes[rk];
      if (!usable(r.from, plan, meta) || !usable(r.to, plan, meta)) {  // reported by validateNode
        arriving = declared;
      } else {
        if (producer && r.from != *producer) {
          Diagnostic d = make(Severity::Error, DiagKind::BadRedistribute, n, in,
                              "the redistribute on this edge starts from " + r.from.toMeshString() + ", but " +
                                  producerName + " delivers " + producer->toMeshString());
          d.have = *producer;
          d.want = r.from;
          d.fix = "make the redistribute start from " + producer->toMeshString();
          out.push_back(std::move(d));
        }
        if (meta) {
          RedistributePlan rp = planRedistribute(*meta, plan.mesh, r.from, r.to, env.opts.cost);
          if (!rp.possible) {
            Diagnostic d = make(Severity::Error, DiagKind::BadRedistribute, n, in,
                                "the redistribute " + r.from.toMeshString() + " -> " + r.to.toMeshString() +
                                    " is not possible: " + rp.whyNot);
            d.have = r.from;
            d.want = r.to;
            out.push_back(std::move(d));
          } else {
            // Possible for DTensor 2.14; the DTensor of the torch that wrote the plan may refuse a step of it.
            for (const RedistributeStep& step : rp.steps)
              if (auto why = refusedByRelease(env.judge, step)) {
                Diagnostic d = make(Severity::Error, DiagKind::BadRedistribute, n, in,
                                    "the redistribute " + r.from.toMeshString() + " -> " + r.to.toMeshString() +
                                        " is not possible for this plan's torch: " + *why);
                d.have = r.from;
                d.want = r.to;
                out.push_back(std::move(d));
                break;
              }
          }
        }
        if (declared && *declared != r.to) {
          Diagnostic d = make(Severity::Error, DiagKind::BadRedistribute, n, in,
                              "the redistribute on this edge ends in " + r.to.toMeshString() + ", but " + node.name +
                                  " consumes input " + std::to_string(in) + " as " + declared->toMeshString());
          d.have = r.to;
          d.want = *declared;
          out.push_back(std::move(d));
        }
        arriving = &r.to;
      }
    } else if (declared && producer && *declared != *producer) {
      Diagnostic d;
      d.node = n;
      d.input = in;
      d.have = *producer;
      d.want = *declared;
      std::string how = meta ? describePlan(planRedistribute(*meta, plan.mesh, *producer, *declared, env.opts.cost),
                                            plan.mesh)
                             : std::string("shape unknown");
      if (autoparallel) {
        d.severity = Severity::Info;
        d.kind = DiagKind::RedistributeRequired;
        d.message = "the solver plans a transition from " + producer->toMeshString() + " (" + producerName + ") to " +
                    declared->toMeshString() + ": " + how;
        if (gradParam >= 0) d.message += " (the gradient of parameter " + paramLabel(plan, gradParam) + ")";
        arriving = declared;
      } else {
        d.severity = Severity::Error;
        d.kind = DiagKind::MissingRedistribute;
        edgeMissing = true;
        if (gradParam >= 0)
          d.message = "the gradient of parameter " + paramLabel(plan, gradParam) + " (" + producerName + ") ends in " +
                      producer->toMeshString() + ", but its parameter is " + declared->toMeshString() +
                      ", and the plan has no redistribute on this edge";
        else
          d.message = producerName + " delivers " + producer->toMeshString() + " but " + node.name + " consumes input " +
                      std::to_string(in) + " as " + declared->toMeshString() + ", and the plan has no redistribute on this edge";
        d.fix = "insert a redistribute " + producer->toMeshString() + " -> " + declared->toMeshString() + ": " + how;
        if (meta)
          d.notes.push_back("local shape on rank 0: " + rules::localShapeString(meta->shape, plan.mesh, *producer, 0) +
                            " delivered, " + rules::localShapeString(meta->shape, plan.mesh, *declared, 0) + " expected");
      }
      out.push_back(std::move(d));
    } else if (!producer) {
      arriving = declared;
    }
    if (arriving) ctx.inSpecs[i] = *arriving;  // into the scratch's spec: its placements' storage is reused
    else ctx.inSpecs[i].reset();
  }
  return edgeMissing;
}

// Shapes from the op table: findings into `out`; false when the inputs cannot go together (the check stops there).
bool checkShapes(const Plan& plan, int n, const rules::RuleContext& ctx, std::vector<Diagnostic>& out) {
  const Node& node = plan.graph.nodes[n];
  const ops::ShapeResult shapes = ops::inferOutputs(
      node, [&plan](TensorRef r) { return metaOf(plan, r); }, ctx.argsComplete);
  if (shapes.verdict == ops::ShapeVerdict::Mismatch) {
    out.push_back(make(Severity::Error, DiagKind::ShapeMismatch, n, shapes.input, shapes.message));
    return false;
  }
  for (size_t o = 0; shapes.verdict == ops::ShapeVerdict::Known && o < shapes.outputs.size() && o < node.outputs.size(); ++o) {
    const TensorMeta& got = shapes.outputs[o];
    if (!got.known || !node.outputs[o].known || got.shape == node.outputs[o].shape) continue;
    out.push_back(make(Severity::Error, DiagKind::ShapeMismatch, n, -1,
                       node.name + (node.outputs.size() > 1 ? " output " + std::to_string(o) : std::string()) +
                           " declares shape " + shapeToString(node.outputs[o].shape) + ", but " + rules::ruleKey(node.op) +
                           " of its inputs gives " + shapeToString(got.shape)));
  }
  return true;
}

// The op's sharding rule on the arriving specs: findings into `out`; false when the check stops at its verdict.
bool checkRule(const NodeEnv& env, int n, rules::RuleContext& ctx, bool edgeMissing, std::vector<Diagnostic>& out) {
  const Plan& plan = env.plan;
  const Node& node = plan.graph.nodes[n];
  const std::vector<std::optional<ShardingSpec>>& declaredOut = ctx.declaredOut;
  rules::RuleFn rule = rules::findRule(node.op);
  if (!rule) {
    Diagnostic d = make(Severity::Info, DiagKind::UncheckedOp, n, -1, "no sharding rule for " + node.op + "; its specs are not checked");
    out.push_back(std::move(d));
    return false;
  }
  rules::RuleResult r = rule(ctx);
  if (r.verdict == rules::Verdict::BadShapes) {
    out.push_back(make(Severity::Error, DiagKind::ShapeMismatch, n, r.input, r.message));
    return false;
  }
  if (!r.ok()) {
    bool partial = r.verdict == rules::Verdict::PartialIntoNonlinear;
    Diagnostic d = make(Severity::Error, partial ? DiagKind::PartialIntoNonlinear : DiagKind::IncompatibleInputs, n, r.input, r.message);
    if (r.input >= 0 && r.input < ctx.inputCount()) d.have = ctx.inSpecs[r.input];
    d.want = r.want;
    d.notes = r.notes;
    if (d.have && d.want && r.input >= 0 && ctx.inMetas[r.input])
      d.fix = "redistribute input " + std::to_string(r.input) + " " + d.have->toMeshString() + " -> " +
              d.want->toMeshString() + ": " +
              describePlan(planRedistribute(*ctx.inMetas[r.input], plan.mesh, *d.have, *d.want, env.opts.cost), plan.mesh);
    else if (r.input < 0)
      d.fix = "make the output Replicate";
    out.push_back(std::move(d));
    return false;
  }
  for (size_t o = 0; o < r.outputs.size() && o < declaredOut.size(); ++o) {
    if (edgeMissing || !r.outputs[o] || !declaredOut[o] || *r.outputs[o] == *declaredOut[o]) continue;
    Diagnostic d = make(Severity::Error, DiagKind::OutputSpecMismatch, n, -1,
                        node.name + (declaredOut.size() > 1 ? " output " + std::to_string(o) : std::string()) +
                            " is declared " + declaredOut[o]->toMeshString() + ", but its inputs as they arrive make " +
                            r.outputs[o]->toMeshString());
    d.have = r.outputs[o];
    d.want = declaredOut[o];
    d.fix = "declare the output " + r.outputs[o]->toMeshString() + " and redistribute where consumers need " +
            declaredOut[o]->toMeshString();
    out.push_back(std::move(d));
  }
  // Core accepts the inputs as they arrive, but DTensor's propagation would redistribute one first at run time
  // (a documented difference, docs/checks.md "Checked against DTensor"): say so at the node.
  for (const std::string& why : r.implicitRedistributes)
    out.push_back(make(Severity::Info, DiagKind::ImplicitRedistribute, n, -1, why));
  for (const std::string& why : r.dataDependentMeans)
    out.push_back(make(Severity::Warning, DiagKind::DataDependentMean, n, -1, why));
  return true;
}

// `ctx` is the calling thread's scratch, reused node after node so that its vectors and specs keep their
// capacity (a fresh context allocated five times per node); every field a rule reads is set here first.
std::vector<Diagnostic> checkNode(const NodeEnv& env, int n, rules::RuleContext& ctx) {
  const Plan& plan = env.plan;
  const Node& node = plan.graph.nodes[n];
  std::vector<Diagnostic> out;
  // A solver's solution (its export, or its placements applied to a graph) marks every src != dst edge as a
  // transition it planned: report those as redistribute-required, not as missing.
  const bool autoparallel = plan.isSolverSolution();

  // Output specs: valid, and how they split.
  checkOutputSpecs(env, n, ctx, out);

  // Edges: what arrives, against what the consumer declares.
  const bool edgeMissing = checkEdges(env, n, autoparallel, ctx, out);

  if (node.kind == NodeKind::Placeholder) checkSeqDim(env, n, out);
  if (node.kind != NodeKind::Call) return out;
  if (auto why = unsafeReason(node)) {  // core/ops/op_safety.h: the runner would refuse this node
    // A higher-order op the runner does not know (local_map_hop, a triton kernel wrapper) calls a body that
    // the plan does not hold, and autoparallel's own custom ops (fill_indices_functional) have no kernel in the
    // runner: the plan cannot run, which is no fault of the plan (an info). `run` still refuses it.
    const bool body = node.op.rfind("higher_order.", 0) == 0;
    const bool autoparallelOp = node.op.rfind("autoparallel.", 0) == 0;
    std::string message = *why;
    if (body)
      message = "op " + node.op + " is a higher-order op whose body the plan does not hold; the runner cannot execute "
                "it (shardscope run refuses this plan)";
    else if (autoparallelOp)
      message = "op " + node.op + " is autoparallel's own custom op, which the runner has no kernel for (shardscope "
                "run refuses this plan)";
    out.push_back(make(body || autoparallelOp ? Severity::Info : Severity::Error, DiagKind::UnsafeOp, n, -1, message));
    return out;
  }

  // Shapes first, from the op table (core/ops/op_shapes.h), whatever the specs: inputs that cannot go together
  // are an error at their input, and every declared output is compared with what the op makes of its inputs.
  // An applied graph (local shapes, no specs) is so checked alone.
  if (!checkShapes(plan, n, ctx, out)) return out;

  if (!checkRule(env, n, ctx, edgeMissing, out)) return out;
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) { return a.input < b.input; });
  return out;
}

}  // namespace

// ---- Checker ----

void RedistIndex::build(const Plan& plan) {
  const int N = plan.graph.size();
  first_.assign(N + 2, 0);
  for (const Redistribute& r : plan.redistributes)
    if (r.node >= 0 && r.node < N) ++first_[r.node + 2];
  for (int n = 2; n <= N + 1; ++n) first_[n] += first_[n - 1];
  entries_.resize(first_[N + 1]);
  // first_[n + 1] is node n's fill cursor while filling; afterwards it is node n's end = node n+1's start.
  for (size_t k = 0; k < plan.redistributes.size(); ++k) {
    const Redistribute& r = plan.redistributes[k];
    if (r.node >= 0 && r.node < N) entries_[first_[r.node + 1]++] = {r.input, static_cast<int>(k)};
  }
  first_.pop_back();
  // By input within each node (an output node may carry hundreds), plan order kept among equal inputs.
  for (int n = 0; n < N; ++n)
    if (first_[n + 1] - first_[n] > 1)
      std::stable_sort(entries_.begin() + first_[n], entries_.begin() + first_[n + 1],
                       [](const auto& a, const auto& b) { return a.first < b.first; });
}

int RedistIndex::find(int node, int input) const {
  if (node < 0 || node + 1 >= static_cast<int>(first_.size())) return -1;
  const auto begin = entries_.begin() + first_[node], end = entries_.begin() + first_[node + 1];
  // The last of equal inputs: two redistributes on one edge, the later one wins.
  auto it = std::upper_bound(begin, end, input, [](int in, const auto& e) { return in < e.first; });
  return it != begin && std::prev(it)->first == input ? std::prev(it)->second : -1;
}

namespace {

// Plan-wide: the plan's own rules (Plan::validatePlanWide), and the note on a torch version never compared.
std::vector<Diagnostic> planWideChecks(const Plan& plan) {
  std::vector<Diagnostic> out = plan.validatePlanWide();
  if (auto note = torchVersionNote(plan)) out.push_back(std::move(*note));
  for (Diagnostic& d : checkAutoSpGraph(plan)) out.push_back(std::move(d));
  return out;
}

}  // namespace

namespace {
// Threads for a full check: `requested` when > 0; else one per core (at most 8) for graphs large enough to gain.
int checkThreads(int requested, int nodes) {
  if (requested > 0) return std::min(requested, std::max(1, nodes));
  if (nodes < 4096) return 1;
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  return std::clamp(cores, 1, 8);
}
}  // namespace

const Diagnostics& Checker::run(const Plan& plan) {
  checkAll(plan);
  merge();
  return merged_;
}

Diagnostics Checker::runOnce(const Plan& plan) {
  checkAll(plan);
  merge(/*consume=*/true);
  perNode_.clear();
  return std::move(merged_);
}

void Checker::checkAll(const Plan& plan) {
  const int N = plan.graph.size();
  redist_.build(plan);
  perNode_.assign(N, {});
  NodeEnv env{plan, opts_, redist_, judgeFor(plan.torchVersion)};
  // Nodes are checked independently (checkNode only reads the plan and the indexes; the rule table is an
  // immutable function-local static), each into its own slot, so threads change nothing but the wall time: the
  // result is the same, in the same order. Blocks are handed out dynamically because node costs vary.
  const int threads = checkThreads(opts_.threads, N);
  if (threads <= 1) {
    rules::RuleContext scratch;
    for (int n = 0; n < N; ++n) perNode_[n] = checkNode(env, n, scratch);
  } else {
    constexpr int kBlock = 512;
    std::atomic<int> next{0};
    auto work = [&] {
      rules::RuleContext scratch;  // one per thread
      for (int b = next.fetch_add(kBlock); b < N; b = next.fetch_add(kBlock))
        for (int n = b; n < std::min(N, b + kBlock); ++n) perNode_[n] = checkNode(env, n, scratch);
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
  }
  planWide_ = planWideChecks(plan);
}

const Diagnostics& Checker::update(const Plan& plan, const std::vector<int>& nodes) {
  const int N = plan.graph.size();
  if (static_cast<int>(perNode_.size()) != N) return run(plan);
  // Edits change specs, redistributes and tags; the one that changes the graph (MoveAutoSpSlice) keeps its node
  // count and touches every node: only the redistribute index is rebuilt.
  redist_.build(plan);
  std::set<int> todo;
  for (int n : nodes) {
    if (n < 0 || n >= N) continue;
    todo.insert(n);
    for (const auto& [c, i] : plan.graph.users(n)) todo.insert(c);
    // A consumer's input spec can decide a tagged placeholder's sequence dim.
    for (const TensorRef& r : plan.graph.inputs(n))
      if (plan.tags.count(r.node)) todo.insert(r.node);
  }
  NodeEnv env{plan, opts_, redist_, judgeFor(plan.torchVersion)};
  rules::RuleContext scratch;
  for (int n : todo) perNode_[n] = checkNode(env, n, scratch);
  planWide_ = planWideChecks(plan);
  merge();
  return merged_;
}

void Checker::merge(bool consume) {
  merged_.items.clear();
  std::map<std::string, std::pair<size_t, int>> unchecked;  // op -> (position in items, node count)
  for (auto& diags : perNode_) {
    for (Diagnostic& d : diags) {
      if (d.kind == DiagKind::UncheckedOp) {
        auto [it, fresh] = unchecked.try_emplace(d.message, merged_.items.size(), 0);
        ++it->second.second;
        if (!fresh) continue;
      }
      if (consume) merged_.items.push_back(std::move(d));
      else merged_.items.push_back(d);
    }
  }
  for (const auto& [op, where] : unchecked)
    if (where.second > 1)
      merged_.items[where.first].notes.push_back("and " + std::to_string(where.second - 1) + " more node" +
                                                 (where.second > 2 ? "s" : "") + " with this op");
  merged_.items.insert(merged_.items.end(), planWide_.begin(), planWide_.end());
}

Diagnostics checkPlan(const Plan& plan, const CheckOptions& opts) {
  Checker c(opts);
  return c.runOnce(plan);
}

}  // namespace ss
