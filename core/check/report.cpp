#include "core/check/report.h"

#include "core/ops/op_table.h"

namespace ss {

namespace {

std::string nodeName(const Plan& plan, int node) {
  if (node < 0 || node >= plan.graph.size()) return {};
  return plan.graph.nodes[node].name;
}

nlohmann::json specJson(const std::optional<ShardingSpec>& s) {
  return s ? nlohmann::json(s->toMeshString()) : nlohmann::json(nullptr);
}

std::string plural(int n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

nlohmann::json diagnosticsToJson(const Plan& plan, const Diagnostics& d) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& x : d.items) {
    nlohmann::json j;
    j["severity"] = severityName(x.severity);
    j["kind"] = diagKindName(x.kind);
    j["node"] = x.node >= 0 ? nlohmann::json(nodeName(plan, x.node)) : nlohmann::json(nullptr);
    j["input"] = x.input >= 0 ? nlohmann::json(x.input) : nlohmann::json(nullptr);
    j["have"] = specJson(x.have);
    j["want"] = specJson(x.want);
    j["message"] = x.message;
    j["fix"] = x.fix;
    j["notes"] = x.notes;
    arr.push_back(std::move(j));
  }
  DiagnosticSummary s = d.summary();
  return {{"diagnostics", std::move(arr)},
          {"summary", {{"errors", s.errors}, {"warnings", s.warnings}, {"infos", s.infos}}}};
}

// error: index_put (input 2) [incompatible-inputs]: message
//   fix: ...
//   note: ...
std::string diagnosticsToText(const Plan& plan, const Diagnostics& d) {
  std::string out;
  for (const auto& x : d.items) {
    out += severityName(x.severity);
    out += ": ";
    out += x.node >= 0 ? nodeName(plan, x.node) : std::string("plan");
    if (x.input >= 0) out += " (input " + std::to_string(x.input) + ")";
    out += std::string(" [") + diagKindName(x.kind) + "]: " + x.message + "\n";
    if (!x.fix.empty()) out += "  fix: " + x.fix + "\n";
    for (const auto& n : x.notes) out += "  note: " + n + "\n";
  }
  DiagnosticSummary s = d.summary();
  out += plural(s.errors, "error") + ", " + plural(s.warnings, "warning") + ", " + plural(s.infos, "info") + "\n";
  return out;
}

CheckCoverage checkCoverage(const Plan& plan) {
  CheckCoverage c;
  for (const Node& n : plan.graph.nodes) {
    if (n.kind != NodeKind::Call) continue;
    ++c.opNodes;
    const ops::OpEntry* e = ops::findOp(n.op);
    if (!e || !e->sharding) continue;
    ++c.checked;
    c.replicateOnly += !e->replicateOnlyWhy.empty();
  }
  return c;
}

std::string coverageText(const CheckCoverage& c) {
  std::string out = std::to_string(c.checked) + " of " + plural(c.opNodes, "op node") + " checked by a sharding rule";
  if (c.replicateOnly > 0) out += " (" + std::to_string(c.replicateOnly) + " of them replicate-only)";
  if (c.unchecked() > 0)
    out += "; " + std::to_string(c.unchecked()) + (c.unchecked() == 1 ? " has" : " have") + " none (unchecked-op)";
  return out + "\n";
}

nlohmann::json coverageJson(const CheckCoverage& c) {
  return {{"op_nodes", c.opNodes}, {"checked", c.checked}, {"replicate_only", c.replicateOnly},
          {"unchecked", c.unchecked()}};
}

}  // namespace ss
