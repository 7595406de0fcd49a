// The module-hierarchy overview: see core/draw/module_overview.h.
#include "core/draw/module_overview.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace ss {
namespace {

uint32_t fnv1a(std::string_view s, uint32_t h = 2166136261u) {
  for (unsigned char c : s) { h ^= c; h *= 16777619u; }
  return h;
}

int familyOfBlock(const LayoutInput& in, int b) {
  return b >= 0 && b < static_cast<int>(in.blockFamily.size()) ? in.blockFamily[b] : -1;
}

int blockOfNode(const LayoutInput& in, int v) {
  const int blocks = static_cast<int>(in.blockNames.size());
  if (static_cast<int>(in.block.size()) != in.nodeCount) return -1;
  const int b = in.block[static_cast<size_t>(v)];
  return b >= 0 && b < blocks ? b : -1;
}

bool validEdge(const LayoutEdge& e, int n) { return e.src >= 0 && e.dst >= 0 && e.src < n && e.dst < n && e.src < e.dst; }

// Box width: the label ("layers.7 (forward)" over "97 nodes, 2 errors") at the view's zoom-1 character width.
float boxWidth(const std::string& name) {
  return std::clamp(7.0f * static_cast<float>(name.size() + 14) + 24.0f, 180.0f, 560.0f);
}

// The partition of the nodes into boxes (collapsed families and blocks) and open nodes, and the output blocks.
struct Partition {
  // Output blocks, in order of their first node: collapsed family boxes, and the instance blocks outside them.
  struct OutBlock {
    std::string name;
    int family = -1;      // the input family id (a family box: the family it collapses)
    int inputBlock = -1;  // the input block id, -1 for a family box
    bool collapsed = false;
    int instances = 1;    // blocks a family box holds
  };
  std::vector<OutBlock> blocks;
  std::vector<int> blockOf;  // per node: output block (members of a box, absorbed sources included), or -1
  OverviewUnits units;
};

Partition partition(const LayoutInput& in, const ModuleExpansion& x) {
  const int n = std::max(0, in.nodeCount);
  Partition p;
  p.blockOf.assign(static_cast<size_t>(n), -1);
  // Output block per (family box) and per (input block), created in node order.
  std::unordered_map<int, int> familyBox, instanceBlock;
  std::unordered_map<int, std::unordered_set<int>> familyInstances;
  for (int v = 0; v < n; ++v) {
    const int b = blockOfNode(in, v);
    if (b < 0) continue;
    const int fam = familyOfBlock(in, b);
    if (fam >= 0 && !x.openFamilies.count(fam)) {
      auto [it, added] = familyBox.try_emplace(fam, static_cast<int>(p.blocks.size()));
      if (added) {
        const std::string name = fam < static_cast<int>(in.familyNames.size()) ? in.familyNames[static_cast<size_t>(fam)]
                                                                               : in.blockNames[static_cast<size_t>(b)];
        p.blocks.push_back({name, fam, -1, true, 0});
      }
      familyInstances[fam].insert(b);
      p.blockOf[static_cast<size_t>(v)] = it->second;
      continue;
    }
    auto [it, added] = instanceBlock.try_emplace(b, static_cast<int>(p.blocks.size()));
    if (added) p.blocks.push_back({in.blockNames[static_cast<size_t>(b)], fam, b, !x.openBlocks.count(b), 1});
    p.blockOf[static_cast<size_t>(v)] = it->second;
  }
  for (auto& [fam, box] : familyBox) p.blocks[static_cast<size_t>(box)].instances = static_cast<int>(familyInstances[fam].size());

  // Sources (graph inputs: parameters, constants) outside any block whose every consumer lies in one collapsed box
  // are drawn inside it.
  std::vector<int> soleBox(static_cast<size_t>(n), -2);  // -2: no consumer yet, -1: several or an open one
  std::vector<uint8_t> hasInput(static_cast<size_t>(n), 0);
  for (const LayoutEdge& e : in.edges) {
    if (!validEdge(e, n)) continue;
    hasInput[static_cast<size_t>(e.dst)] = 1;
    const int ob = p.blockOf[static_cast<size_t>(e.dst)];
    const int box = ob >= 0 && p.blocks[static_cast<size_t>(ob)].collapsed ? ob : -1;
    int& s = soleBox[static_cast<size_t>(e.src)];
    s = s == -2 ? box : (s == box ? s : -1);
  }
  for (int v = 0; v < n; ++v)
    if (p.blockOf[static_cast<size_t>(v)] < 0 && !hasInput[static_cast<size_t>(v)] && soleBox[static_cast<size_t>(v)] >= 0)
      p.blockOf[static_cast<size_t>(v)] = soleBox[static_cast<size_t>(v)];

  // Units: a collapsed box is one, every other node its own; in order of their first node.
  OverviewUnits& u = p.units;
  u.unitOf.assign(static_cast<size_t>(n), -1);
  std::vector<int> unitOfBox(p.blocks.size(), -1);
  for (int v = 0; v < n; ++v) {
    const int ob = p.blockOf[static_cast<size_t>(v)];
    const bool boxed = ob >= 0 && p.blocks[static_cast<size_t>(ob)].collapsed;
    if (boxed && unitOfBox[static_cast<size_t>(ob)] >= 0) {
      u.unitOf[static_cast<size_t>(v)] = unitOfBox[static_cast<size_t>(ob)];
      continue;
    }
    const int unit = u.count();
    u.firstNode.push_back(v);
    u.box.push_back(boxed ? ob : -1);
    if (boxed) unitOfBox[static_cast<size_t>(ob)] = unit;
    u.unitOf[static_cast<size_t>(v)] = unit;
  }
  return p;
}

// Edges between units, forward only, deduplicated (first occurrence kept), in input order.
std::vector<LayoutEdge> unitEdges(const LayoutInput& in, const OverviewUnits& u) {
  const int n = std::max(0, in.nodeCount);
  std::vector<LayoutEdge> out;
  std::unordered_set<uint64_t> seen;
  std::vector<int> inputs(static_cast<size_t>(u.count()), 0);
  for (const LayoutEdge& e : in.edges) {
    if (!validEdge(e, n)) continue;
    const int a = u.unitOf[static_cast<size_t>(e.src)], b = u.unitOf[static_cast<size_t>(e.dst)];
    if (a >= b) continue;
    if (!seen.insert((static_cast<uint64_t>(a) << 32) | static_cast<uint32_t>(b)).second) continue;
    out.push_back({a, b, inputs[static_cast<size_t>(b)]++});
  }
  return out;
}

std::vector<int> longestPathLayers(int count, const std::vector<LayoutEdge>& edges) {
  std::vector<int> layer(static_cast<size_t>(count), 0);
  // Edges run forward in unit order: one pass in order of their source suffices when sorted by source.
  std::vector<LayoutEdge> sorted = edges;
  std::stable_sort(sorted.begin(), sorted.end(), [](const LayoutEdge& a, const LayoutEdge& b) { return a.src < b.src; });
  for (const LayoutEdge& e : sorted)
    layer[static_cast<size_t>(e.dst)] = std::max(layer[static_cast<size_t>(e.dst)], layer[static_cast<size_t>(e.src)] + 1);
  return layer;
}

}  // namespace

