#pragma once
// Runs a plan's graph straight through the executor (runner/torch_internal.h runGraph: no refusal before it, the
// placeholders all ones), for tests of what the executor itself refuses. Include after runner/torch_internal.h.
#include <optional>
#include <string>

#include "core/model/plan.h"
#include "runner/torch_internal.h"

namespace ss::test {

struct DirectFailure {
  std::string node;     // the node the executor stopped at
  std::string message;  // its NodeError
};

// nullopt when the whole graph ran.
inline std::optional<DirectFailure> runGraphDirectly(const Plan& plan) {
  runner::ExecEnv env;
  env.plan = &plan;
  runner::Values values(plan.graph.size());
  for (int n = 0; n < plan.graph.size(); ++n)
    if (plan.graph.nodes[n].kind == NodeKind::Placeholder) values[n] = {at::ones(plan.graph.nodes[n].outputs[0].shape)};
  try {
    runner::runGraph(env, values);
  } catch (const runner::NodeError& e) {
    return DirectFailure{plan.graph.nodes[e.node].name, e.what()};
  }
  return std::nullopt;
}

}  // namespace ss::test
