// Replica classes (core/redistribute/replica.h): seed 1 fixed, node by node, and small plans for each rule.
#include <catch2/catch.hpp>

#include "core/model/placement_parse.h"
#include "core/redistribute/replica.h"
#include "plan_text.h"

#include "core/io/load/load.h"

using namespace ss;
using namespace ss::test;

namespace {

constexpr MeshDims D0 = 1, D1 = 2, BOTH = 3;

ShardingSpec spec(const char* s) {
  auto r = parseSpec(s);
  if (!r.ok()) throw std::runtime_error(s);
  return *r;
}

// Seed 1 with the redistribute `shardscope fix` inserts (RS(1) -> RS(0) at index_put's values).
Plan seed1Fixed() {
  auto p = loadPlanFile(std::string(SHARDSCOPE_SAMPLES_DIR) + "/falcon_index_put_2d.plan.json");
  if (!p.ok()) throw std::runtime_error(p.error().toString("seed 1"));
  Plan plan = std::move(p.value());
  plan.redistributes.push_back(Redistribute{plan.graph.find("index_put"), 2, spec("RS(1)"), spec("RS(0)")});
  return plan;
}

// The loss's ancestors (what the runner records autograd history for).
std::vector<bool> ancestors(const Plan& plan, const std::string& loss) {
  std::vector<bool> in(plan.graph.size(), false);
  std::vector<int> todo{plan.graph.find(loss)};
  while (!todo.empty()) {
    int n = todo.back();
    todo.pop_back();
    if (n < 0 || in[n]) continue;
    in[n] = true;
    for (const TensorRef& r : plan.graph.inputs(n)) todo.push_back(r.node);
  }
  return in;
}

}  // namespace

TEST_CASE("replica classes of seed 1 fixed: what each node holds and who computes it", "[replica][seed1]") {
  const Plan plan = seed1Fixed();
  const ReplicaPlan rp = replicaClasses(plan, ancestors(plan, "loss"));
  REQUIRE(rp.enabled);
  auto holds = [&](const char* n) { return rp.holds.at(plan.graph.find(n)); };
  auto share = [&](const char* n) { return rp.share.at(plan.graph.find(n)); };
  // x is S(0)R: the 4 ranks along mesh dim 1 hold the same piece; the weight is replicated.
  CHECK(holds("x") == D1);
  CHECK(holds("proj_weight") == BOTH);
  CHECK(holds("t") == BOTH);
  CHECK(holds("mm") == D1);
  CHECK(holds("idx") == BOTH);  // full, RR
  CHECK(holds("sum_1") == D1);
  CHECK(holds("loss") == BOTH);  // after the all_reduce along mesh dim 0
  // S(0)R -> RS(1): all_gather along dim 0, chunk along dim 1.
  const int sum2 = plan.graph.find("sum_2");
  CHECK(rp.edgeTouched[sum2][0] == BOTH);
  CHECK(rp.edgeHolds[sum2][0] == D0);
  CHECK(holds("sum_2") == D0);
  CHECK(holds("full_1") == D0);  // a factory sharded RS(0): its local shape follows the coordinate on dim 1
  CHECK(holds("index_put") == D0);
  CHECK(holds("add_1") == D1);  // RS(0) -> S(0)R on its second input
  CHECK(holds("mm_1") == D1);
  CHECK(holds("output") == BOTH);
  // Twins: every recorded value holds along dim 1, and the loss's all_reduce runs along dim 0.
  CHECK(rp.twins == D1);
  CHECK(rp.twinCount() == 4);
  CHECK(share("mm") == D1);
  CHECK(share("loss") == D1);  // recorded: shared along the twin dims only
  CHECK(share("mm_1") == D1);
  CHECK(share("output") == BOTH);
  // Ranks are c0 * 4 + c1: the products run on ranks 0 and 4 only; the output on rank 0.
  const int mm = plan.graph.find("mm"), mm1 = plan.graph.find("mm_1"), out = plan.graph.find("output");
  for (int r = 0; r < 8; ++r) {
    CHECK(rp.computes(mm, r) == (r == 0 || r == 4));
    CHECK(rp.computes(mm1, r) == (r == 0 || r == 4));
    CHECK(rp.computes(out, r) == (r == 0));
    CHECK(rp.computes(sum2, r) == (r < 4));
    CHECK(rp.twinLeader(r) == (r == 0 || r == 4));
    CHECK(rp.leaderOf(rp.share[mm], r) == (r < 4 ? 0 : 4));
  }
  // The output's all_reduce along dim 0 runs on ranks 0 and 4 (one whole group); rank 0 computes the output from
  // its own result, so nobody takes it.
  for (int r = 0; r < 8; ++r) CHECK(rp.runsEdge(out, 1, r) == (r == 0 || r == 4));
  CHECK(rp.edgeTakers(out, 1, 0) == 0);
  // add_1's RS(0) -> S(0)R gathers along dim 1 from values that differ along it: every rank takes part.
  const int add1 = plan.graph.find("add_1");
  for (int r = 0; r < 8; ++r) CHECK(rp.runsEdge(add1, 1, r));
  CHECK(rp.busiestWorkers() == 2);
  CHECK(meshDimsString(rp.twins, plan.mesh) == "{dim1}");
}

