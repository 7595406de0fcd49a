#pragma once
// No lost work: while the document has unsaved edits, a copy is written (atomically) to a recovery file in
// stateDir(); a clean save or a deliberate discard removes it. At the next start the app offers any recovery
// file it finds (the app crashed or was killed with unsaved edits).
//
// Files: recovery-<hash of the original path>.plan.json (the plan, native format) and a sibling .meta.json
// {"path": original file or "", "saved_at": unix seconds}.
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/plan.h"
#include "views/model/document.h"

namespace ss::app {

struct RecoveryInfo {
  std::string planFile;      // the recovery plan file
  std::string originalPath;  // the file the edits belong to ("" when never saved)
  int64_t savedAt = 0;       // unix seconds
};

class RecoveryWriter {
 public:
  explicit RecoveryWriter(std::string dir) : dir_(std::move(dir)) {}
  // Call every frame: writes when the document is dirty and its revision changed at least `debounceS` ago
  // (or `force`); removes the file when the document is clean. Returns an error message when a write failed.
  std::string update(const views::Document& doc, double nowS, bool force = false, double debounceS = 1.0);
  void remove();  // the current document's recovery file (after save, discard, clean quit)
  const std::string& currentFile() const { return file_; }

 private:
  std::string dir_;
  std::string file_;            // recovery file of the document last seen
  uint64_t writtenRevision_ = 0;
  uint64_t seenRevision_ = 0;
  double changedAt_ = 0;
};

std::string recoveryFileFor(const std::string& dir, const std::string& originalPath);
std::vector<RecoveryInfo> findRecoveries(const std::string& dir);
Result<Plan> loadRecovery(const RecoveryInfo& info);
void removeRecovery(const RecoveryInfo& info);

}  // namespace ss::app
