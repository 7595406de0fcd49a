// runner/run_data.h: placeholder data, each rank's piece, and the values a run compares.
#include "runner/run_data.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/model/layout.h"
#include "core/model/limits.h"
#include "runner/divergence_measure.h"

namespace ss::runner {

namespace {
bool isFloating(DType t) { return t == DType::F32 || t == DType::F16 || t == DType::BF16 || t == DType::F64; }
}  // namespace

double defaultTolerance(const Plan& plan, const RunOptions& options) {
  double rtol = plan.run.rtol;
  if (options.computeDtype != "planned") return rtol;
  for (const Node& n : plan.graph.nodes)
    for (const TensorMeta& m : n.outputs) {
      if (!m.known) continue;
      if (m.dtype == DType::BF16) rtol = std::max(rtol, 1e-2);
      else if (m.dtype == DType::F16) rtol = std::max(rtol, 1e-3);
    }
  return rtol;
}

// Exclusive upper bound for an integer input: what its consumer accepts (followed through view-like ops).
int64_t integerBound(const Plan& plan, int node, int depth) {
  const Graph& g = plan.graph;
  for (const auto& [user, input] : g.users(node)) {
    const Node& u = g.nodes[user];
    std::string op = u.opName();
    const auto& ins = g.inputs(user);
    auto shapeOf = [&](int k) -> const std::vector<int64_t>* {
      if (k >= static_cast<int>(ins.size())) return nullptr;
      const TensorMeta* m = g.meta(ins[k]);
      return m && m->known ? &m->shape : nullptr;
    };
    if (op == "embedding" && input == 1) {
      if (auto* s = shapeOf(0); s && !s->empty()) return (*s)[0];
    } else if ((op.rfind("nll_loss", 0) == 0 || op == "cross_entropy_loss") && input == 1) {
      if (auto* s = shapeOf(0); s && !s->empty()) return s->size() >= 2 ? (*s)[1] : (*s)[0];
    } else if ((op == "index" || op == "index_put" || op == "index_put_" || op == "_index_put_impl_") && input >= 1 &&
               u.args.size() > 1 && u.args[1].isList()) {
      int seen = 0;
      for (size_t pos = 0; pos < u.args[1].items.size(); ++pos) {
        if (!u.args[1].items[pos].isTensor()) continue;
        if (++seen == input)
          if (auto* s = shapeOf(0); s && pos < s->size()) return (*s)[pos];
      }
    } else if ((op == "gather" || op == "scatter") && input == 1 && u.args.size() > 1 && u.args[1].isInt()) {
      if (auto* s = shapeOf(0); s && !s->empty()) {
        int64_t d = u.args[1].i < 0 ? u.args[1].i + static_cast<int64_t>(s->size()) : u.args[1].i;
        if (d >= 0 && d < static_cast<int64_t>(s->size())) return (*s)[d];
      }
    } else if (depth < 4 && (op == "view" || op == "reshape" || op == "_unsafe_view" || op == "clone" ||
                             op == "_to_copy" || op == "slice" || op == "unsqueeze" || op == "squeeze" ||
                             op == "permute" || op == "transpose" || op == "t" || op == "contiguous")) {
      int64_t b = integerBound(plan, user, depth + 1);
      if (b > 0) return b;
    }
  }
  return depth == 0 ? 2 : 0;
}

// The whole (global) tensor for a placeholder in a batch: deterministic in (seed, batch, node).
at::Tensor placeholderData(const Plan& plan, int n, int batch, uint64_t seed, at::ScalarType floatType) {
  const Node& node = plan.graph.nodes[n];
  if (node.outputs.empty() || !node.outputs[0].known)
    throw std::runtime_error("placeholder '" + node.name + "' has no known shape");
  const TensorMeta& m = node.outputs[0];
  bool param = node.placeholderKind == PlaceholderKind::Param || node.placeholderKind == PlaceholderKind::Buffer;
  uint64_t s = seed * 1000003ULL + static_cast<uint64_t>(n) * 1009ULL + (param ? 0 : (batch + 1) * 7919ULL);
  at::Generator gen = at::detail::createCPUGenerator(s);
  at::ScalarType type = computeType(m.dtype, floatType);
  if (isFloating(m.dtype) || m.dtype == DType::Unknown) {
    at::Tensor t = at::randn(m.shape, gen, at::TensorOptions().dtype(at::kDouble));
    if (param) {
      int64_t fanIn = m.shape.empty() ? 1 : std::max<int64_t>(m.shape.back(), 1);
      t = t / std::sqrt(static_cast<double>(fanIn));
    }
    return t.to(type);
  }
  if (m.dtype == DType::Bool) return at::randint(0, 2, m.shape, gen, at::TensorOptions().dtype(at::kLong)).to(at::kBool);
  int64_t bound = std::max<int64_t>(integerBound(plan, n), 1);
  return at::randint(0, bound, m.shape, gen, at::TensorOptions().dtype(at::kLong)).to(type);
}

// Own storage for a piece when the graph may write into it (an in-place op), else a contiguous view of `t`.
at::Tensor ownIf(const at::Tensor& t, bool copy) {
  return copy ? t.clone(at::MemoryFormat::Contiguous) : t.contiguous().detach();  // detach: a TensorImpl of its own
}

// This rank's piece of a placeholder: AutoSP tags slice their tag's dim whatever the spec says; otherwise the
// spec's layout (Partial(sum) mesh dims: the value on coordinate 0, zeros elsewhere). A view of `whole` (shared
// by every rank) unless `copy`.
at::Tensor localPiece(const Plan& plan, int n, const at::Tensor& whole, int64_t rank, bool copy) {
  auto tag = plan.tags.find(n);
  if (tag != plan.tags.end()) {
    int dim = tag->second.effectiveDim();
    if (dim < 0 || dim >= whole.dim())
      throw std::runtime_error("AutoSP tag " + tag->second.toString() + " names dim " + std::to_string(dim) +
                               " of a " + std::to_string(whole.dim()) + "-d input");
    int64_t sp = plan.run.spSize > 0 ? plan.run.spSize : plan.mesh.size();
    auto sizes = chunkSizes(whole.size(dim), sp);
    int64_t idx = rank % sp, off = 0;
    for (int64_t k = 0; k < idx; ++k) off += sizes[k];
    return ownIf(whole.narrow(dim, std::min(off, whole.size(dim)), sizes[idx]), copy);
  }
  const auto& outs = plan.specs.at(n).outputs;
  if (outs.empty() || !outs[0]) return ownIf(whole, copy);
  auto shard = shardOnRank(whole.sizes().vec(), plan.mesh, *outs[0], rank);
  if (!shard) throw std::runtime_error("spec " + outs[0]->toMeshString() + ": " + shard.error().message);
  at::Tensor t = sliceToShard(whole, *shard);
  const auto coord = plan.mesh.coordOf(rank);
  for (int d = 0; d < plan.mesh.ndim(); ++d) {
    const Placement& p = (*outs[0])[d];
    if (p.isPartial() && p.reduce == ReduceOp::Sum && coord[d] != 0) return at::zeros(t.sizes(), t.options());
  }
  return ownIf(t, copy);
}

// Floating parameters that every rank holds whole (replicated, untagged): their summed gradients are compared.
std::vector<int> replicatedParams(const Plan& plan) {
  std::vector<int> out;
  for (int n = 0; n < plan.graph.size(); ++n) {
    const Node& node = plan.graph.nodes[n];
    if (node.kind != NodeKind::Placeholder || node.placeholderKind != PlaceholderKind::Param) continue;
    if (node.outputs.empty() || !isFloating(node.outputs[0].dtype) || plan.tags.count(n)) continue;
    const auto& outs = plan.specs.at(n).outputs;
    if (!outs.empty() && outs[0] && !outs[0]->isReplicated()) continue;
    out.push_back(n);
  }
  return out;
}

std::optional<ShardingSpec> outputSpec(const Plan& plan, int k) {
  const int o = plan.graph.outputNode();
  if (o < 0) return std::nullopt;
  if (const Redistribute* r = plan.findRedistribute(o, k)) return r->to;
  return plan.producerSpec(o, k);
}

std::vector<int> comparedOutputs(const Plan& plan, int lossNode) {
  std::vector<int> out;
  int o = plan.graph.outputNode();
  if (o < 0) return out;
  const auto& refs = plan.graph.inputs(o);
  for (size_t k = 0; k < refs.size(); ++k) {
    if (refs[k].node == lossNode) continue;
    const TensorMeta* m = plan.graph.meta(refs[k]);
    if (!m || !m->known || !isFloating(m->dtype)) continue;
    if (outputSpec(plan, static_cast<int>(k))) out.push_back(static_cast<int>(k));
  }
  return out;
}

std::string outputLabel(const Plan& plan, int k) {
  const int o = plan.graph.outputNode();
  const auto& refs = plan.graph.inputs(o);
  std::string label = k >= 0 && k < static_cast<int>(refs.size()) && refs[k].node >= 0 && refs[k].node < plan.graph.size()
                          ? plan.graph.nodes[refs[k].node].name
                          : "output " + std::to_string(k);
  if (const int p = plan.gradientParamOf(k); p >= 0) label += " (the gradient of " + plan.graph.nodes[p].name + ")";
  return label;
}

std::vector<at::Tensor> collectOutputs(const Plan& plan, const Values& values, const std::vector<int>& which) {
  std::vector<at::Tensor> out;
  int o = plan.graph.outputNode();
  for (int k : which) {
    const auto& v = values.at(o);
    // The compute dtype (exact: the values were computed in it); converted to double only to compare.
    out.push_back(k < static_cast<int>(v.size()) && v[k].defined() ? v[k].detach().cpu() : at::Tensor());
  }
  return out;
}

std::vector<BlockMeasure> measureOutputs(const Plan& plan, const std::vector<int>& which,
                                         const std::vector<at::Tensor>& reference, const Values& values, int64_t rank,
                                         RankComm* comm, int batch) {
  std::vector<BlockMeasure> out;
  const int o = plan.graph.outputNode();
  const auto& mine = values.at(o);
  for (size_t j = 0; j < which.size(); ++j) {
    const int k = which[j];
    BlockMeasure m;
    const std::optional<ShardingSpec> spec = outputSpec(plan, k);
    const at::Tensor none;
    const at::Tensor& value = k < static_cast<int>(mine.size()) ? mine[k] : none;
    std::optional<BlockMeasure> got;
    if (spec && j < reference.size() && reference[j].defined())
      got = measureBlock(plan, reference[j], *spec, value, rank, comm,
                         "comparing output " + std::to_string(k));
    if (got) {
      m = std::move(*got);
    } else {
      m.shapeOk = false;  // no reference or a spec that does not fit it: nothing this rank holds can match
    }
    m.batch = batch;
    m.node = o;
    m.output = static_cast<int>(j);
    out.push_back(std::move(m));
  }
  return out;
}

OutputsVerdict combineOutputMeasures(const std::vector<const std::vector<BlockMeasure>*>& perRank, int batch,
                                     size_t outputs) {
  OutputsVerdict v;
  if (outputs == 0) {
    v.relError = std::nan("");
    return v;
  }
  std::vector<double> diff(outputs, 0), ref(outputs, 0);
  std::vector<bool> bad(outputs, false), seen(outputs, false);
  for (const auto* ms : perRank)
    for (const BlockMeasure& m : *ms) {
      if (m.batch != batch || m.output < 0 || static_cast<size_t>(m.output) >= outputs) continue;
      seen[m.output] = true;
      if (!m.shapeOk) bad[m.output] = true;
      diff[m.output] += m.diff * m.diff;
      ref[m.output] += m.expected * m.expected;
    }
  for (size_t j = 0; j < outputs; ++j) {
    const double rel = !seen[j] || bad[j] ? std::numeric_limits<double>::infinity()
                       : ref[j] > 0       ? std::sqrt(diff[j]) / std::sqrt(ref[j])
                                          : std::sqrt(diff[j]);
    if (v.worst < 0 || rel > v.relError || std::isnan(rel)) {
      v.relError = rel;
      v.worst = static_cast<int>(j);
    }
  }
  return v;
}

double maxRelError(const std::vector<at::Tensor>& sharded, const std::vector<at::Tensor>& reference) {
  double worst = 0;
  for (size_t k = 0; k < reference.size(); ++k) {
    if (k >= sharded.size() || !sharded[k].defined() || !reference[k].defined() ||
        sharded[k].sizes() != reference[k].sizes())
      return std::numeric_limits<double>::infinity();
    at::Tensor r = reference[k].to(at::kDouble);
    const double ref = r.norm().item<double>();
    const double diff = (sharded[k].to(at::kDouble) - r).norm().item<double>();
    worst = std::max(worst, ref > 0 ? diff / ref : diff);
  }
  return worst;
}

double lossValue(const Plan& plan, int lossNode, const Values& values) {
  const auto& outs = values.at(lossNode);
  if (outs.empty() || !outs[0].defined()) throw NodeError(lossNode, "loss has no value");
  if (outs[0].numel() != 1)
    throw NodeError(lossNode, "loss '" + plan.graph.nodes[lossNode].name + "' is not a scalar (shape " +
                                  shapeToString(outs[0].sizes().vec()) + ")");
  return outs[0].to(at::kDouble).item<double>();
}

// ||gradients of `params}|| over all of them (a parameter without a gradient counts as zeros), in double.
double gradNorm(const Values& values, const std::vector<int>& params) {
  double sq = 0;
  for (int p : params) {
    at::Tensor g = values.at(p).at(0).grad();
    if (g.defined()) sq += g.detach().to(at::kDouble).pow(2).sum().item<double>();
  }
  return std::sqrt(sq);
}

// Nodes the loss depends on (the only ones whose autograd history its backward can reach).
std::vector<bool> lossAncestors(const Plan& plan, int lossNode) {
  std::vector<bool> in(plan.graph.size(), false);
  std::vector<int> todo{lossNode};
  while (!todo.empty()) {
    int n = todo.back();
    todo.pop_back();
    if (n < 0 || n >= plan.graph.size() || in[n]) continue;
    in[n] = true;
    for (const TensorRef& r : plan.graph.inputs(n)) todo.push_back(r.node);
  }
  return in;
}

}  // namespace ss::runner
