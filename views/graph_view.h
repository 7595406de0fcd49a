#pragma once
// GraphView: the compute DAG in layers (core/draw/graph_layout.h) on a pan/zoom canvas (core/draw/canvas.h).
//
// Nodes are coloured by their output placement, marked by their worst diagnostic, labelled with op name and
// shape when zoomed in; edges that redistribute are drawn thick with a badge naming the collective (red when
// the plan lacks a redistribute a diagnostic asks for); long edges are stubs with the far end on hover. Wheel
// zooms to the cursor, drag pans, F fits, Ctrl+F searches names and ops (Enter / F3 jump to the next hit),
// a minimap in the corner shows the whole graph and moves the view on click. Filters (phase, module path, only
// problems) hide nodes without moving the others; repeated layers and module blocks collapse into boxes.
//
// With an overlay (views/model/applied_graph_overlay.h) each planned transition's pill says what the applied graph did:
// applied (green, a check mark), missing (dashed red edge and outlined red pill, or a dashed ghost node), unplanned
// (orange); nodes it marks are drawn as collectives (chamfered boxes in the state's colour, kind, mesh dim, bytes
// and time). Selecting a node centres on it and frames the view so the graph fills it (no empty canvas beside).
//
// Contract: drawGraphView draws into the current ImGui window (the caller owns the window), reads the plan and
// diagnostics, and writes only `state` and `selection`. Graphs of `syncLayoutBelow` nodes or more are laid out
// on a worker thread; until it finishes the view shows progress. After an edit of the plan (specs,
// redistributes) the document owner bumps `state.revision` so colours and edges refresh; a new plan is detected
// by its address, size and first and last names, and the owner sets `relayoutRequested` when it replaces the
// document in place.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/draw/canvas.h"
#include "core/model/diagnostics.h"
#include "core/draw/graph_layout.h"
#include "core/draw/module_overview.h"
#include "core/model/plan.h"
#include "views/graph_diff.h"
#include "views/model/graph_records.h"
#include "views/model/selection.h"

namespace ss::views {

struct GraphViewState {
  Canvas canvas;
  // The module overview (core/draw/module_overview.h, views/graph_overview.h): which families and blocks are open.
  // While `expansionAuto`, Fit picks the level (the deepest whose labels are readable); opening or closing a box by
  // hand keeps what the user set until the next document.
  ModuleExpansion expansion;
  bool expansionAuto = true;
  float minLabelPx = 11.f;        // text is drawn at this size or not at all; Fit zooms no further out
  int hoveredBox = -1;            // the collapsed box (layout block) under the mouse
  GraphFilter filter;
  std::string search;             // Ctrl+F text
  bool searchReset = false;       // set with an emptied `search` (a new document): the field lets go of its text
  bool showMinimap = true;
  bool fitRequested = true;       // fit the whole graph when the next layout arrives
  // Camera requests from the app's keys (views/keys.h: + / - zoom about the canvas centre, arrows pan by screen
  // pixels): applied on the next frame that has a layout, then reset.
  double zoomRequest = 1.0;
  Vec2d panRequest{0, 0};
  uint64_t revision = 0;          // bump after an edit so colours and redistribute edges refresh
  bool relayoutRequested = false; // set when a new document replaces the plan (a fresh layout and fit)
  size_t syncLayoutBelow = 4000;  // graphs smaller than this are laid out on the UI thread
  RecordOptions recordOptions;    // level-of-detail thresholds (selection fields are filled each frame)
  const GraphDiffMarks* diff = nullptr;  // compare mode: before/after badges drawn over the graph (owner keeps it)
  // Applied-graph overlay (pills on edges, collective nodes; owner keeps it). Bump `revision` when it changes.
  const GraphOverlay* overlay = nullptr;
  int divergentNode = -1;         // the last run's first divergent node: marked, what follows faded (-1: none)

  // Read-only for callers (tests, the status bar).
  std::optional<GraphModel> model;
  GraphRecords records;
  std::vector<int> searchHits;
  int searchCursor = -1;
  int hoveredNode = -1;
  int hoveredEdge = -1;           // layout edge under the mouse (line or stub)
  double lastRecordMs = 0;        // time of the record pass in the last frame
  std::vector<DiffBadgeRecord> diffRecords;  // compare mode: last frame's badges
  bool layoutRunning() const { return worker && worker->running(); }
  float layoutProgress() const { return worker ? worker->progress() : 0.f; }

  // Internal bookkeeping.
  std::unique_ptr<LayoutWorker> worker;
  std::shared_ptr<const LayoutInput> layoutInput;  // the plan's, kept for relayouts of the overview
  ModuleExpansion expansionSeen;                   // the expansion of the model's layout
  int anchorNode = -1;                             // after a relayout: this node's box stays where it was
  Vec2d anchorScreen;
  struct Seen {
    const Plan* plan = nullptr;
    int nodes = -1;
    size_t edges = 0;
    std::string first, last;
    const Diagnostics* diags = nullptr;
    size_t diagCount = 0;
    size_t redistributes = 0;
    uint64_t revision = 0;
    const GraphOverlay* overlay = nullptr;
  } seen;
  GraphFilter filterSeen;
  std::string searchSeen;
  uint64_t selectionSeen = ~uint64_t{0};
  bool focusSearch = false;
  bool draggingMinimap = false;
};

// The minimap's largest size as fractions of the canvas (it also stays within 180 x 220 px).
inline constexpr float kMinimapMaxWidth = 0.2f, kMinimapMaxHeight = 1.0f / 3.0f;

void drawGraphView(const Plan& plan, const Diagnostics& diags, GraphViewState& state, Selection& selection);

// Palette shared with the legend and tests: colour of a spec class (-1 = no spec), severity colour.
uint32_t graphSpecColour(int colourClass);   // ImU32 (ABGR)
uint32_t graphSeverityColour(uint8_t severity);

}  // namespace ss::views
