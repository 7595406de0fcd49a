#pragma once
// Judging a plan by the DTensor of the PyTorch that wrote it (Plan::torchVersion).
//
// Core follows DTensor 2.14 (the newest compared: tests/dtensor/oracle_2.14.json). DTensor 2.6 (oracle_2.6.json)
// differs in verdicts that this module applies when a plan's artifacts say torch 2.6: it refuses every
// Shard -> Partial and turns Replicate into Partial(sum) only (docs/checks.md, "2.6-shard-to-partial",
// "2.6-replicate-to-partial-op"). A version that was never compared is judged as 2.14, and the check says so.
#include <optional>
#include <string>

#include "core/model/diagnostics.h"
#include "core/model/plan.h"
#include "core/redistribute/redistribute.h"

namespace ss {

enum class DTensorRelease : uint8_t { V2_14, V2_6 };

struct TorchVersionJudge {
  DTensorRelease release = DTensorRelease::V2_14;
  bool compared = true;  // this torch's DTensor was compared with core (2.6.x, 2.14.x), or no version is known
  std::string version;   // as the artifact wrote it ("2.6.0+cu124"); empty when unknown
};

// "2.6.0+cu124" -> 2.6's semantics, compared; "2.14.1+debian" -> 2.14, compared; "2.9.0" -> 2.14, not compared;
// "" or unreadable -> 2.14 (compared: nothing to say).
TorchVersionJudge judgeFor(const std::string& torchVersion);

// Why the DTensor of `judge` refuses redistribute step `step` where 2.14 runs it; nullopt when it runs it.
std::optional<std::string> refusedByRelease(const TorchVersionJudge& judge, const RedistributeStep& step);

// The plan-wide note for a plan written by a torch whose DTensor was never compared (a torch-version info), or
// nullopt.
std::optional<Diagnostic> torchVersionNote(const Plan& plan);

}  // namespace ss
