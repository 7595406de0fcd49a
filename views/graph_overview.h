#pragma once
// The graph view's module overview (core/draw/module_overview.h) as the view keeps it: the level Fit picks, boxes
// opened and closed by click and keys, the relayout each change needs, the camera kept on what the user looked at,
// and Fit that never zooms out past readable labels. Plain C++ over GraphViewState (no ImGui): the view calls it,
// tests drive it.
//
// Contract: every function changes `st.expansion` (and marks it hand-set) or the camera only; the relayout happens
// in keepOverviewCurrent, which graph_view calls each frame: in this frame when the units to lay out number fewer
// than st.syncLayoutBelow, else on the worker (the previous model stays on screen meanwhile).
#include "core/model/diagnostics.h"
#include "core/model/plan.h"
#include "views/graph_view.h"

namespace ss::views {

// A new plan: its layout input, the overview level a view of `viewPx` reads (hasModuleBlocks: else every node),
// and the layout of it (sync or on the worker).
void startOverviewLayout(const Plan& plan, const Diagnostics& diags, GraphViewState& st, Vec2d viewPx);
// Relayouts when st.expansion differs from the model's; installs a finished worker layout. Returns whether the model
// was replaced.
bool keepOverviewCurrent(const Plan& plan, const Diagnostics& diags, GraphViewState& st);

// The collapsed box (layout block of the model) that hides node `v`, or -1.
int collapsedBoxOf(const GraphViewState& st, int v);
// Opens box `block` of the model: a family box shows its blocks, a block box its nodes. False if not a box.
bool expandBox(GraphViewState& st, int block);
// Closes the innermost open group around node `v`: its block, else its family. False when none is open.
bool collapseAround(GraphViewState& st, int v);
// Opens whatever hides node `v` (its family and block; for a graph input drawn inside a box, its consumer's).
bool revealNode(GraphViewState& st, int v);
// The overview level at which the model's layout is, when it is a whole level; nullopt when boxes were opened or
// closed by hand.
std::optional<OverviewLevel> currentLevel(const GraphViewState& st);
// Sets a whole level (the toolbar's combo): every family and block as `level` has them.
void setLevel(GraphViewState& st, OverviewLevel level);

// Fit: with the level automatic, re-picks it for the canvas; then frames the whole graph, or, when its labels would
// fall under st.minLabelPx, the top of it at the smallest zoom that keeps them readable, moved down to the first
// problem when that lies below (the minimap shows the rest, its problems marked). Returns false while a relayout
// it asked for is still running (call again next frame).
bool fitOverview(const Plan& plan, const Diagnostics& diags, GraphViewState& st);
// The zoom at which node labels are st.minLabelPx tall (the view draws text at 13 px per zoom unit).
double readableZoom(const GraphViewState& st);

}  // namespace ss::views