const char* overviewLevelName(OverviewLevel level) {
  switch (level) {
    case OverviewLevel::Families: return "modules";
    case OverviewLevel::Blocks: return "layers";
    case OverviewLevel::Nodes: return "nodes";
  }
  return "nodes";
}

bool hasModuleBlocks(const LayoutInput& in) {
  if (in.blockNames.empty() || static_cast<int>(in.block.size()) != in.nodeCount) return false;
  return std::any_of(in.block.begin(), in.block.end(), [&](int b) { return b >= 0 && b < static_cast<int>(in.blockNames.size()); });
}

ModuleExpansion expansionAt(const LayoutInput& in, OverviewLevel level) {
  ModuleExpansion x;
  if (level == OverviewLevel::Families) return x;
  for (int fam : in.blockFamily)
    if (fam >= 0) x.openFamilies.insert(fam);
  if (level == OverviewLevel::Nodes)
    for (int b = 0; b < static_cast<int>(in.blockNames.size()); ++b) x.openBlocks.insert(b);
  return x;
}

OverviewUnits overviewUnits(const LayoutInput& in, const ModuleExpansion& x) { return partition(in, x).units; }

int overviewDepth(const LayoutInput& in, const ModuleExpansion& x) {
  const OverviewUnits u = overviewUnits(in, x);
  const std::vector<int> layer = longestPathLayers(u.count(), unitEdges(in, u));
  return layer.empty() ? 0 : *std::max_element(layer.begin(), layer.end()) + 1;
}

