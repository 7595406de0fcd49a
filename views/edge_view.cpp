#include "views/edge_view.h"

#include <algorithm>

#include <imgui.h>

#include "core/model/layout.h"
#include "views/model/focus.h"
#include "views/fonts.h"
#include "views/model/mesh_layout.h"
#include "views/mesh_view.h"
#include "views/theme.h"
#include "views/toolbar.h"
#include "views/ui_probe.h"

namespace ss::views {

EdgeSummary summarizeEdge(const Plan& plan, const Diagnostics& diags, int consumer, int input) {
  EdgeSummary e;
  e.consumer = consumer;
  e.input = input;
  const Graph& g = plan.graph;
  if (consumer < 0 || consumer >= g.size()) {
    e.why = "no node selected";
    return e;
  }
  const auto& ins = g.inputs(consumer);
  if (input < 0 || input >= static_cast<int>(ins.size())) {
    e.why = g.nodes[static_cast<size_t>(consumer)].name + " has no tensor input " + std::to_string(input);
    return e;
  }
  const TensorRef ref = ins[static_cast<size_t>(input)];
  e.producer = ref.node;
  const TensorMeta* meta = g.meta(ref);
  e.title = g.nodes[static_cast<size_t>(ref.node)].name + " -> " + g.nodes[static_cast<size_t>(consumer)].name +
            " (input " + std::to_string(input) + ")";
  if (meta == nullptr || !meta->known) {
    e.why = "the shape of " + g.nodes[static_cast<size_t>(ref.node)].name + " is unknown";
    return e;
  }
  e.meta = *meta;
  e.have = plan.producerSpec(consumer, input);
  e.want = plan.consumerSpec(consumer, input);
  e.existing = plan.findRedistribute(consumer, input);
  for (const Diagnostic& d : diags.items) {
    if (d.node == consumer && d.input == input) e.diagnostics.push_back(&d);
  }
  if (!e.have || !e.want) {
    e.why = "the plan gives no placement for this edge";
    return e;
  }
  e.valid = true;
  e.differs = *e.have != *e.want;
  e.haveShapes = localShapeSummary(plan, e.meta, *e.have);
  e.wantShapes = localShapeSummary(plan, e.meta, *e.want);
  if (e.differs) e.redistribute = planRedistribute(e.meta, plan.mesh, *e.have, *e.want);
  return e;
}

int interestingInput(const Plan& plan, const Diagnostics& diags, int node) {
  if (node < 0 || node >= plan.graph.size()) return -1;
  const int n = static_cast<int>(plan.graph.inputs(node).size());
  if (n == 0) return -1;
  for (const Diagnostic& d : diags.items) {
    if (d.node == node && d.input >= 0 && d.input < n && d.severity == Severity::Error) return d.input;
  }
  for (const Diagnostic& d : diags.items) {
    if (d.node == node && d.input >= 0 && d.input < n) return d.input;
  }
  for (int i = 0; i < n; ++i) {
    const auto h = plan.producerSpec(node, i), w = plan.consumerSpec(node, i);
    if (h && w && *h != *w) return i;
  }
  return 0;
}

namespace {

void layoutSide(const Plan& plan, const EdgeSummary& e, const ShardingSpec& spec, const char* caption,
                const std::string& shapes, float width, float height, int64_t pinned) {
  const Palette& pal = palette();
  ImGui::BeginGroup();
  {
    // Caption, placement, tensor-centric form: a row that wraps at the side's width (views/toolbar.h).
    ToolbarFlow row("edge.side");
    row.setRight(ImGui::GetCursorScreenPos().x + width);
    row.text(caption, 0, "caption");
    row.text(spec.toMeshString(), specColor(spec), "spec");
    row.text(spec.toTensorString(e.meta.rank()), ImGui::GetColorU32(ImGuiCol_TextDisabled), "tensor_spec");
  }
  const Fonts& fonts = currentFonts();
  if (fonts.large) ImGui::PushFont(fonts.large);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.text), "%s", shapes.c_str());
  if (fonts.large) ImGui::PopFont();
  MeshGridOptions o;
  o.width = width;
  o.height = std::max(height - ImGui::GetTextLineHeightWithSpacing() * 2.5f, 40.0f);
  o.labelLeft = plan.mesh.ndim() >= 2 ? ImGui::CalcTextSize((plan.mesh.dimName(plan.mesh.ndim() - 2) + "=0").c_str()).x + 6 : 0;
  o.labelTop = ImGui::GetTextLineHeightWithSpacing();
  o.minCellH = 12;
  o.maxCellH = ImGui::GetTextLineHeight() * 2 + 14;
  o.minCellW = 14;
  const MeshGridLayout grid = layoutMeshGrid(plan.mesh, e.meta, spec, o);
  if (!grid.error.empty()) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.error), "cannot lay out: %s", grid.error.c_str());
  } else {
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(grid.width, grid.height));
    drawMeshGrid(ImGui::GetWindowDrawList(), origin, grid, plan.mesh, e.meta, spec, pinned, true);
  }
  ImGui::EndGroup();
}