TEST_CASE("replica classes: without gradients nothing restricts the sharing", "[replica][seed1]") {
  const Plan plan = seed1Fixed();
  const ReplicaPlan rp = replicaClasses(plan, {});
  CHECK(rp.twins == BOTH);
  CHECK(rp.share.at(plan.graph.find("loss")) == BOTH);
  const int loss = plan.graph.find("loss");
  for (int r = 0; r < 8; ++r) CHECK(rp.computes(loss, r) == (r == 0));
  // The loss's all_reduce along dim 0 runs on the one group {0, 4}; only rank 0 computes the loss from it.
  for (int r = 0; r < 8; ++r) CHECK(rp.runsEdge(loss, 0, r) == (r == 0 || r == 4));
}

TEST_CASE("replica classes: one rule at a time on a 2x2 mesh", "[replica]") {
  // a: S(0)R, w: RR, mm -> S(0)R, an all_gather to RR on mm's consumer, a dropout, a factory.
  nlohmann::json nodes = {
      ph("a", {4, 6}, "S(0)R"),
      ph("w", {6, 6}, "RR", "param"),
      ph("p", {4, 6}, "P(sum)R"),
      call("mm", "aten.mm.default", {ref("a"), ref("w")}, {4, 6}, "S(0)R"),
      call("relu", "aten.relu.default", {ref("mm")}, {4, 6}, "RR"),
      call("drop", "aten.rand_like.default", {ref("relu")}, {4, 6}, "RR"),
      call("z", "aten.zeros.default", {{4, 6}}, {4, 6}, "RS(1)"),
      call("sum", "aten.add.Tensor", {ref("relu"), ref("p")}, {4, 6}, "P(sum)R"),
  };
  Plan plan = planOf({2, 2}, nodes,
                     nlohmann::json::array({{{"node", "relu"}, {"input", 0}, {"from", "S(0)R"}, {"to", "RR"}}}), "sum");
  const ReplicaPlan rp = replicaClasses(plan, {});
  REQUIRE(rp.enabled);
  auto holds = [&](const char* n) { return rp.holds.at(plan.graph.find(n)); };
  CHECK(holds("a") == D1);
  CHECK(holds("w") == BOTH);
  CHECK(holds("p") == D1);  // Partial(sum) puts zeros off coordinate 0 of dim 0
  CHECK(holds("mm") == D1);
  CHECK(holds("relu") == BOTH);  // the all_gather along dim 0 joins dim 0
  CHECK(holds("drop") == 0);     // random: never shared
  CHECK(holds("z") == D0);       // RS(1): the local shape follows dim 1
  CHECK(holds("sum") == D1);
  // relu's all_gather along dim 0 runs on the group of coordinate 0 along dim 1 only: ranks 0 and 2.
  const int relu = plan.graph.find("relu");
  CHECK(rp.runsEdge(relu, 0, 0));
  CHECK_FALSE(rp.runsEdge(relu, 0, 1));
  CHECK(rp.runsEdge(relu, 0, 2));
  CHECK_FALSE(rp.runsEdge(relu, 0, 3));
  for (int r = 0; r < 4; ++r) CHECK(rp.computes(relu, r) == (r == 0));
  // Rank 0 computes relu from its own gather; rank 2 ran the gather but does not compute relu: nobody takes.
  CHECK(rp.edgeTakers(relu, 0, 0) == 0);
}

