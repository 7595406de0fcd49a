#pragma once
// Diagnostics view: a table of severity, kind, node and message with a text filter and severity toggles.
// Clicking a row selects the node (and the edge, for an input diagnostic) and asks the graph to centre on it.
// Long lists go through ImGuiListClipper.
#include <string>
#include <vector>

#include "core/model/diagnostics.h"
#include "core/model/plan.h"
#include "views/model/selection.h"

namespace ss::views {

struct DiagnosticsViewState {
  char filter[128] = {};
  bool showErrors = true, showWarnings = true, showInfos = false;
  int rowsShown = 0;        // last frame (tests read it)
};

// Indices into diags.items that pass the filter: severity toggles and a case-insensitive substring of
// kind, node name or message. Plain C++, unit-tested.
std::vector<int> filterDiagnostics(const Plan& plan, const Diagnostics& diags, const DiagnosticsViewState& state);

// F8 / Shift+F8: the diagnostic to select `step` (+1 / -1) places from the selection, through the problems the
// view lists (filterDiagnostics, in its order), one stop per node or edge (several diagnostics of one target
// are one stop), wrapping at the ends. From a selection that is no listed target: the first (+1) or last (-1).
// Returns an index into diags.items, -1 when no listed diagnostic names a node. Plain C++, unit-tested.
int stepProblem(const Plan& plan, const Diagnostics& diags, const DiagnosticsViewState& state, const Selection& sel,
                int step);

void drawDiagnosticsView(const Plan& plan, const Diagnostics& diags, DiagnosticsViewState& state, Selection& sel,
                         CommandQueue& cmds);

// "2 errors, 1 warning, 5 infos" for the status bar.
std::string diagnosticCountsText(const Diagnostics& diags);

}  // namespace ss::views