std::optional<GraphLayout> layoutOverview(const LayoutInput& in, const ModuleExpansion& x, const LayoutOptions& opts,
                                          LayoutProgress* progress) {
  const int n = std::max(0, in.nodeCount);
  const Partition p = partition(in, x);
  const OverviewUnits& u = p.units;

  // The quotient: one node per unit; its blocks are the output blocks (a collapsed box has no member there).
  LayoutInput q;
  q.nodeCount = u.count();
  q.edges = unitEdges(in, u);
  q.width.resize(static_cast<size_t>(q.nodeCount));
  q.label.resize(static_cast<size_t>(q.nodeCount));
  q.block.assign(static_cast<size_t>(q.nodeCount), -1);
  int nextFamily = 0;
  for (int fam : in.blockFamily) nextFamily = std::max(nextFamily, fam + 1);
  for (const Partition::OutBlock& ob : p.blocks) {
    q.blockNames.push_back(ob.name);
    q.blockFamily.push_back(ob.collapsed ? nextFamily++ : ob.family);
  }
  q.familyNames = in.familyNames;
  for (int k = 0; k < q.nodeCount; ++k) {
    const int v = u.firstNode[static_cast<size_t>(k)];
    if (const int box = u.box[static_cast<size_t>(k)]; box >= 0) {
      q.width[static_cast<size_t>(k)] = boxWidth(p.blocks[static_cast<size_t>(box)].name);
      q.label[static_cast<size_t>(k)] = fnv1a(p.blocks[static_cast<size_t>(box)].name);
      continue;
    }
    q.width[static_cast<size_t>(k)] = static_cast<int>(in.width.size()) == n ? in.width[static_cast<size_t>(v)] : opts.nodeWidth;
    q.label[static_cast<size_t>(k)] = static_cast<int>(in.label.size()) == n ? in.label[static_cast<size_t>(v)] : 0u;
    q.block[static_cast<size_t>(k)] = p.blockOf[static_cast<size_t>(v)];
  }
  std::optional<GraphLayout> ql = layoutGraph(q, opts, progress);
  if (!ql) return std::nullopt;
  const GraphLayout& Q = *ql;

  // Back to the nodes: every node at its unit's place.
  GraphLayout out;
  out.nodeHeight = Q.nodeHeight;
  out.layer.resize(static_cast<size_t>(n));
  out.x.resize(static_cast<size_t>(n));
  out.y.resize(static_cast<size_t>(n));
  out.w.resize(static_cast<size_t>(n));
  out.h.resize(static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) {
    const int k = u.unitOf[static_cast<size_t>(v)];
    out.layer[static_cast<size_t>(v)] = Q.layer[static_cast<size_t>(k)];
    out.x[static_cast<size_t>(v)] = Q.x[static_cast<size_t>(k)];
    out.y[static_cast<size_t>(v)] = Q.y[static_cast<size_t>(k)];
    out.w[static_cast<size_t>(v)] = Q.w[static_cast<size_t>(k)];
    out.h[static_cast<size_t>(v)] = Q.h[static_cast<size_t>(k)];
    out.maxNodeWidth = std::max(out.maxNodeWidth, out.w[static_cast<size_t>(v)]);
  }
  out.blockOf = p.blockOf;
  out.edges.reserve(in.edges.size());
  for (const LayoutEdge& e : in.edges) {
    if (!validEdge(e, n)) { ++out.droppedEdges; continue; }
    out.edges.push_back(e);
    const int span = out.layer[static_cast<size_t>(e.dst)] - out.layer[static_cast<size_t>(e.src)];
    const bool inOneBox = u.unitOf[static_cast<size_t>(e.src)] == u.unitOf[static_cast<size_t>(e.dst)];
    out.longEdge.push_back(!inOneBox && (span > opts.maxRoutedSpan || span <= 0) ? 1 : 0);
  }
  out.layerTop = Q.layerTop;
  const int layers = out.layerCount();
  out.layerStart.assign(static_cast<size_t>(layers) + 1, 0);
  for (int v = 0; v < n; ++v) ++out.layerStart[static_cast<size_t>(out.layer[static_cast<size_t>(v)]) + 1];
  for (int l = 0; l < layers; ++l) out.layerStart[static_cast<size_t>(l) + 1] += out.layerStart[static_cast<size_t>(l)];
  out.byLayer.resize(static_cast<size_t>(n));
  {
    std::vector<int> fill(out.layerStart.begin(), out.layerStart.end() - 1);
    for (int v = 0; v < n; ++v) out.byLayer[static_cast<size_t>(fill[static_cast<size_t>(out.layer[static_cast<size_t>(v)])]++)] = v;
  }
  for (int l = 0; l < layers; ++l)
    std::sort(out.byLayer.begin() + out.layerStart[static_cast<size_t>(l)], out.byLayer.begin() + out.layerStart[static_cast<size_t>(l) + 1],
              [&](int a, int b) { return out.x[static_cast<size_t>(a)] != out.x[static_cast<size_t>(b)] ? out.x[static_cast<size_t>(a)] < out.x[static_cast<size_t>(b)] : a < b; });
  out.blocks = Q.blocks;
  out.classes = Q.classes;
  out.templatesLaidOut = Q.templatesLaidOut;
  out.stampedBlocks = Q.stampedBlocks;
  out.bounds = Q.bounds;
  std::vector<int> members(p.blocks.size(), 0);
  for (int v = 0; v < n; ++v)
    if (const int ob = p.blockOf[static_cast<size_t>(v)]; ob >= 0) ++members[static_cast<size_t>(ob)];
  for (int k = 0; k < u.count(); ++k) {
    const int box = u.box[static_cast<size_t>(k)];
    if (box < 0) continue;
    LayoutBlock& blk = out.blocks[static_cast<size_t>(box)];
    blk.collapsed = true;
    blk.instances = p.blocks[static_cast<size_t>(box)].instances;
    blk.family = p.blocks[static_cast<size_t>(box)].family;
    blk.firstLayer = blk.lastLayer = Q.layer[static_cast<size_t>(k)];
    blk.bounds = Q.nodeRect(k);
  }
  for (size_t b = 0; b < out.blocks.size(); ++b) {
    out.blocks[b].nodeCount = members[b];
    out.blocks[b].sourceBlock = p.blocks[b].inputBlock;
  }
  return out;
}

