// Layered layout; see core/draw/graph_layout.h for the algorithm and its contract.
//
// Sections: adjacency, overlap removal, layering, block classes and templates, lanes, free nodes, index, worker.
#include "core/draw/graph_layout.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <unordered_map>

namespace ss {
namespace {

// ---- adjacency (CSR) ----
struct Adjacency {
  std::vector<int> inStart, inNode, outStart, outNode;
  void build(int n, const std::vector<LayoutEdge>& edges) {
    inStart.assign(n + 1, 0);
    outStart.assign(n + 1, 0);
    for (const auto& e : edges) { ++inStart[e.dst + 1]; ++outStart[e.src + 1]; }
    for (int i = 0; i < n; ++i) { inStart[i + 1] += inStart[i]; outStart[i + 1] += outStart[i]; }
    inNode.resize(edges.size());
    outNode.resize(edges.size());
    std::vector<int> inFill(inStart.begin(), inStart.end() - 1), outFill(outStart.begin(), outStart.end() - 1);
    for (const auto& e : edges) { inNode[inFill[e.dst]++] = e.src; outNode[outFill[e.src]++] = e.dst; }
  }
  int inDegree(int v) const { return inStart[v + 1] - inStart[v]; }
  int outDegree(int v) const { return outStart[v + 1] - outStart[v]; }
};

// ---- overlap removal ----
// Items in the given order with wanted centres `want` and widths `w` get left edges `left` that keep the order,
// keep `gap` between neighbours and minimise the summed squared distance of each centre to its wish: isotonic
// regression (pool adjacent violators) on the shifted targets. O(n).
void removeOverlap(const std::vector<float>& want, const std::vector<float>& w, float gap, std::vector<float>& left) {
  const size_t n = want.size();
  left.resize(n);
  if (n == 0) return;
  std::vector<double> offset(n), target(n);
  double acc = 0;
  for (size_t i = 0; i < n; ++i) {
    offset[i] = acc;
    target[i] = want[i] - w[i] * 0.5 - acc;
    acc += w[i] + gap;
  }
  struct Pool { double sum; int count; size_t first; };
  std::vector<Pool> pools;
  pools.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    pools.push_back({target[i], 1, i});
    while (pools.size() > 1) {
      Pool& b = pools.back();
      Pool& a = pools[pools.size() - 2];
      if (a.sum / a.count <= b.sum / b.count) break;
      a.sum += b.sum;
      a.count += b.count;
      pools.pop_back();
    }
  }
  for (size_t p = 0; p < pools.size(); ++p) {
    const double mean = pools[p].sum / pools[p].count;
    const size_t end = p + 1 < pools.size() ? pools[p + 1].first : n;
    for (size_t i = pools[p].first; i < end; ++i) left[i] = static_cast<float>(mean + offset[i]);
  }
}

// Orders `items` by wanted centre (ties by previous position, then index: deterministic) and places them.
struct LayerPlacer {
  std::vector<int> order;
  std::vector<float> want, width, left;
  void place(std::vector<int>& items, const std::vector<float>& wantOf, const std::vector<float>& widthOf,
             const std::vector<float>& prevX, float gap, float rightBound, float leftBound,
             std::vector<float>& xOut) {
    std::sort(items.begin(), items.end(), [&](int a, int b) {
      if (wantOf[a] != wantOf[b]) return wantOf[a] < wantOf[b];
      if (prevX[a] != prevX[b]) return prevX[a] < prevX[b];
      return a < b;
    });
    want.clear();
    width.clear();
    for (int v : items) { want.push_back(wantOf[v]); width.push_back(widthOf[v]); }
    removeOverlap(want, width, gap, left);
    const size_t n = items.size();
    if (rightBound < std::numeric_limits<float>::max() && n > 0) {
      float limit = rightBound;
      for (size_t i = n; i-- > 0;) {
        left[i] = std::min(left[i], limit - width[i]);
        limit = left[i] - gap;
      }
    }
    if (leftBound > -std::numeric_limits<float>::max() && n > 0) {
      float limit = leftBound;
      for (size_t i = 0; i < n; ++i) {
        left[i] = std::max(left[i], limit);
        limit = left[i] + width[i] + gap;
      }
    }
    for (size_t i = 0; i < n; ++i) xOut[items[i]] = left[i];
  }
};

bool cancelled(LayoutProgress* p) { return p && p->cancel.load(std::memory_order_relaxed); }
void report(LayoutProgress* p, float f) { if (p) p->fraction.store(f, std::memory_order_relaxed); }

// ---- layering ----
// As late as possible: every node sits just above its first consumer, so parameters, constants and their
// transposes sit next to their use, and recomputed activations (checkpointing) next to the backward that needs
// them, not beside the forward where they could first be computed. Two kinds of consumer do not pull:
//   - the graph's output (its last node, read by nobody): a node read only by it keeps its earliest layer
//     (longest path from the sources), so gradients stay where they are computed;
//   - dead nodes (no path to the output, e.g. a recomputed value nobody uses): they would anchor a whole
//     recompute chain up in the forward. Dead nodes and the output sit just below their last input.
// Valid by construction: every edge goes at least one layer down.
std::vector<int> assignLayers(int n, const Adjacency& adj) {
  std::vector<int> layer(n, 0);
  for (int v = 0; v < n; ++v)
    for (int k = adj.inStart[v]; k < adj.inStart[v + 1]; ++k) layer[v] = std::max(layer[v], layer[adj.inNode[k]] + 1);
  std::vector<uint8_t> live(n, 0), pulls(n, 0);
  for (int v = n; v-- > 0;) {
    if (v == n - 1 && adj.outDegree(v) == 0) { live[v] = 1; continue; }
    int first = std::numeric_limits<int>::max();
    for (int k = adj.outStart[v]; k < adj.outStart[v + 1]; ++k) {
      const int c = adj.outNode[k];
      live[v] |= live[c];
      if (pulls[c]) first = std::min(first, layer[c]);
    }
    pulls[v] = live[v];
    if (first != std::numeric_limits<int>::max()) layer[v] = first - 1;
  }
  for (int v = 0; v < n; ++v) {
    if (pulls[v]) continue;
    int below = 0;
    for (int k = adj.inStart[v]; k < adj.inStart[v + 1]; ++k) below = std::max(below, layer[adj.inNode[k]] + 1);
    layer[v] = below;
  }
  int lowest = std::numeric_limits<int>::max();
  for (int l : layer) lowest = std::min(lowest, l);
  if (n > 0 && lowest != 0) for (int& l : layer) l -= lowest;
  return layer;
}

// ---- block classes and templates ----
// A block's structural code: everything stamping depends on. Two instances with equal codes get the same
// relative positions.
void blockCode(const std::vector<int>& nodes, const std::vector<int>& local, int block, const std::vector<int>& blockOf,
               const std::vector<int>& layer, int firstLayer, const LayoutInput& in, const std::vector<float>& width,
               const Adjacency& adj, int family, std::vector<int64_t>& code) {
  code.clear();
  code.push_back(family);
  code.push_back(static_cast<int64_t>(nodes.size()));
  for (int v : nodes) {
    code.push_back(in.label.empty() ? 0 : static_cast<int64_t>(in.label[v]));
    code.push_back(layer[v] - firstLayer);
    int32_t wbits;
    std::memcpy(&wbits, &width[v], sizeof wbits);
    code.push_back(wbits);
    // Internal in-edges only: the template is laid out from those alone, so external ones cannot change it.
    const size_t countAt = code.size();
    code.push_back(0);
    for (int k = adj.inStart[v]; k < adj.inStart[v + 1]; ++k) {
      const int u = adj.inNode[k];
      if (blockOf[u] == block) { code.push_back(local[u]); --code[countAt]; }
    }
  }
}

uint64_t hashCode(const std::vector<int64_t>& code) {
  uint64_t h = 1469598103934665603ull;
  for (int64_t c : code) {
    h ^= static_cast<uint64_t>(c) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 1099511628211ull;
  }
  return h;
}

// Lays out one block alone (internal edges only): relative x with the block's left edge at 0. Returns width.
float layoutTemplate(const std::vector<int>& nodes, const std::vector<int>& blockOf, int block,
                     const std::vector<int>& layer, int firstLayer, int lastLayer, const std::vector<float>& width,
                     const Adjacency& adj, const LayoutOptions& opts, std::vector<float>& relX,
                     std::vector<float>& wantOf, std::vector<float>& prevX) {
  const int layers = lastLayer - firstLayer + 1;
  std::vector<std::vector<int>> perLayer(layers);
  for (int v : nodes) perLayer[layer[v] - firstLayer].push_back(v);
  // relX, wantOf and prevX are indexed by global node id; only this block's entries are touched. NaN in x marks
  // a node not placed yet.
  std::vector<float>& x = relX;
  for (int v : nodes) x[v] = std::numeric_limits<float>::quiet_NaN();
  LayerPlacer placer;
  for (int pass = 0; pass < std::max(1, opts.sweeps); ++pass) {
    const bool down = pass % 2 == 0;
    for (int i = 0; i < layers; ++i) {
      const int li = down ? i : layers - 1 - i;
      auto& items = perLayer[li];
      if (items.empty()) continue;
      for (int v : items) {
        double sum = 0;
        int count = 0;
        auto visit = [&](int u) {
          if (blockOf[u] != block || std::isnan(x[u]) || layer[u] == layer[v]) return;
          sum += x[u] + width[u] * 0.5;
          ++count;
        };
        for (int k = adj.inStart[v]; k < adj.inStart[v + 1]; ++k) visit(adj.inNode[k]);
        if (pass > 0 || count == 0)
          for (int k = adj.outStart[v]; k < adj.outStart[v + 1]; ++k) visit(adj.outNode[k]);
        prevX[v] = std::isnan(x[v]) ? 0.f : x[v];
        wantOf[v] = count ? static_cast<float>(sum / count) : (std::isnan(x[v]) ? 0.f : x[v] + width[v] * 0.5f);
      }
      placer.place(items, wantOf, width, prevX, opts.nodeGap, std::numeric_limits<float>::max(),
                   -std::numeric_limits<float>::max(), x);
    }
  }
  float minX = std::numeric_limits<float>::max(), maxX = -std::numeric_limits<float>::max();
  for (int v : nodes) { minX = std::min(minX, x[v]); maxX = std::max(maxX, x[v] + width[v]); }
  for (int v : nodes) x[v] -= minX;
  return nodes.empty() ? 0.f : maxX - minX;
}

// One layout run: the sanitized input every section reads and the working arrays each section hands to the next.
// The sections run in order (blocks, lanes, freeNodes, geometry) and write into `out`.
struct LayoutRun {
  LayoutRun(const LayoutInput& in, const LayoutOptions& opts, LayoutProgress* progress, GraphLayout& out, int n,
            int blockCount, int layerCount, const std::vector<float>& width, std::vector<int>& blockOf,
            const Adjacency& adj)
      : in(in),
        opts(opts),
        progress(progress),
        out(out),
        n(n),
        blockCount(blockCount),
        layerCount(layerCount),
        width(width),
        blockOf(blockOf),
        adj(adj) {}

