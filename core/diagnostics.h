#pragma once
// Diagnostics: what the checker finds in a Plan. Plain values; views and the CLI only read them.
//
// Kinds (stable strings, used in JSON and tests): "incompatible-inputs", "missing-redistribute",
// "redistribute-required", "partial-into-nonlinear", "seq-dim-mismatch", "shape-mismatch", "uneven-shard",
// "empty-shard", "unchecked-op", "invalid-spec", "bad-redistribute", "unsafe-op".
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/placement.h"

namespace ss {

struct Plan;

enum class Severity : uint8_t { Info, Warning, Error };
const char* severityName(Severity s);  // "info", "warning", "error"

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string kind;
  int node = -1;                        // node index in the plan's graph; -1 = plan-wide
  int input = -1;                       // input index on that node; -1 = the node itself
  std::optional<ShardingSpec> have;     // what arrives (producer's output spec)
  std::optional<ShardingSpec> want;     // what is required (consumer's input spec / rule's demand)
  std::string message;                  // one sentence a user understands, with local shapes where they collide
  std::string fix;                      // suggested fix ("insert all_to_all on mesh dim 1: S(1) -> S(0), 3.0 MB, 41 us")
  std::vector<std::string> notes;       // extra lines (per-rank shapes, costs)
  bool operator==(const Diagnostic&) const = default;
};

struct DiagnosticSummary {
  int errors = 0, warnings = 0, infos = 0;
  int total() const { return errors + warnings + infos; }
};

struct Diagnostics {
  std::vector<Diagnostic> items;
  DiagnosticSummary summary() const;
  bool hasErrors() const { return summary().errors > 0; }
  std::vector<const Diagnostic*> forNode(int node) const;
  Severity worstFor(int node, Severity none = Severity::Info) const;  // `none` when the node has none
};

// {"diagnostics": [{"severity","kind","node","input","have","want","message","fix","notes"}], "summary": {...}}
// "node" is the node's name (null when plan-wide), specs in mesh-centric short form.
nlohmann::json diagnosticsToJson(const Plan& plan, const Diagnostics& d);
// "error: index_put (input 2): message" one line per diagnostic, plus a summary line.
std::string diagnosticsToText(const Plan& plan, const Diagnostics& d);

}  // namespace ss
