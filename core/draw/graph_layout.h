#pragma once
// Layered (Sugiyama-style) layout of a compute DAG, built for 10k-1M-node aten joint graphs.
//
// Sections: input, result, entry points, plan adapter, background worker.
//
// What it does, and why it stays near-linear where Graphviz dot, dagre and igraph explode:
//   1. Layers: nodes that depend only on graph inputs (parameters, constants and their views/transposes) are
//      placed just above their first consumer; every other node as early as possible (longest path). O(V+E).
//   2. Repeated blocks: nodes carry a block instance (e.g. "layers.7" in the forward phase). Instances whose
//      structure is identical (op labels, layers relative to the block, internal edges, widths) form a class;
//      one template per class is laid out, every copy is stamped from it. A 32-layer model lays out 2-4
//      templates, not 32x. Detection never affects correctness: a block that differs is simply its own class.
//   3. Long edges get no dummy node per crossed layer (the usual cause of the blow-up). An edge spanning more
//      than `LayoutOptions::maxRoutedSpan` layers is marked `longEdge`; views draw it as a pair of stubs (out of
//      the source, into the target) with the far end on hover. Ordering uses it like any other edge.
//   4. Order and x inside a layer: barycenter sweeps with an exact overlap removal (isotonic regression: each
//      node as close as possible to the mean x of its neighbours, order kept, spacing respected). Stamped blocks
//      sit in vertical lanes; free nodes flow around them.
// Stability under filtering: the layout is computed once for the whole graph; filters hide nodes and never move
// the others (views dim or skip, they do not re-lay out).
//
// World units: x right, y down (see core/draw/canvas.h). Nodes are boxes (x, y) = top-left, (w, h); layer l's nodes
// all have y == layerTop[l]. Deterministic: the same input gives the same layout, bit for bit.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/draw/canvas.h"

namespace ss {

struct Plan;

struct LayoutEdge {
  int src = -1;    // producer node
  int dst = -1;    // consumer node
  int input = 0;   // input index on the consumer (core/model/graph.h's numbering)
};

// The layout's own view of a graph, so it runs on any DAG (tests, filtered views, the benchmark).
// Contract: nodes are in topological order; an edge with src >= dst or out of range is ignored and counted in
// GraphLayout::droppedEdges. Per-node vectors are either empty (defaults) or nodeCount long.
struct LayoutInput {
  int nodeCount = 0;
  std::vector<LayoutEdge> edges;
  std::vector<float> width;               // world units; empty = LayoutOptions::nodeWidth for all
  std::vector<uint32_t> label;            // structural label (an op hash) used to recognise copies; empty = 0
  std::vector<int> block;                 // block instance per node, -1 = none; indexes blockNames
  std::vector<std::string> blockNames;    // "layers.7 (forward)"
  std::vector<int> blockFamily;           // per block instance: instances are compared only within a family
  std::vector<std::string> familyNames;   // per family id: "layers.* (forward)" (the overview's family boxes)
};

struct LayoutOptions {
  float nodeWidth = 120;     // default width when LayoutInput::width is empty
  float nodeHeight = 40;
  float layerGap = 40;       // vertical space between layers
  float nodeGap = 16;        // horizontal space between nodes of a layer
  float laneGap = 60;        // horizontal space between block lanes and free nodes
  int maxRoutedSpan = 4;     // edges spanning more layers are drawn as stubs (longEdge)
  int sweeps = 3;            // barycenter passes (down, up, down...)
};

struct LayoutBlock {
  std::string name;
  int family = -1;
  int cls = -1;              // index into GraphLayout::classes
  bool stamped = false;      // true: positions copied from the class template
  int firstLayer = 0, lastLayer = 0;
  int nodeCount = 0;
  Rectd bounds;              // world rectangle around its nodes
  // The overview (core/draw/module_overview.h): a collapsed box, its members drawn as one rectangle (`bounds`);
  // `instances` blocks of a family collapsed together (1 for a block instance).
  bool collapsed = false;
  int instances = 1;
  int sourceBlock = -1;      // the LayoutInput block it is (-1: a family box, which holds several)
};

struct LayoutClass {
  int templateBlock = -1;    // the instance laid out; the others are stamped from it
  int instances = 0;
};

struct GraphLayout {
  // Per node.
  std::vector<int> layer;
  std::vector<float> x, y, w, h;          // top-left corner and size
  std::vector<int> blockOf;               // block per node, -1 = none (LayoutInput::block, validated)
  // Per edge, parallel to LayoutInput::edges with dropped edges removed.
  std::vector<LayoutEdge> edges;
  std::vector<uint8_t> longEdge;          // 1 = draw as stubs
  // Spatial index: nodes of layer l are byLayer[layerStart[l] .. layerStart[l+1]), sorted by x.
  std::vector<int> byLayer;
  std::vector<int> layerStart;
  std::vector<float> layerTop;            // y of layer l
  std::vector<LayoutBlock> blocks;
  std::vector<LayoutClass> classes;
  Rectd bounds = Rectd::none();
  int droppedEdges = 0;
  int templatesLaidOut = 0;               // blocks laid out from scratch (class templates)
  int stampedBlocks = 0;                  // blocks copied from a template