  const LayoutInput& in;
  const LayoutOptions& opts;
  LayoutProgress* progress;
  GraphLayout& out;
  const int n, blockCount, layerCount;
  const std::vector<float>& width;
  std::vector<int>& blockOf;  // moved into out by geometry()
  const Adjacency& adj;
  // Handed on: per block its members and template width; per node its x in its block, the barycenter sweeps'
  // scratch (wantOf, prevX) and whether a lane fixed it; per layer the x range the lanes occupy; the lanes' centre.
  std::vector<std::vector<int>> members;
  std::vector<float> relX, blockWidth, wantOf, prevX;
  std::vector<float> occMin, occMax;
  std::vector<uint8_t> fixed;
  float spineCentre = 0.f;

  // Blocks: members, layer range, structural class; lays out one template per class and stamps the others.
  // Returns false when cancelled.
  bool blocks() {
    members.resize(blockCount);
    for (int v = 0; v < n; ++v) if (blockOf[v] >= 0) members[blockOf[v]].push_back(v);
    out.blocks.resize(blockCount);
    std::vector<int> local(n, -1);
    relX.assign(n, 0.f);
    blockWidth.assign(blockCount, 0.f);
    wantOf.assign(n, 0.f);
    prevX.assign(n, 0.f);
    std::unordered_map<uint64_t, std::vector<int>> classesByHash;
    std::vector<std::vector<int64_t>> classCode;
    std::vector<int64_t> code;
    for (int b = 0; b < blockCount; ++b) {
      LayoutBlock& blk = out.blocks[b];
      blk.name = in.blockNames[b];
      blk.sourceBlock = b;
      blk.family = b < static_cast<int>(in.blockFamily.size()) ? in.blockFamily[b] : -1;
      blk.nodeCount = static_cast<int>(members[b].size());
      if (members[b].empty()) continue;
      blk.firstLayer = std::numeric_limits<int>::max();
      for (size_t i = 0; i < members[b].size(); ++i) {
        const int v = members[b][i];
        local[v] = static_cast<int>(i);
        blk.firstLayer = std::min(blk.firstLayer, out.layer[v]);
        blk.lastLayer = std::max(blk.lastLayer, out.layer[v]);
      }
      blockCode(members[b], local, b, blockOf, out.layer, blk.firstLayer, in, width, adj, blk.family, code);
      auto& candidates = classesByHash[hashCode(code)];
      for (int c : candidates) if (classCode[c] == code) { blk.cls = c; break; }
      if (blk.cls >= 0) {
        const auto& tmpl = members[out.classes[blk.cls].templateBlock];
        for (size_t i = 0; i < tmpl.size(); ++i) relX[members[b][i]] = relX[tmpl[i]];
        blockWidth[b] = blockWidth[out.classes[blk.cls].templateBlock];
        blk.stamped = true;
        ++out.stampedBlocks;
      } else {
        blk.cls = static_cast<int>(out.classes.size());
        out.classes.push_back({b, 0});
        classCode.push_back(code);
        candidates.push_back(blk.cls);
        blockWidth[b] = layoutTemplate(members[b], blockOf, b, out.layer, blk.firstLayer, blk.lastLayer, width, adj,
                                       opts, relX, wantOf, prevX);
        ++out.templatesLaidOut;
      }
      ++out.classes[blk.cls].instances;
      if ((b & 63) == 0) {
        report(progress, 0.2f + 0.3f * static_cast<float>(b) / static_cast<float>(blockCount));
        if (cancelled(progress)) return false;
      }
    }
    return true;
  }

