// Section index: timeline; atoms; records (held atoms, cells, arrows, chips); drawing; the view.
#include "views/teach_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "core/model/placement_parse.h"
#include "views/edge_view.h"
#include "views/fonts.h"
#include "views/mesh_view.h"
#include "views/theme.h"
#include "views/toolbar.h"
#include "views/ui_probe.h"

namespace ss::views {

// ---- timeline -----------------------------------------------------------------------------------------------
namespace {
int stepUnits(const TeachStep& s) { return std::max(1, s.rounds); }
}  // namespace

double teachTimelineLength(const TeachPlan& tp) {
  double t = 0;
  for (const TeachStep& s : tp.steps) t += stepUnits(s);
  return t;
}

double teachStepStart(const TeachPlan& tp, int step) {
  double t = 0;
  for (int i = 0; i < step && i < static_cast<int>(tp.steps.size()); ++i) t += stepUnits(tp.steps[static_cast<size_t>(i)]);
  return t;
}

TeachMoment teachMomentAt(const TeachPlan& tp, double t) {
  TeachMoment m;
  if (tp.steps.empty() || t <= 0) return m;
  double at = 0;
  for (int i = 0; i < static_cast<int>(tp.steps.size()); ++i) {
    const int units = stepUnits(tp.steps[static_cast<size_t>(i)]);
    if (t < at + units || i + 1 == static_cast<int>(tp.steps.size())) {
      m.step = i;
      const double in = std::clamp(t - at, 0.0, static_cast<double>(units));
      m.round = std::min(units, static_cast<int>(std::floor(in)));
      m.progress = m.round >= units ? 0.0f : static_cast<float>(in - m.round);
      return m;
    }
    at += units;
  }
  return m;
}

// ---- atoms --------------------------------------------------------------------------------------------------

Rect TeachAtoms::frac(int atom) const {
  const int r = atom / std::max(1, cols()), c = atom % std::max(1, cols());
  const auto f = [](const std::vector<int64_t>& cuts, int i, bool hi) {
    const double total = static_cast<double>(std::max<int64_t>(1, cuts.back()));
    return static_cast<float>(static_cast<double>(cuts[static_cast<size_t>(i + (hi ? 1 : 0))]) / total);
  };
  return Rect{f(cutsB, c, false), f(cutsA, r, false), f(cutsB, c, true), f(cutsA, r, true)};
}

namespace {
// Index ranges [lo, hi) of the cuts inside the intervals of one dim's slice (all of it when the dim is absent).
void coveredRange(const std::vector<int64_t>& cuts, const Block& b, int dim, std::vector<int>& out) {
  out.clear();
  const int n = static_cast<int>(cuts.size()) - 1;
  if (dim < 0 || dim >= static_cast<int>(b.dims.size())) {
    for (int i = 0; i < n; ++i) out.push_back(i);
    return;
  }
  for (const Interval& iv : b.dims[static_cast<size_t>(dim)].parts) {
    for (int i = 0; i < n; ++i)
      if (cuts[static_cast<size_t>(i)] >= iv.start && cuts[static_cast<size_t>(i + 1)] <= iv.start + iv.length &&
          cuts[static_cast<size_t>(i + 1)] > cuts[static_cast<size_t>(i)])
        out.push_back(i);
  }
}

void addCuts(std::vector<int64_t>& cuts, const Block& b, int dim) {
  if (dim < 0 || dim >= static_cast<int>(b.dims.size())) return;
  for (const Interval& iv : b.dims[static_cast<size_t>(dim)].parts) {
    cuts.push_back(iv.start);
    cuts.push_back(iv.start + iv.length);
  }
}
}  // namespace

std::vector<int> TeachAtoms::covered(const Block& b) const {
  std::vector<int> out, ra, rb;
  if (b.empty()) return out;
  coveredRange(cutsA, b, dimA, ra);
  coveredRange(cutsB, b, dimB, rb);
  for (int r : ra)
    for (int c : rb) out.push_back(r * cols() + c);
  std::sort(out.begin(), out.end());
  return out;
}

TeachAtoms teachAtoms(const TeachPlan& tp, int dimA, int dimB) {
  TeachAtoms a;
  const int rank = tp.meta.rank();
  if (dimA < 0 || dimA >= rank) {
    std::vector<int> dims;
    for (int d = 0; d < rank; ++d)
      if (tp.from.hasShardOn(d) || tp.to.hasShardOn(d)) dims.push_back(d);
    std::vector<int> rest;
    for (int d = 0; d < rank; ++d)
      if (std::find(dims.begin(), dims.end(), d) == dims.end()) rest.push_back(d);
    std::stable_sort(rest.begin(), rest.end(), [&](int x, int y) { return tp.meta.shape[x] > tp.meta.shape[y]; });
    dims.insert(dims.end(), rest.begin(), rest.end());
    dimA = dims.empty() ? -1 : dims[0];
    dimB = dims.size() < 2 ? -1 : dims[1];
    if (dimA > dimB && dimB >= 0) std::swap(dimA, dimB);
  }
  a.dimA = dimA;
  a.dimB = dimB;
  a.cutsA = {0, dimA >= 0 ? tp.meta.shape[static_cast<size_t>(dimA)] : 1};
  a.cutsB = {0, dimB >= 0 ? tp.meta.shape[static_cast<size_t>(dimB)] : 1};
  auto addLayout = [&](const std::vector<RankShard>& layout) {
    for (const RankShard& s : layout) {
      addCuts(a.cutsA, blockOf(s), dimA);
      addCuts(a.cutsB, blockOf(s), dimB);
    }
  };
  addLayout(tp.layoutBefore);
  for (const TeachStep& s : tp.steps) {
    addLayout(s.layoutAfter);
    for (const Transfer& t : s.transfers) {
      addCuts(a.cutsA, t.block, dimA);
      addCuts(a.cutsB, t.block, dimB);
    }
  }
  for (auto* cuts : {&a.cutsA, &a.cutsB}) {
    std::sort(cuts->begin(), cuts->end());
    cuts->erase(std::unique(cuts->begin(), cuts->end()), cuts->end());
    if (cuts->size() < 2) cuts->push_back(cuts->front() + 1);  // a zero-size dim: one empty atom row
  }
  return a;
}

// ---- records ------------------------------------------------------------------------------------------------
namespace {

// Held atoms from a whole layout.
std::vector<AtomHeld> heldOf(const TeachAtoms& atoms, const RankShard& s) {
  std::vector<AtomHeld> out;
  for (int a : atoms.covered(blockOf(s))) out.push_back(AtomHeld{a, s.partial, 0, 0});
  return out;
}

// Held atoms of every rank at a moment inside a step: what the rounds before `rounds` delivered.
std::vector<std::vector<AtomHeld>> heldDuring(const TeachPlan& tp, const TeachAtoms& atoms, int step, int rounds) {
  const TeachStep& s = tp.steps[static_cast<size_t>(step)];
  const std::vector<RankShard>& before = step == 0 ? tp.layoutBefore : tp.steps[static_cast<size_t>(step - 1)].layoutAfter;
  const size_t n = before.size();
  std::vector<std::vector<AtomHeld>> held(n);
  if (rounds >= stepUnits(s)) {
    for (size_t r = 0; r < n; ++r) held[r] = heldOf(atoms, s.layoutAfter[r]);
    return held;
  }
  const bool reduce = s.step.kind == CollectiveKind::ReduceScatter || s.step.kind == CollectiveKind::AllReduce;
  const int of = static_cast<int>(s.step.groupSize);
  // Per rank, per atom: held?, contributions combined (reduce kinds).
  std::vector<std::vector<int>> count(n, std::vector<int>(static_cast<size_t>(atoms.count()), 0));
  for (size_t r = 0; r < n; ++r)
    for (int a : atoms.covered(blockOf(before[r]))) count[r][static_cast<size_t>(a)] = 1;
  for (const Transfer& t : s.transfers) {
    if (t.round >= rounds || t.elements == 0) continue;
    const int c = static_cast<int>(t.contributors.size()) + (t.reduces ? 1 : 0);
    for (int a : atoms.covered(t.block)) {
      int& have = count[static_cast<size_t>(t.dst)][static_cast<size_t>(a)];
      have = std::max(have, reduce ? c : 1);
    }
  }
  for (size_t r = 0; r < n; ++r)
    for (int a = 0; a < atoms.count(); ++a) {
      const int c = count[r][static_cast<size_t>(a)];
      if (c == 0) continue;
      const bool partial = reduce ? (c < of || s.layoutAfter[r].partial) : before[r].partial;
      held[r].push_back(AtomHeld{a, partial, reduce ? c : 0, reduce ? of : 0});
    }
  return held;
}

// Exit point of the segment from the centre of `r` towards (tx, ty) on the border of `r`.
ImVec2 borderPoint(const Rect& r, float tx, float ty) {
  const float cx = (r.x0 + r.x1) * 0.5f, cy = (r.y0 + r.y1) * 0.5f;
  const float dx = tx - cx, dy = ty - cy;
  const float hw = r.w() * 0.5f, hh = r.h() * 0.5f;
  float s = 1.0f;
  if (std::fabs(dx) > 1e-3f) s = std::min(s, hw / std::fabs(dx));
  if (std::fabs(dy) > 1e-3f) s = std::min(s, hh / std::fabs(dy));
  return ImVec2(cx + dx * s, cy + dy * s);
}

std::string momentCaption(const TeachPlan& tp, const TeachMoment& m) {
  if (m.step < 0) return "start: " + tp.from.toMeshString() + "  " + tp.from.toTensorString(tp.meta.rank());
  return "step " + std::to_string(m.step + 1) + " of " + std::to_string(tp.steps.size()) + ": " +
         tp.steps[static_cast<size_t>(m.step)].headline();
}

// The cell grid's geometry, as frameGrid sizes it.
struct FrameGrid {
  int64_t cols, rows;
  float aspect, textH, arcRoom, rowGap, colGap, cw, ch;
  float miniW;  // the miniature's width (centred in the cell; narrower than the cell when the height limits it)
};

// Sizes the cell grid of `mesh` to fit o.width x o.height, cells in f.atoms' proportions; sets f.width, f.height.
FrameGrid frameGrid(const DeviceMesh& mesh, const TeachFrameOptions& o, TeachFrame& f) {
  const int64_t ranks = mesh.size();
  // Grid: the last mesh dim across, the others down (a 1-D mesh wraps past 8 per row).
  int64_t cols = mesh.ndim() == 1 ? std::min<int64_t>(ranks, 8) : mesh.dimSize(mesh.ndim() - 1);
  const int64_t rows = (ranks + cols - 1) / cols;
  const float aspect = std::clamp(static_cast<float>(f.atoms.cutsA.back()) / static_cast<float>(std::max<int64_t>(1, f.atoms.cutsB.back())),
                                  0.3f, 3.0f);  // mini height / width
  const float textH = 2 * o.labelH + 6;
  // Cell width from the width; shrink it until the rows fit the height.
  float cw = (o.width - o.gap * static_cast<float>(cols + 1)) / static_cast<float>(cols);
  auto cellH = [&](float w) { return textH + (w - 8) * aspect + 6; };
  // Arrows bow into the margins: `arcRoom` above, below and between the rows, and beside the columns.
  const float arcRoom = std::clamp(o.height * 0.1f, 30.0f, 90.0f);
  const float rowGap = 1.5f * arcRoom, colGap = std::max(o.gap, 0.6f * arcRoom);
  const float widthCw = (o.width - colGap * static_cast<float>(cols + 1)) / static_cast<float>(cols);
  cw = widthCw;
  while (cw > 24 && static_cast<float>(rows) * (cellH(cw) + rowGap) + arcRoom * 2 - rowGap > o.height) cw *= 0.95f;
  cw = std::clamp(cw, 24.0f, 240.0f);
  // When the height limits the miniature, the cell keeps the width its text needs (up to what the width gives):
  // the miniature shrinks, not the text's room.
  const float miniW = cw - 8;
  cw = std::max(cw, std::min(std::clamp(widthCw, 24.0f, 240.0f), kTeachCellTextW));
  const float ch = cellH(miniW + 8);
  f.width = colGap + static_cast<float>(cols) * (cw + colGap);
  f.height = 2 * arcRoom + static_cast<float>(rows) * (ch + rowGap) - rowGap;
  return FrameGrid{cols, rows, aspect, textH, arcRoom, rowGap, colGap, cw, ch, miniW};
}

// Adds f.cells, one per rank in grid order `g`: the layout shown at `m` and the atoms each rank holds then.
void addCells(const TeachPlan& tp, const TeachMoment& m, const FrameGrid& g, const TextWidthFn& measure, TeachFrame& f) {
  const DeviceMesh& mesh = tp.mesh;
  const int64_t ranks = mesh.size();
  const int64_t cols = g.cols;
  const float aspect = g.aspect, textH = g.textH, arcRoom = g.arcRoom, rowGap = g.rowGap, colGap = g.colGap;
  const float cw = g.cw, ch = g.ch;
  // Held atoms at this moment.
  std::vector<std::vector<AtomHeld>> held;
  const std::vector<RankShard>* shown = &tp.layoutBefore;
  if (m.step >= 0) {
    const TeachStep& s = tp.steps[static_cast<size_t>(m.step)];
    held = heldDuring(tp, f.atoms, m.step, m.overview ? stepUnits(s) : m.round);
    if (m.overview || m.round >= stepUnits(s)) shown = &s.layoutAfter;
    else if (m.step > 0) shown = &tp.steps[static_cast<size_t>(m.step - 1)].layoutAfter;
  } else {
    for (const RankShard& s : tp.layoutBefore) held.push_back(heldOf(f.atoms, s));
  }
  for (int64_t r = 0; r < ranks; ++r) {
    TeachCell c;
    c.rank = r;
    const float x = colGap + static_cast<float>(r % cols) * (cw + colGap);
    const float y = arcRoom + static_cast<float>(r / cols) * (ch + rowGap);
    c.rect = Rect{x, y, x + cw, y + ch};
    const float mx = x + (cw - g.miniW) * 0.5f;
    c.mini = Rect{mx, y + textH, mx + g.miniW, y + textH + g.miniW * aspect};
    c.label = rankLabel(mesh, r);
    const RankShard& s = (*shown)[static_cast<size_t>(r)];
    c.shape = shapeToString(s.localShape);
    c.empty = s.empty;
    const float textW = cw - 10;  // the text starts 5 px in and keeps 5 px from the right border
    c.labelShown = elideToWidth(c.label, textW, measure);
    c.shapeShown = elideToWidth(c.shape + (c.empty ? " empty" : ""), textW, measure);
    c.held = std::move(held[static_cast<size_t>(r)]);
    f.cells.push_back(std::move(c));
  }
}

// Whether moment `m` shows transfer `t`: in overview all of the step's, else the round in flight's.
bool shownTransfer(const TeachMoment& m, const Transfer& t) { return m.overview || t.round == m.round; }

// Adds one arrow per (src, dst) pair of step `s`'s transfers shown at `m`; returns src * ranks + dst -> index
// into f.arrows. Cells must be in place.
std::unordered_map<int64_t, size_t> addArrows(const TeachStep& s, const TeachMoment& m, int64_t ranks, float arcRoom,
                                              TeachFrame& f) {
  std::unordered_map<int64_t, size_t> arrowOf;  // src * ranks + dst -> index into f.arrows
  for (size_t i = 0; i < s.transfers.size(); ++i) {
    const Transfer& t = s.transfers[i];
    if (!shownTransfer(m, t)) continue;
    auto found = arrowOf.find(t.src * ranks + t.dst);
    if (found == arrowOf.end()) {
      const Rect& a = f.cells[static_cast<size_t>(t.src)].rect;
      const Rect& b = f.cells[static_cast<size_t>(t.dst)].rect;
      const float ax = (a.x0 + a.x1) * 0.5f, ay = (a.y0 + a.y1) * 0.5f, bx = (b.x0 + b.x1) * 0.5f, by = (b.y0 + b.y1) * 0.5f;
      const float dx = bx - ax, dy = by - ay, len = std::max(1.0f, std::sqrt(dx * dx + dy * dy));
      // Bowed to the left of the direction, so opposite transfers between two ranks take opposite sides (in a
      // row: forwards over the top, backwards under the bottom), leaving from and arriving at that side of the
      // cells; the bow stays inside the margin around the cells.
      const float nx = dy / len, ny = -dx / len;
      const ImVec2 p0 = borderPoint(a, ax + nx * 1e4f, ay + ny * 1e4f), p1 = borderPoint(b, bx + nx * 1e4f, by + ny * 1e4f);
      const float bow = std::min(0.25f * len + 24.0f, 2 * arcRoom - 8);
      TeachArrow arr;
      arr.src = t.src;
      arr.dst = t.dst;
      arr.x0 = p0.x;
      arr.y0 = p0.y;
      arr.x1 = p1.x;
      arr.y1 = p1.y;
      arr.cx = (p0.x + p1.x) * 0.5f + nx * bow;
      arr.cy = (p0.y + p1.y) * 0.5f + ny * bow;
      arr.paddingOnly = true;
      f.arrows.push_back(arr);
      found = arrowOf.emplace(t.src * ranks + t.dst, f.arrows.size() - 1).first;
    }
    TeachArrow& arrow = f.arrows[found->second];
    arrow.reduces = arrow.reduces || t.reduces;
    arrow.paddingOnly = arrow.paddingOnly && t.elements == 0;
    ++arrow.transfers;
  }
  return arrowOf;
}

// Adds a chip per transfer of step `s` shown at `m`, on its arrow (`arrowOf` as addArrows returned it).
void addChips(const TeachStep& s, const TeachMoment& m, int64_t ranks, float arcRoom,
              const std::unordered_map<int64_t, size_t>& arrowOf, TeachFrame& f) {
  const float miniW = f.cells.empty() ? 0 : f.cells[0].mini.w(), miniH = f.cells.empty() ? 0 : f.cells[0].mini.h();
  for (size_t i = 0; i < s.transfers.size(); ++i) {
    const Transfer& t = s.transfers[i];
    if (!shownTransfer(m, t)) continue;
    const TeachArrow& arrow = f.arrows[arrowOf.at(t.src * ranks + t.dst)];
    const float u = m.overview ? static_cast<float>(t.round + 1) / static_cast<float>(s.rounds + 1) : m.progress;
    const std::vector<int> atoms = t.elements > 0 ? f.atoms.covered(t.block) : std::vector<int>{};
    if (atoms.empty()) {  // padding only: a small grey box
      const ImVec2 p = teachArrowPoint(arrow, u);
      const float half = std::min(8.0f, arcRoom * 0.12f);
      TeachChip chip;
      chip.transfer = static_cast<int>(i);
      chip.rect = Rect{p.x - half, p.y - half, p.x + half, p.y + half};
      chip.paddingOnly = true;
      f.chips.push_back(std::move(chip));
      continue;
    }
    Rect box{1, 1, 0, 0};
    for (int a : atoms) {
      const Rect r = f.atoms.frac(a);
      box = Rect{std::min(box.x0, r.x0), std::min(box.y0, r.y0), std::max(box.x1, r.x1), std::max(box.y1, r.y1)};
    }
    // The block's own proportions, at most `arcRoom * 0.6` across (a chip must not hide the cells).
    float w = std::max(1.0f, box.w() * miniW), h = std::max(1.0f, box.h() * miniH);
    const float fit = std::min(1.0f, arcRoom * (m.overview ? 0.5f : 0.7f) / std::max(w, h));
    w = std::max(6.0f, w * fit);
    h = std::max(6.0f, h * fit);
    const ImVec2 p = teachArrowPoint(arrow, u);
    TeachChip chip;
    chip.transfer = static_cast<int>(i);
    chip.rect = Rect{p.x - w * 0.5f, p.y - h * 0.5f, p.x + w * 0.5f, p.y + h * 0.5f};
    for (int a : atoms) {
      const Rect r = f.atoms.frac(a);
      const float sx = box.w() > 0 ? w / box.w() : 0, sy = box.h() > 0 ? h / box.h() : 0;
      chip.pieces.push_back({a, Rect{chip.rect.x0 + (r.x0 - box.x0) * sx, chip.rect.y0 + (r.y0 - box.y0) * sy,
                                     chip.rect.x0 + (r.x1 - box.x0) * sx, chip.rect.y0 + (r.y1 - box.y0) * sy}});
    }
    if (t.paddingElements() > 0) {  // drawn below the block, in proportion (at most twice its height shown)
      const float extra = h * std::min(2.0f, static_cast<float>(t.paddingElements()) / static_cast<float>(t.elements));
      chip.padding = Rect{chip.rect.x0, chip.rect.y1, chip.rect.x1, chip.rect.y1 + extra};
    }
    chip.reduces = t.reduces;
    chip.count = static_cast<int>(t.contributors.size());
    chip.of = static_cast<int>(s.step.groupSize);
    f.chips.push_back(std::move(chip));
  }
}

}  // namespace

ImVec2 teachArrowPoint(const TeachArrow& a, float u) {
  const float v = 1.0f - u;
  return ImVec2(v * v * a.x0 + 2 * v * u * a.cx + u * u * a.x1, v * v * a.y0 + 2 * v * u * a.cy + u * u * a.y1);
}

TeachFrame teachFrame(const TeachPlan& tp, const TeachMoment& m, const TeachFrameOptions& o) {
  TeachFrame f;
  if (!tp.possible) {
    f.error = tp.whyNot;
    return f;
  }
  f.atoms = teachAtoms(tp, o.dimA, o.dimB);
  f.caption = momentCaption(tp, m);
  const DeviceMesh& mesh = tp.mesh;
  const int64_t ranks = mesh.size();
  const FrameGrid g = frameGrid(mesh, o, f);
  addCells(tp, m, g, o.textWidth ? o.textWidth : fixedAdvanceWidth(7.0f), f);
  if (m.step < 0) {
    f.detail = "the layout before the redistribute";
    f.lines.push_back("start (" + tp.from.toMeshString() + "):");
    for (const RankShard& s : tp.layoutBefore)
      f.lines.push_back("  " + rankLabel(mesh, s.rank) + " holds " + blockOf(s).toString() + " local " +
                        shapeToString(s.localShape) + (s.partial ? " (partial)" : ""));
    return f;
  }
  const TeachStep& s = tp.steps[static_cast<size_t>(m.step)];
  f.lines = s.lines(tp.meta, mesh);
  const bool complete = !m.overview && m.round >= stepUnits(s);
  if (m.overview)
    f.detail = s.rounds == 0   ? "no communication: the layout after the step"
               : s.rounds == 1 ? "one round: every transfer at once, and the layout after"
                               : std::to_string(s.rounds) + " rounds: the chips on each arrow in round order, and the layout after";
  else if (complete) f.detail = "after: " + s.after.toMeshString();
  else if (s.rounds == 0) f.detail = "no communication";
  else f.detail = "round " + std::to_string(m.round + 1) + " of " + std::to_string(s.rounds);
  if (complete) return f;

  // Arrows: one per (src, dst) pair of the transfers shown (the step's, or the round in flight's).
  const auto arrowOf = addArrows(s, m, ranks, g.arcRoom, f);
  // Chips: the block's atoms in miniature, on the arrow (in flight at `progress`; at rest by round in overview).
  addChips(s, m, ranks, g.arcRoom, arrowOf, f);
  return f;
}

// ---- drawing ------------------------------------------------------------------------------------------------
namespace {
ImVec2 at(ImVec2 o, float x, float y) { return ImVec2(o.x + x, o.y + y); }
}  // namespace

void drawTeachFrame(ImDrawList* dl, ImVec2 o, const TeachFrame& f) {
  const Palette& pal = palette();
  for (const TeachCell& c : f.cells) {
    dl->AddRectFilled(at(o, c.rect.x0, c.rect.y0), at(o, c.rect.x1, c.rect.y1), pal.panel, 4.0f);
    dl->AddRect(at(o, c.rect.x0, c.rect.y0), at(o, c.rect.x1, c.rect.y1), pal.cellBorder, 4.0f);
    dl->AddText(at(o, c.rect.x0 + 5, c.rect.y0 + 3), pal.text, c.labelShown.c_str());
    dl->AddText(at(o, c.rect.x0 + 5, c.rect.y0 + 3 + ImGui::GetTextLineHeight()), c.empty ? pal.textDim : pal.text,
                c.shapeShown.c_str());
    // Elided text: the whole of it when the mouse is over the cell.
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    if ((c.labelShown != c.label || c.shapeShown != c.shape + (c.empty ? " empty" : "")) && mouse.x >= o.x + c.rect.x0 &&
        mouse.x < o.x + c.rect.x1 && mouse.y >= o.y + c.rect.y0 && mouse.y < o.y + c.rect.y1)
      ImGui::SetTooltip("%s\n%s%s", c.label.c_str(), c.shape.c_str(), c.empty ? " empty" : "");
    // The miniature: every atom outlined, the held ones in their colour (hatched while partial).
    dl->AddRectFilled(at(o, c.mini.x0, c.mini.y0), at(o, c.mini.x1, c.mini.y1), pal.emptyCell);
    for (const AtomHeld& h : c.held) {
      const Rect r = f.atoms.frac(h.atom);
      const ImVec2 a = at(o, c.mini.x0 + r.x0 * c.mini.w(), c.mini.y0 + r.y0 * c.mini.h());
      const ImVec2 b = at(o, c.mini.x0 + r.x1 * c.mini.w(), c.mini.y0 + r.y1 * c.mini.h());
      // Partial values are paler; while a reduce combines them they darken with the share combined.
      const float alpha = !h.partial ? 1.0f : h.of > 0 ? 0.3f + 0.6f * static_cast<float>(h.count) / static_cast<float>(h.of) : 0.55f;
      dl->AddRectFilled(a, b, groupColor(h.atom, alpha));
      if (h.partial) drawHatch(dl, a, b, pal.hatch, 6.0f);
    }
    for (int a = 0; a < f.atoms.count(); ++a) {
      const Rect r = f.atoms.frac(a);
      dl->AddRect(at(o, c.mini.x0 + r.x0 * c.mini.w(), c.mini.y0 + r.y0 * c.mini.h()),
                  at(o, c.mini.x0 + r.x1 * c.mini.w(), c.mini.y0 + r.y1 * c.mini.h()), pal.grid);
    }
    // Reduce in flight: the most combined count this rank holds.
    int best = 0, of = 0;
    for (const AtomHeld& h : c.held) if (h.of > 0 && h.count > best) { best = h.count; of = h.of; }
    if (of > 0) {
      const std::string s = std::to_string(best) + "/" + std::to_string(of);
      dl->AddText(at(o, c.rect.x1 - ImGui::CalcTextSize(s.c_str()).x - 5, c.rect.y0 + 3), pal.partial, s.c_str());
    }
  }
  for (const TeachArrow& a : f.arrows) {
    const ImU32 col = a.paddingOnly ? pal.textDim : a.reduces ? pal.partial : pal.highlight;
    const ImVec2 p0 = at(o, a.x0, a.y0), c = at(o, a.cx, a.cy), p1 = at(o, a.x1, a.y1);
    dl->AddBezierQuadratic(p0, c, p1, col, a.paddingOnly ? 1.0f : 2.0f, 24);
    // Arrow head along the last tangent.
    const float tx = p1.x - c.x, ty = p1.y - c.y, tl = std::max(1e-3f, std::sqrt(tx * tx + ty * ty));
    const float ux = tx / tl, uy = ty / tl;
    dl->AddTriangleFilled(p1, ImVec2(p1.x - ux * 9 - uy * 5, p1.y - uy * 9 + ux * 5),
                          ImVec2(p1.x - ux * 9 + uy * 5, p1.y - uy * 9 - ux * 5), col);
  }
  for (const TeachChip& chip : f.chips) {
    if (chip.paddingOnly || chip.padding.x1 > chip.padding.x0) {
      const Rect& r = chip.paddingOnly ? chip.rect : chip.padding;
      dl->AddRectFilled(at(o, r.x0, r.y0), at(o, r.x1, r.y1), withAlpha(pal.textDim, 0.35f));
      drawHatch(dl, at(o, r.x0, r.y0), at(o, r.x1, r.y1), pal.textDim, 4.0f);
      dl->AddRect(at(o, r.x0 - 1, r.y0 - 1), at(o, r.x1 + 1, r.y1 + 1), pal.textDim);
    }
    for (const auto& [atom, r] : chip.pieces) {
      dl->AddRectFilled(at(o, r.x0, r.y0), at(o, r.x1, r.y1), groupColor(atom, 1.0f));
      if (chip.reduces) drawHatch(dl, at(o, r.x0, r.y0), at(o, r.x1, r.y1), pal.hatch, 5.0f);
    }
    if (!chip.paddingOnly) dl->AddRect(at(o, chip.rect.x0 - 1, chip.rect.y0 - 1), at(o, chip.rect.x1 + 1, chip.rect.y1 + 1), pal.text);
    if (chip.reduces) {
      const std::string s = std::to_string(chip.count) + "/" + std::to_string(chip.of);
      dl->AddText(at(o, chip.rect.x1 + 2, chip.rect.y0 - 2), pal.partial, s.c_str());
    }
  }
}

TeachPage drawTeachPage(const TeachPlan& tp, const TeachMoment& m, ImVec2 size) {
  const Palette& pal = palette();
  const Fonts& fonts = currentFonts();
  TeachPage page;
  if (!tp.possible) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.error), "%s", tp.whyNot.c_str());
    page.frame.error = tp.whyNot;
    return page;
  }
  const ImVec2 top = ImGui::GetCursorScreenPos();
  if (fonts.large) ImGui::PushFont(fonts.large);
  const std::string caption = momentCaption(tp, m);
  ImGui::TextUnformatted(caption.c_str());
  if (fonts.large) ImGui::PopFont();
  {
    // What is redistributed and the two layouts: a row that wraps, elided when a line is too narrow.
    ToolbarFlow row("teach.what");
    const unsigned dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    row.text(shapeToString(tp.meta.shape) + " " + dtypeName(tp.meta.dtype) + " on " + tp.mesh.toString() + ":", dim);
    row.text(tp.from.toMeshString() + " -> " + tp.to.toMeshString(), dim);
    row.text("(" + tp.from.toTensorString(tp.meta.rank()) + " -> " + tp.to.toTensorString(tp.meta.rank()) + ")", dim);
  }
  const float used = ImGui::GetCursorScreenPos().y - top.y;
  // A narrow page (a pane at 1280x720) stacks the step's text under the picture, so the cells get the width.
  const bool stacked = size.x < kTeachStackBelow;
  const float textW = stacked ? size.x : std::clamp(size.x * 0.42f, 220.0f, 720.0f);
  const float left = std::max(80.0f, size.y - used - ImGui::GetTextLineHeightWithSpacing() - 4);
  TeachFrameOptions o;
  o.width = stacked ? std::max(120.0f, size.x) : std::max(120.0f, size.x - textW - 16);
  o.height = stacked ? std::max(80.0f, left * 0.65f) : left;
  o.labelH = ImGui::GetTextLineHeight();
  o.textWidth = [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; };
  page.frame = teachFrame(tp, m, o);
  const TeachFrame& f = page.frame;
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.highlight), "%s", f.detail.c_str());
  page.origin = ImGui::GetCursorScreenPos();
  ImGui::BeginGroup();
  ImGui::Dummy(ImVec2(o.width, std::max(f.height, o.height)));
  ImGui::EndGroup();
  drawTeachFrame(ImGui::GetWindowDrawList(), page.origin, f);
  if (!stacked) ImGui::SameLine(0, 16);
  ImGui::BeginChild("##teachtext", ImVec2(textW, stacked ? std::max(40.0f, left - o.height - 8) : o.height), false,
                    ImGuiWindowFlags_HorizontalScrollbar);
  if (fonts.mono) ImGui::PushFont(fonts.mono);
  for (const std::string& l : f.lines) ImGui::TextUnformatted(l.c_str());
  if (fonts.mono) ImGui::PopFont();
  ImGui::EndChild();
  return page;
}

