// The plan adapter of core/draw/graph_layout.h: from a Plan to a LayoutInput (edges, widths, labels, blocks).
#include <algorithm>
#include <array>
#include <cstring>
#include <cctype>
#include <cmath>
#include <unordered_map>

#include "core/draw/graph_layout.h"
#include "core/model/plan.h"

namespace ss {
namespace {

uint32_t fnv1a(std::string_view s, uint32_t h = 2166136261u) {
  for (unsigned char c : s) { h ^= c; h *= 16777619u; }
  return h;
}

bool allDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

}  // namespace

ModuleBlock moduleBlockOf(std::string_view path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('.', start);
    if (end == std::string_view::npos) end = path.size();
    if (allDigits(path.substr(start, end - start))) {
      ModuleBlock b;
      b.instance = std::string(path.substr(0, end));
      b.family = std::string(path.substr(0, start)) + "*";
      return b;
    }
    start = end + 1;
  }
  return {};
}

float labelWidth(size_t chars) {
  const float raw = 7.0f * static_cast<float>(chars) + 16.0f;
  const float rounded = std::ceil(raw / 24.0f) * 24.0f;
  return std::clamp(rounded, 72.0f, 312.0f);
}

std::string nodeTitle(const Plan& plan, int node) {
  const Node& n = plan.graph.nodes.at(node);
  if (n.kind == NodeKind::Placeholder) return n.name;
  if (n.kind == NodeKind::Output) return "output";
  return n.opName();
}

std::string nodeShapeText(const Plan& plan, int node) {
  const Node& n = plan.graph.nodes.at(node);
  if (n.outputs.empty() || !n.outputs[0].known) return {};
  std::string s = "[";
  for (size_t i = 0; i < n.outputs[0].shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(n.outputs[0].shape[i]);
  }
  s += "] ";
  s += dtypeName(n.outputs[0].dtype);
  if (n.outputs.size() > 1) s += " +" + std::to_string(n.outputs.size() - 1);
  return s;
}

// Length of nodeShapeText without building it (the adapter runs over 100k nodes).
size_t shapeTextLength(const Node& n) {
  if (n.outputs.empty() || !n.outputs[0].known) return 0;
  const auto& shape = n.outputs[0].shape;
  size_t len = 3 + std::strlen(dtypeName(n.outputs[0].dtype));  // "[" "] " dtype
  for (size_t i = 0; i < shape.size(); ++i) {
    len += (i ? 2 : 0) + std::to_string(shape[i]).size();
  }
  if (n.outputs.size() > 1) len += 2 + std::to_string(n.outputs.size() - 1).size();
  return len;
}

LayoutInput layoutInputFromPlan(const Plan& plan, const LayoutOptions&) {
  const Graph& g = plan.graph;
  LayoutInput in;
  in.nodeCount = g.size();
  in.width.resize(g.size());
  in.label.resize(g.size());
  in.block.assign(g.size(), -1);
  // Per distinct op: title length and label hash; per distinct (module path, phase): block instance or -1.
  std::unordered_map<std::string_view, std::pair<size_t, uint32_t>> opInfo;
  std::unordered_map<std::string_view, std::array<int, 4>> blockOfPath;
  std::unordered_map<std::string, int> blockIds, familyIds;
  for (int v = 0; v < g.size(); ++v) {
    const Node& node = g.nodes[v];
    const auto& inputs = g.inputs(v);
    for (int i = 0; i < static_cast<int>(inputs.size()); ++i)
      if (inputs[i].node >= 0) in.edges.push_back({inputs[i].node, v, i});
    auto [oi, newOp] = opInfo.try_emplace(node.op);
    if (newOp) oi->second = {node.opName().size(), fnv1a(node.op)};
    const size_t title = node.kind == NodeKind::Placeholder ? node.name.size()
                         : node.kind == NodeKind::Output    ? 6
                                                            : oi->second.first;
    in.width[v] = labelWidth(std::max(title, shapeTextLength(node)));
    in.label[v] = fnv1a(placeholderKindName(node.placeholderKind), oi->second.second);
    if (node.modulePath.empty()) continue;
    auto [pi, newPath] = blockOfPath.try_emplace(node.modulePath);
    if (newPath) pi->second.fill(-2);
    int& slot = pi->second[static_cast<size_t>(node.phase) & 3];
    if (slot == -2) {
      slot = -1;
      const ModuleBlock mb = moduleBlockOf(node.modulePath);
      if (!mb.instance.empty()) {
        const std::string phase = phaseName(node.phase);
        const std::string key = mb.instance + " (" + phase + ")";
        auto [it, added] = blockIds.try_emplace(key, static_cast<int>(in.blockNames.size()));
        if (added) {
          in.blockNames.push_back(key);
          auto [fam, newFamily] =
              familyIds.try_emplace(mb.family + " (" + phase + ")", static_cast<int>(familyIds.size()));
          if (newFamily) in.familyNames.push_back(fam->first);
          in.blockFamily.push_back(fam->second);
        }
        slot = it->second;
      }
    }
    in.block[v] = slot;
  }
  return in;
}

}  // namespace ss
