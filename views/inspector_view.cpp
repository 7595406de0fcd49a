#include "views/inspector_view.h"

#include <cstdio>

#include <imgui.h>

#include "core/model/layout.h"
#include "views/model/fix_all.h"
#include "views/model/focus.h"
#include "views/fonts.h"
#include "views/theme.h"
#include "views/toolbar.h"
#include "views/ui_probe.h"

namespace ss::views {

std::vector<Placement> placementChoices(int tensorRank, const Placement& current) {
  std::vector<Placement> out{Placement::replicate()};
  for (int d = 0; d < tensorRank; ++d) out.push_back(Placement::shard(d));
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Avg, ReduceOp::Max, ReduceOp::Min, ReduceOp::Product}) {
    out.push_back(Placement::partial(op));
  }
  bool found = false;
  for (const Placement& p : out) found = found || p == current;
  if (!found) out.push_back(current);
  return out;
}

ShardingSpec withPlacement(const ShardingSpec& spec, int meshDim, const Placement& p) {
  ShardingSpec s = spec;
  s.placements.at(static_cast<size_t>(meshDim)) = p;
  s.order.clear();
  return s;
}

std::string argToString(const Arg& a, const Graph& g) {
  switch (a.kind) {
    case Arg::Kind::None: return "None";
    case Arg::Kind::Bool: return a.b ? "True" : "False";
    case Arg::Kind::Int: return std::to_string(a.i);
    case Arg::Kind::Float: {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%g", a.f);
      return buf;
    }
    case Arg::Kind::String: return "'" + a.s + "'";
    case Arg::Kind::Tensor: {
      std::string n = a.t.node >= 0 && a.t.node < g.size() ? g.nodes[static_cast<size_t>(a.t.node)].name : "?";
      return a.t.output != 0 ? n + "[" + std::to_string(a.t.output) + "]" : n;
    }
    case Arg::Kind::List: {
      std::string s = "[";
      for (size_t i = 0; i < a.items.size(); ++i) s += (i ? ", " : "") + argToString(a.items[i], g);
      return s + "]";
    }
    case Arg::Kind::DType: return dtypeTorchName(a.dt);
    case Arg::Kind::Device: return "device('" + a.s + "')";
    case Arg::Kind::Symbol: return a.s;
  }
  return "?";
}