// The combo that picks which of the consumer's inputs (`ins`) the view shows, into state.input.
void inputPicker(const Plan& plan, const std::vector<TensorRef>& ins, EdgeViewState& state) {
  const std::string cur = "input " + std::to_string(state.input) + ": " +
                          plan.graph.nodes[static_cast<size_t>(ins[static_cast<size_t>(state.input)].node)].name;
  ImGui::SetNextItemWidth(220);
  if (ImGui::BeginCombo("##edgeinput", cur.c_str())) {
    for (size_t i = 0; i < ins.size(); ++i) {
      const std::string lab = "input " + std::to_string(i) + ": " + plan.graph.nodes[static_cast<size_t>(ins[i].node)].name;
      if (ImGui::Selectable(lab.c_str(), static_cast<int>(i) == state.input)) state.input = static_cast<int>(i);
    }
    ImGui::EndCombo();
  }
}

// The edge's diagnostic kinds on one line, each hovered for its message and fix.
void diagnosticKinds(const EdgeSummary& e) {
  for (size_t i = 0; i < e.diagnostics.size(); ++i) {
    const Diagnostic* d = e.diagnostics[i];
    if (i > 0) ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(severityColor(d->severity)), "%s%s", diagKindName(d->kind),
                       i + 1 < e.diagnostics.size() ? "," : "");
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36);
      ImGui::TextUnformatted(d->message.c_str());
      if (!d->fix.empty()) ImGui::Text("fix: %s", d->fix.c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
  }
}

// The redistribute's steps as a table: mesh dim, collective, placements, group, bytes and time per step.
void stepsTable(const Plan& plan, const EdgeSummary& e, const Palette& pal) {
  if (ImGui::BeginTable("##steps", 6, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn("mesh dim");
    ImGui::TableSetupColumn("collective");
    ImGui::TableSetupColumn("from -> to");
    ImGui::TableSetupColumn("group");
    ImGui::TableSetupColumn("bytes/rank");
    ImGui::TableSetupColumn("est. time");
    ImGui::TableHeadersRow();
    for (const RedistributeStep& s : e.redistribute.steps) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d (%s)", s.meshDim, plan.mesh.dimName(s.meshDim).c_str());
      ImGui::TableNextColumn();
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.highlight), "%s", collectiveName(s.kind));
      ImGui::TableNextColumn();
      ImGui::Text("%s -> %s", s.from.shortString().c_str(), s.to.shortString().c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(s.groupSize));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(formatBytes(std::max(s.bytesSent, s.bytesReceived)).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(formatTimeUs(s.timeUs).c_str());
    }
    ImGui::EndTable();
  }
}

// Whether the layouts match, the redistribute (steps, totals, Play) and Insert/Remove; actions go to `cmds`.
// GCC 12 reports a false -Wmaybe-uninitialized inside std::variant's move when a Command is built and pushed
// here (GCC bug 105562 family); every member is initialised by the aggregate.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
void redistributeActions(const Plan& plan, const EdgeSummary& e, EdgeViewState& state, Selection& sel,
                         CommandQueue& cmds, const Palette& pal) {
  if (!e.differs) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.ok), "Layouts match: no redistribute needed.");
  } else if (!e.redistribute.possible) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.error), "No valid redistribute: %s", e.redistribute.whyNot.c_str());
  } else {
    stepsTable(plan, e, pal);
  }
  // The totals and the actions on one row that wraps in a narrow pane (views/toolbar.h).
  ToolbarFlow row("edge.actions");
  if (e.differs && e.redistribute.possible) {
    const std::string total = "total " + formatBytes(e.redistribute.totalBytes()) + ", " + formatTimeUs(e.redistribute.totalTimeUs());
    row.next(ToolbarFlow::textWidth(total.c_str()));
    ImGui::TextUnformatted(total.c_str());
    row.next(ToolbarFlow::smallButtonWidth("Play"));
    if (ImGui::SmallButton("Play")) {  // step by step in the Teach view (views/teach_view.h)
      state.playRequested = true;
      if (sel.input != state.input) sel.selectEdge(sel.node, state.input);
    }
    probeItem("edge.play");
    row.probe("play");
  }
  if (e.existing != nullptr) {
    const std::string present = "Redistribute present: " + e.existing->from.toMeshString() + " -> " + e.existing->to.toMeshString();
    row.next(ToolbarFlow::textWidth(present.c_str()));
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.ok), "%s", present.c_str());
    row.next(ToolbarFlow::smallButtonWidth("Remove redistribute"));
    if (ImGui::SmallButton("Remove redistribute")) cmds.push(RemoveRedistribute{sel.node, state.input});
    probeItem("edge.remove");
    row.probe("remove");
  } else if (e.differs && e.redistribute.possible) {
    row.next(ToolbarFlow::buttonWidth("Insert redistribute"));
    if (ImGui::Button("Insert redistribute")) {
      cmds.push(InsertRedistribute{Redistribute{sel.node, state.input, *e.have, *e.want}});
    }
    probeItem("edge.insert");
    row.probe("insert");
  }
}
#pragma GCC diagnostic pop

