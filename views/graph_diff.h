#pragma once
// Compare mode over the graph view: before/after badges on A's changed nodes and edges (views/changes_view.h makes
// the marks from core/plan/diff.h). Same two phases as the graph's own records: buildGraphDiffRecords (plain C++,
// per frame, visible marks only, unit-tested) and drawGraphDiff (walks the records with an ImDrawList).
#include <cstdint>
#include <string>
#include <vector>

#include "core/draw/canvas.h"
#include "views/model/graph_records.h"

struct ImDrawList;

namespace ss::views {

enum class DiffMarkKind : uint8_t { Changed, Removed };

struct NodeDiffMark {
  int node = -1;                 // in A
  DiffMarkKind kind = DiffMarkKind::Changed;
  std::string before, after;     // "out S(0)" / "out S(1)"; a removed node: its op / ""
};
struct EdgeDiffMark {
  int node = -1, input = -1;     // consumer in A, input index
  std::string before, after;     // "none" / "RS(1) -> RS(0)"
};
struct GraphDiffMarks {
  std::vector<NodeDiffMark> nodes;  // ascending node, one per node
  std::vector<EdgeDiffMark> edges;  // ascending (node, input), one per edge
  bool empty() const { return nodes.empty() && edges.empty(); }
};

struct DiffBadgeRecord {
  bool edge = false;
  int mark = -1;                 // index into marks.nodes or marks.edges
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // node: its box on screen; edge: the badge anchor (x0, y0) = (x1, y1)
  DiffMarkKind kind = DiffMarkKind::Changed;
  bool readable = false;         // zoomed in enough for text; else a dot
  bool selected = false;
  int graphBadgeChars = 0;       // edge: length of the graph's own badge on it (drawn beside it, never over it)
};

// Screen records of the marks whose node (or edge anchor) lies in the canvas; hidden (filtered) nodes skipped.
void buildGraphDiffRecords(const GraphDiffMarks& marks, const GraphModel& model, const Canvas& canvas, int selectedNode,
                           std::vector<DiffBadgeRecord>& out);
void drawGraphDiff(ImDrawList* dl, const GraphDiffMarks& marks, const std::vector<DiffBadgeRecord>& records);
// The badge colour of compare mode (tests look for it in pixels): magenta, unlike every spec and severity colour.
inline constexpr uint32_t kDiffColour = 0xFFE650E6u;  // IM_COL32(230, 80, 230, 255)

}  // namespace ss::views
