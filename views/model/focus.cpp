#include "views/model/focus.h"

#include <algorithm>

#include "core/model/layout.h"

namespace ss::views {

std::vector<FocusTensor> focusCandidates(const Plan& plan, const Selection& sel) {
  std::vector<FocusTensor> out;
  const Graph& g = plan.graph;
  if (sel.node < 0 || sel.node >= g.size()) return out;
  const Node& n = g.nodes[static_cast<size_t>(sel.node)];
  if (sel.input >= 0 && sel.input < static_cast<int>(g.inputs(sel.node).size())) {
    const TensorRef ref = g.inputs(sel.node)[static_cast<size_t>(sel.input)];
    const TensorMeta* meta = g.meta(ref);
    if (meta != nullptr && ref.node >= 0) {
      const std::string src = g.nodes[static_cast<size_t>(ref.node)].name;
      const std::string edge = src + " -> " + n.name + " input " + std::to_string(sel.input);
      out.push_back({edge + ", as it arrives", *meta, plan.producerSpec(sel.node, sel.input), ref.node});
      out.push_back({edge + ", as " + n.opName() + " wants it", *meta, plan.consumerSpec(sel.node, sel.input),
                     ref.node});
      if (const Redistribute* r = plan.findRedistribute(sel.node, sel.input)) {
        out.push_back({edge + ", after the redistribute", *meta, r->to, ref.node});
      }
    }
  }
  // A real AutoSP graph's sliced input or slice: its symbolic sizes drawn at their hints.
  if (std::vector<FocusTensor> a = autoSpSlicedCandidates(plan, sel.node); !a.empty()) {
    out.insert(out.end(), std::make_move_iterator(a.begin()), std::make_move_iterator(a.end()));
    return out;
  }
  const auto& specs = plan.specs;
  for (size_t o = 0; o < n.outputs.size(); ++o) {
    std::optional<ShardingSpec> spec;
    if (static_cast<size_t>(sel.node) < specs.size() && o < specs[static_cast<size_t>(sel.node)].outputs.size()) {
      spec = specs[static_cast<size_t>(sel.node)].outputs[o];
    }
    out.push_back({n.name + (n.outputs.size() > 1 ? " output " + std::to_string(o) : std::string(" output")),
                   n.outputs[o], spec, sel.node});
  }
  // A tagged AutoSP input: how AutoSP really slices it (along the tag's dim, whatever the spec says).
  if (auto tag = plan.tags.find(sel.node); tag != plan.tags.end() && !n.outputs.empty() && out.back().spec) {
    if (std::optional<ShardingSpec> autosp = autoSpLayout(*out.back().spec, tag->second, n.outputs[0].rank())) {
      out.push_back({n.name + " as AutoSP slices it (dim " + std::to_string(tag->second.effectiveDim()) + ")",
                     n.outputs[0], autosp, sel.node});
    }
  }
  return out;
}

namespace {

// "s72=8, s70=2": the placeholder's symbolic sizes at their hints.
std::string hintText(const Node& p, const AutoSpSlicedInput& x) {
  std::string out;
  for (size_t d = 0; d < p.symbolicShape.size() && d < x.hintShape.size(); ++d) {
    const std::string& s = p.symbolicShape[d];
    if (s == std::to_string(x.hintShape[d])) continue;
    out += (out.empty() ? "" : ", ") + s + "=" + std::to_string(x.hintShape[d]);
  }
  return out;
}

std::string rangeText(std::pair<int64_t, int64_t> r) {
  return "[" + std::to_string(r.first) + ", " + std::to_string(r.second) + ")";
}

}  // namespace

std::vector<FocusTensor> autoSpSlicedCandidates(const Plan& plan, int node) {
  std::vector<FocusTensor> out;
  const AutoSpSlicedInput* x = findAutoSpSliced(plan.autoSpSliced, node);
  if (x == nullptr || !x->hinted() || plan.mesh.ndim() != 1 || plan.mesh.size() != x->parts) return out;
  const Graph& g = plan.graph;
  const Node& p = g.nodes[static_cast<size_t>(x->placeholder)];
  const std::string& slice = g.nodes[static_cast<size_t>(x->slice)].name;
  TensorMeta meta;
  meta.shape = x->hintShape;
  meta.dtype = p.outputs.empty() ? DType::Unknown : p.outputs[0].dtype;
  std::string note = "sizes: hints of " + hintText(p, *x) +
                     " (the log's create_symbol records); the graph is compiled for any size " + p.shapeText();
  if (x->rank >= 0) note += "; this graph is rank " + std::to_string(x->rank) + "'s";
  auto specOf = [&](int n) -> std::optional<ShardingSpec> {
    const auto& o = plan.specs[static_cast<size_t>(n)].outputs;
    return o.empty() ? std::nullopt : o[0];
  };
  const std::string sliced = p.name + " as AutoSP slices it (dim " + std::to_string(x->dim) + ", " + slice + ")";
  std::optional<ShardingSpec> seq;
  if (x->seqDim >= 0 && x->seqDim != x->dim) seq = ShardingSpec{{Placement::shard(x->seqDim)}};
  const std::string seqLabel = p.name + " sliced on its sequence dim " + std::to_string(x->seqDim) + " (the fix)";
  // The placeholder: every rank is handed the full input (the plan gives it no spec, annotateAutoSpSlices).
  const ShardingSpec full{{Placement::replicate()}};
  const std::string fullLabel = p.name + " output, the full input on every rank";
  if (node == x->slice) {
    out.push_back({sliced, meta, specOf(x->slice), x->slice, note});
    if (seq) out.push_back({seqLabel, meta, seq, x->slice, note});
    out.push_back({fullLabel, meta, full, x->placeholder, note});
  } else {
    out.push_back({fullLabel, meta, full, x->placeholder, note});
    out.push_back({sliced, meta, specOf(x->slice), x->slice, note});
    if (seq) out.push_back({seqLabel, meta, seq, x->placeholder, note});
  }
  return out;
}

std::vector<AutoSpSliceLine> autoSpSliceLines(const Plan& plan, int node) {
  std::vector<AutoSpSliceLine> out;
  const AutoSpSlicedInput* x = findAutoSpSliced(plan.autoSpSliced, node);
  if (x == nullptr) return out;
  const Graph& g = plan.graph;
  const Node& p = g.nodes[static_cast<size_t>(x->placeholder)];
  out.push_back({p.name + " " + p.shapeText() + ": " + x->describe() + " in " +
                 g.nodes[static_cast<size_t>(x->slice)].name});
  if (!x->symbol.empty() && !x->symbolSource.empty())
    out.push_back({"symbol " + x->symbol + " is " + x->symbolSource + " (the log's create_symbol record)"});
  std::string part = std::to_string(x->parts) + " parts on mesh " + plan.mesh.dimName(0);
  if (x->rank >= 0) {
    part += ", this graph is rank " + std::to_string(x->rank) + "'s";
    if (x->hinted())
      part += ": " + rangeText(x->rangeOf(x->rank)) + " of dim " + std::to_string(x->dim) + " of " +
              shapeToString(x->hintShape) + " at the hints";
  }
  out.push_back({part});
  if (x->seqDim >= 0) {
    const std::string seq = "the sequence is dim " + std::to_string(x->seqDim) + " (" +
                            p.symbolicShape[static_cast<size_t>(x->seqDim)] + ")";
    if (x->seqDim == x->dim) out.push_back({seq + ": the slice agrees"});
    else out.push_back({seq + ": AutoSP slices dim " + std::to_string(x->dim) + " instead", true});
  }
  return out;
}

std::optional<ShardingSpec> autoSpLayout(const ShardingSpec& planned, const AutoSpTag& tag, int rank) {
  const int dim = tag.effectiveDim();
  if (dim < 0 || dim >= rank) return std::nullopt;
  ShardingSpec s = planned;
  bool any = false;
  for (Placement& p : s.placements) {
    if (p.isShard()) {
      p = Placement::shard(dim);
      any = true;
    }
  }
  if (!any) return std::nullopt;
  s.order.clear();
  return s;
}

std::pair<int, int> defaultDrawDims(const TensorMeta& meta, const std::optional<ShardingSpec>& spec) {
  const int rank = meta.rank();
  if (rank <= 0) return {-1, -1};
  if (rank == 1) return {0, -1};
  std::vector<int> dims;
  if (spec) {
    for (int d = 0; d < rank; ++d) {
      if (spec->hasShardOn(d)) dims.push_back(d);
    }
  }
  std::vector<int> rest;
  for (int d = 0; d < rank; ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) rest.push_back(d);
  }
  std::stable_sort(rest.begin(), rest.end(), [&](int a, int b) { return meta.shape[a] > meta.shape[b]; });
  dims.insert(dims.end(), rest.begin(), rest.end());
  int a = dims[0], b = dims[1];
  if (a > b) std::swap(a, b);
  return {a, b};
}

std::string localShapeSummary(const Plan& plan, const TensorMeta& meta, const ShardingSpec& spec) {
  Result<std::vector<RankShard>> shards = layoutAllRanks(meta.shape, plan.mesh, spec);
  if (!shards.ok()) return "invalid: " + shards.error().message;
  std::vector<std::vector<int64_t>> distinct;
  for (const RankShard& s : shards.value()) {
    if (std::find(distinct.begin(), distinct.end(), s.localShape) == distinct.end()) distinct.push_back(s.localShape);
  }
  if (distinct.size() == 1) return shapeToString(distinct[0]);
  std::string out = "uneven: ";
  for (size_t i = 0; i < distinct.size() && i < 3; ++i) out += (i ? " " : "") + shapeToString(distinct[i]);
  if (distinct.size() > 3) out += " ...";
  return out;
}

}  // namespace ss::views
