// Fix and save on what a solver really wrote (tests/data/real/: autoparallel's own logs): a solver's plan saved
// natively keeps the transitions it planned as redistributes, so a clean plan stays clean; a user's edit is pinned,
// and the fix works around it or says which edge it cannot fix and why.
#include <catch2/catch.hpp>

#include <set>

#include "core/check/check.h"
#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"
#include "core/model/placement_parse.h"
#include "core/plan/edit.h"
#include "core/plan/fix.h"

using namespace ss;

namespace {

std::string realLog(const std::string& c) {
  const std::string dir = std::string(SHARDSCOPE_TESTDATA_DIR) + "/real/" + c;
  return c == "seed1_buggy" ? dir + "/dedicated_log_torch_trace_rank_0_trj4f_tb.log" : dir + "/rank0.log";
}

Plan loadReal(const std::string& c) {
  auto p = loadPlanFile(realLog(c));
  INFO(c << ": " << (p ? std::string() : p.error().toString(realLog(c))));
  REQUIRE(p.ok());
  return std::move(*p);
}

// The plan as `check` reads the file the writer wrote.
Plan savedAndReread(const Plan& p) {
  auto back = loadPlanText(writePlanString(p), "saved.plan.json");
  INFO((back ? std::string() : back.error().toString("saved.plan.json")));
  REQUIRE(back.ok());
  return std::move(*back);
}

int errors(const Diagnostics& d) {
  int n = 0;
  for (const auto& x : d.items) n += x.severity == Severity::Error;
  return n;
}

// Every real autoparallel log but dsv3_2x2 (below: two transitions no redistribute makes).
const char* const kRealCases[] = {"seed1_fixed", "seed1_buggy", "llama3_1d", "llama3_2d", "conv", "flex_attn"};

Plan seed1WithEdit(const char* spec) {
  Plan p = loadReal("seed1_fixed");
  const int sum1 = p.graph.find("sum_1");
  REQUIRE(sum1 >= 0);
  REQUIRE(applyCommand(p, SetOutputSpec{sum1, 0, *parseSpec(spec)}).ok());
  return p;
}

}  // namespace

TEST_CASE("a solver's plan saved natively keeps its planned transitions as redistributes: clean stays clean",
          "[fix][solver][real]") {
  for (const char* c : kRealCases) {
    INFO(c);
    const Plan p = loadReal(c);
    REQUIRE(p.isSolverSolution());
    CHECK(errors(checkPlan(p)) == 0);
    int required = 0;
    for (const auto& d : checkPlan(p).items) required += d.kind == DiagKind::RedistributeRequired;
    const std::vector<Redistribute> planned = p.plannedTransitions();
    CHECK(static_cast<int>(planned.size()) == required);  // one per edge the checker calls planned
    const Plan back = savedAndReread(p);
    CHECK_FALSE(back.isSolverSolution());
    CHECK(back.redistributes == planned);
    CHECK(errors(checkPlan(back)) == 0);
    // Saved again, the native plan is the same file.
    CHECK(writePlanString(back) == writePlanString(p));
  }
  // Seed 1: the transitions autoparallel's apply pass inserts, index_put's values RS(1) -> RS(0) among them.
  const Plan seed1 = loadReal("seed1_fixed");
  const auto planned = seed1.plannedTransitions();
  CHECK(planned.size() == 5);
  const int indexPut = seed1.graph.find("index_put");
  bool values = false;
  for (const auto& r : planned)
    values |= r.node == indexPut && r.input == 2 && r.from == *parseSpec("RS(1)") && r.to == *parseSpec("RS(0)");
  CHECK(values);
  // A native plan plans nothing by itself.
  CHECK(savedAndReread(seed1).plannedTransitions().empty());
}

TEST_CASE("fix of an unedited real log changes nothing and saves a plan that checks clean", "[fix][solver][real]") {
  for (const char* c : kRealCases) {
    INFO(c);
    const Plan p = loadReal(c);
    FixPlan fix = planFix(p);
    CHECK(fix.steps.empty());
    CHECK(fix.blocked.empty());
    CHECK(errors(checkPlan(savedAndReread(p))) == 0);
  }
}

