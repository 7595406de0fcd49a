#include "core/plan/edit.h"

#include <algorithm>
#include <map>

#include "core/check/autosp_slices.h"
#include "core/model/layout.h"
#include "core/run/autosp_seq_fix.h"

namespace ss {

namespace {

std::string specText(const std::optional<ShardingSpec>& s) { return s ? s->toMeshString() : "(none)"; }

std::string nodeName(const Plan& p, int n) {
  return n >= 0 && n < p.graph.size() ? p.graph.nodes[n].name : "#" + std::to_string(n);
}

Error nodeError(int n) { return Error{"there is no node #" + std::to_string(n)}; }

int tensorRankOfInput(const Plan& p, int node, int input) {
  const TensorMeta* m = p.graph.meta(p.graph.inputs(node)[input]);
  return m && m->known ? m->rank() : -1;
}

struct Applier {
  Plan& plan;

  Result<Applied> operator()(const SetOutputSpec& c) {
    if (c.node < 0 || c.node >= plan.graph.size()) return nodeError(c.node);
    auto& outs = plan.specs[c.node].outputs;
    if (c.output < 0 || c.output >= static_cast<int>(outs.size()))
      return Error{"node '" + nodeName(plan, c.node) + "' has no output " + std::to_string(c.output)};
    if (c.spec) {
      const auto& meta = plan.graph.nodes[c.node].outputs[c.output];
      if (auto why = validateSpec(*c.spec, plan.mesh, meta.known ? meta.rank() : -1); !why.empty()) return Error{why};
    }
    SetOutputSpec inv{c.node, c.output, outs[c.output]};
    outs[c.output] = c.spec;
    std::vector<int> touched{c.node};
    for (auto [u, k] : plan.graph.users(c.node)) touched.push_back(u);
    return Applied{inv, touched};
  }

  Result<Applied> operator()(const SetInputSpec& c) {
    if (c.node < 0 || c.node >= plan.graph.size()) return nodeError(c.node);
    auto& ins = plan.specs[c.node].inputs;
    if (c.input < 0 || c.input >= static_cast<int>(ins.size()))
      return Error{"node '" + nodeName(plan, c.node) + "' has no tensor input " + std::to_string(c.input)};
    if (c.spec) {
      if (auto why = validateSpec(*c.spec, plan.mesh, tensorRankOfInput(plan, c.node, c.input)); !why.empty())
        return Error{why};
    }
    SetInputSpec inv{c.node, c.input, ins[c.input]};
    ins[c.input] = c.spec;
    return Applied{inv, {c.node}};
  }

  Result<Applied> operator()(const SetSeqDim& c) {
    if (c.node < 0 || c.node >= plan.graph.size()) return nodeError(c.node);
    const Node& n = plan.graph.nodes[c.node];
    if (n.kind != NodeKind::Placeholder) return Error{"'" + n.name + "' is not an input: only inputs carry AutoSP tags"};
    if (c.tag && c.tag->key.empty()) return Error{"an AutoSP tag needs a key (input_id, label_id, ...)"};
    if (c.tag && c.tag->seqDim && !n.outputs.empty() && n.outputs[0].known &&
        (*c.tag->seqDim < 0 || *c.tag->seqDim >= n.outputs[0].rank()))
      return Error{"seq_dim " + std::to_string(*c.tag->seqDim) + " is out of range for '" + n.name + "' with " +
                   std::to_string(n.outputs[0].rank()) + " dims"};
    std::optional<AutoSpTag> old;
    if (auto it = plan.tags.find(c.node); it != plan.tags.end()) old = it->second;
    if (c.tag) plan.tags[c.node] = *c.tag;
    else plan.tags.erase(c.node);
    std::vector<int> touched{c.node};
    for (auto [u, k] : plan.graph.users(c.node)) touched.push_back(u);
    return Applied{SetSeqDim{c.node, old}, touched};
  }

