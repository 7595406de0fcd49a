// Diagnostics: kind names, summary and per-node lookups (the output forms are core/check/report.cpp).
#include "core/model/diagnostics.h"

#include <array>
#include <ostream>


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

}  // namespace ss
