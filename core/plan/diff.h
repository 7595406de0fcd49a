#pragma once
// Comparing two plans (A = before, B = after): which nodes correspond, what changed, what it costs, and which
// diagnostics appear and disappear. `shardscope diff` prints it; the app's Compare mode draws it.
//
// Matching (MatchMethod): first by name (same name and same op); then, among the nodes left, by structure: a node's
// structural key is its op, its output shapes and dtypes and, recursively, the keys of its producers (a producer
// matched by name stands for its match). Unmatched A nodes are paired, in graph order, with the first unmatched B
// node of the same key. What stays unmatched is removed (A only) or added (B only).
//
// Changes, for every matched pair, in A's graph order (then nodes only in B, in B's order; a mesh change first):
// output spec (per output), input spec (per tensor input: what the op consumes differs and either plan declares
// it), redistribute added / removed / changed (per input), AutoSP tag; node added / removed; mesh.
//
// Costs: the communication each plan performs, per edge, from the one cost computation (core/plan/costs.h: the
// redistribute planner and alpha-beta model). An edge counts when its redistribute is inserted, or planned by a
// solver's export; a missing redistribute moves nothing (the op gets the wrong layout instead). A change's delta is
// the change in its edges' costs: an input-side change (input spec, redistribute) owns its edge; an output spec
// change owns its node's outgoing edges that no input-side change owns; an added/removed node owns its inputs.
// Whatever no change owns (a mesh change, a shape change) is in the totals only. Totals are per phase too.
//
// Diagnostics: the checker runs on both; a diagnostic of B is "added" when A has none of the same kind and severity
// at the matching node and input (plan-wide ones: same kind and message), "removed" the other way round.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/check/check.h"
#include "core/model/plan.h"

namespace ss {

enum class ChangeKind : uint8_t {
  Mesh,
  NodeRemoved,
  NodeAdded,
  OutputSpec,
  InputSpec,
  RedistributeAdded,
  RedistributeRemoved,
  RedistributeChanged,
  AutoSpTag,
  AppliedGraph,  // an applied graph communicates differently (core/applied/compare.h adds it; diffPlans never does)
};
// Stable strings for JSON and tests: "mesh", "node-removed", "node-added", "output-spec", "input-spec",
// "redistribute-added", "redistribute-removed", "redistribute-changed", "autosp-tag", "applied-graph".
const char* changeKindName(ChangeKind k);

enum class MatchMethod : uint8_t { None, Name, Structure };
const char* matchMethodName(MatchMethod m);  // "none", "name", "structure"

struct PlanChange {
  ChangeKind kind = ChangeKind::Mesh;
  int nodeA = -1, nodeB = -1;  // the node in A and in B; -1 where it has none (added, removed, mesh)
  int output = -1;             // OutputSpec: the output index
  int input = -1;              // InputSpec, Redistribute*: the input index; -1 otherwise
  Phase phase = Phase::Unknown;
  std::string before, after;   // specs in mesh-centric form ("RS(1)"), a redistribute as "RS(1) -> RS(0)", a tag
                               // as AutoSpTag::toString(), a node as its op, a mesh as toString(); "" = none
  // Communication on the edges this change owns (see the header comment), in A and in B.
  int64_t bytesBefore = 0, bytesAfter = 0;
  double timeBeforeUs = 0, timeAfterUs = 0;
  std::string collectivesBefore, collectivesAfter;  // the owned edge's redistribute summary, when one edge
  int64_t bytesDelta() const { return bytesAfter - bytesBefore; }
  double timeDeltaUs() const { return timeAfterUs - timeBeforeUs; }
};

struct PhaseDelta {
  Phase phase = Phase::Unknown;
  int64_t bytesBefore = 0, bytesAfter = 0;
  double timeBeforeUs = 0, timeAfterUs = 0;
};

struct PlanDiff {
  std::vector<int> aToB, bToA;            // per node: its match in the other plan, -1 when none
  std::vector<MatchMethod> matchA;        // per A node: how it was matched
  int matchedByName = 0, matchedByStructure = 0, onlyA = 0, onlyB = 0;
  std::vector<PlanChange> changes;
  Diagnostics diagnosticsA, diagnosticsB;       // the checker's, on each plan
  std::vector<int> diagnosticsAdded;            // indices into diagnosticsB.items
  std::vector<int> diagnosticsRemoved;          // indices into diagnosticsA.items
  std::vector<PhaseDelta> phases;               // forward, backward, optimizer, unknown (present in either)
  int64_t bytesBefore = 0, bytesAfter = 0;      // communication the plans perform, per rank
  double timeBeforeUs = 0, timeAfterUs = 0;
  bool same() const { return changes.empty() && diagnosticsAdded.empty() && diagnosticsRemoved.empty(); }
};

struct DiffOptions {
  CheckOptions check;  // its cost model costs the edges too
  // The checker's results for A and B when the caller has them already (the app keeps A's in its document and B's
  // from the first diff); nullptr: the diff runs the checker on that plan.
  const Diagnostics* diagnosticsA = nullptr;
  const Diagnostics* diagnosticsB = nullptr;
};

PlanDiff diffPlans(const Plan& a, const Plan& b, const DiffOptions& opts = {});

// {"changes": [{"kind", "node", "node_b", "input", "output", "phase", "before", "after", "bytes_delta",
//   "cost_delta_us", "collectives_before", "collectives_after"}], "diagnostics": {"added": [...], "removed": [...]},
//  "match": {"by_name", "by_structure", "only_a", "only_b"}, "summary": {...}}. "node" is A's name (B's for an
// added node), "node_b" B's name when it differs; diagnostics as diagnosticsToJson writes them.
nlohmann::json diffToJson(const Plan& a, const Plan& b, const PlanDiff& d);
// Readable text: the match line, one line per change with its delta, the diagnostics gone and new, the totals.
std::string diffToText(const Plan& a, const Plan& b, const PlanDiff& d);
// "index_put (input 2): redistribute added RS(1) -> RS(0)" for lists.
std::string changeTitle(const Plan& a, const Plan& b, const PlanChange& c);
// "+48.0 KiB, +9.3 us"; "no cost change" when both are zero.
std::string formatCostDelta(int64_t bytes, double us);

}  // namespace ss
