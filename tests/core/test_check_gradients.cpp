// Gradients judged against their parameters' placements: a joint graph's returned gradient must end where its
// parameter lives (Plan::consumerSpec at the output). Which output is whose gradient comes from AOT autograd's
// descriptors (expanded_def) or, without them, from AOT's output order (Plan::deriveGradientOutputs), checked
// here against the descriptors of every real joint graph autoparallel wrote.
#include <catch2/catch.hpp>

#include "plan_text.h"
#include "test_data.h"

#include "core/applied/session.h"
#include "core/check/check.h"
#include "core/check/report.h"
#include "core/plan/edit.h"
#include "core/plan/fix.h"
#include "core/io/formats.h"
#include "core/model/placement_parse.h"

using namespace ss;
using namespace ss::test;
using nlohmann::json;

namespace {

std::string real(const std::string& name) { return std::string(SHARDSCOPE_TESTDATA_DIR) + "/real/" + name; }

// A one-layer joint graph on a 1-D mesh of 4: x (batch-sharded) @ w, and w's gradient t(x) @ tangents, which
// contracts the sharded batch dim: Partial(sum) until something reduces it.
Plan jointPlan(const std::string& gradSpec, json redistributes = json::array()) {
  json w = ph("w", {8, 4}, "R", "param");
  w["module"] = "proj.weight";
  json nodes = {ph("x", {16, 8}, "S(0)"), w, ph("tangents_1", {16, 4}, "S(0)", "tangent"),
                call("y", "aten.mm.default", {ref("x"), ref("w")}, {16, 4}, "S(0)"),
                call("xt", "aten.t.default", {ref("x")}, {8, 16}, "S(1)"),
                call("grad_w", "aten.mm.default", {ref("xt"), ref("tangents_1")}, {8, 4}, gradSpec),
                {{"name", "output"}, {"op", "output"}, {"args", {{ref("y"), nullptr, ref("grad_w")}}}}};
  return planOf({4}, nodes, redistributes);
}

}  // namespace

TEST_CASE("gradients: AOT's output order names the same gradients as the descriptors, on every real joint graph",
          "[check][gradients][real]") {
  for (const char* c : {"seed1_fixed", "seed1_buggy", "llama3_1d", "llama3_2d", "conv"}) {
    INFO(c);
    auto described = readFxText(test::readFile(real(std::string(c) + "/joint_graph_expanded_def.txt")));
    REQUIRE(described.ok());
    SessionInputs in;
    in.primary = real(std::string(c) + (std::string(c) == "seed1_buggy" ? "/dedicated_log_torch_trace_rank_0_trj4f_tb.log"
                                                                          : "/rank0.log"));
    auto s = loadSession(in);
    REQUIRE(s.ok());
    // The log's joint graph has no descriptors: its gradients come from the output order.
    REQUIRE(s->plan.gradientOf.size() == described->gradientOf.size());
    int grads = 0;
    for (size_t k = 0; k < described->gradientOf.size(); ++k) {
      CHECK(s->plan.gradientOf[k] == described->gradientOf[k]);
      grads += !described->gradientOf[k].empty();
    }
    CHECK(grads > 0);
  }
}

TEST_CASE("gradients: one left Partial is an error at the output naming its parameter", "[check][gradients]") {
  const Plan p = jointPlan("P(sum)");
  REQUIRE(p.gradientOf == std::vector<std::string>{"", "", "w"});  // outputs, then one per primal: x, w
  const Diagnostics d = checkPlan(p);
  REQUIRE(d.summary().errors == 1);
  const Diagnostic& e = d.items.front();
  CHECK(e.kind == DiagKind::MissingRedistribute);
  CHECK(p.graph.nodes[e.node].name == "output");
  CHECK(e.input == 1);
  CHECK(e.message ==
        "the gradient of parameter w (proj.weight) (grad_w) ends in P(sum), but its parameter is R, and the plan has "
        "no redistribute on this edge");
  CHECK(e.fix.rfind("insert a redistribute P(sum) -> R: all_reduce on mesh dim 0", 0) == 0);
}

