#include "views/tensor_view.h"

#include <algorithm>
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

std::vector<int64_t> cutsFor(const std::vector<RankShard>& shards, int dim, int64_t size, bool& merged) {
  std::set<int64_t> cuts{0, size};
  for (const RankShard& s : shards) {
    for (const Interval& iv : s.slices[static_cast<size_t>(dim)].parts) {
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

TensorBlocks tensorBlocks(const DeviceMesh& mesh, const TensorMeta& meta, const ShardingSpec& spec, int dimA, int dimB) {
  TensorBlocks out;
  out.dimA = dimA;
  out.dimB = dimB;
  Result<std::vector<RankShard>> shards = layoutAllRanks(meta.shape, mesh, spec);
  if (!shards.ok()) {
    out.error = shards.error().message;
    return out;
  }
  const std::vector<RankShard>& all = shards.value();
  const int64_t sizeA = dimA >= 0 ? meta.shape[static_cast<size_t>(dimA)] : 1;
  const int64_t sizeB = dimB >= 0 ? meta.shape[static_cast<size_t>(dimB)] : 1;
  const std::vector<int64_t> ca = dimA >= 0 ? cutsFor(all, dimA, sizeA, out.merged) : std::vector<int64_t>{0, 1};
  const std::vector<int64_t> cb = dimB >= 0 ? cutsFor(all, dimB, sizeB, out.merged) : std::vector<int64_t>{0, 1};
  std::map<std::vector<int64_t>, int> groupOf;
  for (size_t j = 0; j + 1 < cb.size(); ++j) {
    for (size_t i = 0; i + 1 < ca.size(); ++i) {
      TensorBlock b;
      b.a0 = ca[i];
      b.a1 = ca[i + 1];
      b.b0 = cb[j];
      b.b1 = cb[j + 1];
      const auto fa = [&](int64_t v) { return static_cast<float>(static_cast<double>(v) / static_cast<double>(std::max<int64_t>(sizeA, 1))); };
      const auto fb = [&](int64_t v) { return static_cast<float>(static_cast<double>(v) / static_cast<double>(std::max<int64_t>(sizeB, 1))); };
      b.frac = Rect{fb(b.b0), fa(b.a0), fb(b.b1), fa(b.a1)};
      for (const RankShard& s : all) {
        if (s.empty) continue;
        if (dimA >= 0 && !covers(s.slices[static_cast<size_t>(dimA)], b.a0)) continue;
        if (dimB >= 0 && !covers(s.slices[static_cast<size_t>(dimB)], b.b0)) continue;
        b.holders.push_back(s.rank);
      }
      out.blocks.push_back(std::move(b));
    }
  }
  // Number holder sets by their lowest rank so colours follow rank order (as the mesh view's groups do).
  std::vector<std::vector<int64_t>> sets;
  for (const TensorBlock& b : out.blocks) sets.push_back(b.holders);
  std::sort(sets.begin(), sets.end());
  sets.erase(std::unique(sets.begin(), sets.end()), sets.end());
  for (size_t i = 0; i < sets.size(); ++i) groupOf[sets[i]] = static_cast<int>(i);
  for (TensorBlock& b : out.blocks) b.group = groupOf[b.holders];
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
  const TensorBlocks tb = tensorBlocks(plan.mesh, f.meta, *f.spec, state.dimA, rank >= 2 ? state.dimB : -1);
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
    const ImU32 fill = b.holders.empty() ? pal.emptyCell : groupColor(b.holders.front() >= 0 ? b.group : 0, 0.55f);
    dl->AddRectFilled(a, z, fill);
    if (f.spec->hasPartial()) drawHatch(dl, a, z, pal.hatch, 8.0f);
    dl->AddRect(a, z, pal.cellBorder);
    const bool hov = hovering && mouse.x >= a.x && mouse.x < z.x && mouse.y >= a.y && mouse.y < z.y;
    if (hov) {
      state.hoveredBlock = static_cast<int>(i);
      dl->AddRect(a, z, pal.highlight, 0, 0, 2.5f);
    }
    const std::string who = b.holders.empty() ? "nobody" : rankListString(b.holders);
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
    ImGui::Text("held by %s", b.holders.empty() ? "nobody" : rankListString(b.holders).c_str());
    ImGui::EndTooltip();
  }
  if (f.spec->hasPartial()) ImGui::TextDisabled("hatched: every holder has partial values; the tensor is their reduction");
  if (tb.merged) ImGui::TextDisabled("(very fine split: neighbouring boundaries merged in the picture)");
}

}  // namespace ss::views
