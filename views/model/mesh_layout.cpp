#include "views/model/mesh_layout.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "views/model/focus.h"

namespace ss::views {

int MeshGridLayout::cellAt(float x, float y) const {
  for (size_t i = 0; i < cells.size(); ++i) {
    if (cells[i].rect.contains(x, y)) return static_cast<int>(i);
  }
  return -1;
}

std::vector<std::pair<float, float>> sliceFractions(const DimSlice& s, int64_t size) {
  std::vector<std::pair<float, float>> out;
  if (size <= 0) return {{0.f, 1.f}};
  for (const Interval& iv : s.parts) {
    if (iv.length <= 0) continue;
    out.emplace_back(static_cast<float>(static_cast<double>(iv.start) / static_cast<double>(size)),
                     static_cast<float>(static_cast<double>(iv.start + iv.length) / static_cast<double>(size)));
  }
  return out;
}

namespace {

std::string dimLabel(const DeviceMesh& mesh, int d, int64_t i) { return mesh.dimName(d) + "=" + std::to_string(i); }

}  // namespace

MeshGridLayout layoutMeshGrid(const DeviceMesh& mesh, const TensorMeta& meta, const ShardingSpec& spec,
                              const MeshGridOptions& opts) {
  MeshGridLayout out;
  if (const std::string why = validateSpec(spec, mesh, meta.rank()); !why.empty()) {
    out.error = why;
    return out;
  }
  const int nd = mesh.ndim();
  const int64_t total = mesh.size();
  const int64_t drawn = std::min<int64_t>(total, kMaxDrawnRanks);
  out.hiddenRanks = total - drawn;

  // Grid arrangement: slices (leading dims) x rows x cols.
  int64_t rows = 1, cols = 1, slices = 1;
  if (nd == 1) {
    cols = total <= 16 ? total : static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(total))));
    rows = (drawn + cols - 1) / cols;
  } else {
    rows = mesh.dimSize(nd - 2);
    cols = mesh.dimSize(nd - 1);
    slices = (drawn + rows * cols - 1) / (rows * cols);
  }
  // Slices go in a row, wrapping when there are many.
  const int64_t sliceCols = slices <= 4 ? slices : static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(slices))));
  const int64_t sliceRows = (slices + sliceCols - 1) / sliceCols;
  // Large grids get tighter gaps so more of each cell is colour.
  const float gap = std::max(rows, cols) > 8 ? std::min(opts.gap, 3.0f) : opts.gap;
  const float sliceGap = slices > 1 ? gap * 3 : 0;
  const float sliceLabelH = slices > 1 ? opts.labelTop : 0;
  const float availW = opts.width - opts.labelLeft - sliceGap * static_cast<float>(sliceCols - 1);
  const float availH = opts.height - opts.labelTop - (sliceLabelH + sliceGap) * static_cast<float>(sliceRows) + sliceGap;
  const float totalCols = static_cast<float>(cols * sliceCols), totalRows = static_cast<float>(rows * sliceRows);
  float cw = (availW - gap * (totalCols - static_cast<float>(sliceCols))) / totalCols;
  float ch = (availH - gap * (totalRows - static_cast<float>(sliceRows))) / totalRows;
  cw = std::clamp(cw, opts.minCellW, opts.maxCellW);
  ch = std::clamp(ch, opts.minCellH, opts.maxCellH);
  out.cellW = cw;
  out.cellH = ch;
  const float sliceW = static_cast<float>(cols) * cw + static_cast<float>(cols - 1) * gap;
  const float sliceH = static_cast<float>(rows) * ch + static_cast<float>(rows - 1) * gap;

  auto [dimA, dimB] = defaultDrawDims(meta, spec);
  if (opts.dimA >= 0 && opts.dimA < meta.rank()) dimA = opts.dimA;
  if (opts.dimB >= 0 && opts.dimB < meta.rank() && opts.dimB != dimA) dimB = opts.dimB;

  Result<std::vector<RankShard>> shards = layoutAllRanks(meta.shape, mesh, spec);
  if (!shards.ok()) {
    out.error = shards.error().message;
    return out;
  }
  std::map<std::vector<int64_t>, int> groupOf;  // slices (+ partial coords) -> group
  std::vector<int> groupCount;
  for (int64_t r = 0; r < drawn; ++r) {
    const RankShard& s = shards.value()[static_cast<size_t>(r)];
    MeshCell cell;
    cell.rank = r;
    cell.shard = s;
    const std::vector<int64_t> coord = mesh.coordOf(r);
    int64_t slice = 0, row = 0, col = 0;
    if (nd == 1) {
      row = r / cols;
      col = r % cols;
    } else {
      row = coord[static_cast<size_t>(nd - 2)];
      col = coord[static_cast<size_t>(nd - 1)];
      slice = r / (rows * cols);
    }
    const int64_t sr = slice / sliceCols, sc = slice % sliceCols;
    const float ox = opts.labelLeft + static_cast<float>(sc) * (sliceW + sliceGap);
    const float oy = opts.labelTop + static_cast<float>(sr) * (sliceH + sliceGap + sliceLabelH) + sliceLabelH;
    cell.rect.x0 = ox + static_cast<float>(col) * (cw + gap);
    cell.rect.y0 = oy + static_cast<float>(row) * (ch + gap);
    cell.rect.x1 = cell.rect.x0 + cw;
    cell.rect.y1 = cell.rect.y0 + ch;
    out.width = std::max(out.width, cell.rect.x1);
    out.height = std::max(out.height, cell.rect.y1);

    // Group key: the exact slices, plus the coordinate on every Partial mesh dim (partials differ).
    std::vector<int64_t> key;
    for (const DimSlice& d : s.slices) {
      for (const Interval& iv : d.parts) key.insert(key.end(), {iv.start, iv.length});
      key.push_back(-1);  // dim separator
    }
    for (int md = 0; md < nd; ++md) {
      if (spec[md].isPartial()) key.insert(key.end(), {-2 - md, coord[static_cast<size_t>(md)]});
    }
    auto [it, inserted] = groupOf.emplace(key, static_cast<int>(groupCount.size()));
    if (inserted) groupCount.push_back(0);
    cell.group = it->second;
    ++groupCount[static_cast<size_t>(cell.group)];

    if (!s.empty && dimA >= 0) {
      const auto xs = sliceFractions(s.slices[static_cast<size_t>(dimA)], meta.shape[static_cast<size_t>(dimA)]);
      std::vector<std::pair<float, float>> ys{{0.f, 1.f}};
      if (dimB >= 0) ys = sliceFractions(s.slices[static_cast<size_t>(dimB)], meta.shape[static_cast<size_t>(dimB)]);
      // Rows along dimA, columns along dimB.
      for (auto [y0, y1] : xs) {
        for (auto [x0, x1] : ys) cell.mini.push_back(Rect{x0, y0, x1, y1});
      }
    } else if (!s.empty) {
      cell.mini.push_back(Rect{0, 0, 1, 1});  // scalar
    }
    out.cells.push_back(std::move(cell));
  }
  out.groups = static_cast<int>(groupCount.size());
  for (MeshCell& c : out.cells) c.groupSize = groupCount[static_cast<size_t>(c.group)];

  // Labels: column indices on top, row indices on the left (per slice row), slice names above slices.
  for (int64_t s = 0; s < slices; ++s) {
    const int64_t sr = s / sliceCols, sc = s % sliceCols;
    const float ox = opts.labelLeft + static_cast<float>(sc) * (sliceW + sliceGap);
    const float oy = opts.labelTop + static_cast<float>(sr) * (sliceH + sliceGap + sliceLabelH);
    if (slices > 1) {
      std::string name;
      int64_t rem = s;
      for (int d = nd - 3; d >= 0; --d) {
        const int64_t i = rem % mesh.dimSize(d);
        rem /= mesh.dimSize(d);
        name = dimLabel(mesh, d, i) + (name.empty() ? "" : ", " + name);
      }
      out.labels.push_back({name, ox, oy});
    }
    if (nd >= 2) {
      if (sr == 0) {
        for (int64_t c = 0; c < cols; ++c) {
          out.labels.push_back({dimLabel(mesh, nd - 1, c), ox + static_cast<float>(c) * (cw + gap),
                                oy + sliceLabelH - opts.labelTop});
        }
      }
      if (sc == 0) {
        for (int64_t r = 0; r < rows; ++r) {
          out.labels.push_back({dimLabel(mesh, nd - 2, r), 0,
                                oy + sliceLabelH + static_cast<float>(r) * (ch + gap) + ch * 0.5f - 7, true});
        }
      }
    }
  }
  if (nd == 1) out.labels.push_back({mesh.dimName(0) + " (" + std::to_string(total) + " ranks)", opts.labelLeft, 0});
  return out;
}

int markWrongRanks(MeshGridLayout& grid, const std::vector<int>& wrongRanks) {
  int marked = 0;
  for (MeshCell& c : grid.cells) {
    c.wrong = std::find(wrongRanks.begin(), wrongRanks.end(), static_cast<int>(c.rank)) != wrongRanks.end();
    marked += c.wrong ? 1 : 0;
  }
  return marked;
}

}  // namespace ss::views
