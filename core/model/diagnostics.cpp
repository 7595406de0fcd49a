// Diagnostics: kind names, summary and per-node lookups (the output forms are core/check/report.cpp).
#include "core/model/diagnostics.h"

#include <array>
#include <ostream>

#include "core/model/enum_names.h"

namespace ss {

namespace {
constexpr EnumName<Severity> kSeverityNames[] = {
    {Severity::Info, "info"}, {Severity::Warning, "warning"}, {Severity::Error, "error"}};
static_assert(enumTableCovers(kSeverityNames, Severity::Error) && enumNamesValid(kSeverityNames));

constexpr EnumName<DiagKind> kKindNames[] = {
#define SS_DIAG_KIND_ROW(e, s) {DiagKind::e, s},
    SS_DIAGNOSTIC_KINDS(SS_DIAG_KIND_ROW)
#undef SS_DIAG_KIND_ROW
};
// The enumerators are the table's rows in order (both come from SS_DIAGNOSTIC_KINDS), so a kind indexes its row.
static_assert(enumTableInOrder(kKindNames) && enumNamesValid(kKindNames));
constexpr auto kKinds = [] {
  std::array<DiagKind, std::size(kKindNames)> a{};
  for (size_t i = 0; i < a.size(); ++i) a[i] = kKindNames[i].value;
  return a;
}();
}  // namespace

const char* severityName(Severity s) { return enumName(kSeverityNames, s, "error"); }

const char* diagKindName(DiagKind k) { return enumName(kKindNames, k, "unknown"); }

std::optional<DiagKind> diagKindFromName(std::string_view name) { return enumFromName(kKindNames, name); }

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
