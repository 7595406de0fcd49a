#include "app/gui/recovery.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>

#include <nlohmann/json.hpp>

#include "app/gui/settings.h"
#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"

namespace ss::app {
namespace {

std::string metaFileFor(const std::string& planFile) {
  const std::string suffix = ".plan.json";
  return planFile.substr(0, planFile.size() - suffix.size()) + ".meta.json";
}

int64_t unixNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string recoveryFileFor(const std::string& dir, const std::string& originalPath) {
  std::error_code ec;
  std::string key = originalPath.empty() ? "untitled" : std::filesystem::absolute(originalPath, ec).lexically_normal().string();
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%016zx", std::hash<std::string>{}(key));
  return dir + "/recovery-" + buf + ".plan.json";
}

std::string RecoveryWriter::update(const views::Document& doc, double nowS, bool force, double debounceS) {
  if (!doc.loaded()) return {};
  const std::string file = recoveryFileFor(dir_, doc.path());
  if (file != file_) {
    // Saved under another name, or another file opened: the old recovery no longer applies.
    if (!file_.empty() && writtenRevision_ != 0) remove();
    file_ = file;
    writtenRevision_ = 0;
  }
  if (!doc.dirty()) {
    if (writtenRevision_ != 0) remove();
    seenRevision_ = doc.revision();
    return {};
  }
  if (doc.revision() != seenRevision_) {
    seenRevision_ = doc.revision();
    changedAt_ = nowS;
  }
  if (writtenRevision_ == doc.revision()) return {};
  if (!force && nowS - changedAt_ < debounceS) return {};
  if (!makeDirs(dir_)) return "cannot create " + dir_ + " for recovery files";
  Result<bool> w = writeFileAtomic(file_, writePlanString(doc.plan()));
  if (!w.ok()) return "recovery file not written: " + w.error().toString(file_);
  nlohmann::json meta{{"path", doc.path()}, {"saved_at", unixNow()}};
  writeFileAtomic(metaFileFor(file_), meta.dump(2) + "\n");
  writtenRevision_ = doc.revision();
  return {};
}

void RecoveryWriter::remove() {
  if (file_.empty()) return;
  std::error_code ec;
  std::filesystem::remove(file_, ec);
  std::filesystem::remove(metaFileFor(file_), ec);
  std::filesystem::remove(file_ + ".bak", ec);
  std::filesystem::remove(metaFileFor(file_) + ".bak", ec);
  writtenRevision_ = 0;
}

std::vector<RecoveryInfo> findRecoveries(const std::string& dir) {
  std::vector<RecoveryInfo> out;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("recovery-", 0) != 0 || name.size() < 10 || name.substr(name.size() - 10) != ".plan.json") continue;
    RecoveryInfo info;
    info.planFile = e.path().string();
    Result<std::string> meta = readFileText(metaFileFor(info.planFile));
    if (meta.ok()) {
      Result<nlohmann::json> j = parseJsonText(meta.value());
      if (j.ok() && j.value().is_object()) {
        const auto& o = j.value();
        if (o.contains("path") && o["path"].is_string()) info.originalPath = o["path"].get<std::string>();
        if (o.contains("saved_at") && o["saved_at"].is_number_integer()) info.savedAt = o["saved_at"].get<int64_t>();
      }
    }
    out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(), [](const RecoveryInfo& a, const RecoveryInfo& b) { return a.savedAt > b.savedAt; });
  return out;
}

Result<Plan> loadRecovery(const RecoveryInfo& info) { return loadPlanFile(info.planFile); }

void removeRecovery(const RecoveryInfo& info) {
  std::error_code ec;
  std::filesystem::remove(info.planFile, ec);
  std::filesystem::remove(metaFileFor(info.planFile), ec);
  std::filesystem::remove(info.planFile + ".bak", ec);
  std::filesystem::remove(metaFileFor(info.planFile) + ".bak", ec);
}

}  // namespace ss::app
