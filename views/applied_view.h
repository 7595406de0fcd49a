#pragma once
// Applied view: the applied (post-sharding) graph of one rank beside its plan, one row per applied node in graph
// order. Collectives are drawn as collectives (kind, mesh dim, bytes per rank, estimated time); a planned
// transition the applied graph lacks is a red "missing" row where it should be (just before its consumer);
// selection is linked both ways: selecting a plan node highlights (and scrolls to) its applied counterpart,
// clicking an applied row selects its plan node. An applied graph opened alone lists its nodes with the
// collectives highlighted. `buildAppliedRows` is the record pass: plain C++, unit-tested.
#include <string>
#include <vector>

#include "core/applied/applied.h"
#include "core/model/diagnostics.h"
#include "core/model/plan.h"
#include "views/model/selection.h"

namespace ss::views {

struct AppliedRow {
  enum class Kind : uint8_t { Node, Collective, Missing };
  Kind kind = Kind::Node;
  int appliedNode = -1;       // -1 for a Missing row
  int planNode = -1;          // the matched plan node (the consumer for a Missing row); -1 when none
  int planInput = -1;         // Missing rows and collectives that perform a transition: the consumer's input
  std::string name;           // applied node name ("shard_dim_alltoall"), or "missing"
  std::string op;             // "aten.mm.default", or the planned collective
  std::string shape;          // local shape "[4, 128, 1, 64]"
  std::string detail;         // a collective: "all_to_all on mesh dim 1 (dim1), 48.0 KiB, 9.3 us"; missing: why
};
const char* appliedRowKindName(AppliedRow::Kind k);  // "node", "collective", "missing"

// Rows of `a` checked against `plan` (checkApplied has run: the missing transitions are a's records,
// AppliedGraph::transitions).
std::vector<AppliedRow> buildAppliedRows(const Plan& plan, const AppliedGraph& a);
// Rows of an applied graph alone (the plan is that graph).
std::vector<AppliedRow> buildAppliedRows(const AppliedAlone& alone);
// The row to highlight for the selection: the applied counterpart of the selected plan node (its Missing row
// when the selected edge is a missing transition); -1 when none.
int appliedRowFor(const std::vector<AppliedRow>& rows, const Selection& sel);

struct AppliedViewState {
  int rank = 0;                   // index into the document's applied graphs
  uint64_t seenGeneration = ~uint64_t{0};
  uint64_t revision = ~uint64_t{0};
  int rowsFor = -1;               // the rank the cached rows are for
  std::vector<AppliedRow> rows;
  int highlighted = -1;           // last frame (tests read it)
};

// The rank picker both applied views share (shown only for several ranks): `rank` indexes `applied`, clamped.
void appliedRankCombo(const std::vector<AppliedGraph>& applied, int& rank);

// `applied` may be empty (then `alone` is used, else a hint is shown). `revision` keys the row cache.
void drawAppliedView(const Plan& plan, const std::vector<AppliedGraph>& applied,
                     const AppliedAlone* alone, AppliedViewState& state, Selection& sel, uint64_t revision);

}  // namespace ss::views