namespace {

// Combos, one per mesh dim. Returns true (and the new spec) when the user picked something different.
// They flow on `row` (views/toolbar.h): a narrow pane puts the next combo on a new line.
bool specEditor(ToolbarFlow& row, const char* id, const DeviceMesh& mesh, int tensorRank, const ShardingSpec& spec,
                ShardingSpec& out) {
  bool changed = false;
  ImGui::PushID(id);
  const float comboW = ImGui::CalcTextSize("P(product)").x + ImGui::GetFrameHeight() + 8;
  for (int md = 0; md < mesh.ndim() && md < spec.meshDims(); ++md) {
    row.next(comboW);
    ImGui::PushID(md);
    ImGui::SetNextItemWidth(comboW);
    const std::string preview = spec[md].shortString();
    const std::string probe = std::string("inspector.") + id + "." + std::to_string(md);
    const bool open = ImGui::BeginCombo("##pl", preview.c_str());
    probeItem(probe);
    row.probe(std::string(id) + std::to_string(md));
    if (open) {
      for (const Placement& p : placementChoices(tensorRank, spec[md])) {
        if (ImGui::Selectable(p.shortString().c_str(), p == spec[md]) && !(p == spec[md])) {
          out = withPlacement(spec, md, p);
          changed = true;
        }
        probeItem(probe + "=" + p.shortString());
      }
      ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("mesh dim %d (%s)", md, mesh.dimName(md).c_str());
    ImGui::PopID();
  }
  ImGui::PopID();
  return changed;
}

// The spec's notations on `row` (wrapping; hovering the long forms shows JAX's).
void specText(ToolbarFlow& row, const ShardingSpec& spec, int rank, const DeviceMesh& mesh) {
  row.text(spec.toMeshString(), specColor(spec));
  const unsigned dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  row.text(spec.toTensorString(rank), dim);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("JAX: %s", spec.toJaxString(rank, mesh).c_str());
  row.text(spec.toLongString(), dim);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\nJAX: %s", spec.toLongString().c_str(), spec.toJaxString(rank, mesh).c_str());
}

// The "Fix all" button, the planner's last message and whether the plan has errors, on one line.
void fixAllBar(const Plan& plan, const Diagnostics& diags, const EditHistory& history, InspectorViewState& state,
               CommandQueue& cmds) {
  const bool mayHelp = fixAllMayHelp(diags);
  ToolbarFlow row("inspector");
  row.next(ToolbarFlow::buttonWidth("Fix all"));
  ImGui::BeginDisabled(!mayHelp);
  if (ImGui::Button("Fix all")) {
    std::string blocked;
    std::optional<Command> fix = fixAllCommand(plan, pinnedByEdits(history), &blocked);
    if (fix) cmds.push(std::move(*fix));
    state.fixMessage = !blocked.empty() ? "Kept your edits; cannot fix around them: " + blocked
                       : fix            ? ""
                                        : "The fix planner found nothing it can change.";
  }
  probeItem("inspector.fixall");
  row.probe("fixall");
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
    ImGui::SetTooltip(mayHelp ? "Insert the redistributes and edits the fix planner finds, as one undoable step"
                              : "No errors to fix");
  }
  if (!state.fixMessage.empty()) {
    row.next(ToolbarFlow::textWidth(state.fixMessage.c_str()));
    ImGui::TextDisabled("%s", state.fixMessage.c_str());
  }
  const char* verdict = diags.hasErrors() ? "plan has errors" : "no errors";
  row.next(ToolbarFlow::textWidth(verdict));
  ImGui::TextDisabled("%s", verdict);
}

// The selected node's name, op, phase, module, source line and its diagnostics.
void nodeHeader(const Diagnostics& diags, const Node& node, int n, const Fonts& fonts) {
  // Rows that wrap, each piece elided (whole as tooltip) when a line of its own is too narrow (views/toolbar.h).
  ToolbarFlow title("inspector.node");
  if (fonts.large) ImGui::PushFont(fonts.large);
  title.text(node.name, 0, "name");
  if (fonts.large) ImGui::PopFont();
  const unsigned dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  title.text(node.op, dim, "op");
  std::string meta = phaseName(node.phase);
  if (node.kind == NodeKind::Placeholder) meta += std::string(", ") + placeholderKindName(node.placeholderKind);
  if (!node.modulePath.empty()) meta += ", module " + node.modulePath;
  ToolbarFlow(std::string("inspector.meta")).text(meta, dim, "meta");
  if (!node.source.file.empty()) {
    ToolbarFlow(std::string("inspector.source"))
        .text(node.source.file + ":" + std::to_string(node.source.line) + " in " + node.source.func, dim, "source");
    if (!node.source.code.empty()) {
      if (fonts.mono) ImGui::PushFont(fonts.mono);
      ImGui::TextWrapped("%s", node.source.code.c_str());
      if (fonts.mono) ImGui::PopFont();
    }
  }
  for (const Diagnostic* d : diags.forNode(n)) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(severityColor(d->severity)));
    ImGui::TextWrapped("%s%s: %s", diagKindName(d->kind), d->input >= 0 ? (" (input " + std::to_string(d->input) + ")").c_str() : "",
                       d->message.c_str());
    ImGui::PopStyleColor();
    if (!d->fix.empty()) ImGui::TextWrapped("  fix: %s", d->fix.c_str());
  }
}

