#pragma once
// Edit commands: the only way views and the CLI change a Plan. Each command is a value; applying one returns
// its inverse, so EditHistory gives undo/redo. A Batch applies several as one step ("fix all").
//
// Contract: apply() validates first and leaves the plan untouched on error (the error says why, one line).
// `touchedNodes` lists the nodes whose diagnostics may change, for an incremental re-check.
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/model/plan.h"

namespace ss {

struct SetOutputSpec { int node = -1; int output = 0; std::optional<ShardingSpec> spec; };
struct SetInputSpec { int node = -1; int input = 0; std::optional<ShardingSpec> spec; };
struct SetSeqDim { int node = -1; std::optional<AutoSpTag> tag; };  // nullopt removes the tag
struct InsertRedistribute { Redistribute r; };
struct RemoveRedistribute { int node = -1; int input = 0; };
// DeepSpeed's seq_dim fix on a real AutoSP graph (one whose plan.autoSpSliced AutoSP's passes left): AutoSP's slice
// of the input `request.input` moves to `request.dim` as core/run/autosp_seq_fix.h moves it in a rank program,
// the sliced inputs and their slices' specs are re-derived from the moved graph, and the request is recorded in
// plan.autoSpMoves (a run of the log's rank programs applies the same). The only command that changes the graph:
// its inverse restores a snapshot of what it changed.
struct MoveAutoSpSlice { SeqDimRequest request; };
struct AutoSpSnapshot {
  Graph graph;
  std::vector<NodeSpecs> specs;
  std::vector<AutoSpSlicedInput> sliced;
  std::vector<SeqDimRequest> moves;
};
struct RestoreAutoSp { std::shared_ptr<const AutoSpSnapshot> state; };
struct Batch;
using Command = std::variant<SetOutputSpec, SetInputSpec, SetSeqDim, InsertRedistribute, RemoveRedistribute,
                             MoveAutoSpSlice, RestoreAutoSp, Batch>;
struct Batch { std::string label; std::vector<Command> commands; };

std::string describe(const Plan& plan, const Command& c);  // "Set index_put input 2 to RS(0)"

struct Applied {
  Command inverse;
  std::vector<int> touchedNodes;
};
Result<Applied> applyCommand(Plan& plan, const Command& c);

class EditHistory {
 public:
  // Applies and records; clears the redo stack. Error leaves plan and history unchanged.
  Result<std::vector<int>> apply(Plan& plan, Command c);
  Result<std::vector<int>> undo(Plan& plan);
  Result<std::vector<int>> redo(Plan& plan);
  bool canUndo() const { return !undo_.empty(); }
  bool canRedo() const { return !redo_.empty(); }
  // The commands applied and not undone, oldest first (the app pins the user's own output edits from them).
  std::vector<Command> applied() const;
  std::string undoLabel() const;
  std::string redoLabel() const;
  // Dirty tracking: markSaved() at save; dirty() when the plan differs from the saved point by history.
  void markSaved() { savedAt_ = static_cast<long>(undo_.size()); }
  bool dirty() const { return savedAt_ != static_cast<long>(undo_.size()); }
  void clear() { undo_.clear(); redo_.clear(); savedAt_ = 0; }

 private:
  struct Entry { Command forward; Command inverse; std::string label; };
  std::vector<Entry> undo_, redo_;
  long savedAt_ = 0;
};

}  // namespace ss