// ---- the view -----------------------------------------------------------------------------------------------

bool advanceTeach(TeachViewState& st, const TeachPlan& tp, double dt) {
  const double end = teachTimelineLength(tp);
  if (!st.playing) return false;
  const double before = st.position;
  st.position = std::min(end, st.position + dt * static_cast<double>(st.speed));
  if (st.position >= end) st.playing = false;
  return st.position != before;
}

namespace {
std::string planKey(const TensorMeta& meta, const DeviceMesh& mesh, const ShardingSpec& a, const ShardingSpec& b) {
  return shapeToString(meta.shape) + dtypeName(meta.dtype) + mesh.toString() + "|" + a.toMeshString() + "|" +
         b.toMeshString() + "|" + a.toLongString() + b.toLongString();
}

void controls(TeachViewState& st, const TeachPlan& tp) {
  const double end = teachTimelineLength(tp);
  const TeachMoment m = teachMomentAt(tp, st.position);
  const int steps = static_cast<int>(tp.steps.size());
  // The step whose start is the last boundary strictly before the position (back), or the next boundary (forth).
  // One row that wraps in a narrow pane (views/toolbar.h); the timeline takes what is left of the last line.
  ToolbarFlow row("teach");
  row.next(ToolbarFlow::buttonWidth("|<"));
  if (ImGui::Button("|<")) { st.position = 0; st.playing = false; }
  probeItem("teach.first");
  row.probe("first");
  row.next(ToolbarFlow::buttonWidth("< Step"));
  if (ImGui::Button("< Step")) {
    double target = 0;
    for (int i = 0; i <= steps; ++i)
      if (teachStepStart(tp, i) < st.position - 1e-6) target = teachStepStart(tp, i);
    st.position = target;
    st.playing = false;
  }
  probeItem("teach.prev");
  row.probe("prev");
  row.next(70);
  if (ImGui::Button(st.playing ? "Pause" : "Play", ImVec2(70, 0))) {
    if (!st.playing && st.position >= end) st.position = 0;
    st.playing = !st.playing && end > 0;
  }
  probeItem("teach.play");
  row.probe("play");
  row.next(ToolbarFlow::buttonWidth("Step >"));
  if (ImGui::Button("Step >")) {
    double target = end;
    for (int i = steps; i >= 0; --i)
      if (teachStepStart(tp, i) > st.position + 1e-6) target = teachStepStart(tp, i);
    st.position = target;
    st.playing = false;
  }
  probeItem("teach.next");
  row.probe("next");
  row.next(ToolbarFlow::buttonWidth(">|"));
  if (ImGui::Button(">|")) { st.position = end; st.playing = false; }
  row.probe("last");
  row.next(120);
  ImGui::SetNextItemWidth(120);
  ImGui::SliderFloat("##speed", &st.speed, 0.25f, 4.0f, "%.2f rounds/s");
  row.probe("speed");
  row.next(80);
  float pos = static_cast<float>(st.position);
  ImGui::SetNextItemWidth(std::max(80.0f, ImGui::GetContentRegionAvail().x));
  if (ImGui::SliderFloat("##timeline", &pos, 0.0f, static_cast<float>(std::max(end, 1e-3)), m.step < 0 ? "start" : "%.2f")) {
    st.position = std::clamp(static_cast<double>(pos), 0.0, end);
    st.playing = false;
  }
  row.probe("timeline");
}

void playgroundChooser(const Plan& plan, TeachViewState& st, CommandQueue& cmds) {
  const TensorMeta& meta = plan.graph.nodes[kPlaygroundTensor].outputs[0];
  ToolbarFlow row("teach.choose");
  row.next(ToolbarFlow::textWidth("Choose placements:"));
  ImGui::TextUnformatted("Choose placements:");
  row.next(260);
  ImGui::SetNextItemWidth(260);
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s", st.playgroundInput.c_str());
  const bool enter = ImGui::InputText("##pgspec", buf, sizeof buf, ImGuiInputTextFlags_EnterReturnsTrue);
  st.playgroundInput = buf;
  probeItem("teach.choose");
  row.probe("placements");
  row.next(ToolbarFlow::buttonWidth("Show redistribute"));
  const bool go = ImGui::Button("Show redistribute");
  probeItem("teach.apply");
  row.probe("apply");
  auto parsed = parseSpec(st.playgroundInput, ParseContext{&plan.mesh, meta.rank()});
  st.playgroundError = parsed.ok() || st.playgroundInput.empty() ? "" : parsed.error().toString();
  if ((enter || go) && parsed.ok()) {
    cmds.push(choosePlaygroundLayout(plan, *parsed));
    st.position = 0;
    st.playing = false;
  }
  if (!st.playgroundError.empty()) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().error), "%s", st.playgroundError.c_str());
  } else if (parsed.ok()) {
    ImGui::TextDisabled("%s  %s  %s%s", parsed->toMeshString().c_str(), parsed->toLongString().c_str(),
                        parsed->toTensorString(meta.rank()).c_str(),
                        plan.mesh.hasNames() ? ("  " + parsed->toJaxString(meta.rank(), plan.mesh)).c_str() : "");
  }
}
}  // namespace

