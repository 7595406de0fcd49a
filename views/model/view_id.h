#pragma once
// The views the app can show, as one table: X(enumerator, stable name, tab label). The stable names are what
// `shardscope render --view NAME` accepts and what the ImGui tab ids are made of; adding a view is one line here
// (plus its draw call in GuiApp::drawView). Plain C++, no ImGui.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#define SS_VIEW_IDS(X)                      \
  X(Graph, "graph", "Graph")                \
  X(Mesh, "mesh", "Mesh")                   \
  X(Tensor, "tensor", "Tensor")             \
  X(Edge, "edge", "Edge")                   \
  X(Teach, "teach", "Teach")                \
  X(Diagnostics, "diagnostics", "Diagnostics") \
  X(Inspector, "inspector", "Inspector")    \
  X(Costs, "costs", "Costs")                \
  X(Comm, "comm", "Communication")          \
  X(Run, "run", "Run")                      \
  X(Applied, "applied", "Applied")          \
  X(Changes, "changes", "Changes")          \
  X(AppliedGraph, "applied-graph", "Applied graph")

namespace ss::views {

enum class ViewId : uint8_t {
#define SS_VIEW_ID_ENUM(e, name, label) e,
  SS_VIEW_IDS(SS_VIEW_ID_ENUM)
#undef SS_VIEW_ID_ENUM
};

namespace detail {
struct ViewRow {
  ViewId id;
  const char* name;
  const char* label;
};
inline constexpr ViewRow kViewRows[] = {
#define SS_VIEW_ID_ROW(e, name, label) {ViewId::e, name, label},
    SS_VIEW_IDS(SS_VIEW_ID_ROW)
#undef SS_VIEW_ID_ROW
};
inline constexpr ViewId kViewIds[] = {
#define SS_VIEW_ID_LIST(e, name, label) ViewId::e,
    SS_VIEW_IDS(SS_VIEW_ID_LIST)
#undef SS_VIEW_ID_LIST
};
}  // namespace detail

// The stable name ("graph", ...) and the tab label ("Graph", ...).
constexpr const char* viewName(ViewId v) { return detail::kViewRows[static_cast<size_t>(v)].name; }
constexpr const char* viewLabel(ViewId v) { return detail::kViewRows[static_cast<size_t>(v)].label; }
constexpr std::span<const ViewId> allViews() { return detail::kViewIds; }
// nullopt for a name not in the table.
constexpr std::optional<ViewId> viewFromName(std::string_view name) {
  for (const auto& r : detail::kViewRows)
    if (name == r.name) return r.id;
  return std::nullopt;
}

}  // namespace ss::views
