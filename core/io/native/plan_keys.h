#pragma once
// The native plan format's JSON keys (docs/plan-format.md).
// One spelling per key, shared by every reader and writer of the format, so a key cannot differ between them.
namespace ss::plan_keys {

inline constexpr char ac_region[] = "ac_region";
inline constexpr char args[] = "args";
inline constexpr char batches[] = "batches";
inline constexpr char cluster_id[] = "cluster_id";
inline constexpr char code[] = "code";
inline constexpr char comm[] = "comm";
inline constexpr char compute[] = "compute";
inline constexpr char compute_cost[] = "compute_cost";
inline constexpr char description[] = "description";
inline constexpr char torch_version[] = "torch_version";
inline constexpr char device[] = "device";
inline constexpr char dim_names[] = "dim_names";
inline constexpr char dtype[] = "dtype";
inline constexpr char edge_costs[] = "edge_costs";
inline constexpr char file[] = "file";
inline constexpr char float_[] = "float";
inline constexpr char format[] = "format";
inline constexpr char from[] = "from";
inline constexpr char func[] = "func";
inline constexpr char i[] = "i";
inline constexpr char input[] = "input";
inline constexpr char input_specs[] = "input_specs";
inline constexpr char key[] = "key";
inline constexpr char kwarg_order[] = "kwarg_order";
inline constexpr char kwargs[] = "kwargs";
inline constexpr char line[] = "line";
inline constexpr char loss[] = "loss";
inline constexpr char mesh[] = "mesh";
inline constexpr char meta[] = "meta";
inline constexpr char module_[] = "module";
inline constexpr char name[] = "name";
inline constexpr char node[] = "node";
inline constexpr char nodes[] = "nodes";
inline constexpr char op[] = "op";
inline constexpr char phase[] = "phase";
inline constexpr char placeholder_kind[] = "placeholder_kind";
inline constexpr char redistributes[] = "redistributes";
inline constexpr char rtol[] = "rtol";
inline constexpr char run[] = "run";
inline constexpr char seed[] = "seed";
inline constexpr char seq_dim[] = "seq_dim";
inline constexpr char shape[] = "shape";
inline constexpr char source[] = "source";
inline constexpr char sp_size[] = "sp_size";
inline constexpr char spec[] = "spec";
inline constexpr char summary[] = "summary";
inline constexpr char sym[] = "sym";
inline constexpr char t[] = "t";
inline constexpr char tag[] = "tag";
inline constexpr char to[] = "to";
inline constexpr char total[] = "total";
inline constexpr char transition[] = "transition";
inline constexpr char transition_cost[] = "transition_cost";
inline constexpr char version[] = "version";

}  // namespace ss::plan_keys
