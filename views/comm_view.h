#pragma once
// Communication view: what the plan communicates, by module path and phase (bytes per rank and estimated time,
// forward | backward), with totals, the costliest module first. A DTensor program (DebugMode, CommDebugMode) shows
// what DTensor recorded (its redistributes, implicit and explicit, and CommDebugMode's collective counts); any
// other plan the communication it performs (inserted and solver-planned redistributes, core/plan/costs.h). A
// module row selects the first node of that module that communicates.
//
// The records (commRows) are plain C++ and tested apart from drawing.
#include <cstdint>
#include <string>
#include <vector>

#include "core/io/dtensor/program.h"
#include "core/model/plan.h"
#include "views/model/selection.h"

namespace ss::views {

struct CommRow {
  ModuleComm comm;    // module "" is "(outside any module)"
  int firstNode = -1; // a node of the module that communicates (the row's click selects it), -1 when unknown
  bool countsOnly = false;  // a tool counted these collectives without their sizes (CommDebugMode)
};
struct CommRecords {
  std::vector<CommRow> rows;  // by total time, then bytes, then count; ties in first-appearance order
  ModuleComm total;
  std::string source;         // "DebugMode text: DTensor's own record" / "the plan's redistributes (estimated)"
};
CommRecords commRows(const Plan& plan, const DTensorProgram* program);

struct CommViewState {
  uint64_t revisionSeen = ~uint64_t{0};
  const DTensorProgram* programSeen = nullptr;
  CommRecords records;
};

void drawCommView(const Plan& plan, const DTensorProgram* program, CommViewState& state, Selection& sel, uint64_t revision);

}  // namespace ss::views
