#include "core/applied/compare.h"

#include <map>

#include "core/io/load/load.h"

namespace ss {

Result<CompareSide> loadCompareSide(const std::string& path, const std::string& placementsPath) {
  CompareSide side;
  SessionInputs in;
  in.primary = path;
  if (placementsPath.empty() && needsSession(in)) {
    Result<AppliedSession> s = loadSession(in);
    if (!s) return s.error();
    s->plan.normalizeSpecs();
    side.diagnostics = checkSession(*s);
    side.plan = std::move(s->plan);
    side.applied = std::move(s->applied);
  } else {
    Result<Plan> p = loadPlanFileWithPlacements(path, placementsPath);
    if (!p) return p.error();
    side.plan = std::move(p).value();
    side.plan.normalizeSpecs();
    side.diagnostics = checkPlan(side.plan);
  }
  return side;
}

std::string appliedCommunication(const AppliedGraph& g, const DeviceMesh& mesh) {
  std::string out;
  for (const AppliedGraph::Total& t : g.totals()) {
    if (!out.empty()) out += ", ";
    out += std::to_string(t.count) + " " + collectiveName(t.kind) + " on ";
    out += t.meshDim >= 0 && t.meshDim < mesh.ndim()
               ? "mesh dim " + std::to_string(t.meshDim) + " (" + mesh.dimName(t.meshDim) + ")"
               : std::string("an unmapped group");
  }
  return "rank " + std::to_string(g.rank) + ": " + (out.empty() ? std::string("no collectives") : out);
}

PlanDiff compareSides(const CompareView& a, const CompareView& b, const CheckOptions& check) {
  DiffOptions opts;
  opts.check = check;
  opts.diagnosticsA = &a.diagnostics;
  opts.diagnosticsB = &b.diagnostics;
  PlanDiff d = diffPlans(a.plan, b.plan, opts);
  // Per rank present on either side: its applied graph's communication, "" where that side has none.
  std::map<int, std::pair<std::string, std::string>> byRank;
  for (const AppliedGraph& g : a.applied) byRank[g.rank].first = appliedCommunication(g, a.plan.mesh);
  for (const AppliedGraph& g : b.applied) byRank[g.rank].second = appliedCommunication(g, b.plan.mesh);
  for (const auto& [rank, texts] : byRank) {
    if (texts.first == texts.second) continue;
    PlanChange c;
    c.kind = ChangeKind::AppliedGraph;
    c.before = texts.first;
    c.after = texts.second;
    d.changes.push_back(std::move(c));
  }
  return d;
}

}  // namespace ss