  Result<Applied> operator()(const MoveAutoSpSlice& c) {
    if (plan.autoSpSliced.empty())
      return Error{"the plan holds no slice of AutoSP's (only a real AutoSP graph, after its passes, has one)"};
    auto before = std::make_shared<AutoSpSnapshot>(AutoSpSnapshot{plan.graph, plan.specs, plan.autoSpSliced, plan.autoSpMoves});
    std::map<std::string, std::string> sources;
    for (const auto& [symbol, hint] : plan.autoSpHints)
      if (!hint.source.empty()) sources.emplace(symbol, hint.source);
    Graph moved = plan.graph;
    auto steps = moveAutoSpSlices(moved, sources, {c.request});
    if (!steps) return steps.error();
    std::vector<AutoSpSlicedInput> sliced = findAutoSpSlicedInputs(moved, plan.autoSpHints);
    if (sliced.empty()) return Error{"the moved graph holds no slice of AutoSP's"};
    plan.graph = std::move(moved);
    for (const AutoSpSlicedInput& x : sliced) {
      auto& outs = plan.specs[static_cast<size_t>(x.slice)].outputs;
      if (!outs.empty()) outs[0] = ShardingSpec{{Placement::shard(x.dim)}};
    }
    plan.autoSpSliced = std::move(sliced);
    std::erase_if(plan.autoSpMoves, [&](const SeqDimRequest& r) { return r.input == c.request.input; });
    plan.autoSpMoves.push_back(c.request);
    return Applied{RestoreAutoSp{std::move(before)}, allNodes()};
  }

  Result<Applied> operator()(const RestoreAutoSp& c) {
    if (!c.state) return Error{"nothing to restore"};
    auto before = std::make_shared<AutoSpSnapshot>(AutoSpSnapshot{plan.graph, plan.specs, plan.autoSpSliced, plan.autoSpMoves});
    plan.graph = c.state->graph;
    plan.graph.reindex();
    plan.specs = c.state->specs;
    plan.autoSpSliced = c.state->sliced;
    plan.autoSpMoves = c.state->moves;
    return Applied{RestoreAutoSp{std::move(before)}, allNodes()};
  }

  std::vector<int> allNodes() const {
    std::vector<int> all(static_cast<size_t>(plan.graph.size()));
    for (int i = 0; i < plan.graph.size(); ++i) all[static_cast<size_t>(i)] = i;
    return all;
  }

  Result<Applied> operator()(const InsertRedistribute& c) {
    const auto& r = c.r;
    if (r.node < 0 || r.node >= plan.graph.size()) return nodeError(r.node);
    if (r.input < 0 || r.input >= static_cast<int>(plan.graph.inputs(r.node).size()))
      return Error{"node '" + nodeName(plan, r.node) + "' has no tensor input " + std::to_string(r.input)};
    int rank = tensorRankOfInput(plan, r.node, r.input);
    if (auto why = validateSpec(r.from, plan.mesh, rank); !why.empty()) return Error{why};
    if (auto why = validateSpec(r.to, plan.mesh, rank); !why.empty()) return Error{why};
    Command inv = RemoveRedistribute{r.node, r.input};
    auto it = std::find_if(plan.redistributes.begin(), plan.redistributes.end(),
                           [&](const Redistribute& x) { return x.node == r.node && x.input == r.input; });
    if (it != plan.redistributes.end()) {
      inv = InsertRedistribute{*it};
      *it = r;
    } else {
      // Kept sorted by (node, input): a canonical order makes undo restore the plan exactly.
      auto pos = std::lower_bound(plan.redistributes.begin(), plan.redistributes.end(), r, [](const Redistribute& a, const Redistribute& b) {
        return std::pair(a.node, a.input) < std::pair(b.node, b.input);
      });
      plan.redistributes.insert(pos, r);
    }
    return Applied{inv, {r.node}};
  }

  Result<Applied> operator()(const RemoveRedistribute& c) {
    auto it = std::find_if(plan.redistributes.begin(), plan.redistributes.end(),
                           [&](const Redistribute& x) { return x.node == c.node && x.input == c.input; });
    if (it == plan.redistributes.end())
      return Error{"there is no redistribute on input " + std::to_string(c.input) + " of '" + nodeName(plan, c.node) + "'"};
    Redistribute old = *it;
    plan.redistributes.erase(it);
    return Applied{InsertRedistribute{old}, {c.node}};
  }