// The node's outputs: shape, dtype and placement each, with a placement editor (edits go to `cmds`).
void outputsSection(const Plan& plan, const Node& node, const NodeSpecs& specs, int n, CommandQueue& cmds) {
  if (!node.outputs.empty() && ImGui::CollapsingHeader("Outputs", ImGuiTreeNodeFlags_DefaultOpen)) {
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      ImGui::PushID(static_cast<int>(o));
      const TensorMeta& m = node.outputs[o];
      ImGui::Text("%s%s %s", node.outputs.size() > 1 ? ("[" + std::to_string(o) + "] ").c_str() : "",
                  node.shapeText(o).c_str(), dtypeName(m.dtype));
      const std::optional<ShardingSpec>& s = o < specs.outputs.size() ? specs.outputs[o] : std::nullopt;
      // A symbolic output (a real AutoSP graph's slice): its rank is that of its printed sizes.
      const int rank = !m.known && o == 0 && !node.symbolicShape.empty() ? static_cast<int>(node.symbolicShape.size()) : m.rank();
      if (s) {
        {
          ToolbarFlow specRow("inspector.output" + std::to_string(o) + ".spec");
          specText(specRow, *s, rank, plan.mesh);
        }
        ShardingSpec edited;
        ToolbarFlow row("inspector.output" + std::to_string(o));
        if (specEditor(row, "out", plan.mesh, rank, *s, edited)) cmds.push(SetOutputSpec{n, static_cast<int>(o), edited});
        if (m.known) {
          Result<std::vector<int64_t>> ls = localShape(m.shape, plan.mesh, *s, 0);
          if (ls.ok()) {
            const std::string holds = "rank 0 holds " + shapeToString(ls.value());
            row.next(ToolbarFlow::textWidth(holds.c_str()));
            ImGui::TextDisabled("%s", holds.c_str());
          }
        }
      } else {
        ImGui::TextDisabled("no placement given");
        ImGui::SameLine();
        if (ImGui::SmallButton("Set replicated")) {
          cmds.push(SetOutputSpec{n, static_cast<int>(o), ShardingSpec::replicated(plan.mesh.ndim())});
        }
      }
      ImGui::PopID();
    }
  }
}

// A placeholder's AutoSP tag: shown against the plan's placement, with seq_dim, remove and add (to `cmds`).
void autoSpTagSection(const Plan& plan, const Node& node, const NodeSpecs& specs, int n, InspectorViewState& state,
                      CommandQueue& cmds, const Palette& pal) {
  if (node.kind == NodeKind::Placeholder && ImGui::CollapsingHeader("AutoSP tag", ImGuiTreeNodeFlags_DefaultOpen)) {
    auto it = plan.tags.find(n);
    if (it != plan.tags.end()) {
      const AutoSpTag& tag = it->second;
      ImGui::Text("%s", tag.toString().c_str());
      ImGui::SameLine();
      ImGui::TextDisabled("AutoSP slices dim %d", tag.effectiveDim());
      // What the plan's own placement shards, next to what AutoSP will slice.
      const std::optional<ShardingSpec>& own = specs.outputs.empty() ? std::nullopt : specs.outputs[0];
      if (own) {
        std::vector<int> dims;
        for (int d = 0; d < (node.outputs.empty() ? 0 : node.outputs[0].rank()); ++d) {
          if (own->hasShardOn(d)) dims.push_back(d);
        }
        const bool agrees = dims.empty() || (dims.size() == 1 && dims[0] == tag.effectiveDim());
        std::string planDims;
        for (int d : dims) planDims += (planDims.empty() ? "" : ", ") + std::to_string(d);
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(agrees ? pal.ok : pal.error), "the plan shards dim %s: %s",
                           planDims.empty() ? "none" : planDims.c_str(), agrees ? "agrees" : "DISAGREES with the tag");
      }
      const int rank = node.outputs.empty() ? 0 : node.outputs[0].rank();
      const std::string preview = tag.seqDim ? "seq_dim " + std::to_string(*tag.seqDim) : "bare (dim 1)";
      ImGui::SetNextItemWidth(150);
      if (ImGui::BeginCombo("seq_dim", preview.c_str())) {
        if (ImGui::Selectable("bare (dim 1)", !tag.seqDim.has_value()) && tag.seqDim) {
          cmds.push(SetSeqDim{n, AutoSpTag{tag.key, std::nullopt}});
        }
        for (int d = 0; d < std::max(rank, 2); ++d) {
          const std::string lab = "seq_dim " + std::to_string(d);
          if (ImGui::Selectable(lab.c_str(), tag.seqDim == d) && tag.seqDim != d) cmds.push(SetSeqDim{n, AutoSpTag{tag.key, d}});
        }
        ImGui::EndCombo();
      }
      ImGui::SameLine();
      if (ImGui::SmallButton("Remove tag")) cmds.push(SetSeqDim{n, std::nullopt});
    } else {
      ImGui::SetNextItemWidth(140);
      ImGui::InputText("key", state.tagKey, sizeof(state.tagKey));
      ImGui::SameLine();
      if (ImGui::SmallButton("Add tag") && state.tagKey[0] != 0) cmds.push(SetSeqDim{n, AutoSpTag{state.tagKey, std::nullopt}});
    }
  }
}

