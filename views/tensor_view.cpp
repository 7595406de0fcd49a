#include "views/tensor_view.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include <imgui.h>

#include "core/model/layout.h"
#include "views/model/focus.h"
#include "views/mesh_view.h"
#include "views/theme.h"

namespace ss::views {
namespace {

bool covers(const DimSlice& s, int64_t index) {
  for (const Interval& iv : s.parts) {
    if (index >= iv.start && index < iv.start + iv.length) return true;
  }
  return false;
}

// One tensor dim as the mesh dims that shard it see it. Only those mesh dims split it, so they form a sub-mesh (in
// mesh-dim order, the spec's shard order kept) on which a 1-D layout gives, per sub-rank, the indices every rank
// with those coordinates holds. The work is the sub-mesh's size, never the mesh's: a 1024x1024 mesh sharding one
// dim on each mesh dim lays out 1024 slices per dim, not 10^6 ranks (issue 43: that view did not finish a frame).
struct DimProjection {
  std::vector<int> meshDims;      // ascending
  DeviceMesh sub;                 // their sizes; a 1-rank mesh when no mesh dim shards the tensor dim
  std::vector<DimSlice> slices;   // per sub-rank
  // Each sub-rank's contribution to a full rank: sum of coord * stride over meshDims.
  std::vector<int64_t> offsets;
};

Result<DimProjection> projectDim(int64_t n, const DeviceMesh& mesh, const ShardingSpec& spec, int dim) {
  DimProjection p;
  std::vector<int64_t> shape;
  std::vector<Placement> placements;
  std::vector<int> order;
  for (int m = 0; m < mesh.ndim(); ++m) {
    if (!spec.placements[static_cast<size_t>(m)].isShard(dim)) continue;
    p.meshDims.push_back(m);
    shape.push_back(mesh.dimSize(m));
    Placement q = spec.placements[static_cast<size_t>(m)];
    q.dim = 0;
    placements.push_back(q);
    if (spec.order.size() == spec.placements.size()) order.push_back(spec.order[static_cast<size_t>(m)]);
  }
  if (p.meshDims.empty()) {
    p.slices = {DimSlice{{Interval{0, n}}}};
    p.offsets = {0};
    return p;
  }
  p.sub = DeviceMesh(shape);
  auto all = layoutAllRanks({n}, p.sub, ShardingSpec(placements, order));
  if (!all.ok()) return all.error();
  std::vector<int64_t> strides(static_cast<size_t>(mesh.ndim()), 1);
  for (int m = mesh.ndim() - 2; m >= 0; --m) strides[static_cast<size_t>(m)] = strides[static_cast<size_t>(m) + 1] * mesh.dimSize(m + 1);
  for (RankShard& r : *all) {
    int64_t off = 0;
    for (size_t k = 0; k < p.meshDims.size(); ++k) off += r.coord[k] * strides[static_cast<size_t>(p.meshDims[k])];
    p.offsets.push_back(off);
    p.slices.push_back(std::move(r.slices[0]));
  }
  return p;
}

std::vector<int64_t> cutsFor(const DimProjection& proj, int64_t size, bool& merged) {
  std::set<int64_t> cuts{0, size};
  for (const DimSlice& s : proj.slices) {
    for (const Interval& iv : s.parts) {
      cuts.insert(std::clamp<int64_t>(iv.start, 0, size));
      cuts.insert(std::clamp<int64_t>(iv.start + iv.length, 0, size));
    }
  }
  std::vector<int64_t> v(cuts.begin(), cuts.end());
  if (static_cast<int>(v.size()) > kMaxTensorCuts + 1) {
    merged = true;
    std::vector<int64_t> kept;
    for (int i = 0; i <= kMaxTensorCuts; ++i) {
      kept.push_back(v[static_cast<size_t>(static_cast<int64_t>(i) * static_cast<int64_t>(v.size() - 1) / kMaxTensorCuts)]);
    }
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
    v = kept;
  }
  return v;
}

// The offsets of the sub-ranks of `proj` whose slice covers `index`.
std::vector<int64_t> coveringOffsets(const DimProjection& proj, int64_t index) {
  std::vector<int64_t> out;
  for (size_t r = 0; r < proj.slices.size(); ++r)
    if (covers(proj.slices[r], index)) out.push_back(proj.offsets[r]);
  return out;
}

int64_t saturatingMul(int64_t a, int64_t b) {
  int64_t v = 0;
  return __builtin_mul_overflow(a, b, &v) ? std::numeric_limits<int64_t>::max() : v;
}

}  // namespace

std::string rankListString(const std::vector<int64_t>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    out += (out.empty() ? "r" : ", r") + std::to_string(ranks[i]);
    if (j > i) out += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

std::string holdersString(const TensorBlock& b) {
  if (b.holderCount == 0) return "nobody";
  if (b.holderCount == static_cast<int64_t>(b.holders.size())) return rankListString(b.holders);
  return std::to_string(b.holderCount) + " ranks from r" + std::to_string(b.lowestHolder);
}

TensorBlocks tensorBlocks(const DeviceMesh& mesh, const TensorMeta& meta, const ShardingSpec& spec, int dimA, int dimB) {
  TensorBlocks out;
  out.dimA = dimA;
  out.dimB = dimB;
  if (std::string bad = validateSpec(spec, mesh, meta.rank()); !bad.empty()) {
    out.error = bad;
    return out;
  }
  // Every rank's holding of a block is a product: its coordinates on the mesh dims sharding dimA must cover the
  // block's row, those sharding dimB its column, those sharding another tensor dim must leave that dim non-empty
  // (an empty shard holds nothing), and the remaining mesh dims are free. So each factor is a list of rank offsets
  // and a block's holders are every sum of one offset per factor.
  std::vector<DimProjection> proj(static_cast<size_t>(meta.rank()));
  std::vector<bool> meshDimUsed(static_cast<size_t>(mesh.ndim()), false);
  for (int d = 0; d < meta.rank(); ++d) {
    auto p = projectDim(meta.shape[static_cast<size_t>(d)], mesh, spec, d);
    if (!p.ok()) {
      out.error = p.error().message;
      return out;
    }
    proj[static_cast<size_t>(d)] = std::move(*p);
    for (int m : proj[static_cast<size_t>(d)].meshDims) meshDimUsed[static_cast<size_t>(m)] = true;
  }
  std::vector<std::vector<int64_t>> fixedFactors;  // the factors every block shares
  for (int d = 0; d < meta.rank(); ++d) {
    if (d == dimA || d == dimB) continue;
    const DimProjection& p = proj[static_cast<size_t>(d)];
    std::vector<int64_t> nonEmpty;
    for (size_t r = 0; r < p.slices.size(); ++r)
      if (p.slices[r].size() > 0) nonEmpty.push_back(p.offsets[r]);
    fixedFactors.push_back(std::move(nonEmpty));
  }
  {
    int64_t stride = 1;
    for (int m = mesh.ndim() - 1; m >= 0; --m) {
      if (!meshDimUsed[static_cast<size_t>(m)]) {
        std::vector<int64_t> free;
        for (int64_t c = 0; c < mesh.dimSize(m); ++c) free.push_back(c * stride);
        fixedFactors.push_back(std::move(free));
      }
      stride *= mesh.dimSize(m);
    }
  }
  DimProjection none;  // a dim not drawn: one sub-rank covering index 0
  none.slices = {DimSlice{{Interval{0, 1}}}};
  none.offsets = {0};
  const DimProjection& pa = dimA >= 0 ? proj[static_cast<size_t>(dimA)] : none;
  const DimProjection& pb = dimB >= 0 ? proj[static_cast<size_t>(dimB)] : none;
  const int64_t sizeA = dimA >= 0 ? meta.shape[static_cast<size_t>(dimA)] : 1;
  const int64_t sizeB = dimB >= 0 ? meta.shape[static_cast<size_t>(dimB)] : 1;
  const std::vector<int64_t> ca = cutsFor(pa, sizeA, out.merged);
  const std::vector<int64_t> cb = cutsFor(pb, sizeB, out.merged);
  std::vector<std::vector<int64_t>> coverA, coverB;
  for (size_t i = 0; i + 1 < ca.size(); ++i) coverA.push_back(coveringOffsets(pa, ca[i]));
  for (size_t j = 0; j + 1 < cb.size(); ++j) coverB.push_back(coveringOffsets(pb, cb[j]));
  int64_t fixedCount = 1, fixedLowest = 0;
  for (const auto& f : fixedFactors) {
    fixedCount = saturatingMul(fixedCount, static_cast<int64_t>(f.size()));
    if (!f.empty()) fixedLowest += *std::min_element(f.begin(), f.end());
  }
  // Groups: one per distinct (row holders, column holders) pair, numbered by lowest rank so colours follow rank
  // order (as the mesh view's groups do).
  std::map<std::pair<size_t, size_t>, int64_t> lowestOf;
  const auto fa = [&](int64_t v) { return static_cast<float>(static_cast<double>(v) / static_cast<double>(std::max<int64_t>(sizeA, 1))); };
  const auto fb = [&](int64_t v) { return static_cast<float>(static_cast<double>(v) / static_cast<double>(std::max<int64_t>(sizeB, 1))); };
  std::map<std::vector<int64_t>, size_t> idA, idB;  // equal holder lists share an id
  for (size_t j = 0; j + 1 < cb.size(); ++j) {
    for (size_t i = 0; i + 1 < ca.size(); ++i) {
      TensorBlock b;
      b.a0 = ca[i];
      b.a1 = ca[i + 1];
      b.b0 = cb[j];
      b.b1 = cb[j + 1];
      b.frac = Rect{fb(b.b0), fa(b.a0), fb(b.b1), fa(b.a1)};
      const auto& ra = coverA[i];
      const auto& rb = coverB[j];
      b.holderCount = saturatingMul(saturatingMul(static_cast<int64_t>(ra.size()), static_cast<int64_t>(rb.size())), fixedCount);
      if (b.holderCount > 0) {
        b.lowestHolder = *std::min_element(ra.begin(), ra.end()) + *std::min_element(rb.begin(), rb.end()) + fixedLowest;
        if (b.holderCount <= kMaxListedHolders) {
          std::vector<int64_t> sums{0};
          const auto expand = [&sums](const std::vector<int64_t>& factor) {
            std::vector<int64_t> next;
            next.reserve(sums.size() * factor.size());
            for (int64_t s0 : sums)
              for (int64_t f : factor) next.push_back(s0 + f);
            sums = std::move(next);
          };
          expand(ra);
          expand(rb);
          for (const auto& f : fixedFactors) expand(f);
          std::sort(sums.begin(), sums.end());
          b.holders = std::move(sums);
        }
        const size_t ka = idA.emplace(ra, idA.size()).first->second, kb = idB.emplace(rb, idB.size()).first->second;
        b.group = -1;
        lowestOf.emplace(std::make_pair(ka, kb), b.lowestHolder);
        b.groupKey = {ka, kb};
      }
      out.blocks.push_back(std::move(b));
    }
  }
  std::vector<std::pair<int64_t, std::pair<size_t, size_t>>> order;
  for (const auto& [key, lowest] : lowestOf) order.push_back({lowest, key});
  std::sort(order.begin(), order.end());
  std::map<std::pair<size_t, size_t>, int> groupOf;
  for (size_t g = 0; g < order.size(); ++g) groupOf[order[g].second] = static_cast<int>(g);
  for (TensorBlock& b : out.blocks) b.group = b.holderCount > 0 ? groupOf[b.groupKey] : 0;
  return out;
}

void drawTensorView(const Plan& plan, const Diagnostics& /*diags*/, TensorViewState& state, Selection& sel,
                    CommandQueue& /*cmds*/) {
  state.blocksDrawn = 0;
  state.hoveredBlock = -1;
  const std::vector<FocusTensor> focus = focusCandidates(plan, sel);
  if (state.seenGeneration != sel.generation) {
    state.focus = 0;
    state.dimA = state.dimB = -1;
    state.seenGeneration = sel.generation;
  }
  if (focus.empty()) {
    ImGui::TextWrapped("Select a node to see its global tensor and which devices hold each block.");
    return;
  }
  state.focus = std::clamp(state.focus, 0, static_cast<int>(focus.size()) - 1);
  const FocusTensor& f = focus[static_cast<size_t>(state.focus)];
  ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, 460.0f));
  if (ImGui::BeginCombo("##tfocus", f.label.c_str())) {
    for (size_t i = 0; i < focus.size(); ++i) {
      if (ImGui::Selectable(focus[i].label.c_str(), static_cast<int>(i) == state.focus)) state.focus = static_cast<int>(i);
    }
    ImGui::EndCombo();
  }
  if (!f.spec) {
    ImGui::TextWrapped("No placement given for this tensor %s.", shapeToString(f.meta.shape).c_str());
    return;
  }
  const int rank = f.meta.rank();
  auto [da, db] = defaultDrawDims(f.meta, f.spec);
  if (state.dimA < 0 || state.dimA >= rank) state.dimA = da;
  if (state.dimB >= rank || state.dimB == state.dimA) state.dimB = db == state.dimA ? -1 : db;
  if (state.dimB < 0 && db >= 0 && db != state.dimA) state.dimB = db;
  if (rank >= 2) {
    auto dimCombo = [&](const char* id, int& dim, int other) {
      const std::string cur = "dim " + std::to_string(dim) + " (" + std::to_string(f.meta.shape[static_cast<size_t>(dim)]) + ")";
      ImGui::SetNextItemWidth(130);
      if (ImGui::BeginCombo(id, cur.c_str())) {
        for (int d = 0; d < rank; ++d) {
          if (d == other) continue;
          const std::string lab = "dim " + std::to_string(d) + " (" + std::to_string(f.meta.shape[static_cast<size_t>(d)]) + ")";
          if (ImGui::Selectable(lab.c_str(), d == dim)) dim = d;
        }
        ImGui::EndCombo();
      }
    };
    ImGui::TextUnformatted("rows");
    ImGui::SameLine();
    dimCombo("##dimA", state.dimA, state.dimB);
    ImGui::SameLine();
    ImGui::TextUnformatted("columns");
    ImGui::SameLine();
    dimCombo("##dimB", state.dimB, state.dimA);
    ImGui::SameLine();
  }
  ImGui::TextDisabled("%s %s", f.spec->toMeshString().c_str(), shapeToString(f.meta.shape).c_str());
  // The dims not drawn, with how they are split.
  for (int d = 0; d < rank; ++d) {
    if (d == state.dimA || d == state.dimB) continue;
    const std::vector<int> by = f.spec->meshDimsSharding(d);
    std::string how = by.empty() ? "whole on every rank" : "split over mesh dim";
    for (size_t i = 0; i < by.size(); ++i) how += (i ? ", " : " ") + plan.mesh.dimName(by[i]);
    ImGui::TextDisabled("dim %d (%lld): %s", d, static_cast<long long>(f.meta.shape[static_cast<size_t>(d)]), how.c_str());
  }
  // The blocks change only with what they are computed from: computed once, not every frame.
  const std::string key = plan.mesh.toString() + "|" + f.spec->toMeshString() + "|" + shapeToString(f.meta.shape) + "|" +
                          std::to_string(state.dimA) + "|" + std::to_string(rank >= 2 ? state.dimB : -1);
  if (key != state.blocksKey) {
    state.blocks = tensorBlocks(plan.mesh, f.meta, *f.spec, state.dimA, rank >= 2 ? state.dimB : -1);
    state.blocksKey = key;
  }
  const TensorBlocks& tb = state.blocks;
  if (!tb.error.empty()) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().error), "Cannot lay out: %s", tb.error.c_str());
    return;
  }
  const Palette& pal = palette();
  const float axisW = ImGui::CalcTextSize("00000").x + 6, axisH = ImGui::GetTextLineHeight() + 4;
  ImVec2 avail = ImGui::GetContentRegionAvail();
  avail.x = std::max(avail.x - axisW - 4, 60.0f);
  avail.y = std::max(avail.y - axisH - 4, 40.0f);
  const ImVec2 start = ImGui::GetCursorScreenPos();
  const ImVec2 o(start.x + axisW, start.y + axisH);
  ImGui::InvisibleButton("##tensorcanvas", ImVec2(avail.x + axisW, avail.y + axisH));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const bool hovering = ImGui::IsItemHovered();
  std::set<int64_t> labelledA, labelledB;
  float lastLabelA = -1e9f, lastLabelB = -1e9f;
  for (size_t i = 0; i < tb.blocks.size(); ++i) {
    const TensorBlock& b = tb.blocks[i];
    const ImVec2 a(o.x + b.frac.x0 * avail.x, o.y + b.frac.y0 * avail.y);
    const ImVec2 z(o.x + b.frac.x1 * avail.x, o.y + b.frac.y1 * avail.y);
    const ImU32 fill = b.holderCount == 0 ? pal.emptyCell : groupColor(b.group, 0.55f);
    dl->AddRectFilled(a, z, fill);
    if (f.spec->hasPartial()) drawHatch(dl, a, z, pal.hatch, 8.0f);
    dl->AddRect(a, z, pal.cellBorder);
    const bool hov = hovering && mouse.x >= a.x && mouse.x < z.x && mouse.y >= a.y && mouse.y < z.y;
    if (hov) {
      state.hoveredBlock = static_cast<int>(i);
      dl->AddRect(a, z, pal.highlight, 0, 0, 2.5f);
    }
    const std::string who = holdersString(b);
    const ImVec2 ts = ImGui::CalcTextSize(who.c_str());
    if (ts.x + 6 < z.x - a.x && ts.y + 4 < z.y - a.y) {
      dl->AddText(ImVec2((a.x + z.x - ts.x) * 0.5f, (a.y + z.y - ts.y) * 0.5f), pal.text, who.c_str());
    }
    // Axis labels at block starts (columns on top, rows on the left), skipping ones that would overlap.
    if (b.a0 == 0 && a.x - lastLabelA > ImGui::CalcTextSize(std::to_string(b.b0).c_str()).x + 8) {
      dl->AddText(ImVec2(a.x + 2, start.y), pal.textDim, std::to_string(b.b0).c_str());
      lastLabelA = a.x;
    }
    if (b.b0 == 0 && a.y - lastLabelB > ImGui::GetTextLineHeight()) {
      dl->AddText(ImVec2(start.x, a.y + 1), pal.textDim, std::to_string(b.a0).c_str());
      lastLabelB = a.y;
    }
    ++state.blocksDrawn;
  }
  if (state.hoveredBlock >= 0) {
    const TensorBlock& b = tb.blocks[static_cast<size_t>(state.hoveredBlock)];
    ImGui::BeginTooltip();
    ImGui::Text("dim %d: [%lld, %lld)", tb.dimA, static_cast<long long>(b.a0), static_cast<long long>(b.a1));
    if (tb.dimB >= 0) ImGui::Text("dim %d: [%lld, %lld)", tb.dimB, static_cast<long long>(b.b0), static_cast<long long>(b.b1));
    ImGui::Text("held by %s", holdersString(b).c_str());
    ImGui::EndTooltip();
  }
  if (f.spec->hasPartial()) ImGui::TextDisabled("hatched: every holder has partial values; the tensor is their reduction");
  if (tb.merged) ImGui::TextDisabled("(very fine split: neighbouring boundaries merged in the picture)");
}

}  // namespace ss::views
