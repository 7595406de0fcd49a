#pragma once
// Loading and saving plan files of every supported format, detected by content.
//
// Contract: never throws for bad input; errors name the file and the place (`FILE:LINE:COL: what` or
// `FILE: /json/pointer: what` through Error::toString(file)). Limits guard memory: files over kMaxFileBytes,
// JSON nested deeper than kMaxJsonDepth are refused with a clear message.
#include <cstdint>
#include <string>

#include "core/io/file.h"
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

// Loads any supported graph/plan file. A placements file alone is an error (it needs a graph). A TORCH_TRACE log
// gives the plan of its autoparallel artifacts (core/io/autoparallel/artifacts.h); a folder is read as a folder of
// per-rank logs (the first rank's plan).
Result<Plan> loadPlanText(std::string_view text, const std::string& fileForMessages);
Result<Plan> loadPlanFile(const std::string& path);
// Loads `path`, then applies the autoparallel placements file `placementsPath` to its graph when that is not empty
// (`shardscope check --placements`, `diff --placements-a`). The error is already one located line naming the
// file it is about (its toString() with no file adds nothing).
Result<Plan> loadPlanFileWithPlacements(const std::string& path, const std::string& placementsPath);


Result<bool> savePlanFile(const Plan& plan, const std::string& path);

// `shardscope check GRAPH --placements FILE`: loads GRAPH (any graph format, via loadPlanFile) and applies
// the placements file to it. Errors are already located with their file name (`FILE:LINE:COL: what` or
// `FILE: /pointer: what`): print them with Error::toString() and no file argument.
Result<Plan> loadPlanWithPlacements(const std::string& graphPath, const std::string& placementsPath);

}  // namespace ss