  // Lanes: places every block in a lane (fixing its nodes' x) and records per layer the x range lanes occupy.
  void lanes() {
    out.x.assign(n, 0.f);
    std::vector<int> blockOrder;
    for (int b = 0; b < blockCount; ++b) if (!members[b].empty()) blockOrder.push_back(b);
    std::stable_sort(blockOrder.begin(), blockOrder.end(),
                     [&](int a, int b) { return out.blocks[a].firstLayer < out.blocks[b].firstLayer; });
    std::vector<int> laneEnd;
    std::vector<float> laneWidth;
    std::vector<int> laneOf(blockCount, -1);
    for (int b : blockOrder) {
      int lane = -1;
      for (size_t k = 0; k < laneEnd.size(); ++k) if (laneEnd[k] < out.blocks[b].firstLayer) { lane = static_cast<int>(k); break; }
      if (lane < 0) { lane = static_cast<int>(laneEnd.size()); laneEnd.push_back(-1); laneWidth.push_back(0.f); }
      laneEnd[lane] = out.blocks[b].lastLayer;
      laneWidth[lane] = std::max(laneWidth[lane], blockWidth[b]);
      laneOf[b] = lane;
    }
    std::vector<float> laneX(laneWidth.size(), 0.f);
    for (size_t k = 1; k < laneX.size(); ++k) laneX[k] = laneX[k - 1] + laneWidth[k - 1] + opts.laneGap;
    occMin.assign(layerCount, std::numeric_limits<float>::max());
    occMax.assign(layerCount, -std::numeric_limits<float>::max());
    fixed.assign(n, 0);
    for (int b : blockOrder) {
      const float left = laneX[laneOf[b]] + (laneWidth[laneOf[b]] - blockWidth[b]) * 0.5f;
      for (int v : members[b]) { out.x[v] = left + relX[v]; fixed[v] = 1; }
      for (int l = out.blocks[b].firstLayer; l <= out.blocks[b].lastLayer; ++l) {
        occMin[l] = std::min(occMin[l], left);
        occMax[l] = std::max(occMax[l], left + blockWidth[b]);
      }
    }
    spineCentre = laneX.empty() ? 0.f : (laneX.back() + laneWidth.back()) * 0.5f;
  }

