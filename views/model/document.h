#pragma once
// Document: the plan being edited, its file, its edit history and its current diagnostics. Plain C++ (no ImGui):
// the GUI owns one, tests drive it directly.
//
// Contract: the plan changes only through apply/undo/redo (commands through ss::EditHistory), each followed
// by an incremental re-check (ss::Checker::update on the touched nodes), so `diagnostics()` always describes
// `plan()`. `revision()` bumps on every change (views key caches on it; the recovery writer watches it).
// Errors never throw: they come back as Result and are kept in `lastError()` for the status bar.
#include <cstdint>
#include <optional>
#include <vector>
#include <string>

#include "core/applied/compare.h"
#include "core/applied/session.h"
#include "core/check/check.h"
#include "core/plan/edit.h"
#include "core/model/plan.h"
#include "views/model/selection.h"

namespace ss::views {

// Which document, in which state, a result describes: every result the app shows (a run's verdict, losses and
// first divergence, a message about the plan) carries the stamp of the document it was made from, and is shown
// only as what it is against the document on screen (freshness()).
struct DocStamp {
  uint64_t document = 0;  // one per document opened, reset or created (never reused in a process)
  uint64_t edits = 0;     // bumps on apply, undo, redo and markDirty; not on save (saving changes no content)
  bool operator==(const DocStamp&) const = default;
};
// Current: the result describes the plan on screen. Stale: the same document edited since (undo and redo
// included: the result was made from another state). OtherDocument: made from another plan (the app drops it).
enum class Freshness : uint8_t { Current, Stale, OtherDocument };
Freshness freshness(const DocStamp& result, const DocStamp& now);

class Document {
 public:
  Document() = default;
  // Replaces the whole document (opened file or recovered edits); clears history. `path` may be empty.
  void reset(Plan plan, std::string path);
  Result<bool> open(const std::string& path);  // loads any supported format; keeps the old document on error
  // The same with the command line's artifact flags (--solution, --applied, --mesh, --names, --group, --rank;
  // `extras.primary` is ignored: `path` is the file).
  Result<bool> open(const std::string& path, const SessionInputs& extras);

  const Plan& plan() const { return plan_; }
  // The checker's diagnostics, then each applied graph's (core/applied/): both describe plan().
  const Diagnostics& diagnostics() const { return merged_; }
  // The applied graphs opened with the plan (a TORCH_TRACE log, one per rank), matched to it; empty otherwise.
  const std::vector<AppliedGraph>& applied() const { return applied_; }
  // An applied graph opened alone: plan() is that graph on its (inferred or given) mesh; nullptr otherwise.
  const AppliedAlone* appliedAlone() const { return alone_ ? &*alone_ : nullptr; }
  // A DTensor program opened (DebugMode, CommDebugMode): what it recorded (per-module communication); nullptr else.
  const DTensorProgram* program() const { return program_ ? &*program_ : nullptr; }
  const std::string& path() const { return path_; }
  bool loaded() const { return loaded_; }
  bool dirty() const { return history_.dirty() || forcedDirty_; }
  // Save may write over `path`: it is a native plan file. A document read from another format (an autoparallel
  // export, FX text) is never overwritten in the native format: saving asks for a new name first.
  bool canSaveInPlace() const { return !path_.empty() && (plan_.sourceFormat == PlanFormat::Native || savedNative_); }
  // A name for Save as: the path itself when native, else "<path without extension>.plan.json".
  std::string suggestedSavePath() const;
  uint64_t revision() const { return revision_; }
  DocStamp stamp() const { return stamp_; }
  const EditHistory& history() const { return history_; }
  const std::string& lastError() const { return lastError_; }
  const std::string& lastMessage() const { return lastMessage_; }

  // Every edit not undone is an AutoSP seq_dim move (MoveAutoSpSlice, alone or in a Fix-all batch), and there is
  // at least one: the plan is the log's rank programs with plan().autoSpMoves applied, and runs as those.
  bool editsAreAutoSpMoves() const;

  Result<bool> apply(Command c);
  Result<bool> undo();
  Result<bool> redo();
  // Applies every queued command in order; stops at the first error (kept in lastError). Returns how many applied.
  int drain(CommandQueue& q);

  // Atomic save through ss::savePlanFile; on error nothing changes (the document stays dirty).
  Result<bool> save(const std::string& path);
  // Marks the document as modified without history (a recovered document that was never saved).
  void markDirty() {
    forcedDirty_ = true;
    ++revision_;
    ++stamp_.edits;
  }

  // "falcon_index_put_2d.plan.json* - shardscope" (asterisk when unsaved).
  std::string windowTitle() const;

 private:
  void afterEdit(const std::vector<int>& touched, const std::string& message);
  void remerge();  // merged_ = the checker's diagnostics + the applied graphs' (re-judged against plan_)
  Plan plan_;
  std::vector<AppliedGraph> applied_;
  std::optional<AppliedAlone> alone_;
  std::optional<DTensorProgram> program_;            // a DTensor program's recorded run (DebugMode, CommDebugMode)
  std::optional<CompiledDTensorProgram> compiled_;   // a compiled DTensor program's AOT graphs
  Diagnostics merged_;
  std::string path_;
  EditHistory history_;
  Checker checker_;
  bool loaded_ = false;
  bool forcedDirty_ = false;
  bool savedNative_ = false;  // saved (natively) at least once since opening
  uint64_t revision_ = 0;
  DocStamp stamp_;
  std::string lastError_, lastMessage_;
};

// The document as Compare mode and `shardscope diff` compare it (core/applied/compare.h): plan, applied graphs,
// diagnostics.
inline CompareView compareViewOf(const Document& d) { return {d.plan(), d.applied(), d.diagnostics()}; }

// The file name part of a path ("a/b/c.plan.json" -> "c.plan.json").
std::string baseName(const std::string& path);

}  // namespace ss::views
