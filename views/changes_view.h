#pragma once
// Compare mode: plan B (File > Compare with...) against the open plan A (the document), through core/plan/diff.h.
//
// - Comparison: B, the diff and what the other views draw from it: per A node and edge a before/after badge
//   (GraphDiffMarks, drawn over the graph by views/graph_diff.h) and the rows of the Changes list.
// - Changes view: every change and every diagnostic that appears or disappears, with its cost delta, in one
//   clipped list (ImGuiListClipper: 100k rows cost the visible ones); clicking a row selects its node or edge in A.
// Records (rows, marks) are computed apart from drawing and unit-tested; the document stays the only thing edited.
// The comparison follows A's edits: it is recomputed when the document's revision changes. What is compared
// (plans, applied graphs, diagnostics) is core/applied/compare.h's, as `shardscope diff` compares it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/applied/compare.h"
#include "core/plan/diff.h"
#include "core/model/plan.h"
#include "views/graph_diff.h"
#include "views/model/selection.h"

namespace ss::views {

enum class ChangeRowKind : uint8_t { Change, DiagnosticRemoved, DiagnosticAdded };

struct ChangeRow {
  ChangeRowKind kind = ChangeRowKind::Change;
  int index = -1;            // into diff.changes, or into diff.diagnosticsRemoved / diagnosticsAdded
  std::string label;         // "redistribute-added", "error gone", "error new"
  std::string title;         // changeTitle(), or the diagnostic's "node (input 2): kind"
  std::string delta;         // "+48.0 KiB, +9.3 us"; "" when none
  int node = -1, input = -1; // what a click selects in A (-1: nothing to select)
  uint8_t severity = 0;      // diagnostics: 1 info, 2 warning, 3 error
};

// The rows in list order: changes (the diff's order), then diagnostics gone, then diagnostics new.
std::vector<ChangeRow> changeRows(const Plan& a, const Plan& b, const PlanDiff& d);
// Before/after badges for A's graph: changed and removed nodes, and edges whose specs or redistribute changed.
GraphDiffMarks graphDiffMarks(const Plan& a, const Plan& b, const PlanDiff& d);

struct Comparison {
  bool active = false;
  std::string pathB;
  Plan b;
  std::vector<AppliedGraph> appliedB;       // B's applied graphs (a log's), by rank; empty for a plan file
  std::optional<Diagnostics> diagnosticsB;  // B's (the checker's, then its applied graphs'); computed once
  PlanDiff diff;
  GraphDiffMarks marks;
  std::vector<ChangeRow> rows;
  uint64_t revisionA = ~uint64_t{0};  // the document revision the diff describes
  double diffMs = 0;                  // time of the last diff (status line)

  // Loads B as `shardscope diff` loads it (loadCompareSide), compares it with `a`. On error nothing changes.
  Result<bool> open(const std::string& path, const CompareView& a, uint64_t revision);
  // Re-compares when A changed (its revision differs from revisionA); B's diagnostics are kept.
  void refresh(const CompareView& a, uint64_t revision);
  void close() { *this = Comparison{}; }
};

struct ChangesViewState {
  int selectedRow = -1;
  uint64_t seenGeneration = ~uint64_t{0};
  int rowsDrawn = 0;  // last frame (tests read it: the clipper draws only the visible rows)
};

void drawChangesView(const Plan& a, const Comparison& cmp, ChangesViewState& state, Selection& sel);

}  // namespace ss::views