void drawTeachView(const Plan& plan, const Diagnostics& diags, TeachViewState& st, Selection& sel, CommandQueue& cmds) {
  const bool playground = isPlayground(plan);
  if (playground && !sel.hasEdge()) sel.selectEdge(kPlaygroundRelayout, 0);
  if (playground) playgroundChooser(plan, st, cmds);
  if (!sel.hasNode()) {
    ImGui::TextWrapped("Select an edge (or press Play in the Edge view) to play its redistribute step by step.");
    return;
  }
  const int input = sel.input >= 0 ? sel.input : interestingInput(plan, diags, sel.node);
  const EdgeSummary e = summarizeEdge(plan, diags, sel.node, input);
  if (!e.valid) {
    ImGui::TextWrapped("%s", e.why.c_str());
    return;
  }
  const ShardingSpec& from = e.existing ? e.existing->from : *e.have;
  const ShardingSpec& to = e.existing ? e.existing->to : *e.want;
  const std::string key = planKey(e.meta, plan.mesh, from, to);
  if (!st.plan || st.key != key) {
    st.plan = teachRedistribute(e.meta, plan.mesh, from, to);
    st.key = key;
    st.position = 0;
    st.playing = false;
  }
  const TeachPlan& tp = *st.plan;
  if (st.playRequested) {
    st.playRequested = false;
    st.position = 0;
    st.playing = teachTimelineLength(tp) > 0;
  }
  advanceTeach(st, tp, ImGui::GetIO().DeltaTime);
  ImGui::TextDisabled("%s", e.title.c_str());
  controls(st, tp);
  const TeachMoment m = teachMomentAt(tp, st.position);
  st.lastMoment = m;
  drawTeachPage(tp, m, ImGui::GetContentRegionAvail());
  ++st.framesDrawn;
}

}  // namespace ss::views