TEST_CASE("replica classes: a rank that computes a node takes an input whose collective it does not run",
          "[replica]") {
  // a RR, all-reduced along dim 0 (P(sum)R -> RR) into add, whose other input b is RS(0): add is computed by the
  // ranks with coordinate 0 on dim 0 (0 and 1); the all_reduce runs on the group {0, 2} only (coordinate 0 on
  // dim 1), so rank 1 takes the reduced value from rank 0.
  nlohmann::json nodes = {ph("a", {1, 6}, "RR"), ph("b", {2, 6}, "RS(0)"),
                          call("add", "aten.add.Tensor", {ref("a"), ref("b")}, {2, 6}, "RS(0)"),
                          call("loss", "aten.sum.default", {ref("add")}, nlohmann::json::array(), "RR")};
  Plan plan = planOf({2, 2}, nodes,
                     nlohmann::json::array({{{"node", "add"}, {"input", 0}, {"from", "P(sum)R"}, {"to", "RR"}}}), "loss");
  const ReplicaPlan rp = replicaClasses(plan, {});
  const int add = plan.graph.find("add");
  CHECK(rp.holds.at(add) == D0);
  CHECK(rp.edgeShare[add][0] == BOTH);
  for (int r = 0; r < 4; ++r) {
    CHECK(rp.computes(add, r) == (r == 0 || r == 1));
    CHECK(rp.runsEdge(add, 0, r) == (r == 0 || r == 2));
  }
  CHECK(rp.edgeTakers(add, 0, 0) == 1);  // rank 1
  CHECK_FALSE(rp.isLeader(rp.edgeShare[add][0], 2));  // rank 2 runs the all_reduce and publishes nothing
}

TEST_CASE("replica classes: an in-place op or an AutoSP tag", "[replica]") {
  nlohmann::json nodes = {ph("a", {4, 6}, "R"), ph("b", {4, 6}, "R"),
                          call("add_", "aten.add_.Tensor", {ref("a"), ref("b")}, {4, 6}, "R")};
  const ReplicaPlan off = replicaClasses(planOf({2}, nodes, nlohmann::json::array(), "add_"), {});
  CHECK_FALSE(off.enabled);
  CHECK(off.whyNot == "node add_ writes a tensor in place");
  CHECK(off.share.at(2) == 0);
  CHECK(off.busiestWorkers() == 2);

  nlohmann::json plain = {ph("a", {4, 6}, "R"), call("r", "aten.relu.default", {ref("a")}, {4, 6}, "R")};
  Plan tagged = planOf({2}, plain, nlohmann::json::array(), "r");
  tagged.tags[0] = AutoSpTag{"seq", 1};
  const ReplicaPlan rp = replicaClasses(tagged, {});
  CHECK(rp.holds.at(0) == 0);
  CHECK(rp.holds.at(1) == 0);
  CHECK(replicaClasses(planOf({2}, plain, nlohmann::json::array(), "r"), {}).holds.at(1) == D0);
}

TEST_CASE("random ops are recognised by name", "[replica]") {
  for (const char* op : {"rand", "randn_like", "randint", "randperm", "dropout", "native_dropout", "bernoulli",
                         "normal", "uniform_", "multinomial", "poisson", "exponential_"})
    CHECK(isRandomOp(op));
  for (const char* op : {"mm", "add", "relu", "sum", "index_put", "arange", "full", "embedding"})
    CHECK_FALSE(isRandomOp(op));
}
