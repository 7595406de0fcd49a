#pragma once
// Readers and writers of the formats users already have (autoparallel JSON export, autoparallel placements
// file, FX graph text). core/io/load/load.cpp dispatches to these after detecting the kind by content.
// Every reader is total: bad input gives an Error with line:col (text) or a JSON pointer (JSON).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/model/plan.h"

namespace ss {

// autoparallel `get_json()` export: mesh, nodes with placements, per-edge src/dst placements and costs.
Result<Plan> readAutoparallelJson(const nlohmann::json& j);
// Fast path for loadPlanText (autoparallel_json_fast.cpp, simdjson): exactly readAutoparallelJson's Plan for the
// parsed `text`, or an Error without location whenever it cannot be sure of that; callers then fall back to the
// DOM reader, which reports the located message. `paddedTail` as planFromJsonTextFast's.
Result<Plan> readAutoparallelJsonTextFast(std::string_view text, bool paddedTail = false);
nlohmann::json writeAutoparallelJson(const Plan& plan);

// autoparallel `save_placements` file applied to a graph (node names must match).
Result<Plan> applyPlacementsJson(const Plan& graphPlan, const nlohmann::json& placements);
// Same, then acting as a correct apply pass: every transition the placements plan (Plan::plannedTransitions: an
// edge whose input spec, or at the output a gradient's parameter spec, differs from what its producer delivers)
// gets a Redistribute (producer spec -> that spec), so the plan runs as the solver planned it.
// Without this, such edges stay bare (what autoparallel's export shows; the checker judges them).
Result<Plan> applyPlacementsJson(const Plan& graphPlan, const nlohmann::json& placements, bool insertTransitions);
nlohmann::json writePlacementsJson(const Plan& plan);

// FX graph text: `print_readable` output or a repro script with `load_args`.
Result<Plan> readFxText(std::string_view text);
// Refused (with the node) when a name the plan holds cannot be written as FX code verbatim: write.cpp's contract.
Result<std::string> writeFxText(const Plan& plan);

// What the FX reader read around the graph without making nodes of it, by kind (stable names for reports).
// Whole real repro scripts carry Python the graph does not depend on; each piece is recognised, skipped and
// counted here, never silently dropped from the graph (everything inside forward is a node or an error).
enum class FxSkipped : uint8_t {
  Import,           // `import x`, `from x import y`
  Environment,      // `os.environ['K'] = 'v'`
  Config,           // `torch._inductor.config.x = ...` and other `*.config.*` assignments
  TritonKernel,     // a `@triton.jit` (or other decorated) Python kernel definition
  KernelSideTable,  // `...kernel_side_table.add_kernel(...)`, `.constant_args = {...}`, `.reset_table()`
  StubClass,        // `class GraphModule(torch.nn.Module)` whose forward only passes (subgraph stubs)
  SubgraphClass,    // a nested graph class (print_readable's submodules): referenced, not inlined
  ModuleAttribute,  // `self.x = lambda ...` / `self.x = GraphModule()` in __init__: opaque callables
  OtherPython,      // any other top-level statement (helpers, `if __name__ == '__main__':`, `mod = Repro()`)
};
inline constexpr int kFxSkippedKinds = 9;
const char* fxSkippedName(FxSkipped k);  // "import", "environment", "config", "triton-kernel", ...

// Where the FX reader's shapes came from, and which ops it could not infer (shown as warnings).
struct FxReadReport {
  int annotated = 0;     // nodes whose metas came from `"f32[...]"` annotations
  int fromLoadArgs = 0;  // placeholders whose metas came from `load_args`
  int inferred = 0;      // call nodes whose metas were inferred (core/io/fx/infer.h)
  std::vector<std::string> uninferred;  // "aten.foo.default: 3 nodes (first foo_1)"
  int skipped[kFxSkippedKinds] = {};    // top-level statements (and __init__ attributes) by FxSkipped kind
  int opaqueRefs = 0;    // get_attr nodes naming a callable or subgraph (lambda, GraphModule()): opaque inputs
  int symbolic = 0;      // nodes computing symbolic scalars (SymInt placeholders, sym_size, operator.*, sym_sum)
  int skippedCount(FxSkipped k) const { return skipped[static_cast<int>(k)]; }
  // "skipped: 3 import, 25 environment, ...; 54 opaque references" (empty when nothing was skipped).
  std::string summary() const;
};
Result<Plan> readFxText(std::string_view text, FxReadReport* report);

// Placements file styles: the default writes {"output", "inputs"} per node (ARCHITECTURE's save_placements
// format); OutputOnly writes the bare output string per node, as autoparallel's save_solution/load_solution do.
enum class PlacementsStyle : uint8_t { WithInputs, OutputOnly };
nlohmann::json writePlacementsJson(const Plan& plan, PlacementsStyle style);


}  // namespace ss
