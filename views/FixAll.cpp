#include "views/FixAll.h"

#include <set>

#include "core/redistribute.h"

namespace ss::views {

std::optional<Command> fixAllCommand(const Plan& plan, const Diagnostics& diags) {
  Batch batch;
  batch.label = "Fix all";
  std::set<std::pair<int, int>> edges;
  std::set<int> tagged;
  for (const Diagnostic& d : diags.items) {
    if (d.node < 0 || d.node >= plan.graph.size()) continue;
    const bool edgeKind = d.kind == "missing-redistribute" || d.kind == "incompatible-inputs" ||
                          d.kind == "redistribute-required";
    if (edgeKind && d.input >= 0 && d.have && d.want && *d.have != *d.want) {
      if (plan.findRedistribute(d.node, d.input) != nullptr || !edges.insert({d.node, d.input}).second) continue;
      const auto& ins = plan.graph.inputs(d.node);
      if (d.input >= static_cast<int>(ins.size())) continue;
      const TensorMeta* meta = plan.graph.meta(ins[static_cast<size_t>(d.input)]);
      if (meta == nullptr || !planRedistribute(*meta, plan.mesh, *d.have, *d.want).possible) continue;
      Redistribute r;
      r.node = d.node;
      r.input = d.input;
      r.from = *d.have;
      r.to = *d.want;
      batch.commands.emplace_back(std::in_place_type<InsertRedistribute>, InsertRedistribute{std::move(r)});
    } else if (d.kind == "seq-dim-mismatch" && !tagged.count(d.node)) {
      auto tag = plan.tags.find(d.node);
      if (tag == plan.tags.end()) continue;
      const auto& outs = plan.specs[static_cast<size_t>(d.node)].outputs;
      if (outs.empty() || !outs[0]) continue;
      std::set<int> sharded;
      for (const Placement& p : outs[0]->placements) {
        if (p.isShard()) sharded.insert(p.dim);
      }
      if (sharded.size() != 1) continue;
      AutoSpTag fixed = tag->second;
      fixed.seqDim = *sharded.begin();
      if (fixed == tag->second) continue;
      tagged.insert(d.node);
      batch.commands.emplace_back(std::in_place_type<SetSeqDim>, SetSeqDim{d.node, fixed});
    }
  }
  if (batch.commands.empty()) return std::nullopt;
  return Command{std::move(batch)};
}

}  // namespace ss::views
