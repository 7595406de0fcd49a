// Fuzz target: the applied-graph reader (an autoparallel parallel graph: `--applied FILE`, a TORCH_TRACE log's
// parallel graph, or an applied graph alone), ss::readFxText then core/applied/'s analysis, as `check` runs it.
// The analysis is run three ways on each graph that loads: alone with its mesh inferred, alone on a given 2x4
// mesh, and against a fixed plan (seed 1's joint graph and solution, read once).
// Properties: errors are one line; what loads is a valid graph; no analysis or check crashes; every collective's
// mesh dim indexes its mesh (or is -1 / -2), an invalid one has no group size and no mesh dim, a valid one a
// group size of at most kMaxRanks, bytes are never negative; every diagnostic is one line at a node of its plan.
#include <cstdint>
#include <optional>
#include <string>

#include "core/applied/applied.h"
#include "core/applied/session.h"
#include "core/io/formats.h"
#include "core/model/limits.h"
#include "fuzz/fuzz_common.h"

namespace {

const ss::Plan& seedPlan() {
  static const ss::Plan plan = [] {
    ss::SessionInputs in;
    in.primary = SHARDSCOPE_SOURCE_DIR "/tests/data/real/seed1_buggy/autoparallel_joint_graph.txt";
    in.solution = SHARDSCOPE_SOURCE_DIR "/tests/data/real/seed1_buggy/autoparallel_solution.json";
    auto s = ss::loadSession(in);
    FUZZ_CHECK(s.ok() && s->hasPlan, "seed 1's plan does not load");
    return std::move(s->plan);
  }();
  return plan;
}

void checkCollectives(const std::vector<ss::AppliedCollective>& cs, const ss::DeviceMesh& mesh) {
  for (const auto& c : cs) {
    FUZZ_CHECK(c.meshDim == -1 || c.meshDim == -2 || (c.meshDim >= 0 && c.meshDim < mesh.ndim()),
               "a collective's mesh dim is not one of its mesh");
    FUZZ_CHECK(c.groupSize >= 0 && c.groupSize <= ss::limits::kMaxRanks, "a group size is no number of ranks");
    FUZZ_CHECK(c.bytes >= 0 && c.timeUs >= 0, "a collective's cost is negative");
    if (!c.invalid.empty()) {
      FUZZ_CHECK(c.groupSize == 0 && c.meshDim == -1, "an invalid collective has a group size or a mesh dim");
      FUZZ_CHECK(c.invalid.find('\n') == std::string::npos, "an invalid collective's reason spans several lines");
    }
  }
}

void checkDiagnostics(const ss::Diagnostics& d, const ss::Plan& plan) {
  for (const auto& x : d.items) {
    FUZZ_CHECK(x.node >= -1 && x.node < plan.graph.size(), "a diagnostic names no node of its plan");
    FUZZ_CHECK(x.message.find('\n') == std::string::npos, "a diagnostic message spans several lines");
  }
}

void checkAlone(const ss::Plan& applied, const std::optional<ss::DeviceMesh>& mesh) {
  ss::AppliedSession s;
  s.alone = ss::analyzeAppliedAlone(applied, mesh);
  s.plan = s.alone->plan;
  checkCollectives(s.alone->collectives, s.plan.mesh);
  for (const auto& g : s.alone->groups)
    FUZZ_CHECK(g.meshDim == -1 || g.meshDim == -2 || (g.meshDim >= 0 && g.meshDim < s.plan.mesh.ndim()),
               "a group's mesh dim is not one of its mesh");
  checkDiagnostics(ss::checkSession(s), s.plan);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = "fuzz_applied_graph.txt";
  const ss::Plan& plan = seedPlan();
  auto applied = ss::readFxText(ss::fuzz::asText(data, size));
  if (!applied) {
    ss::fuzz::checkOneLineError(applied.error(), file);
    return 0;
  }
  FUZZ_CHECK(applied->validateStructure().empty(), "a loaded applied graph is invalid");
  checkAlone(*applied, std::nullopt);
  checkAlone(*applied, ss::DeviceMesh({2, 4}));
  ss::AppliedGraph a = ss::analyzeApplied(plan, *applied);
  checkCollectives(a.collectives, plan.mesh);
  ss::Diagnostics d = ss::checkApplied(plan, a);
  checkDiagnostics(d, plan);
  FUZZ_CHECK(a.transitionsFound <= a.transitionsPlanned, "more transitions found than planned");
  FUZZ_CHECK(a.summary(plan.mesh).find('\n') == std::string::npos, "the applied summary spans several lines");
  return 0;
}
