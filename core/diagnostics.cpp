// Diagnostics: summary, per-node lookups, and the two output forms of `shardscope check`.
#include "core/diagnostics.h"

#include <array>
#include <ostream>

#include <nlohmann/json.hpp>

#include "core/plan.h"

namespace ss {

const char* severityName(Severity s) {
  switch (s) {
    case Severity::Info: return "info";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "error";
}

namespace {
struct KindRow {
  DiagKind kind;
  const char* name;
};
constexpr KindRow kKindRows[] = {
#define SS_DIAG_KIND_ROW(e, s) {DiagKind::e, s},
    SS_DIAGNOSTIC_KINDS(SS_DIAG_KIND_ROW)
#undef SS_DIAG_KIND_ROW
};
constexpr auto kKinds = [] {
  std::array<DiagKind, std::size(kKindRows)> a{};
  for (size_t i = 0; i < a.size(); ++i) a[i] = kKindRows[i].kind;
  return a;
}();
// The enumerators are the table's rows in order, so a kind indexes its row.
static_assert([] {
  for (size_t i = 0; i < std::size(kKindRows); ++i)
    if (static_cast<size_t>(kKindRows[i].kind) != i) return false;
  return true;
}());
}  // namespace

const char* diagKindName(DiagKind k) {
  auto i = static_cast<size_t>(k);
  return i < std::size(kKindRows) ? kKindRows[i].name : "unknown";
}

std::optional<DiagKind> diagKindFromName(std::string_view name) {
  for (const auto& r : kKindRows)
    if (name == r.name) return r.kind;
  return std::nullopt;
}

std::span<const DiagKind> allDiagKinds() { return kKinds; }

std::ostream& operator<<(std::ostream& os, DiagKind k) { return os << diagKindName(k); }

DiagnosticSummary Diagnostics::summary() const {
  DiagnosticSummary s;
  for (const auto& d : items) {
    if (d.severity == Severity::Error) ++s.errors;
    else if (d.severity == Severity::Warning) ++s.warnings;
    else ++s.infos;
  }
  return s;
}

std::vector<const Diagnostic*> Diagnostics::forNode(int node) const {
  std::vector<const Diagnostic*> out;
  for (const auto& d : items)
    if (d.node == node) out.push_back(&d);
  return out;
}

Severity Diagnostics::worstFor(int node, Severity none) const {
  bool any = false;
  Severity worst = Severity::Info;
  for (const auto& d : items) {
    if (d.node != node) continue;
    if (!any || static_cast<int>(d.severity) > static_cast<int>(worst)) worst = d.severity;
    any = true;
  }
  return any ? worst : none;
}

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

}  // namespace ss