// The two layouts, arriving and wanted: side by side when each fits the width (state.sideBySide), else stacked.
void twoLayouts(const Plan& plan, const EdgeSummary& e, EdgeViewState& state, const Selection& sel) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float cellNeed = ImGui::CalcTextSize(shapeToString(e.meta.shape).c_str()).x + 16;
  const int64_t cols = plan.mesh.ndim() == 1 ? std::min<int64_t>(plan.mesh.size(), 16) : plan.mesh.dimSize(plan.mesh.ndim() - 1);
  const float gridNeed = static_cast<float>(cols) * (cellNeed + 6) + 60;
  state.sideBySide = avail.x >= 2 * gridNeed + 20;
  const std::string srcCaption = "arrives from " + plan.graph.nodes[static_cast<size_t>(e.producer)].name + ":";
  const std::string dstCaption = plan.graph.nodes[static_cast<size_t>(e.consumer)].opName() + " wants:";
  const ShardingSpec& target = e.existing ? e.existing->to : *e.want;
  if (state.sideBySide) {
    const float w = (avail.x - 20) * 0.5f;
    layoutSide(plan, e, *e.have, srcCaption.c_str(), e.haveShapes, w, avail.y, sel.pinnedRank);
    ImGui::SameLine(0, 20);
    layoutSide(plan, e, target, dstCaption.c_str(), e.existing ? localShapeSummary(plan, e.meta, target) : e.wantShapes, w,
               avail.y, sel.pinnedRank);
  } else {
    const float h = (avail.y - 10) * 0.5f;
    layoutSide(plan, e, *e.have, srcCaption.c_str(), e.haveShapes, avail.x, h, sel.pinnedRank);
    layoutSide(plan, e, target, dstCaption.c_str(), e.existing ? localShapeSummary(plan, e.meta, target) : e.wantShapes,
               avail.x, h, sel.pinnedRank);
  }
}

}  // namespace

void drawEdgeView(const Plan& plan, const Diagnostics& diags, EdgeViewState& state, Selection& sel, CommandQueue& cmds) {
  const Palette& pal = palette();
  if (state.seenGeneration != sel.generation) {
    state.seenGeneration = sel.generation;
    state.input = sel.input >= 0 ? sel.input : interestingInput(plan, diags, sel.node);
  }
  if (sel.node < 0 || sel.node >= plan.graph.size()) {
    ImGui::TextWrapped("Select an edge (or a node: its most interesting input is shown) to compare the layout a tensor "
                       "arrives in with the one its consumer needs.");
    return;
  }
  const auto& ins = plan.graph.inputs(sel.node);
  if (ins.empty()) {
    ImGui::TextWrapped("%s has no tensor inputs.", plan.graph.nodes[static_cast<size_t>(sel.node)].name.c_str());
    return;
  }
  state.input = std::clamp(state.input, 0, static_cast<int>(ins.size()) - 1);
  // Input picker, the edge's title and its global shape: one row that wraps (views/toolbar.h).
  ToolbarFlow row("edge");
  row.next(220);
  inputPicker(plan, ins, state);
  row.probe("input");
  const EdgeSummary e = summarizeEdge(plan, diags, sel.node, state.input);
  row.text(e.title, 0, "title");
  if (!e.valid) {
    ImGui::TextWrapped("%s", e.why.c_str());
    return;
  }
  row.text("global " + shapeToString(e.meta.shape) + " " + dtypeName(e.meta.dtype), ImGui::GetColorU32(ImGuiCol_TextDisabled), "global");
  // One compact line of diagnostic kinds (the inspector and the diagnostics pane carry the full messages);
  // hovering shows them here too.
  diagnosticKinds(e);

  // Redistribute steps and actions, above the pictures so they never scroll away.
  redistributeActions(plan, e, state, sel, cmds, pal);
  ImGui::Separator();

  // The two layouts: side by side when each fits, else stacked.
  twoLayouts(plan, e, state, sel);
}

}  // namespace ss::views