// A real AutoSP graph's sliced input or its slice: what the slice does, from the graph and the log's hints.
// At a slice of the wrong dim, DeepSpeed's fix (autoSpSliceFix) as an undoable edit; the Run tab then runs the
// log's rank programs with the same move.
void autoSpSliceSection(const Plan& plan, int n, CommandQueue& cmds, const Palette& pal) {
  const std::vector<AutoSpSliceLine> lines = autoSpSliceLines(plan, n);
  if (lines.empty() || !ImGui::CollapsingHeader("AutoSP slice", ImGuiTreeNodeFlags_DefaultOpen)) return;
  for (const AutoSpSliceLine& l : lines) {
    ImGui::PushStyleColor(ImGuiCol_Text, l.error ? ImGui::ColorConvertU32ToFloat4(pal.error) : ImGui::GetStyleColorVec4(ImGuiCol_Text));
    ImGui::TextWrapped("%s", l.text.c_str());
    ImGui::PopStyleColor();
  }
  if (const std::optional<MoveAutoSpSlice> move = autoSpSliceFix(plan, n)) {
    const std::string label = "Slice " + move->request.input + " on dim " + std::to_string(move->request.dim);
    if (ImGui::Button(label.c_str())) cmds.push(*move);
    probeItem("inspector.autosp_fix");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("DeepSpeed's seq_dim fix: AutoSP's slice of %s moves to its sequence dim %d in this graph and "
                        "in every rank's program (Run runs them so; Undo takes it back)",
                        move->request.input.c_str(), move->request.dim);
  }
}

