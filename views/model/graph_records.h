#pragma once
// GraphRecords: the plain-C++ half of the graph view (no ImGui). Two phases, as Tracy draws its timeline:
//   1. GraphModel: per plan, diagnostics and layout (camera-independent): colour class of every node from its
//      output placement, worst diagnostic severity, edges that carry or need a redistribute with the collective's
//      name, filters and collapsed blocks. Rebuilt when the plan, its diagnostics or the filter change.
//   2. buildGraphRecords: per frame, for the canvas's visible rectangle only: screen-space records for nodes,
//      edges, long-edge stubs, badges, block frames and problem markers. Level of detail follows the node
//      height on screen; nodes under `mergeBelowPx` are merged into pixel cells (worst severity wins), so a
//      zoomed-out 100k-node graph costs a few thousand rectangles. GraphView walks the records with ImDrawList.
// An optional GraphOverlay (what an applied graph says about the drawn graph, views/model/applied_graph_overlay.h) puts
// pills on edges (applied / missing / unplanned collectives) and marks nodes as collectives; the model keeps them
// per layout edge and node, the records carry them to the drawing.
// Sections: model, overlay, filter, records, record pass.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/draw/canvas.h"
#include "core/model/diagnostics.h"
#include "core/draw/graph_layout.h"
#include "core/model/plan.h"

