#pragma once
// Teach view: a redistribute played step by step on the mesh (ss::teachRedistribute, which expands the
// planner's steps into block movements). Every rank is a cell holding a miniature of the global tensor. The
// tensor is cut into atoms at every boundary any layout or transfer of the redistribute has, and an atom keeps
// its colour wherever it goes, so a block is recognisable as it travels. A transfer is a chip (the block's
// atoms in miniature) moving along a curved arrow from sender to receiver; a chip of partial values is hatched
// and says how many ranks' values it combines. Step back and forth, play / pause, speed; the text of the step
// beside the picture.
//
// Timeline: a position t in [0, teachTimelineLength]; each step takes max(1, rounds) units, one per round, so
// integer step boundaries are the layouts between steps (t = 0: the start).
//
// Record pass (plain C++, tested headless): teachFrame() gives cells, the atoms each holds, arrows and chips in
// pixels relative to the area's top-left (x right, y down); drawing only walks them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <imgui.h>

#include "core/model/diagnostics.h"
#include "core/model/plan.h"
#include "core/plan/teach.h"
#include "views/model/mesh_layout.h"
#include "views/model/text_fit.h"
#include "views/model/selection.h"

namespace ss::views {

struct TeachMoment {
  int step = -1;          // -1: the start layout, no step shown
  int round = 0;          // rounds of `step` completed (0 .. max(1, rounds)); complete = the layout after it
  float progress = 0;     // of the round in flight, in [0, 1)
  bool overview = false;  // the whole step at once: the layout after it, every chip at rest on its arrow
};
double teachTimelineLength(const TeachPlan& tp);
double teachStepStart(const TeachPlan& tp, int step);  // where step `step` begins (step == size: the end)
TeachMoment teachMomentAt(const TeachPlan& tp, double t);

// The cut of the drawn plane (tensor dims dimA down, dimB across) into atoms, row-major.
struct TeachAtoms {
  int dimA = -1, dimB = -1;
  std::vector<int64_t> cutsA, cutsB;  // ascending boundaries, from 0 to the dim's size ({0, 1} for no dim)
  int rows() const { return std::max(0, static_cast<int>(cutsA.size()) - 1); }
  int cols() const { return std::max(0, static_cast<int>(cutsB.size()) - 1); }
  int count() const { return rows() * cols(); }
  Rect frac(int atom) const;  // in [0, 1] of the global tensor
  std::vector<int> covered(const Block& b) const;  // atoms inside the block's projection, ascending
};
// Picks dimA/dimB (dims sharded at either end first, then the largest; -1 entries when the rank is below 2).
TeachAtoms teachAtoms(const TeachPlan& tp, int dimA = -1, int dimB = -1);

struct AtomHeld {
  int atom = 0;
  bool partial = false;  // partial values (some mesh dim Partial, or a reduce still combining)
  int count = 0, of = 0; // reduce steps in flight: the values of `count` of `of` ranks are combined here
};
struct TeachCell {
  int64_t rank = 0;
  Rect rect, mini;       // the cell and the miniature inside it
  std::string label;     // "r5 (1,1)"
  std::string shape;     // local shape "[2, 6]"
  // What the cell shows of `label` and of `shape` (" empty" after an empty shard's): elided with "..." to fit the
  // cell's width (views/model/text_fit.h); hovering the cell shows the full text.
  std::string labelShown, shapeShown;
  bool empty = false;
  std::vector<AtomHeld> held;
};
struct TeachArrow {
  int64_t src = 0, dst = 0;
  float x0 = 0, y0 = 0, cx = 0, cy = 0, x1 = 0, y1 = 0;  // quadratic Bezier, clipped at the cells' borders
  bool reduces = false;
  bool paddingOnly = false;  // every transfer on it is padding (an empty shard's)
  int transfers = 0;
};
struct TeachChip {
  int transfer = 0;                              // index into the step's transfers
  Rect rect;                                     // where the chip is now
  std::vector<std::pair<int, Rect>> pieces;      // atom and its rect inside the chip
  bool reduces = false;
  int count = 0, of = 0;                         // reduce: ranks whose values it combines, of the group size
  bool paddingOnly = false;                      // an empty shard's transfer: a grey box, no atoms
  Rect padding{0, 0, 0, 0};                      // the padding travelling with the block (below it; empty: none)
};
struct TeachFrame {
  TeachAtoms atoms;
  std::vector<TeachCell> cells;   // rank order
  std::vector<TeachArrow> arrows; // one per (src, dst) pair of the step (or of the round in flight)
  std::vector<TeachChip> chips;
  std::string caption;            // "step 1 of 2: all_to_all on mesh dim 1 (tp): S(1) -> S(0)"
  std::string detail;             // "round 2 of 3" / "start: RS(1)" / "after: RS(0)"
  std::vector<std::string> lines; // the step's text (or the start layout's)
  float width = 0, height = 0;
  std::string error;              // nothing to draw (the plan is refused): the reason
};
// The width a cell keeps for its two text lines when the height would shrink it further (its miniature
// shrinks instead), as far as the frame's width allows.
inline constexpr float kTeachCellTextW = 110;
struct TeachFrameOptions {
  float width = 900, height = 600;
  float gap = 28;                 // between cells: room for the arrows
  float labelH = 16;              // one text line in a cell
  int dimA = -1, dimB = -1;
  TextWidthFn textWidth;          // measures cell text (drawTeachPage: the UI font); empty: 7 px a character
};
TeachFrame teachFrame(const TeachPlan& tp, const TeachMoment& m, const TeachFrameOptions& o);
// A point on a frame's arrow, u in [0, 1].
ImVec2 teachArrowPoint(const TeachArrow& a, float u);

// Draws a frame at `origin` (screen pixels).
void drawTeachFrame(ImDrawList* dl, ImVec2 origin, const TeachFrame& f);
// A whole page for a moment: title, the picture and the step's text beside it, filling `size`. Returns the
// frame drawn and its origin (the `teach` verb writes both next to the PNGs).
// Pages narrower than this put the step's text under the picture instead of beside it.
inline constexpr float kTeachStackBelow = 900;
struct TeachPage {
  TeachFrame frame;
  ImVec2 origin;
};
TeachPage drawTeachPage(const TeachPlan& tp, const TeachMoment& m, ImVec2 size);

struct TeachViewState {
  double position = 0;            // timeline position
  bool playing = false;
  float speed = 1.0f;             // rounds per second
  bool playRequested = false;     // set by the Edge view's Play button: start from the beginning
  std::string playgroundInput;    // the playground's "choose placements" text
  std::string playgroundError;
  // The plan shown, cached on what it was built from.
  std::optional<TeachPlan> plan;
  std::string key;
  int framesDrawn = 0;            // tests read it
  TeachMoment lastMoment;         // last frame's moment (tests read it)
};

// Steps `state.position` by `dt` seconds when playing (stops at the end). Returns true when it moved.
bool advanceTeach(TeachViewState& state, const TeachPlan& tp, double dt);

// The view: the selected edge's redistribute (its existing one, else producer -> consumer layouts). On a
// playground plan (ss::isPlayground) it also offers to choose other placements (an undoable command).
void drawTeachView(const Plan& plan, const Diagnostics& diags, TeachViewState& state, Selection& sel,
                   CommandQueue& cmds);

}  // namespace ss::views
