// The graph view's module overview upkeep; see views/graph_overview.h.
#include "views/graph_overview.h"

#include <algorithm>

namespace ss::views {
namespace {

constexpr double kFontPxPerZoom = 13.0;  // the view's node text: 13 px at zoom 1 (graph_view.cpp drawRecords)
constexpr double kFitMarginPx = 20.0;

// The expansion that shows every node: the plain layout (layoutGraph), without the quotient's extra pass.
bool opensEverything(const LayoutInput& in, const ModuleExpansion& x) {
  return !hasModuleBlocks(in) || x == expansionAt(in, OverviewLevel::Nodes);
}

void installModel(const Plan& plan, const Diagnostics& diags, GraphViewState& st, GraphLayout layout) {
  st.model = makeGraphModel(plan, diags, std::move(layout), st.overlay);
  applyFilter(plan, st.filter, *st.model);
  st.filterSeen = st.filter;
  st.seen.overlay = st.overlay;
  st.searchSeen.assign(1, '\0');  // re-run the search over the new model
  // The node the user looked at keeps its place on screen.
  if (st.anchorNode >= 0 && st.anchorNode < st.model->layout.nodeCount()) {
    const Rectd r = st.model->layout.nodeRect(st.anchorNode);
    st.canvas.offset = Vec2d{r.min.x, r.min.y} - (st.anchorScreen - st.canvas.origin) / st.canvas.zoom;
  }
  st.anchorNode = -1;
}

void startLayoutOf(const Plan& plan, const Diagnostics& diags, GraphViewState& st) {
  const LayoutInput& in = *st.layoutInput;
  st.expansionSeen = st.expansion;
  const bool plain = opensEverything(in, st.expansion);
  const int units = plain ? in.nodeCount : overviewUnits(in, st.expansion).count();
  if (static_cast<size_t>(units) < st.syncLayoutBelow) {
    if (st.worker) st.worker->stop();
    auto layout = plain ? layoutGraph(in) : layoutOverview(in, st.expansion);
    if (layout) installModel(plan, diags, st, std::move(*layout));
    return;
  }
  if (!st.worker) st.worker = std::make_unique<LayoutWorker>();
  std::shared_ptr<const LayoutInput> input = st.layoutInput;
  const ModuleExpansion x = st.expansion;
  st.worker->startJob([input, x, plain](LayoutProgress* progress) {
    return plain ? layoutGraph(*input, {}, progress) : layoutOverview(*input, x, {}, progress);
  });
}

// Remembers where `v` is on screen, so the relayout keeps it there.
void anchorOn(GraphViewState& st, int v) {
  if (!st.model || v < 0 || v >= st.model->layout.nodeCount()) return;
  const Rectd r = st.model->layout.nodeRect(v);
  st.anchorNode = v;
  st.anchorScreen = st.canvas.toScreen(r.min);
}

int inputBlockOf(const GraphViewState& st, int v) {
  const LayoutInput& in = *st.layoutInput;
  if (v < 0 || v >= in.nodeCount || static_cast<int>(in.block.size()) != in.nodeCount) return -1;
  const int b = in.block[static_cast<size_t>(v)];
  return b >= 0 && b < static_cast<int>(in.blockNames.size()) ? b : -1;
}

int familyOf(const GraphViewState& st, int b) {
  const LayoutInput& in = *st.layoutInput;
  return b >= 0 && b < static_cast<int>(in.blockFamily.size()) ? in.blockFamily[static_cast<size_t>(b)] : -1;
}

}  // namespace

double readableZoom(const GraphViewState& st) { return st.minLabelPx / kFontPxPerZoom; }

void startOverviewLayout(const Plan& plan, const Diagnostics& diags, GraphViewState& st, Vec2d viewPx) {
  st.layoutInput = std::make_shared<const LayoutInput>(layoutInputFromPlan(plan));
  const LayoutInput& in = *st.layoutInput;
  st.expansionAuto = true;
  const LayoutOptions opts;
  const OverviewLevel level =
      chooseOverviewLevel(in, viewPx.x, viewPx.y, opts.nodeHeight * readableZoom(st), opts);
  st.expansion = expansionAt(in, level);
  st.anchorNode = -1;
  startLayoutOf(plan, diags, st);
}

bool keepOverviewCurrent(const Plan& plan, const Diagnostics& diags, GraphViewState& st) {
  if (!st.layoutInput) return false;
  if (st.worker && !st.worker->running()) {
    if (auto layout = st.worker->take()) {
      installModel(plan, diags, st, std::move(*layout));
      return true;
    }
  }
  if (!(st.expansion == st.expansionSeen)) {
    startLayoutOf(plan, diags, st);
    return true;
  }
  return false;
}

int collapsedBoxOf(const GraphViewState& st, int v) {
  if (!st.model || v < 0 || v >= st.model->layout.nodeCount()) return -1;
  const int b = st.model->blockOf[static_cast<size_t>(v)];
  return b >= 0 && st.model->layout.blocks[static_cast<size_t>(b)].collapsed ? b : -1;
}

bool expandBox(GraphViewState& st, int block) {
  if (!st.model || !st.layoutInput || block < 0 || block >= static_cast<int>(st.model->layout.blocks.size())) return false;
  const LayoutBlock& blk = st.model->layout.blocks[static_cast<size_t>(block)];
  if (!blk.collapsed) return false;
  const int first = st.model->blockMembers.empty() || st.model->blockStart[static_cast<size_t>(block)] ==
                                                          st.model->blockStart[static_cast<size_t>(block) + 1]
                        ? -1
                        : st.model->blockMembers[static_cast<size_t>(st.model->blockStart[static_cast<size_t>(block)])];
  if (blk.sourceBlock < 0) st.expansion.openFamilies.insert(blk.family);  // a family box: its blocks show
  else st.expansion.openBlocks.insert(blk.sourceBlock);
  st.expansionAuto = false;
  anchorOn(st, first);
  return true;
}

bool collapseAround(GraphViewState& st, int v) {
  if (!st.layoutInput) return false;
  const int b = inputBlockOf(st, v);
  if (b < 0) return false;
  anchorOn(st, v);
  st.expansionAuto = false;
  if (st.expansion.openBlocks.erase(b) > 0) return true;
  if (st.expansion.openFamilies.erase(familyOf(st, b)) > 0) return true;
  st.anchorNode = -1;
  return false;
}

bool revealNode(GraphViewState& st, int v) {
  if (!st.layoutInput || collapsedBoxOf(st, v) < 0) return false;
  int target = inputBlockOf(st, v) >= 0 ? v : -1;
  if (target < 0)  // a graph input drawn inside a box: open its consumer's
    for (const LayoutEdge& e : st.layoutInput->edges)
      if (e.src == v && inputBlockOf(st, e.dst) >= 0) { target = e.dst; break; }
  if (target < 0) return false;
  const int b = inputBlockOf(st, target);
  const bool changed = st.expansion.openBlocks.insert(b).second | st.expansion.openFamilies.insert(familyOf(st, b)).second;
  if (changed) st.expansionAuto = false;
  return changed;
}

std::optional<OverviewLevel> currentLevel(const GraphViewState& st) {
  if (!st.layoutInput) return std::nullopt;
  for (OverviewLevel l : {OverviewLevel::Families, OverviewLevel::Blocks, OverviewLevel::Nodes})
    if (st.expansion == expansionAt(*st.layoutInput, l)) return l;
  return std::nullopt;
}

void setLevel(GraphViewState& st, OverviewLevel level) {
  if (!st.layoutInput) return;
  st.expansion = expansionAt(*st.layoutInput, level);
  st.expansionAuto = false;
  st.fitRequested = true;
}

bool fitOverview(const Plan& plan, const Diagnostics& diags, GraphViewState& st) {
  if (st.expansionAuto && st.layoutInput) {
    const LayoutOptions opts;
    const OverviewLevel level = chooseOverviewLevel(*st.layoutInput, st.canvas.size.x - 2 * kFitMarginPx,
                                                    st.canvas.size.y - 2 * kFitMarginPx,
                                                    opts.nodeHeight * readableZoom(st), opts);
    st.expansion = expansionAt(*st.layoutInput, level);
    keepOverviewCurrent(plan, diags, st);
  }
  if (!st.model || (st.worker && st.worker->running())) return false;
  const Rectd bounds = st.model->layout.bounds;
  st.canvas.fit(bounds, kFitMarginPx);
  const double readable = readableZoom(st);
  if (st.canvas.zoom < readable) {
    // Labels would be unreadable: the top of the graph at the smallest readable zoom, centred when it is narrow
    // enough, else from its left edge.
    st.canvas.zoom = std::min(readable, st.canvas.maxZoom);
    const Vec2d view = st.canvas.size / st.canvas.zoom;
    const double margin = kFitMarginPx / st.canvas.zoom;
    st.canvas.offset.x = bounds.width() + 2 * margin <= view.x ? bounds.center().x - view.x * 0.5 : bounds.min.x - margin;
    st.canvas.offset.y = bounds.min.y - margin;
    // The first problem (warning or error) stays in view: a third of the way down, and centred across when the
    // graph is wider than the view.
    if (!st.model->problemNodes.empty()) {
      const Rectd p = st.model->layout.nodeRect(st.model->problemNodes.front());
      if (p.max.y > st.canvas.offset.y + view.y - margin)
        st.canvas.offset.y = std::min(p.min.y - view.y / 3, bounds.max.y + margin - view.y);
      if (p.min.x < st.canvas.offset.x || p.max.x > st.canvas.offset.x + view.x)
        st.canvas.offset.x = std::clamp(p.center().x - view.x * 0.5, bounds.min.x - margin, bounds.max.x + margin - view.x);
    }
  }
  return true;
}

}  // namespace ss::views
