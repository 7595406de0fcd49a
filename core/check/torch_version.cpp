// core/check/torch_version.h: which DTensor judges a plan, and the verdicts in which 2.6 differs from 2.14.
#include "core/check/torch_version.h"

#include <cstdio>

namespace ss {

TorchVersionJudge judgeFor(const std::string& torchVersion) {
  TorchVersionJudge j;
  j.version = torchVersion;
  int major = 0, minor = 0;
  if (torchVersion.empty() || std::sscanf(torchVersion.c_str(), "%d.%d", &major, &minor) != 2) return j;
  if (major == 2 && minor == 6) j.release = DTensorRelease::V2_6;
  else j.compared = major == 2 && minor == 14;
  return j;
}

std::optional<std::string> refusedByRelease(const TorchVersionJudge& judge, const RedistributeStep& step) {
  if (judge.release != DTensorRelease::V2_6) return std::nullopt;
  const std::string who = "DTensor of torch " + judge.version + " (2.6)";
  if (step.kind == CollectiveKind::LocalEmbed)
    return who + " refuses Shard -> Partial on mesh dim " + std::to_string(step.meshDim) +
           " ('redistribute from S(d) to P not supported yet'); 2.14 runs it";
  if (step.kind == CollectiveKind::LocalDivide && step.to.isPartial() && step.to.reduce != ReduceOp::Sum)
    return who + " turns Replicate into Partial(sum) only, not " + step.to.shortString() + " (mesh dim " +
           std::to_string(step.meshDim) + "); 2.14 runs it";
  return std::nullopt;
}

std::optional<Diagnostic> torchVersionNote(const Plan& plan) {
  const TorchVersionJudge j = judgeFor(plan.torchVersion);
  if (j.compared) return std::nullopt;
  Diagnostic d;
  d.severity = Severity::Info;
  d.kind = DiagKind::TorchVersion;
  d.message = "written by torch " + j.version +
              ", whose DTensor was never compared with core: checked with DTensor 2.14's semantics (compared: 2.6 "
              "and 2.14; docs/checks.md, \"Checked against DTensor\")";
  return d;
}

}  // namespace ss
