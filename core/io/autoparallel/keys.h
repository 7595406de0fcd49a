#pragma once
// The keys of autoparallel's get_json() export (docs/import-formats.md).
// One spelling per key, shared by every reader and writer of the format, so a key cannot differ between them.
#include <string>
#include <string_view>

namespace ss::autoparallel_keys {

// A node's "op" is str(node.target) for call_function nodes: "aten.mm.default", "<built-in function getitem>",
// and for a higher-order op its bare name ("flex_attention", "local_map_hop"), which the FX reader spells
// "higher_order.flex_attention" (torch.ops.higher_order.flex_attention); else node.op ("placeholder", ...).
// The plan's spelling of an export's op, and back.
inline std::string opFromExport(std::string_view op) {
  if (op == "<built-in function getitem>") return "operator.getitem";
  if (op.empty() || op == "placeholder" || op == "get_attr" || op == "output" || op == "call_module" ||
      op == "call_method")
    return std::string(op);
  for (char c : op)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return std::string(op);
  return "higher_order." + std::string(op);
}
inline std::string opToExport(std::string_view op) {
  if (op == "operator.getitem") return "<built-in function getitem>";
  if (op.substr(0, 13) == "higher_order.") return std::string(op.substr(13));
  return std::string(op);
}

inline constexpr char ac_region[] = "ac_region";
inline constexpr char autoparallel[] = "autoparallel";
inline constexpr char cluster_id[] = "cluster_id";
inline constexpr char cluster_root[] = "cluster_root";
inline constexpr char code[] = "code";
inline constexpr char comm[] = "comm";
inline constexpr char comm_cost[] = "comm_cost";
inline constexpr char compute[] = "compute";
inline constexpr char compute_cost[] = "compute_cost";
inline constexpr char dim_names[] = "dim_names";
inline constexpr char dst_placement[] = "dst_placement";
inline constexpr char dtype[] = "dtype";
inline constexpr char file[] = "file";
inline constexpr char func[] = "func";
inline constexpr char id[] = "id";
inline constexpr char inputs[] = "inputs";
inline constexpr char line[] = "line";
inline constexpr char mesh[] = "mesh";
inline constexpr char module_path[] = "module_path";
inline constexpr char name[] = "name";
inline constexpr char nodes[] = "nodes";
inline constexpr char op[] = "op";
inline constexpr char phase[] = "phase";
inline constexpr char placeholder_kind[] = "placeholder_kind";
inline constexpr char placement[] = "placement";
inline constexpr char shape[] = "shape";
inline constexpr char source[] = "source";
inline constexpr char src_placement[] = "src_placement";
inline constexpr char summary[] = "summary";
inline constexpr char tangents[] = "tangents";
inline constexpr char total[] = "total";
inline constexpr char transition[] = "transition";
inline constexpr char transition_cost[] = "transition_cost";
inline constexpr char type[] = "type";

}  // namespace ss::autoparallel_keys