  Result<Applied> operator()(const Batch& b) {
    std::vector<Command> inverses;
    std::vector<int> touched;
    for (size_t i = 0; i < b.commands.size(); ++i) {
      auto r = applyCommand(plan, b.commands[i]);
      if (!r) {
        // Roll back what this batch already did, newest first, so the plan is untouched on error.
        for (auto it = inverses.rbegin(); it != inverses.rend(); ++it) (void)applyCommand(plan, *it);
        return Error{"step " + std::to_string(i + 1) + " of '" + b.label + "': " + r.error().message};
      }
      inverses.push_back(std::move(r->inverse));
      touched.insert(touched.end(), r->touchedNodes.begin(), r->touchedNodes.end());
    }
    std::reverse(inverses.begin(), inverses.end());
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    return Applied{Batch{"undo " + b.label, std::move(inverses)}, touched};
  }
};

struct Describer {
  const Plan& plan;
  std::string operator()(const SetOutputSpec& c) const {
    return "Set " + nodeName(plan, c.node) + " output " + std::to_string(c.output) + " to " + specText(c.spec);
  }
  std::string operator()(const SetInputSpec& c) const {
    return "Set " + nodeName(plan, c.node) + " input " + std::to_string(c.input) + " to " + specText(c.spec);
  }
  std::string operator()(const SetSeqDim& c) const {
    return "Tag " + nodeName(plan, c.node) + " " + (c.tag ? c.tag->toString() : std::string("(untagged)"));
  }
  std::string operator()(const InsertRedistribute& c) const {
    return "Redistribute " + nodeName(plan, c.r.node) + " input " + std::to_string(c.r.input) + " " +
           c.r.from.toMeshString() + " -> " + c.r.to.toMeshString();
  }
  std::string operator()(const RemoveRedistribute& c) const {
    return "Remove redistribute on " + nodeName(plan, c.node) + " input " + std::to_string(c.input);
  }
  std::string operator()(const MoveAutoSpSlice& c) const {
    return "Slice " + c.request.input + " on dim " + std::to_string(c.request.dim) + " (AutoSP's seq_dim fix)";
  }
  std::string operator()(const RestoreAutoSp&) const { return "Restore AutoSP's slices"; }
  std::string operator()(const Batch& b) const { return b.label; }
};

}  // namespace

std::string describe(const Plan& plan, const Command& c) { return std::visit(Describer{plan}, c); }

Result<Applied> applyCommand(Plan& plan, const Command& c) {
  if (plan.specs.size() != plan.graph.nodes.size()) plan.normalizeSpecs();
  return std::visit(Applier{plan}, c);
}

Result<std::vector<int>> EditHistory::apply(Plan& plan, Command c) {
  std::string label = describe(plan, c);
  auto r = applyCommand(plan, c);
  if (!r) return r.error();
  if (savedAt_ > static_cast<long>(undo_.size())) savedAt_ = -1;  // the saved state was in the redo branch
  undo_.push_back({std::move(c), std::move(r->inverse), label});
  redo_.clear();
  return r->touchedNodes;
}

Result<std::vector<int>> EditHistory::undo(Plan& plan) {
  if (undo_.empty()) return Error{"nothing to undo"};
  Entry e = std::move(undo_.back());
  undo_.pop_back();
  auto r = applyCommand(plan, e.inverse);
  if (!r) {
    undo_.push_back(std::move(e));
    return r.error();
  }
  e.forward = std::move(r->inverse);  // re-applying the inverse's inverse redoes exactly
  redo_.push_back(std::move(e));
  return r->touchedNodes;
}

Result<std::vector<int>> EditHistory::redo(Plan& plan) {
  if (redo_.empty()) return Error{"nothing to redo"};
  Entry e = std::move(redo_.back());
  redo_.pop_back();
  auto r = applyCommand(plan, e.forward);
  if (!r) {
    redo_.push_back(std::move(e));
    return r.error();
  }
  e.inverse = std::move(r->inverse);
  undo_.push_back(std::move(e));
  return r->touchedNodes;
}

std::vector<Command> EditHistory::applied() const {
  std::vector<Command> out;
  out.reserve(undo_.size());
  for (const Entry& e : undo_) out.push_back(e.forward);
  return out;
}

std::string EditHistory::undoLabel() const { return undo_.empty() ? std::string() : undo_.back().label; }
std::string EditHistory::redoLabel() const { return redo_.empty() ? std::string() : redo_.back().label; }

}  // namespace ss