// The node's inputs: producer, shape, arriving and wanted placement, redistribute state and its actions.
void inputsSection(const Plan& plan, const NodeSpecs& specs, int n, Selection& sel, CommandQueue& cmds,
                   const Palette& pal) {
  const auto& ins = plan.graph.inputs(n);
  if (!ins.empty() && ImGui::CollapsingHeader("Inputs", ImGuiTreeNodeFlags_DefaultOpen)) {
    for (size_t i = 0; i < ins.size(); ++i) {
      const int in = static_cast<int>(i);
      ImGui::PushID(in);
      const TensorRef ref = ins[i];
      const std::string producer = plan.graph.nodes[static_cast<size_t>(ref.node)].name;
      const TensorMeta* m = plan.graph.meta(ref);
      const std::string label = "input " + std::to_string(i) + ": " + producer;
      const bool edgeSelected = sel.input == in;
      if (ImGui::Selectable(label.c_str(), edgeSelected, 0, ImVec2(ImGui::CalcTextSize(label.c_str()).x, 0))) {
        sel.selectEdge(n, in);
      }
      ImGui::SameLine();
      ImGui::TextDisabled("%s", m ? plan.graph.nodes[static_cast<size_t>(ref.node)].shapeText(static_cast<size_t>(ref.output)).c_str() : "?");
      const std::optional<ShardingSpec> have = plan.producerSpec(n, in), want = plan.consumerSpec(n, in);
      const Redistribute* r = plan.findRedistribute(n, in);
      ImGui::Indent();
      if (have) {
        ToolbarFlow arrives("inspector.input" + std::to_string(i) + ".arrives");
        arrives.text("arrives ");
        specText(arrives, *have, m ? m->rank() : -1, plan.mesh);
      }
      // The wanted placement's combos and the edge's actions: rows that wrap (views/toolbar.h).
      ToolbarFlow row("inspector.input" + std::to_string(i));
      if (want) {
        row.next(ToolbarFlow::textWidth("wants   "));
        ImGui::TextUnformatted("wants   ");
        ShardingSpec edited;
        if (specEditor(row, "in", plan.mesh, m ? m->rank() : 0, *want, edited)) cmds.push(SetInputSpec{n, in, edited});
        const bool own = in < static_cast<int>(specs.inputs.size()) && specs.inputs[i].has_value();
        if (own) {
          row.next(ToolbarFlow::smallButtonWidth("as produced"));
          if (ImGui::SmallButton("as produced")) cmds.push(SetInputSpec{n, in, std::nullopt});
          row.probe("as_produced");
        }
      }
      ToolbarFlow actions("inspector.input" + std::to_string(i) + ".actions");
      if (r != nullptr) {
        const std::string text = "redistribute " + r->from.toMeshString() + " -> " + r->to.toMeshString();
        actions.next(ToolbarFlow::textWidth(text.c_str()));
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.ok), "%s", text.c_str());
        actions.next(ToolbarFlow::smallButtonWidth("Remove"));
        if (ImGui::SmallButton("Remove")) cmds.push(RemoveRedistribute{n, in});
        actions.probe("remove");
      } else if (have && want && *have != *want) {
        // In a solver's export the apply pass inserts this transition (the checker's redistribute-required).
        const char* text = plan.isSolverSolution() ? "the solver plans a transition" : "layouts differ, no redistribute";
        actions.next(ToolbarFlow::textWidth(text));
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(plan.isSolverSolution() ? pal.info : pal.error), "%s", text);
        actions.next(ToolbarFlow::smallButtonWidth("Insert redistribute"));
        if (ImGui::SmallButton("Insert redistribute")) cmds.push(InsertRedistribute{Redistribute{n, in, *have, *want}});
        actions.probe("insert");
      }
      ImGui::Unindent();
      ImGui::PopID();
    }
  }
}

}  // namespace

void drawInspectorView(const Plan& plan, const Diagnostics& diags, const EditHistory& history,
                       InspectorViewState& state, Selection& sel, CommandQueue& cmds) {
  const Palette& pal = palette();
  fixAllBar(plan, diags, history, state, cmds);
  ImGui::Separator();
  if (sel.node < 0 || sel.node >= plan.graph.size()) {
    ImGui::TextWrapped("Nothing selected. Click a node in the graph or a row in the diagnostics.");
    return;
  }
  const int n = sel.node;
  const Node& node = plan.graph.nodes[static_cast<size_t>(n)];
  const NodeSpecs& specs = plan.specs[static_cast<size_t>(n)];
  const Fonts& fonts = currentFonts();
  nodeHeader(diags, node, n, fonts);

  // Outputs.
  outputsSection(plan, node, specs, n, cmds);

  // AutoSP slice (a real AutoSP graph), then the tag.
  autoSpSliceSection(plan, n, cmds, pal);
  autoSpTagSection(plan, node, specs, n, state, cmds, pal);

  // Inputs.
  inputsSection(plan, specs, n, sel, cmds, pal);

  // Args.
  if (ImGui::CollapsingHeader("Args")) {
    if (fonts.mono) ImGui::PushFont(fonts.mono);
    for (size_t i = 0; i < node.args.size(); ++i) ImGui::TextWrapped("%zu: %s", i, argToString(node.args[i], plan.graph).c_str());
    for (const auto& [k, v] : node.kwargs) ImGui::TextWrapped("%s=%s", k.c_str(), argToString(v, plan.graph).c_str());
    if (fonts.mono) ImGui::PopFont();
  }
}

}  // namespace ss::views
