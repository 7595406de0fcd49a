// The record pass of the graph view; see views/model/graph_records.h.
// Sections: model, overlay, filter and search, records.
#include "views/model/graph_records.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/redistribute/redistribute.h"

namespace ss::views {
namespace {

uint8_t severityRank(Severity s) {
  switch (s) {
    case Severity::Info: return 1;
    case Severity::Warning: return 2;
    case Severity::Error: return 3;
  }
  return 0;
}

bool isRedistributeProblem(const Diagnostic& d) {
  return d.input >= 0 && d.severity != Severity::Info &&
         (d.kind == DiagKind::MissingRedistribute || d.kind == DiagKind::IncompatibleInputs || d.kind == DiagKind::BadRedistribute);
}

// "all_to_all", "all_gather + all_reduce", "chunk"; "invalid" when the transform is not allowed.
std::string collectivesOf(const RedistributePlan& p) {
  if (!p.possible) return "invalid";
  std::string out;
  for (const auto& s : p.steps) {
    if (s.kind == CollectiveKind::None) continue;
    const std::string name = collectiveName(s.kind);
    if (out.find(name) != std::string::npos) continue;
    if (!out.empty()) out += " + ";
    out += name;
  }
  return out.empty() ? "no-op" : out;
}

std::string badgeFor(const Plan& plan, int consumer, int input, const ShardingSpec& from, const ShardingSpec& to) {
  const auto& inputs = plan.graph.inputs(consumer);
  if (input < 0 || input >= static_cast<int>(inputs.size())) return {};
  const TensorMeta* meta = plan.graph.meta(inputs[input]);
  static const TensorMeta unknown{};
  return collectivesOf(planRedistribute(meta ? *meta : unknown, plan.mesh, from, to));
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

// ---- model ----
const char* pillStateName(PillState s) {
  switch (s) {
    case PillState::Plan: return "plan";
    case PillState::Applied: return "applied";
    case PillState::Missing: return "missing";
    case PillState::Unplanned: return "unplanned";
  }
  return "plan";
}

int GraphModel::findEdge(int consumer, int input) const {
  if (consumer < 0 || consumer + 1 >= static_cast<int>(inEdgeStart.size())) return -1;
  for (int k = inEdgeStart[consumer]; k < inEdgeStart[consumer + 1]; ++k)
    if (layout.edges[inEdges[k]].input == input) return inEdges[k];
  return -1;
}

GraphModel makeGraphModel(const Plan& plan, const Diagnostics& diags, GraphLayout layout, const GraphOverlay* overlay) {
  GraphModel m = modelForLayout(std::move(layout));
  refreshGraphModel(plan, diags, m, overlay);
  return m;
}

GraphModel modelForLayout(GraphLayout layout) {
  GraphModel m;
  m.layout = std::move(layout);
  const int n = m.layout.nodeCount();
  const auto& edges = m.layout.edges;
  m.blockOf = m.layout.blockOf.size() == static_cast<size_t>(n) ? m.layout.blockOf : std::vector<int>(n, -1);
  m.inEdgeStart.assign(n + 1, 0);
  for (const auto& e : edges) ++m.inEdgeStart[e.dst + 1];
  for (int v = 0; v < n; ++v) m.inEdgeStart[v + 1] += m.inEdgeStart[v];
  m.inEdges.resize(edges.size());
  m.entryFraction.resize(edges.size());
  {
    std::vector<int> fill(m.inEdgeStart.begin(), m.inEdgeStart.end() - 1);
    for (size_t e = 0; e < edges.size(); ++e) m.inEdges[fill[edges[e].dst]++] = static_cast<int>(e);
  }
  for (int v = 0; v < n; ++v) {
    auto first = m.inEdges.begin() + m.inEdgeStart[v], last = m.inEdges.begin() + m.inEdgeStart[v + 1];
    std::stable_sort(first, last, [&](int a, int b) { return edges[a].input < edges[b].input; });
    const int count = static_cast<int>(last - first);
    for (int k = 0; k < count; ++k) m.entryFraction[first[k]] = static_cast<float>(k + 1) / static_cast<float>(count + 1);
  }
  m.outEdgeStart.assign(n + 1, 0);
  for (const auto& e : edges) ++m.outEdgeStart[e.src + 1];
  for (int v = 0; v < n; ++v) m.outEdgeStart[v + 1] += m.outEdgeStart[v];
  m.outEdges.resize(edges.size());
  {
    std::vector<int> fill(m.outEdgeStart.begin(), m.outEdgeStart.end() - 1);
    for (size_t e = 0; e < edges.size(); ++e) m.outEdges[fill[edges[e].src]++] = static_cast<int>(e);
  }
  const int layers = m.layout.layerCount();
  m.freeStart.assign(layers + 1, 0);
  m.freeNodes.clear();
  for (int l = 0; l < layers; ++l) {
    for (int k = m.layout.layerStart[l]; k < m.layout.layerStart[l + 1]; ++k)
      if (m.blockOf[m.layout.byLayer[k]] < 0) m.freeNodes.push_back(m.layout.byLayer[k]);
    m.freeStart[l + 1] = static_cast<int>(m.freeNodes.size());
  }
  const size_t blocks = m.layout.blocks.size();
  m.blockStart.assign(blocks + 1, 0);
  for (int v = 0; v < n; ++v) if (m.blockOf[v] >= 0) ++m.blockStart[m.blockOf[v] + 1];
  for (size_t b = 0; b < blocks; ++b) m.blockStart[b + 1] += m.blockStart[b];
  m.blockMembers.resize(m.blockStart[blocks]);
  {
    std::vector<int> fill(m.blockStart.begin(), m.blockStart.end() - 1);
    for (int v = 0; v < n; ++v) if (m.blockOf[v] >= 0) m.blockMembers[fill[m.blockOf[v]]++] = v;
  }
  m.blockColour.assign(blocks, -1);
  m.blockWhole.assign(blocks, 1);
  m.maxShortSpan = 0;
  for (size_t e = 0; e < edges.size(); ++e)
    if (!m.layout.longEdge[e])
      m.maxShortSpan = std::max(m.maxShortSpan, m.layout.layer[edges[e].dst] - m.layout.layer[edges[e].src]);
  m.visible.assign(n, 1);
  m.match.assign(n, 0);
  m.collapsed.assign(m.layout.blocks.size(), 0);
  m.severity.assign(n, 0);
  m.colour.assign(n, -1);
  m.blockSeverity.assign(m.layout.blocks.size(), 0);
  m.edgeKind.assign(edges.size(), EdgeKind::Normal);
  m.markOf.assign(n, -1);
  return m;
}

void refreshGraphModel(const Plan& plan, const Diagnostics& diags, GraphModel& m, const GraphOverlay* overlay) {
  const int n = m.layout.nodeCount();
  const auto& edges = m.layout.edges;
  m.severity.assign(n, 0);
  m.blockSeverity.assign(m.layout.blocks.size(), 0);
  for (const auto& d : diags.items)
    if (d.node >= 0 && d.node < n) m.severity[d.node] = std::max(m.severity[d.node], severityRank(d.severity));
  // The overlay's problems count as the node's (a missing collective is an error at its consumer).
  if (overlay)
    for (const auto& oe : overlay->edges) {
      if (oe.consumer < 0 || oe.consumer >= n) continue;
      const uint8_t sev = oe.pill.state == PillState::Missing ? 3 : oe.pill.state == PillState::Unplanned ? 2 : 0;
      m.severity[oe.consumer] = std::max(m.severity[oe.consumer], sev);
    }
  m.problemNodes.clear();
  for (int v = 0; v < n; ++v) {
    if (m.severity[v] >= 2) m.problemNodes.push_back(v);
    if (m.blockOf[v] >= 0) m.blockSeverity[m.blockOf[v]] = std::max(m.blockSeverity[m.blockOf[v]], m.severity[v]);
  }

  // Colour classes by output spec, in order of first appearance.
  m.colour.assign(n, -1);
  m.specNames.clear();
  m.specCounts.clear();
  std::unordered_map<ShardingSpec, int16_t> classes;
  const bool specsOk = static_cast<int>(plan.specs.size()) == n;
  for (int v = 0; v < n && specsOk; ++v) {
    const auto& outs = plan.specs[v].outputs;
    if (outs.empty() || !outs[0]) continue;
    auto [it, added] = classes.try_emplace(*outs[0], static_cast<int16_t>(std::min<size_t>(classes.size(), 32000)));
    if (added) { m.specNames.push_back(outs[0]->toMeshString()); m.specCounts.push_back(0); }
    m.colour[v] = it->second;
    ++m.specCounts[it->second];
  }

  // Edges: explicit redistributes, implicit ones (the consumer wants another spec than the producer gives),
  // and the ones diagnostics say are missing.
  m.edgeKind.assign(edges.size(), EdgeKind::Normal);
  m.badge.clear();
  for (size_t e = 0; e < edges.size() && specsOk; ++e) {
    const auto& ed = edges[e];
    const auto& wantIn = plan.specs[ed.dst].inputs;
    if (ed.input >= static_cast<int>(wantIn.size()) || !wantIn[ed.input]) continue;
    const auto& inputs = plan.graph.inputs(ed.dst);
    if (ed.input >= static_cast<int>(inputs.size())) continue;
    const TensorRef ref = inputs[ed.input];
    const auto& outs = plan.specs[ref.node].outputs;
    if (ref.output >= static_cast<int>(outs.size()) || !outs[ref.output]) continue;
    if (*outs[ref.output] == *wantIn[ed.input]) continue;
    m.edgeKind[e] = EdgeKind::Redistribute;
    m.badge[static_cast<int>(e)] = badgeFor(plan, ed.dst, ed.input, *outs[ref.output], *wantIn[ed.input]);
  }
  for (const auto& r : plan.redistributes) {
    const int e = m.findEdge(r.node, r.input);
    if (e < 0) continue;
    m.edgeKind[e] = EdgeKind::Redistribute;
    m.badge[e] = badgeFor(plan, r.node, r.input, r.from, r.to);
  }
  for (const auto& d : diags.items) {
    if (!isRedistributeProblem(d)) continue;
    const int e = m.findEdge(d.node, d.input);
    if (e < 0) continue;
    m.edgeKind[e] = EdgeKind::NeedsRedistribute;
    if (d.have && d.want) m.badge[e] = badgeFor(plan, d.node, d.input, *d.have, *d.want);
    else if (!m.badge.count(e)) m.badge[e] = "redistribute?";
  }
  // The overlay: pills replace the badge of their edge; collective nodes get their mark.
  m.pills.clear();
  m.marks.clear();
  m.markedNodes.clear();
  m.markOf.assign(n, -1);
  if (overlay) {
    for (const auto& oe : overlay->edges) {
      const int e = m.findEdge(oe.consumer, oe.input);
      if (e < 0) continue;
      m.pills[e].push_back(oe.pill);
      if (oe.pill.state == PillState::Missing) m.edgeKind[e] = EdgeKind::NotApplied;
      else if (m.edgeKind[e] == EdgeKind::Normal) m.edgeKind[e] = EdgeKind::Redistribute;
    }
    for (const auto& [v, mark] : overlay->nodes) {
      if (v < 0 || v >= n) continue;
      if (m.markOf[v] < 0) m.markedNodes.push_back(v);
      m.markOf[v] = static_cast<int>(m.marks.size());
      m.marks.push_back(mark);
    }
    std::sort(m.markedNodes.begin(), m.markedNodes.end());
  }
  // Most common colour per block (ties: the lower class).
  m.blockColour.assign(m.layout.blocks.size(), -1);
  std::unordered_map<int16_t, int> tally;
  for (size_t b = 0; b + 1 < m.blockStart.size(); ++b) {
    tally.clear();
    int best = 0;
    for (int k = m.blockStart[b]; k < m.blockStart[b + 1]; ++k) {
      const int16_t c = m.colour[m.blockMembers[k]];
      const int count = ++tally[c];
      if (count > best || (count == best && c < m.blockColour[b])) { best = count; m.blockColour[b] = c; }
    }
  }
  m.problemEdges.clear();
  for (size_t e = 0; e < edges.size(); ++e)
    if (m.edgeKind[e] == EdgeKind::NeedsRedistribute || m.edgeKind[e] == EdgeKind::NotApplied)
      m.problemEdges.push_back(static_cast<int>(e));
  // What each block holds: its errors, warnings and communication (a collapsed box says them).
  const size_t blocks = m.layout.blocks.size();
  m.blockErrors.assign(blocks, 0);
  m.blockWarnings.assign(blocks, 0);
  m.blockComm.assign(blocks, 0);
  for (const auto& d : diags.items)
    if (d.node >= 0 && d.node < n && m.blockOf[d.node] >= 0) {
      if (d.severity == Severity::Error) ++m.blockErrors[m.blockOf[d.node]];
      else if (d.severity == Severity::Warning) ++m.blockWarnings[m.blockOf[d.node]];
    }
  for (size_t e = 0; e < edges.size(); ++e)
    if (m.edgeKind[e] != EdgeKind::Normal && m.blockOf[edges[e].dst] >= 0) ++m.blockComm[m.blockOf[edges[e].dst]];
  for (int v : m.markedNodes)
    if (m.blockOf[v] >= 0) ++m.blockComm[m.blockOf[v]];
}

// ---- filter and search ----
void applyFilter(const Plan& plan, const GraphFilter& f, GraphModel& m) {
  const int n = m.layout.nodeCount();
  m.visible.assign(n, 1);
  for (int v = 0; v < n && v < plan.graph.size(); ++v) {
    const Node& node = plan.graph.nodes[v];
    bool keep = node.phase == Phase::Forward ? f.forward : node.phase == Phase::Backward ? f.backward : f.other;
    if (keep && !f.modulePath.empty()) keep = node.modulePath.find(f.modulePath) != std::string::npos;
    if (keep && f.onlyProblems) keep = m.severity[v] >= 2;
    m.visible[v] = keep;
  }
  m.collapsed.assign(m.layout.blocks.size(), 0);
  for (size_t b = 0; b < m.layout.blocks.size(); ++b)
    m.collapsed[b] = m.layout.blocks[b].collapsed || (f.collapseRepeated && m.layout.blocks[b].stamped);
  m.blockWhole.assign(m.layout.blocks.size(), 1);
  for (int v = 0; v < n; ++v)
    if (!m.visible[v] && m.blockOf[v] >= 0) m.blockWhole[m.blockOf[v]] = 0;
}

std::vector<int> searchNodes(const Plan& plan, std::string_view query, GraphModel& m) {
  std::vector<int> hits;
  m.match.assign(m.layout.nodeCount(), 0);
  if (query.empty()) return hits;
  const std::string q = lower(query);
  for (int v = 0; v < plan.graph.size() && v < m.layout.nodeCount(); ++v) {
    const Node& node = plan.graph.nodes[v];
    if (lower(node.name).find(q) != std::string::npos || lower(node.op).find(q) != std::string::npos) {
      m.match[v] = 1;
      hits.push_back(v);
    }
  }
  return hits;
}

// ---- records ----
void GraphRecords::clear() {
  nodes.clear();
  cells.clear();
  edges.clear();
  stubs.clear();
  badges.clear();
  blocks.clear();
  markers.clear();
  marks.clear();
  merged = false;
  plainEdgesSkipped = false;
  nodesVisited = 0;
}

namespace {

// One record pass: the model, the view and its world-to-screen map that every section reads, and the records
// it writes. Each section appends to `out` in the order buildGraphRecords calls them.
struct RecordPass {
  const GraphModel& m;
  const GraphLayout& L;
  const Canvas& canvas;
  const RecordOptions& opts;
  GraphRecords& out;
  const int n;
  const Rectd vis;
  const double zoom, ox, oy;
  const float nodePx;
  const bool merge;
  const float cell;  // the merge grid: cell size in pixels, width and height in cells
  const int gw, gh;
  const int l0, l1;  // the layers in view, [l0, l1)

  float sx(double wx) const { return static_cast<float>(ox + wx * zoom); }
  float sy(double wy) const { return static_cast<float>(oy + wy * zoom); }
  bool hiddenByBlock(int v) const { return m.blockOf[v] >= 0 && m.collapsed[m.blockOf[v]]; }

  // Appends a frame per block in view big enough to say something, and every collapsed block in view.
  void blocks() {
    for (size_t b = 0; b < L.blocks.size(); ++b) {
      const auto& blk = L.blocks[b];
      if (blk.nodeCount == 0 || !blk.bounds.overlaps(vis)) continue;
      // A frame smaller than a few pixels says nothing; a collapsed block is still drawn (it replaces its nodes).
      if (!m.collapsed[b] && (blk.bounds.height() * zoom < 12.0 || blk.bounds.width() * zoom < 6.0)) continue;
      const Rectd r = blk.bounds.expanded(8);
      out.blocks.push_back({static_cast<int>(b), sx(r.min.x), sy(r.min.y), sx(r.max.x), sy(r.max.y),
                            m.collapsed[b] != 0, m.blockSeverity[b]});
    }
  }

  // Appends the nodes in view: one record each zoomed in; merged, whole blocks as cells and the rest through
  // the cell grid (left in out.touched / out.cellAcc for mergedCells).
  void nodes() {
    using CellAcc = GraphRecords::CellAcc;
    auto& acc = out.cellAcc;
    acc.clear();
    if (merge && out.cellGrid.size() != static_cast<size_t>(gw) * gh) out.cellGrid.assign(static_cast<size_t>(gw) * gh, -1);
    out.touched.clear();
    // Zoomed in: every node in the visible layers' x range. Far out (merged): each block whose members all pass
    // the filter becomes one rectangle in its most common colour (problems keep their markers), so the pass costs
    // O(blocks + free nodes in view), not O(nodes); the remaining nodes go through the cell grid.
    auto mergeNode = [&](int v, float x0, float y0, float x1, float y1) {
      const int cy = std::clamp(static_cast<int>((0.5f * (y0 + y1) - static_cast<float>(canvas.origin.y)) / cell), 0, gh - 1);
      const int cx0 = std::clamp(static_cast<int>((x0 - static_cast<float>(canvas.origin.x)) / cell), 0, gw - 1);
      const int cx1 = std::clamp(static_cast<int>((x1 - static_cast<float>(canvas.origin.x)) / cell), 0, gw - 1);
      // A node paints every cell it covers but is counted once, in the cell holding its centre.
      const int cxMid = std::clamp(static_cast<int>((0.5f * (x0 + x1) - static_cast<float>(canvas.origin.x)) / cell), cx0, cx1);
      for (int cx = cx0; cx <= cx1; ++cx) {
        int32_t& slot = out.cellGrid[static_cast<size_t>(cy) * gw + cx];
        const int counted = cx == cxMid ? 1 : 0;
        if (slot < 0) {
          slot = static_cast<int32_t>(acc.size());
          acc.push_back({m.colour[v], m.severity[v], counted});
          out.touched.push_back(cy * gw + cx);
        } else {
          CellAcc& c = acc[slot];
          c.count += counted;
          if (m.severity[v] > c.severity) { c.severity = m.severity[v]; c.colour = m.colour[v]; }
        }
      }
    };
    if (!merge) {
      for (int l = l0; l < l1; ++l) {
        const auto [b, e] = L.nodesIn(l, vis.min.x, vis.max.x);
        out.nodesVisited += e - b;
        for (int i = b; i < e; ++i) {
          const int v = L.byLayer[i];
          if (!m.visible[v] || hiddenByBlock(v)) continue;
          const NodeDetail detail = nodePx >= opts.fullAbovePx    ? NodeDetail::Full
                                    : nodePx >= opts.titleAbovePx ? NodeDetail::Title
                                                                  : NodeDetail::Box;
          out.nodes.push_back({v, sx(L.x[v]), sy(L.y[v]), sx(L.x[v] + L.w[v]), sy(L.y[v] + L.h[v]), m.colour[v],
                               m.severity[v], detail, v == opts.selectedNode, m.match[v] != 0,
                               v == opts.divergentNode, opts.divergentNode >= 0 && v > opts.divergentNode,
                               v < static_cast<int>(m.markOf.size()) ? m.markOf[v] : -1});
        }
      }
    } else {
      auto visit = [&](int v) {
        ++out.nodesVisited;
        if (!m.visible[v] || hiddenByBlock(v)) return;
        if (L.x[v] + L.w[v] < vis.min.x || L.x[v] > vis.max.x || L.y[v] + L.h[v] < vis.min.y || L.y[v] > vis.max.y) return;
        mergeNode(v, sx(L.x[v]), sy(L.y[v]), sx(L.x[v] + L.w[v]), sy(L.y[v] + L.h[v]));
      };
      for (size_t b = 0; b < L.blocks.size(); ++b) {
        const auto& blk = L.blocks[b];
        if (blk.nodeCount == 0 || m.collapsed[b] || !blk.bounds.overlaps(vis)) continue;
        if (!m.blockWhole[b]) {
          for (int k = m.blockStart[b]; k < m.blockStart[b + 1]; ++k) visit(m.blockMembers[k]);
          continue;
        }
        out.nodesVisited += blk.nodeCount;
        const float x0 = sx(blk.bounds.min.x), y0 = sy(blk.bounds.min.y);
        const float x1 = std::max(sx(blk.bounds.max.x), x0 + 1.f), y1 = std::max(sy(blk.bounds.max.y), y0 + 1.f);
        out.cells.push_back({x0, y0, x1, y1, m.blockColour[b], 0, blk.nodeCount});
      }
      for (int l = l0; l < l1; ++l)
        for (int k = m.freeStart[l]; k < m.freeStart[l + 1]; ++k) visit(m.freeNodes[k]);
    }
  }

  // Merged only: turns the cell grid nodes() filled into row runs of equal cells and clears the grid again.
  void mergedCells() {
    using CellAcc = GraphRecords::CellAcc;
    const auto& acc = out.cellAcc;
    // Row-major order, then runs of equal cells on a row become one rectangle.
    std::sort(out.touched.begin(), out.touched.end());
    for (size_t i = 0; i < out.touched.size();) {
      const int key = out.touched[i];
      const CellAcc& a = acc[out.cellGrid[key]];
      int count = a.count;
      size_t j = i + 1;
      while (j < out.touched.size() && out.touched[j] == out.touched[j - 1] + 1 && out.touched[j] / gw == key / gw) {
        const CellAcc& b = acc[out.cellGrid[out.touched[j]]];
        if (b.colour != a.colour || b.severity != a.severity) break;
        count += b.count;
        ++j;
      }
      const int cy = key / gw, cx = key % gw, run = static_cast<int>(j - i);
      const float x0 = static_cast<float>(canvas.origin.x) + cx * cell, y0 = static_cast<float>(canvas.origin.y) + cy * cell;
      out.cells.push_back({x0, y0, x0 + run * cell, y0 + cell, a.colour, a.severity, count});
      i = j;
    }
    for (int key : out.touched) out.cellGrid[key] = -1;
  }

  // Merged only: fixed-size markers for problems, the divergent node and the selection, and collective boxes.
  void markers() {
    // Problems and the selection stay visible however far out: markers of a fixed size.
    auto mark = [&](int v) {
      if (v < 0 || v >= n || !m.visible[v]) return;
      const Vec2d c = L.nodeRect(v).center();
      if (!vis.contains(c)) return;
      out.markers.push_back({v, sx(c.x), sy(c.y), m.severity[v], v == opts.selectedNode});
    };
    for (int v : m.problemNodes) mark(v);
    if (opts.divergentNode >= 0 && opts.divergentNode < n) {
      mark(opts.divergentNode);
      if (!out.markers.empty() && out.markers.back().node == opts.divergentNode) out.markers.back().severity = 3;
    }
    if (opts.selectedNode >= 0 && (opts.selectedNode >= n || m.severity[opts.selectedNode] < 2)) mark(opts.selectedNode);
    // Collectives (marked nodes) as boxes of at least 3 px: O(marked nodes), not O(nodes).
    for (int v : m.markedNodes) {
      if (!m.visible[v] || hiddenByBlock(v)) continue;
      if (L.x[v] + L.w[v] < vis.min.x || L.x[v] > vis.max.x || L.y[v] + L.h[v] < vis.min.y || L.y[v] > vis.max.y) continue;
      const float x0 = sx(L.x[v]), y0 = sy(L.y[v]);
      const float x1 = std::max(sx(L.x[v] + L.w[v]), x0 + 3.f), y1 = std::max(sy(L.y[v] + L.h[v]), y0 + 3.f);
      out.marks.push_back({v, x0, y0, x1, y1, m.markOf[v]});
    }
  }

  // Fills out.edgeScratch with the edges that may show: merged, the special ones; else those near the view.
  void edgeCandidates(const Rectd& visStub) {
    // Far out (merged), only problem edges and the selection's edges are drawn: visit just those.
    std::vector<int>& candidates = out.edgeScratch;
    candidates.clear();
    if (merge) {
      candidates = m.problemEdges;
      if (opts.selectedNode >= 0 && opts.selectedNode < n) {
        for (int k = m.inEdgeStart[opts.selectedNode]; k < m.inEdgeStart[opts.selectedNode + 1]; ++k)
          candidates.push_back(m.inEdges[k]);
        for (int k = m.outEdgeStart[opts.selectedNode]; k < m.outEdgeStart[opts.selectedNode + 1]; ++k)
          candidates.push_back(m.outEdges[k]);
      }
      if (opts.selectedEdge >= 0) candidates.push_back(opts.selectedEdge);
      std::sort(candidates.begin(), candidates.end());
      candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
      out.plainEdgesSkipped = !L.edges.empty();
    } else if (l1 - l0 + m.maxShortSpan + 2 < L.layerCount()) {
      // Only part of the graph is in view: an edge can show only if it enters a node in layers
      // [s0, max(s1, l1 + maxShortSpan)) (short edges, target stubs) or leaves one in [s0, s1) (source stubs),
      // where [s0, s1) are the layers within a stub's reach of the view.
      const auto [s0, s1] = L.layersIn(visStub.min.y, visStub.max.y);
      const int last = std::min(L.layerCount(), std::max(s1, l1 + m.maxShortSpan));
      for (int k = L.layerStart[s0]; k < L.layerStart[last]; ++k) {
        const int v = L.byLayer[k];
        for (int q = m.inEdgeStart[v]; q < m.inEdgeStart[v + 1]; ++q) candidates.push_back(m.inEdges[q]);
      }
      for (int k = L.layerStart[s0]; k < L.layerStart[s1]; ++k) {
        const int v = L.byLayer[k];
        for (int q = m.outEdgeStart[v]; q < m.outEdgeStart[v + 1]; ++q) {
          const int e = m.outEdges[q], dl = L.layer[L.edges[e].dst];
          if (dl >= last) candidates.push_back(e);  // not already taken as an in-edge above
        }
      }
    } else {
      candidates.resize(L.edges.size());
      for (size_t e = 0; e < L.edges.size(); ++e) candidates[e] = static_cast<int>(e);
    }
  }

  // Appends an edge, stubs or badges per candidate in view; returns how many ordinary (not special) ones.
  size_t edges(const Rectd& visStub) {
    size_t plain = 0;
    out.bundleScratch.clear();
    const std::vector<int>& candidates = out.edgeScratch;
    const size_t edgeCount = candidates.size();
    for (size_t i = 0; i < edgeCount; ++i) {
      const size_t e = static_cast<size_t>(candidates[i]);
      const auto& ed = L.edges[e];
      const int s = ed.src, d = ed.dst;
      if (!m.visible[s] || !m.visible[d]) continue;
      const bool hs = hiddenByBlock(s), hd = hiddenByBlock(d);
      if (hs && hd && m.blockOf[s] == m.blockOf[d]) continue;
      const EdgeKind kind = m.edgeKind[e];
      const bool selected = static_cast<int>(e) == opts.selectedEdge;
      const bool touchesSelection = selected || s == opts.selectedNode || d == opts.selectedNode;
      const bool special = kind != EdgeKind::Normal || touchesSelection;
      if (merge && kind != EdgeKind::NeedsRedistribute && kind != EdgeKind::NotApplied && !touchesSelection) continue;
      const double axw = L.x[s] + L.w[s] * 0.5, ayw = L.y[s] + L.h[s];
      const double bxw = L.x[d] + L.w[d] * m.entryFraction[e], byw = L.y[d];
      if (L.longEdge[e] && !merge) {
        const bool srcIn = visStub.contains({axw, ayw}), dstIn = visStub.contains({bxw, byw});
        if (srcIn) out.stubs.push_back({static_cast<int>(e), sx(axw), sy(ayw), true, kind, selected});
        if (dstIn) {
          out.stubs.push_back({static_cast<int>(e), sx(bxw), sy(byw), false, kind, selected});
          if (kind != EdgeKind::Normal) out.badges.push_back({static_cast<int>(e), sx(bxw), sy(byw) - opts.stubPx, kind});
        }
        if (!special && (srcIn || dstIn)) ++plain;
        continue;
      }
      const Rectd box{{std::min(axw, bxw), ayw}, {std::max(axw, bxw), byw}};
      if (!box.overlaps(vis)) continue;
      if (hs || hd) {
        // Into or out of a collapsed box: one edge per pair of units, with the count of those it stands for; the
        // most severe kind shows.
        const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(hs ? -2 - m.blockOf[s] : s)) << 32) |
                             static_cast<uint32_t>(hd ? -2 - m.blockOf[d] : d);
        auto [it, fresh] = out.bundleScratch.try_emplace(key, static_cast<int>(out.edges.size()));
        if (!fresh) {
          EdgeRecord& rec = out.edges[static_cast<size_t>(it->second)];
          ++rec.bundled;
          if (static_cast<int>(kind) > static_cast<int>(rec.kind)) rec.kind = kind;
          rec.selected = rec.selected || selected;
          continue;
        }
      }
      out.edges.push_back({static_cast<int>(e), sx(axw), sy(ayw), sx(bxw), sy(byw), kind, selected});
      if (!special) ++plain;
      if (kind != EdgeKind::Normal) {
        // The badge sits in the gap just above the consumer: the midpoint of an edge over several layers lies on
        // the nodes of a layer between. On the curve GraphView draws (a cubic with vertical tangents), else the line.
        const int dl = L.layer[d];
        double yb = (ayw + byw) * 0.5, xb = (axw + bxw) * 0.5;
        if (dl - L.layer[s] > 1 && dl >= 1 && byw > ayw) {
          yb = (L.layerTop[static_cast<size_t>(dl - 1)] + L.nodeHeight + byw) * 0.5;
          const double f = (yb - ayw) / (byw - ayw);
          double t = f;
          if ((byw - ayw) * zoom > 30.0) {  // y(t) = ay + D (1.5 t (1 - t) + t^3): bisection (it is monotonic)
            double lo = 0, hi = 1;
            for (int it = 0; it < 30; ++it) {
              t = 0.5 * (lo + hi);
              (1.5 * t * (1 - t) + t * t * t < f ? lo : hi) = t;
            }
            xb = axw + (bxw - axw) * (3 * (1 - t) * t * t + t * t * t);
          } else {
            xb = axw + (bxw - axw) * t;
          }
        }
        out.badges.push_back({static_cast<int>(e), sx(xb), sy(yb), kind});
      }
    }
    return plain;
  }

  // Too many ordinary edges: drops them (and their stubs), keeping special ones and the selection's.
  void dropPlainEdges() {
    out.plainEdgesSkipped = true;
    auto isPlain = [&](EdgeKind k, int e, int s, int d) {
      (void)e;
      return k == EdgeKind::Normal && e != opts.selectedEdge && s != opts.selectedNode && d != opts.selectedNode;
    };
    std::erase_if(out.edges, [&](const EdgeRecord& r) {
      return isPlain(r.kind, r.edge, L.edges[r.edge].src, L.edges[r.edge].dst);
    });
    std::erase_if(out.stubs, [&](const StubRecord& r) {
      return isPlain(r.kind, r.edge, L.edges[r.edge].src, L.edges[r.edge].dst);
    });
  }
};

}  // namespace

void buildGraphRecords(const GraphModel& m, const Canvas& canvas, const RecordOptions& opts, GraphRecords& out) {
  out.clear();
  const GraphLayout& L = m.layout;
  const int n = L.nodeCount();
  if (n == 0) return;
  const Rectd vis = canvas.visibleWorld();
  const double zoom = canvas.zoom;
  const double ox = canvas.origin.x - canvas.offset.x * zoom, oy = canvas.origin.y - canvas.offset.y * zoom;
  const float nodePx = static_cast<float>(L.nodeHeight * zoom);
  const bool merge = nodePx < opts.mergeBelowPx;
  out.merged = merge;
  const float cell = std::max(1.f, opts.cellPx);
  const int gw = static_cast<int>(std::ceil(canvas.size.x / cell)) + 1;
  const int gh = static_cast<int>(std::ceil(canvas.size.y / cell)) + 1;
  const auto [l0, l1] = L.layersIn(vis.min.y, vis.max.y);
  RecordPass p{m, L, canvas, opts, out, n, vis, zoom, ox, oy, nodePx, merge, cell, gw, gh, l0, l1};

  // Block frames (and collapsed blocks as solid boxes).
  p.blocks();

  // Nodes: visible layers, binary-searched x range in each.
  p.nodes();
  if (merge) {
    p.mergedCells();
    p.markers();
  }

  // Edges. Long ones become stubs at each visible end (unless merged: then special ones are drawn whole).
  const double stubWorld = opts.stubPx / zoom;
  const Rectd visStub = vis.expanded(stubWorld);
  p.edgeCandidates(visStub);
  const size_t plain = p.edges(visStub);
  if (plain > opts.maxPlainEdges) p.dropPlainEdges();
}

}  // namespace ss::views