OverviewLevel chooseOverviewLevel(const LayoutInput& in, double viewW, double viewH, double minRowPx,
                                  const LayoutOptions& opts) {
  if (!hasModuleBlocks(in)) return OverviewLevel::Nodes;
  const double zoom = minRowPx / opts.nodeHeight;
  for (OverviewLevel level : {OverviewLevel::Nodes, OverviewLevel::Blocks}) {
    const ModuleExpansion x = expansionAt(in, level);
    const Partition p = partition(in, x);
    const std::vector<int> layer = longestPathLayers(p.units.count(), unitEdges(in, p.units));
    int depth = 0;
    std::vector<double> rowWidth;
    for (int k = 0; k < p.units.count(); ++k) {
      const int l = layer[static_cast<size_t>(k)];
      depth = std::max(depth, l + 1);
      if (rowWidth.size() <= static_cast<size_t>(l)) rowWidth.resize(static_cast<size_t>(l) + 1, 0.0);
      const int box = p.units.box[static_cast<size_t>(k)];
      const int v = p.units.firstNode[static_cast<size_t>(k)];
      const double w = box >= 0 ? boxWidth(p.blocks[static_cast<size_t>(box)].name)
                       : static_cast<int>(in.width.size()) == in.nodeCount ? in.width[static_cast<size_t>(v)]
                                                                           : opts.nodeWidth;
      rowWidth[static_cast<size_t>(l)] += w + opts.nodeGap;
    }
    const double widest = rowWidth.empty() ? 0.0 : *std::max_element(rowWidth.begin(), rowWidth.end());
    const double tall = depth * (opts.nodeHeight + opts.layerGap);
    if (tall * zoom <= viewH && widest * zoom <= viewW) return level;
  }
  return OverviewLevel::Families;
}

}  // namespace ss