TEST_CASE("fix keeps a pinned edit on seed 1 and redistributes the edited node's input instead", "[fix][solver][real]") {
  Plan p = seed1WithEdit("RS(0)");
  const int sum1 = p.graph.find("sum_1");
  // The edit alone: sum_1's input arrives RS(1) (the solver's strategy), so sum makes RS(1), not RS(0).
  const Diagnostics before = checkPlan(p);
  CHECK(errors(before) >= 1);
  // Unpinned, the planner would revert the edit (what `fix` did before edits were pinned).
  {
    FixPlan unpinned = planFix(p);
    Plan q = p;
    REQUIRE(applyCommand(q, Command{unpinned.batch}).ok());
    CHECK(q.specs[sum1].outputs[0] == *parseSpec("RS(1)"));
  }
  FixOptions o;
  o.pinned = {PinnedOutput{sum1, 0}};
  FixPlan fix = planFix(p, o);
  INFO(Catch::rangeToString(fix.steps));
  CHECK(fix.blocked.empty());
  CHECK(errors(fix.remaining) == 0);
  REQUIRE(applyCommand(p, Command{fix.batch}).ok());
  CHECK(p.specs[sum1].outputs[0] == *parseSpec("RS(0)"));
  REQUIRE(fix.steps.size() == 1);
  // alias_default delivers RR (the solver planned RR -> RS(1) there): a local chunk into RS(0) instead.
  CHECK(fix.steps[0] == "insert redistribute RR -> RS(0) at sum_1 input 0: chunk on mesh dim 1 (dim1), no communication");
  // Saved and read back as `check` reads it: no error, sum_1 still RS(0), the solver's other transitions kept (not
  // the one into index_put, which the edit made unnecessary: sum_1 now delivers what index_put takes).
  const Plan back = savedAndReread(p);
  CHECK(errors(checkPlan(back)) == 0);
  CHECK(back.specs[back.graph.find("sum_1")].outputs[0] == *parseSpec("RS(0)"));
  CHECK(back.findRedistribute(back.graph.find("index_put"), 2) == nullptr);
  CHECK(back.redistributes.size() == 4);  // 5 planned, less index_put's; sum_1's input RR -> RS(0) for RR -> RS(1)
}

TEST_CASE("fix says which edge it cannot fix around a pinned edit, and why", "[fix][solver][real]") {
  // sum_1 reduces dim 2 to size 1 (keepdim): no input layout makes it Shard(2) on mesh dim 1.
  Plan p = seed1WithEdit("RS(2)");
  const int sum1 = p.graph.find("sum_1");
  FixOptions o;
  o.pinned = {PinnedOutput{sum1, 0}};
  FixPlan fix = planFix(p, o);
  REQUIRE(fix.blocked.size() == 1);
  CHECK(fix.blocked[0] ==
        "sum_1 is pinned to RS(2), and no input specs make sum produce it: input 0 (alias_default) arrives RS(1)");
  CHECK(errors(fix.remaining) >= 1);
  REQUIRE(applyCommand(p, Command{fix.batch}).ok());
  CHECK(p.specs[sum1].outputs[0] == *parseSpec("RS(2)"));  // never reverted
}

TEST_CASE("dsv3_2x2: the two transitions to P(avg)P(avg) that no redistribute makes stay visible when saved",
          "[fix][solver][real]") {
  // autoparallel plans P(sum)P(sum) -> P(avg)P(avg) into add_1093 and add_1094 and applies it as an all-reduce
  // (its apply pass replaces a Partial target by Replicate); DTensor, and so core's planner, cannot change a
  // Partial's reduce op. The log checks clean (they are planned transitions, info); saved natively they are the
  // only errors, bad-redistribute at those two edges, and fix exits 1 on them as check does.
  const Plan p = loadReal("dsv3_2x2");
  CHECK(errors(checkPlan(p)) == 0);
  const Diagnostics saved = checkPlan(savedAndReread(p));
  std::set<std::string> at;
  for (const auto& d : saved.items)
    if (d.severity == Severity::Error) {
      CHECK(d.kind == DiagKind::BadRedistribute);
      CHECK(d.message.find("P(sum)P(sum) -> P(avg)P(avg) is not possible") != std::string::npos);
      at.insert(p.graph.nodes[d.node].name + ":" + std::to_string(d.input));
    }
  CHECK(at == std::set<std::string>{"add_1093:1", "add_1094:1"});
}
