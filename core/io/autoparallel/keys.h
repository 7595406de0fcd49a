#pragma once
// The keys of autoparallel's get_json() export (docs/import-formats.md).
// One spelling per key, shared by every reader and writer of the format, so a key cannot differ between them.
namespace ss::autoparallel_keys {

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