  // Free nodes: places the nodes no lane fixed, beside the lanes of their layer. Returns false when cancelled.
  bool freeNodes() {
    std::vector<std::vector<int>> freeByLayer(layerCount);
    for (int v = 0; v < n; ++v) if (!fixed[v]) freeByLayer[out.layer[v]].push_back(v);
    std::vector<uint8_t> placed(fixed);
    LayerPlacer placer;
    std::vector<int> leftItems, rightItems;
    const int passes = std::max(1, opts.sweeps);
    for (int pass = 0; pass < passes; ++pass) {
      const bool down = pass % 2 == 0;
      for (int i = 0; i < layerCount; ++i) {
        const int l = down ? i : layerCount - 1 - i;
        auto& items = freeByLayer[l];
        if (items.empty()) continue;
        for (int v : items) {
          double sum = 0;
          int count = 0;
          auto visit = [&](int u) {
            if (!placed[u]) return;
            sum += out.x[u] + width[u] * 0.5;
            ++count;
          };
          if (down || pass > 0) for (int k = adj.inStart[v]; k < adj.inStart[v + 1]; ++k) visit(adj.inNode[k]);
          if (!down || pass > 0 || count == 0)
            for (int k = adj.outStart[v]; k < adj.outStart[v + 1]; ++k) visit(adj.outNode[k]);
          prevX[v] = out.x[v];
          wantOf[v] = count ? static_cast<float>(sum / count) : (placed[v] ? out.x[v] + width[v] * 0.5f : spineCentre);
        }
        if (occMin[l] <= occMax[l]) {
          const float mid = (occMin[l] + occMax[l]) * 0.5f;
          leftItems.clear();
          rightItems.clear();
          for (int v : items) (wantOf[v] < mid ? leftItems : rightItems).push_back(v);
          placer.place(leftItems, wantOf, width, prevX, opts.nodeGap, occMin[l] - opts.laneGap,
                       -std::numeric_limits<float>::max(), out.x);
          placer.place(rightItems, wantOf, width, prevX, opts.nodeGap, std::numeric_limits<float>::max(),
                       occMax[l] + opts.laneGap, out.x);
        } else {
          placer.place(items, wantOf, width, prevX, opts.nodeGap, std::numeric_limits<float>::max(),
                       -std::numeric_limits<float>::max(), out.x);
        }
        for (int v : items) placed[v] = 1;
        if ((i & 1023) == 0 && cancelled(progress)) return false;
      }
      report(progress, 0.6f + 0.3f * static_cast<float>(pass + 1) / static_cast<float>(passes));
    }
    return true;
  }