  int nodeCount() const { return static_cast<int>(layer.size()); }
  int layerCount() const { return static_cast<int>(layerTop.size()); }
  Rectd nodeRect(int n) const { return {{x[n], y[n]}, {x[n] + w[n], y[n] + h[n]}}; }
  // Layers whose band [layerTop, layerTop + nodeHeight] meets [y0, y1]: returns [first, last) (may be empty).
  std::pair<int, int> layersIn(double y0, double y1) const;
  // Nodes of `layer` whose x-extent meets [x0, x1]: returns [begin, end) into byLayer.
  std::pair<int, int> nodesIn(int layer, double x0, double x1) const;
  // The node whose box contains `world`, or -1.
  int hitTest(Vec2d world) const;
  float maxNodeWidth = 0;                 // for nodesIn's conservative search
  float nodeHeight = 0;
};

// Progress and cancellation shared with a worker thread. `fraction` goes 0 -> 1.
struct LayoutProgress {
  std::atomic<float> fraction{0.f};
  std::atomic<bool> cancel{false};
};

// Lays out `in`. Returns nullopt only when cancelled through `progress`.
std::optional<GraphLayout> layoutGraph(const LayoutInput& in, const LayoutOptions& opts = {},
                                       LayoutProgress* progress = nullptr);

// ---- plan adapter ----
// Block instance of a module path: the prefix up to the first "<name>.<integer>" pair ("model.layers.7.mlp" ->
// "model.layers.7"), empty when there is none. Its family replaces the integer with '*' ("model.layers.*").
struct ModuleBlock {
  std::string instance, family;
};
ModuleBlock moduleBlockOf(std::string_view modulePath);
// Edges from the graph's tensor inputs, widths from the label a view draws (op name and shape), labels from
// the op, blocks from module paths split by phase.
LayoutInput layoutInputFromPlan(const Plan& plan, const LayoutOptions& opts = {});
// Width a node box needs for `chars` characters of the view's label at zoom 1, rounded up to a multiple of 24
// so that copies whose names differ by a digit still stamp.
float labelWidth(size_t chars);
// The two label lines a graph view draws for a node: title (op name; the node name for placeholders) and the
// first output's shape ("[2048, 4672] bf16"; empty when unknown).
std::string nodeTitle(const Plan& plan, int node);
std::string nodeShapeText(const Plan& plan, int node);

// ---- background worker ----
// Runs layoutGraph on a thread. start() cancels and joins a previous run. The UI polls done()/take().
class LayoutWorker {
 public:
  LayoutWorker() = default;
  LayoutWorker(const LayoutWorker&) = delete;
  LayoutWorker& operator=(const LayoutWorker&) = delete;
  ~LayoutWorker() { stop(); }

  void start(LayoutInput in, LayoutOptions opts = {});
  // Runs any layout job (the overview's layoutOverview) the same way.
  void startJob(std::function<std::optional<GraphLayout>(LayoutProgress*)> job);
  void stop();                       // cancels and joins; no result
  bool running() const { return running_.load(); }
  float progress() const { return progress_ ? progress_->fraction.load() : 0.f; }
  // The finished layout once, then nullopt until the next start().
  std::optional<GraphLayout> take();

 private:
  std::thread thread_;
  std::unique_ptr<LayoutProgress> progress_;
  std::atomic<bool> running_{false};
  std::mutex mutex_;
  std::optional<GraphLayout> result_;
};

}  // namespace ss
