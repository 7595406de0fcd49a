#pragma once
// Diagnostics: what the checker finds in a Plan. Plain values; views and the CLI only read them.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/model/placement.h"

namespace ss {

struct Plan;

enum class Severity : uint8_t { Info, Warning, Error };
const char* severityName(Severity s);  // "info", "warning", "error"

// The one table of diagnostic kinds: X(enumerator, stable string). The strings appear in `check --json`, in the
// text output and in docs/checks.md (a test holds every one of them to that page). Adding a kind is one line
// here; never reorder or rename a string (files and scripts match on it).
#define SS_DIAGNOSTIC_KINDS(X)                       \
  X(MissingRedistribute, "missing-redistribute")     \
  X(RedistributeRequired, "redistribute-required")   \
  X(IncompatibleInputs, "incompatible-inputs")       \
  X(PartialIntoNonlinear, "partial-into-nonlinear")  \
  X(OutputSpecMismatch, "output-spec-mismatch")      \
  X(ShapeMismatch, "shape-mismatch")                 \
  X(SeqDimMismatch, "seq-dim-mismatch")              \
  X(UnevenShard, "uneven-shard")                     \
  X(EmptyShard, "empty-shard")                       \
  X(UncheckedOp, "unchecked-op")                     \
  X(InvalidSpec, "invalid-spec")                     \
  X(BadRedistribute, "bad-redistribute")             \
  X(UnsafeOp, "unsafe-op")                           \
  X(TransitionNotApplied, "transition-not-applied")  \
  X(UnplannedCollective, "unplanned-collective")     \
  X(LocalShapeMismatch, "local-shape-mismatch")     \
  X(InvalidTag, "invalid-tag")                       \
  X(UnknownLossNode, "unknown-loss-node")           \
  X(ImplicitRedistribute, "implicit-redistribute")   \
  X(DataDependentMean, "data-dependent-mean")       \
  X(TorchVersion, "torch-version")                   \
  X(InvalidCollective, "invalid-collective")

enum class DiagKind : uint8_t {
#define SS_DIAG_KIND_ENUM(e, s) e,
  SS_DIAGNOSTIC_KINDS(SS_DIAG_KIND_ENUM)
#undef SS_DIAG_KIND_ENUM
};
const char* diagKindName(DiagKind k);                           // the stable string
std::optional<DiagKind> diagKindFromName(std::string_view name);  // nullopt for a string not in the table
std::span<const DiagKind> allDiagKinds();                       // table order
std::ostream& operator<<(std::ostream& os, DiagKind k);         // the stable string (test messages)

struct Diagnostic {
  Severity severity = Severity::Error;
  DiagKind kind = DiagKind::InvalidSpec;
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

}  // namespace ss
