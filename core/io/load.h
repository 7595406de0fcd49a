#pragma once
// Loading and saving plan files of every supported format, detected by content.
//
// Contract: never throws for bad input; errors name the file and the place (`FILE:LINE:COL: what` or
// `FILE: /json/pointer: what` through Error::toString(file)). Limits guard memory: files over kMaxFileBytes,
// JSON nested deeper than kMaxJsonDepth are refused with a clear message.
#include <cstdint>
#include <string>

#include "core/model/limits.h"

#include "core/model/plan.h"

namespace ss {

using limits::kMaxFileBytes;  // core/model/limits.h
using limits::kMaxJsonDepth;

enum class FileKind : uint8_t { NativePlan, AutoparallelJson, AutoparallelPlacements, FxText, TorchTrace, Unknown };
const char* fileKindName(FileKind k);
// Decides by content (first non-space bytes and top-level keys), never by extension. A TORCH_TRACE log (its first
// line a structured-trace record) is never taken for FX text, though its payloads hold graph code.
FileKind detectFileKind(std::string_view text);

// The whole file. `tailPadding` extra spaces are appended after it (the caller views only the first
// size - tailPadding bytes; see planFromJsonTextFast's paddedTail).
Result<std::string> readFileText(const std::string& path, size_t tailPadding = 0);
// Loads any supported graph/plan file. A placements file alone is an error (it needs a graph). A TORCH_TRACE log
// gives the plan of its autoparallel artifacts (core/io/autoparallel/artifacts.h); a folder is read as a folder of
// per-rank logs (the first rank's plan).
Result<Plan> loadPlanText(std::string_view text, const std::string& fileForMessages);
Result<Plan> loadPlanFile(const std::string& path);
// Loads `path`, then applies the autoparallel placements file `placementsPath` to its graph when that is not empty
// (`shardscope check --placements`, `diff --placements-a`). The error is already one located line naming the
// file it is about (its toString() with no file adds nothing).
Result<Plan> loadPlanFileWithPlacements(const std::string& path, const std::string& placementsPath);

// Parses JSON text; syntax errors become line:col errors. Depth-limited.
Result<nlohmann::json> parseJsonText(std::string_view text);

// Atomic, safe save: writes a new file beside PATH (a fresh name created with O_EXCL | O_NOFOLLOW: no existing file
// or planted symlink is ever opened, and nothing of the user's named like PATH.tmp is touched), fsyncs, gives it
// PATH's mode (0666 & ~umask for a new file), keeps the previous PATH as PATH.bak (renamed into place: a symlink
// at PATH.bak is replaced, not followed), and renames it over PATH (a symlink at PATH is replaced, not followed).
// With Backup::No (rendered images, exports the user re-makes) no PATH.bak is kept.
enum class Backup : uint8_t { Keep, No };
Result<bool> writeFileAtomic(const std::string& path, std::string_view contents, Backup backup = Backup::Keep);
Result<bool> savePlanFile(const Plan& plan, const std::string& path);

}  // namespace ss
