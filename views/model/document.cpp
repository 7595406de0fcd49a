#include "views/model/document.h"

#include <algorithm>
#include <atomic>

#include "core/io/load/load.h"

namespace ss::views {

Freshness freshness(const DocStamp& result, const DocStamp& now) {
  if (result.document != now.document) return Freshness::OtherDocument;
  return result.edits == now.edits ? Freshness::Current : Freshness::Stale;
}

namespace {
uint64_t nextDocumentId() {
  static std::atomic<uint64_t> next{0};
  return ++next;
}
}  // namespace

std::string baseName(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void Document::reset(Plan plan, std::string path) {
  plan_ = std::move(plan);
  plan_.normalizeSpecs();
  plan_.graph.reindex();
  path_ = std::move(path);
  history_.clear();
  checker_.run(plan_);
  applied_.clear();
  alone_.reset();
  program_.reset();
  compiled_.reset();
  remerge();
  loaded_ = true;
  forcedDirty_ = false;
  savedNative_ = false;
  lastError_.clear();
  lastMessage_ = path_.empty() ? "" : "Opened " + baseName(path_);
  ++revision_;
  stamp_ = DocStamp{nextDocumentId(), 0};
}

void Document::remerge() {
  merged_ = checker_.diagnostics();
  if (program_ || compiled_) asDTensorProgram(merged_);
  // An applied graph alone: its invalid collectives, each where the checker has no error yet (as checkSession).
  if (alone_)
    for (Diagnostic& x : invalidCollectiveDiagnostics(*alone_).items)
      if (merged_.worstFor(x.node) != Severity::Error) merged_.items.push_back(std::move(x));
  Diagnostics x = sessionDiagnostics(plan_, program_, compiled_, applied_);
  merged_.items.insert(merged_.items.end(), x.items.begin(), x.items.end());
}

Result<bool> Document::open(const std::string& path) { return open(path, SessionInputs{}); }

Result<bool> Document::open(const std::string& path, const SessionInputs& extras) {
  SessionInputs in = extras;
  in.primary = path;
  if (needsSession(in)) {
    // autoparallel's artifacts: the plan plus its applied graphs (or an applied graph alone).
    Result<AppliedSession> s = loadSession(in);
    if (!s.ok()) {
      lastError_ = s.error().toString();
      return Error{lastError_, 0, 0, {}};
    }
    reset(std::move(s->plan), path);
    applied_ = std::move(s->applied);
    alone_ = std::move(s->alone);
    program_ = std::move(s->program);
    compiled_ = std::move(s->compiled);
    remerge();
    return true;
  }
  Result<Plan> p = loadPlanFile(path);
  if (!p.ok()) {
    lastError_ = p.error().toString(path);
    return Error{lastError_, 0, 0, {}};
  }
  reset(std::move(p).value(), path);
  return true;
}

void Document::afterEdit(const std::vector<int>& touched, const std::string& message) {
  checker_.update(plan_, touched);
  remerge();
  lastError_.clear();
  lastMessage_ = message;
  ++revision_;
  ++stamp_.edits;
}

bool Document::editsAreAutoSpMoves() const {
  const std::vector<Command> edits = history_.applied();
  const auto onlyMoves = [](const Command& c, const auto& self) -> bool {
    if (std::holds_alternative<MoveAutoSpSlice>(c)) return true;
    if (const auto* b = std::get_if<Batch>(&c))
      return !b->commands.empty() &&
             std::all_of(b->commands.begin(), b->commands.end(), [&](const Command& x) { return self(x, self); });
    return false;
  };
  return !edits.empty() && !plan_.autoSpMoves.empty() &&
         std::all_of(edits.begin(), edits.end(), [&](const Command& c) { return onlyMoves(c, onlyMoves); });
}

Result<bool> Document::apply(Command c) {
  const std::string label = describe(plan_, c);
  Result<std::vector<int>> r = history_.apply(plan_, std::move(c));
  if (!r.ok()) {
    lastError_ = r.error().toString();
    return r.error();
  }
  afterEdit(r.value(), label);
  return true;
}

Result<bool> Document::undo() {
  if (!history_.canUndo()) return Error{"nothing to undo", 0, 0, {}};
  const std::string label = "Undo " + history_.undoLabel();
  Result<std::vector<int>> r = history_.undo(plan_);
  if (!r.ok()) {
    lastError_ = r.error().toString();
    return r.error();
  }
  afterEdit(r.value(), label);
  return true;
}

Result<bool> Document::redo() {
  if (!history_.canRedo()) return Error{"nothing to redo", 0, 0, {}};
  const std::string label = "Redo " + history_.redoLabel();
  Result<std::vector<int>> r = history_.redo(plan_);
  if (!r.ok()) {
    lastError_ = r.error().toString();
    return r.error();
  }
  afterEdit(r.value(), label);
  return true;
}

int Document::drain(CommandQueue& q) {
  int applied = 0;
  for (Command& c : q.pending) {
    if (!apply(std::move(c)).ok()) break;
    ++applied;
  }
  q.pending.clear();
  return applied;
}

Result<bool> Document::save(const std::string& path) {
  Result<bool> r = savePlanFile(plan_, path);
  if (!r.ok()) {
    lastError_ = "Save failed: " + r.error().toString(path);
    return Error{lastError_, 0, 0, {}};
  }
  path_ = path;
  savedNative_ = true;
  history_.markSaved();
  forcedDirty_ = false;
  lastError_.clear();
  lastMessage_ = "Saved " + baseName(path);
  ++revision_;
  return true;
}

std::string Document::suggestedSavePath() const {
  if (path_.empty()) return (plan_.name.empty() ? "plan" : plan_.name) + ".plan.json";
  if (canSaveInPlace()) return path_;
  std::string stem = path_;
  const auto slash = stem.find_last_of('/');
  const auto dot = stem.find_last_of('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) stem = stem.substr(0, dot);
  return stem + ".plan.json";
}

std::string Document::windowTitle() const {
  std::string t = path_.empty() ? (loaded_ ? (plan_.name.empty() ? "untitled" : plan_.name) : "") : baseName(path_);
  if (dirty()) t += "*";
  return t.empty() ? "shardscope" : t + " - shardscope";
}

}  // namespace ss::views