TEST_CASE("gradients: fix inserts the all-reduce on the output edge", "[check][gradients][fix]") {
  Plan p = jointPlan("P(sum)");
  const FixPlan f = planFix(p);
  CHECK(f.remaining.summary().errors == 0);
  REQUIRE(f.steps.size() == 1);
  CHECK(f.steps[0].find("output") != std::string::npos);
  applyCommand(p, Command{f.batch});
  REQUIRE(p.redistributes.size() == 1);
  CHECK(p.graph.nodes[p.redistributes[0].node].name == "output");
  CHECK(p.redistributes[0].input == 1);
  CHECK(p.redistributes[0].to.toMeshString() == "R");
  CHECK(checkPlan(p).summary().errors == 0);
}

TEST_CASE("gradients: reduced to the parameter's placement, the plan is clean",
          "[check][gradients]") {
  // The redistribute the fix names, on the output edge.
  const Plan fixed = jointPlan("P(sum)", json::array({{{"node", "output"}, {"input", 1}, {"from", "P(sum)"}, {"to", "R"}}}));
  CHECK(checkPlan(fixed).summary().errors == 0);
  // A gradient already in its parameter's placement needs nothing.
  const Plan replicated = jointPlan("R");
  const Diagnostics d = checkPlan(replicated);
  // grad_w itself is wrong then (mm of S(1) and S(0) is Partial), an error at grad_w, not at the output.
  for (const Diagnostic& x : d.items) CHECK(replicated.graph.nodes[x.node].name != "output");
}

TEST_CASE("gradients: a solver plan's gradient transition is planned, and judged in the applied graph",
          "[check][gradients][applied]") {
  // seed 1's real log with the weight's gradient (alias_default_5, RR) declared Partial over the mesh's first dim by
  // its solution: the solver then plans the reduction at the output, and the real applied graph has none.
  SessionInputs in;
  in.primary = real("seed1_fixed/rank0.log");
  auto s = loadSession(in);
  REQUIRE(s.ok());
  Plan& p = s->plan;
  const int g = p.graph.find("alias_default_5");
  REQUIRE(g >= 0);
  REQUIRE(p.gradientParamOf(1) == p.graph.find("primals_1"));
  p.specs[g].outputs[0] = parseSpec("P(sum)R").value();
  const Diagnostics d = checkSession(*s);
  std::vector<std::string> atOutput;
  for (const Diagnostic& x : d.items)
    if (x.node == p.graph.outputNode()) atOutput.push_back(std::string(diagKindName(x.kind)) + ": " + x.message);
  for (const auto& x : atOutput) UNSCOPED_INFO(x);
  REQUIRE(atOutput.size() == 2);
  CHECK(atOutput[0] ==
        "redistribute-required: the solver plans a transition from P(sum)R (alias_default_5) to RR: all_reduce on mesh "
        "dim 0 (dim0), Partial(sum) -> Replicate(), 83.3 MiB per rank, 588.1 us (the gradient of parameter primals_1 "
        "(proj.weight))");
  CHECK(atOutput[1] ==
        "transition-not-applied: the planned P(sum)R -> RR (all_reduce on mesh dim 0 (dim0), 83.3 MiB per rank) "
        "bringing the gradient of parameter primals_1 (proj.weight) to its placement is not in the applied graph: on "
        "rank 0 (0, 0) output input 1 receives a value of the right local shape [4672, 4672] still in P(sum)R, not RR");
  // The unmodified log: the gradient ends in its parameter's placement, nothing at the output.
  auto clean = loadSession(in);
  REQUIRE(clean.ok());
  const Diagnostics cd = checkSession(*clean);
  CHECK(cd.summary().errors == 0);
  for (const Diagnostic& x : cd.items) CHECK(x.node != clean->plan.graph.outputNode());
}