namespace ss::views {

// ---- model ----
enum class EdgeKind : uint8_t {
  Normal,
  Redistribute,        // the plan inserts a redistribute on this edge
  NeedsRedistribute,   // a diagnostic says the edge needs one and the plan has none (a problem)
  NotApplied,          // the plan has a transition here that the applied graph does not perform (a problem)
};

// ---- overlay ----
// State of a pill or a collective node, with stable names (records tests, tooltips).
enum class PillState : uint8_t {
  Plan,       // what the plan says (no applied graph, or the transition was not judged)
  Applied,    // the applied graph performs it
  Missing,    // the applied graph lacks it (error)
  Unplanned,  // the applied graph communicates here and the plan has no transition (warning)
};
const char* pillStateName(PillState s);  // "plan", "applied", "missing", "unplanned"

struct EdgePill {
  std::string text;                 // "missing all_to_all dim1 48.0 KiB"
  PillState state = PillState::Plan;
  bool ghost = false;               // drawn as a ghost node (dashed box) where the missing collective belongs
};
struct NodeMark {                   // a node drawn as a collective (distinct shape and colour)
  std::string title;                // "all_to_all dim1"
  std::string detail;               // "3.3 MiB 32.3 us"
  PillState state = PillState::Plan;
};
// Keyed by graph positions (consumer node + input index, node index), so it can be built before any layout.
struct GraphOverlay {
  struct Edge { int consumer = -1, input = -1; EdgePill pill; };
  std::vector<Edge> edges;
  std::vector<std::pair<int, NodeMark>> nodes;
  bool empty() const { return edges.empty() && nodes.empty(); }
};

struct GraphModel {
  GraphLayout layout;
  // Per node.
  std::vector<uint8_t> severity;      // 0 none, 1 info, 2 warning, 3 error: the worst diagnostic on the node
  std::vector<int16_t> colour;        // palette class of the first output spec; -1 = no spec
  std::vector<uint8_t> visible;       // 1 = passes the filter
  std::vector<uint8_t> match;         // 1 = matches the current search
  std::vector<int> blockOf;           // layout block or -1
  // Per layout edge.
  std::vector<EdgeKind> edgeKind;
  std::vector<float> entryFraction;   // where on the consumer's top the edge enters (0..1), by input index
  std::unordered_map<int, std::string> badge;  // edge -> "all_to_all" (collectives of the redistribute)
  std::unordered_map<int, std::vector<EdgePill>> pills;  // edge -> overlay pills (drawn instead of its badge)
  std::vector<int> markOf;                      // per node: index into marks, -1 = an ordinary node
  std::vector<NodeMark> marks;
  std::vector<int> markedNodes;                 // nodes with a mark, ascending
  // Per block.
  std::vector<uint8_t> collapsed;
  std::vector<uint8_t> blockSeverity; // worst severity inside
  // What a collapsed box says of its inside: errors and warnings on its nodes, and its communication (edges into
  // its nodes that redistribute or need to, and collectives the applied graph marks there).
  std::vector<int> blockErrors, blockWarnings, blockComm;
  // Colour classes: spec text and how many nodes output it, in order of first appearance.
  std::vector<std::string> specNames;
  std::vector<int> specCounts;
  std::vector<int> problemNodes;      // nodes with severity >= warning, ascending
  // Layout edges entering each node: inEdges[inEdgeStart[v] .. inEdgeStart[v + 1]), by input index.
  std::vector<int> inEdgeStart, inEdges;
  std::vector<int> outEdgeStart, outEdges;  // edges leaving each node
  std::vector<int> problemEdges;            // edges of kind NeedsRedistribute or NotApplied, ascending
  int maxShortSpan = 0;                     // the most layers a drawn (not long) edge spans
  // Far-out level of detail: free nodes (in no block) per layer, block members, and per block its most common
  // colour and whether every member passes the filter (then a merged frame draws the block as one rectangle).
  std::vector<int> freeStart, freeNodes;    // free nodes of layer l: freeNodes[freeStart[l] .. freeStart[l + 1])
  std::vector<int> blockStart, blockMembers;
  std::vector<int16_t> blockColour;
  std::vector<uint8_t> blockWhole;
  int findEdge(int consumer, int input) const;  // layout edge index, or -1
};

// The camera-independent indexes of a layout with no plan information (no colours, no problems, all visible).
GraphModel modelForLayout(GraphLayout layout);
// Colours, severities and edges of `plan` + `diags` (+ `overlay`) over an existing layout of the same graph.
GraphModel makeGraphModel(const Plan& plan, const Diagnostics& diags, GraphLayout layout,
                          const GraphOverlay* overlay = nullptr);
// Re-derives severity, colour, edge kinds and overlay after an edit (same graph), keeping layout, filter and
// collapse. Overlay pills: a Missing one makes its edge NotApplied and its consumer an error; an Unplanned one
// makes its consumer a warning; any pill puts a badge on its edge.
void refreshGraphModel(const Plan& plan, const Diagnostics& diags, GraphModel& model,
                       const GraphOverlay* overlay = nullptr);

// ---- filter ----
struct GraphFilter {
  bool forward = true;
  bool backward = true;
  bool other = true;              // unknown and optimizer phases
  std::string modulePath;         // substring of the module path; empty = all
  bool onlyProblems = false;      // keep nodes with a warning or an error
  bool collapseRepeated = false;  // collapse every stamped copy of a repeated block (the template stays open)
  // (Module boxes are the overview's, core/draw/module_overview.h: a collapsed block of the layout stays one.)
  bool operator==(const GraphFilter&) const = default;
};
void applyFilter(const Plan& plan, const GraphFilter& f, GraphModel& model);
// Case-insensitive substring search over node names and ops. Sets model.match; returns matches ascending.
std::vector<int> searchNodes(const Plan& plan, std::string_view query, GraphModel& model);

// ---- records ----
enum class NodeDetail : uint8_t { Box, Title, Full };  // Box: no text fits; Title: op name; Full: name + shape

struct NodeRecord {
  int node;
  float x0, y0, x1, y1;
  int16_t colour;
  uint8_t severity;
  NodeDetail detail;
  bool selected, match;
  bool divergent = false;   // the last run's first divergent node (RecordOptions::divergentNode)
  bool faded = false;       // runs after it in execution order: its value follows from a wrong one
  int mark = -1;            // GraphModel::marks index: drawn as a collective
};
struct CellRecord {      // a run of merged sub-pixel nodes on one pixel row band
  float x0, y0, x1, y1;
  int16_t colour;
  uint8_t severity;
  int count;              // nodes whose centre lies in the run
};
struct EdgeRecord {
  int edge;
  float ax, ay, bx, by;  // from the producer's bottom to the consumer's top
  EdgeKind kind;
  bool selected;
  int bundled = 1;       // edges between the same two units drawn as this one (a collapsed box's in and out)
};
struct StubRecord {      // one end of a long edge: at the source it leaves (x, y) downwards; at the target it
  int edge;              // enters (x, y) from above
  float x, y;
  bool atSource;
  EdgeKind kind;
  bool selected;
};
struct BadgeRecord { int edge; float x, y; EdgeKind kind; };  // its text: model.pills[edge], else model.badge[edge]
struct BlockRecord { int block; float x0, y0, x1, y1; bool collapsed; uint8_t severity; };
struct MarkerRecord { int node; float x, y; uint8_t severity; bool selected; };
// Far out (merged): a marked node (a collective) stays visible as a box of at least a few pixels in its state's
// colour, over the cells.
struct MarkRecord { int node; float x0, y0, x1, y1; int mark; };

struct RecordOptions {
  float mergeBelowPx = 3.f;     // node height under this: merged into cells
  float cellPx = 3.f;           // merged cell size
  float titleAbovePx = 12.f;    // node height from which the op name is drawn
  float fullAbovePx = 28.f;     // node height from which name and shape are drawn
  float stubPx = 14.f;          // stub length on screen
  size_t maxPlainEdges = 40000; // more visible ordinary edges than this: draw only special ones
  int selectedNode = -1;
  int selectedEdge = -1;        // layout edge index
  int divergentNode = -1;       // the last run's first divergent node (-1: none): marked, later nodes faded
};

struct GraphRecords {
  std::vector<NodeRecord> nodes;
  std::vector<CellRecord> cells;
  std::vector<EdgeRecord> edges;
  std::vector<StubRecord> stubs;
  std::vector<BadgeRecord> badges;
  std::vector<BlockRecord> blocks;
  std::vector<MarkerRecord> markers;
  std::vector<MarkRecord> marks;
  bool merged = false;          // nodes were merged into cells this frame
  bool plainEdgesSkipped = false;
  int nodesVisited = 0;
  void clear();
  // Scratch for merging (kept between frames to avoid allocation).
  struct CellAcc { int16_t colour; uint8_t severity; int count; };
  std::vector<int32_t> cellGrid;      // -1 or an index into cellAcc
  std::vector<int32_t> touched;
  std::vector<CellAcc> cellAcc;
  std::vector<int> edgeScratch;
  std::unordered_map<uint64_t, int> bundleScratch;  // (unit, unit) -> index into edges, while bundling
};

// ---- record pass ----
void buildGraphRecords(const GraphModel& model, const Canvas& canvas, const RecordOptions& opts, GraphRecords& out);

}  // namespace ss::views
