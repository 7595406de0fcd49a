// Stand-in for core/check.cpp and core/diagnostics.cpp, compiled into shardscope_views ONLY while the real
// checker (rules work) is absent from the tree (see views/CMakeLists.txt). It flags each edge whose producer
// spec differs from the consumer's with no redistribute, which is enough to develop and test the views.
#include <nlohmann/json.hpp>

#include "core/check.h"
#include "core/diagnostics.h"

namespace ss {

const char* severityName(Severity s) {
  switch (s) {
    case Severity::Info: return "info";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "?";
}

DiagnosticSummary Diagnostics::summary() const {
  DiagnosticSummary s;
  for (const Diagnostic& d : items) {
    if (d.severity == Severity::Error) ++s.errors;
    else if (d.severity == Severity::Warning) ++s.warnings;
    else ++s.infos;
  }
  return s;
}

std::vector<const Diagnostic*> Diagnostics::forNode(int node) const {
  std::vector<const Diagnostic*> out;
  for (const Diagnostic& d : items) {
    if (d.node == node) out.push_back(&d);
  }
  return out;
}

Severity Diagnostics::worstFor(int node, Severity none) const {
  bool any = false;
  Severity w = Severity::Info;
  for (const Diagnostic& d : items) {
    if (d.node == node) {
      any = true;
      w = std::max(w, d.severity);
    }
  }
  return any ? w : none;
}

nlohmann::json diagnosticsToJson(const Plan&, const Diagnostics&) { return nlohmann::json::object(); }
std::string diagnosticsToText(const Plan&, const Diagnostics&) { return {}; }

Diagnostics checkPlan(const Plan& plan, const CheckOptions&) {
  Diagnostics d;
  for (int n = 0; n < plan.graph.size(); ++n) {
    for (size_t i = 0; i < plan.graph.inputs(n).size(); ++i) {
      const int in = static_cast<int>(i);
      auto have = plan.producerSpec(n, in), want = plan.consumerSpec(n, in);
      if (have && want && *have != *want && plan.findRedistribute(n, in) == nullptr) {
        Diagnostic x;
        x.kind = "missing-redistribute";
        x.node = n;
        x.input = in;
        x.have = have;
        x.want = want;
        x.message = "input " + std::to_string(in) + " arrives as " + have->toMeshString() + " but is used as " +
                    want->toMeshString() + " with no redistribute";
        d.items.push_back(x);
      }
    }
  }
  return d;
}

const Diagnostics& Checker::run(const Plan& plan) {
  merged_ = checkPlan(plan, opts_);
  return merged_;
}
const Diagnostics& Checker::update(const Plan& plan, const std::vector<int>&) { return run(plan); }
void Checker::merge() {}

}  // namespace ss