  // Geometry, long edges, the per-layer index sorted by x, block bounds; hands blockOf over to out.
  void geometry() {
    const float pitch = opts.nodeHeight + opts.layerGap;
    out.layerTop.resize(layerCount);
    for (int l = 0; l < layerCount; ++l) out.layerTop[l] = static_cast<float>(l) * pitch;
    out.y.resize(n);
    out.h.assign(n, opts.nodeHeight);
    out.w = width;
    for (int v = 0; v < n; ++v) {
      out.y[v] = out.layerTop[out.layer[v]];
      out.bounds.include(out.nodeRect(v));
      out.maxNodeWidth = std::max(out.maxNodeWidth, width[v]);
    }
    out.longEdge.resize(out.edges.size());
    for (size_t e = 0; e < out.edges.size(); ++e)
      out.longEdge[e] = out.layer[out.edges[e].dst] - out.layer[out.edges[e].src] > opts.maxRoutedSpan;
    out.layerStart.assign(layerCount + 1, 0);
    for (int v = 0; v < n; ++v) ++out.layerStart[out.layer[v] + 1];
    for (int l = 0; l < layerCount; ++l) out.layerStart[l + 1] += out.layerStart[l];
    out.byLayer.resize(n);
    {
      std::vector<int> fill(out.layerStart.begin(), out.layerStart.end() - 1);
      for (int v = 0; v < n; ++v) out.byLayer[fill[out.layer[v]]++] = v;
    }
    for (int l = 0; l < layerCount; ++l)
      std::sort(out.byLayer.begin() + out.layerStart[l], out.byLayer.begin() + out.layerStart[l + 1],
                [&](int a, int b) { return out.x[a] != out.x[b] ? out.x[a] < out.x[b] : a < b; });
    out.blockOf = std::move(blockOf);
    for (int b = 0; b < blockCount; ++b) {
      out.blocks[b].bounds = Rectd::none();
      for (int v : members[b]) out.blocks[b].bounds.include(out.nodeRect(v));
    }
  }
};

}  // namespace

