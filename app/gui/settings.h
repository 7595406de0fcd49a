#pragma once
// What the app remembers between runs (theme, pane splitters, recent files, window size) and the pane geometry.
//
// Files: settings.json in configDir(): $SHARDSCOPE_CONFIG_DIR, else $XDG_CONFIG_HOME/shardscope, else
// ~/.config/shardscope. A missing or unreadable file gives defaults (never an error at start).
//
// Pane geometry: three columns split at `col1` and `col2` (fractions of the width, col1 < col2); each column
// split once vertically at its own fraction of the height. Panes, left to right, top to bottom:
// Graph / Diagnostics | Edge / Mesh+Tensor | Inspector / Costs+Run.
#include <array>
#include <string>
#include <vector>

#include "views/model/mesh_layout.h"
#include "views/theme.h"

namespace ss::app {

enum PaneId : int { kPaneGraph, kPaneDiagnostics, kPaneEdge, kPaneMeshTensor, kPaneInspector, kPaneCostsRun, kPaneCount };

struct PaneLayout {
  float col1 = 0.36f, col2 = 0.70f;
  std::array<float, 3> rowSplit{0.62f, 0.50f, 0.62f};
  bool operator==(const PaneLayout&) const = default;
};

// Splitters: 0 and 1 are the vertical bars after column 0 and 1; 2..4 the horizontal bar inside column 0..2.
struct PaneRects {
  std::array<views::Rect, kPaneCount> panes;
  std::array<views::Rect, 5> splitters;
};

// Keeps every pane at least `minPx` wide/high for a w x h area (and fractions ordered, finite).
void clampLayout(PaneLayout& l, float w, float h, float minPx);
PaneRects computePanes(const PaneLayout& l, float x, float y, float w, float h, float splitterPx);
// Moves splitter `index` by (dx, dy) pixels for an area of w x h.
void dragSplitter(PaneLayout& l, int index, float dx, float dy, float w, float h);

struct Settings {
  views::ThemeKind theme = views::ThemeKind::Dark;
  PaneLayout layout;
  std::vector<std::string> recent;   // most recent first, at most kMaxRecent
  int windowW = 1600, windowH = 1000;
  float fontPixels = 15.0f;
};

inline constexpr size_t kMaxRecent = 10;

std::string configDir();
std::string stateDir();  // recovery files: $SHARDSCOPE_STATE_DIR, else $XDG_STATE_HOME/shardscope, else ~/.local/state/shardscope
Settings loadSettings();
bool saveSettings(const Settings& s);
void addRecent(Settings& s, const std::string& path);
// Creates the directory and its parents; false when it cannot.
bool makeDirs(const std::string& dir);

}  // namespace ss::app