// ---- entry point ----
std::optional<GraphLayout> layoutGraph(const LayoutInput& in, const LayoutOptions& opts, LayoutProgress* progress) {
  const int n = std::max(0, in.nodeCount);
  GraphLayout out;
  out.nodeHeight = opts.nodeHeight;
  out.edges.reserve(in.edges.size());
  for (const auto& e : in.edges) {
    if (e.src < 0 || e.dst < 0 || e.src >= n || e.dst >= n || e.src >= e.dst) { ++out.droppedEdges; continue; }
    out.edges.push_back(e);
  }
  std::vector<float> width(n, opts.nodeWidth);
  if (static_cast<int>(in.width.size()) == n)
    for (int v = 0; v < n; ++v) width[v] = std::max(1.f, in.width[v]);
  std::vector<int> blockOf(n, -1);
  const int blockCount = static_cast<int>(in.blockNames.size());
  if (static_cast<int>(in.block.size()) == n)
    for (int v = 0; v < n; ++v) blockOf[v] = (in.block[v] >= 0 && in.block[v] < blockCount) ? in.block[v] : -1;

  Adjacency adj;
  adj.build(n, out.edges);
  report(progress, 0.1f);
  if (cancelled(progress)) return std::nullopt;

  out.layer = assignLayers(n, adj);
  int layerCount = 0;
  for (int l : out.layer) layerCount = std::max(layerCount, l + 1);
  report(progress, 0.2f);
  if (cancelled(progress)) return std::nullopt;

  // Blocks: members, layer range, structural classes, template layouts.
  LayoutRun run(in, opts, progress, out, n, blockCount, layerCount, width, blockOf, adj);
  if (!run.blocks()) return std::nullopt;
  report(progress, 0.5f);

  // Lanes: blocks in layer order, each in the first lane free at its first layer; lanes side by side from x=0.
  run.lanes();
  report(progress, 0.6f);
  if (cancelled(progress)) return std::nullopt;

  // Free nodes: barycenter sweeps around the fixed lanes.
  if (!run.freeNodes()) return std::nullopt;

  // Geometry, long edges, spatial index, block bounds.
  run.geometry();
  report(progress, 1.f);
  return out;
}

// ---- queries ----
std::pair<int, int> GraphLayout::layersIn(double y0, double y1) const {
  const auto first = std::lower_bound(layerTop.begin(), layerTop.end(), y0 - nodeHeight);
  const auto last = std::upper_bound(layerTop.begin(), layerTop.end(), y1);
  const int a = static_cast<int>(first - layerTop.begin()), b = static_cast<int>(last - layerTop.begin());
  return {a, std::max(a, b)};
}

std::pair<int, int> GraphLayout::nodesIn(int l, double x0, double x1) const {
  if (l < 0 || l >= layerCount()) return {0, 0};
  auto begin = byLayer.begin() + layerStart[l], end = byLayer.begin() + layerStart[l + 1];
  auto first = std::lower_bound(begin, end, x0 - maxNodeWidth, [&](int v, double value) { return x[v] < value; });
  while (first != end && x[*first] + w[*first] < x0) ++first;
  auto last = std::upper_bound(first, end, x1, [&](double value, int v) { return value < x[v]; });
  return {static_cast<int>(first - byLayer.begin()), static_cast<int>(last - byLayer.begin())};
}

int GraphLayout::hitTest(Vec2d p) const {
  const auto [l0, l1] = layersIn(p.y, p.y);
  for (int l = l0; l < l1; ++l) {
    const auto [b, e] = nodesIn(l, p.x, p.x);
    for (int i = b; i < e; ++i) if (nodeRect(byLayer[i]).contains(p)) return byLayer[i];
  }
  return -1;
}

// ---- worker ----
void LayoutWorker::start(LayoutInput in, LayoutOptions opts) {
  startJob([in = std::move(in), opts](LayoutProgress* progress) { return layoutGraph(in, opts, progress); });
}

void LayoutWorker::startJob(std::function<std::optional<GraphLayout>(LayoutProgress*)> job) {
  stop();
  progress_ = std::make_unique<LayoutProgress>();
  running_ = true;
  LayoutProgress* progress = progress_.get();
  thread_ = std::thread([this, job = std::move(job), progress] {
    auto result = job(progress);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (result) result_ = std::move(result);
    }
    running_ = false;
  });
}

void LayoutWorker::stop() {
  if (progress_) progress_->cancel = true;
  if (thread_.joinable()) thread_.join();
  running_ = false;
  std::lock_guard<std::mutex> lock(mutex_);
  result_.reset();
}

std::optional<GraphLayout> LayoutWorker::take() {
  if (running_) return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<GraphLayout> out = std::move(result_);
  result_.reset();
  return out;
}

}  // namespace ss
