// The shipped samples: seed 1 (falcon index_put on a 2x4 mesh) checks with exactly its two errors and fixes to
// a clean plan; the teaching samples check clean and each carries its collective.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "core/check/report.h"
#include "core/check/check.h"
#include "core/plan/fix.h"
#include "core/io/load/load.h"

using namespace ss;

namespace {

Plan loadSample(const std::string& name) {
  auto p = loadPlanFile(std::string(SHARDSCOPE_SAMPLES_DIR) + "/" + name);
  if (!p.ok()) FAIL(p.error().toString(name));
  return std::move(p.value());
}

}  // namespace

TEST_CASE("seed 1: index_put gets RS(0) and RS(1) with no redistribute", "[check][seed1]") {
  Plan plan = loadSample("falcon_index_put_2d.plan.json");
  CHECK(plan.executable());
  const int ip = plan.graph.find("index_put");
  REQUIRE(ip >= 0);
  Diagnostics d = checkPlan(plan);
  REQUIRE(d.items.size() == 2);
  CHECK(d.summary().errors == 2);

  const Diagnostic& miss = d.items[0];
  CHECK(miss.kind == DiagKind::MissingRedistribute);
  CHECK(miss.node == ip);
  CHECK(miss.input == 2);
  CHECK(miss.have->toMeshString() == "RS(1)");
  CHECK(miss.want->toMeshString() == "RS(0)");
  CHECK(miss.message == "sum_2 delivers RS(1) but index_put consumes input 2 as RS(0), and the plan has no "
                        "redistribute on this edge");
  // The fix names the all-to-all on mesh dim 1 with its bytes and time from the cost model.
  TensorMeta values{{16, 128, 1, 64}, DType::BF16};
  RedistributePlan rp = planRedistribute(values, plan.mesh, *miss.have, *miss.want);
  REQUIRE(rp.steps.size() == 1);
  CHECK(rp.steps[0].kind == CollectiveKind::AllToAll);
  CHECK(rp.steps[0].meshDim == 1);
  CHECK(rp.totalBytes() > 0);
  CHECK(miss.fix == "insert a redistribute RS(1) -> RS(0): all_to_all on mesh dim 1 (dim1), Shard(1) -> Shard(0), " +
                        formatBytes(rp.totalBytes()) + " per rank, " + formatTimeUs(rp.totalTimeUs()));

  const Diagnostic& inc = d.items[1];
  CHECK(inc.kind == DiagKind::IncompatibleInputs);
  CHECK(inc.severity == Severity::Error);
  CHECK(inc.node == ip);
  CHECK(inc.input == 2);
  CHECK(inc.have->toMeshString() == "RS(1)");
  CHECK(inc.want->toMeshString() == "RS(0)");
  CHECK(inc.message.find("values have local shape [16, 32, 1, 64] but the slots they fill in self have "
                         "[4, 128, 1, 64]") != std::string::npos);
  CHECK(inc.fix.find("all_to_all on mesh dim 1 (dim1), Shard(1) -> Shard(0)") != std::string::npos);

  nlohmann::json j = diagnosticsToJson(plan, d);
  CHECK(j["summary"]["errors"] == 2);
  CHECK(j["diagnostics"][0]["node"] == "index_put");
  CHECK(j["diagnostics"][0]["input"] == 2);
  CHECK(j["diagnostics"][0]["kind"] == "missing-redistribute");
  CHECK(j["diagnostics"][1]["have"] == "RS(1)");
  CHECK(j["diagnostics"][1]["want"] == "RS(0)");
  std::string text = diagnosticsToText(plan, d);
  CHECK(text.rfind("error: index_put (input 2) [missing-redistribute]: sum_2 delivers RS(1)", 0) == 0);
  CHECK(text.find("\n2 errors, 0 warnings, 0 infos\n") != std::string::npos);
}

TEST_CASE("seed 1: the fix planner inserts the all_to_all and nothing else", "[check][fix][seed1]") {
  Plan plan = loadSample("falcon_index_put_2d.plan.json");
  FixPlan fix = planFix(plan);
  REQUIRE(fix.steps.size() == 1);
  CHECK(fix.steps[0].rfind("insert redistribute RS(1) -> RS(0) at index_put input 2: all_to_all on mesh dim 1", 0) == 0);
  CHECK(fix.remaining.items.empty());
  for (const Command& c : fix.batch.commands) REQUIRE(applyCommand(plan, c).ok());
  const Redistribute* r = plan.findRedistribute(plan.graph.find("index_put"), 2);
  REQUIRE(r != nullptr);
  CHECK(r->from.toMeshString() == "RS(1)");
  CHECK(r->to.toMeshString() == "RS(0)");
  CHECK(checkPlan(plan).items.empty());
}

TEST_CASE("teaching samples: each collective kind is present and the plan checks clean", "[check][samples]") {
  const std::pair<const char*, CollectiveKind> samples[] = {{"teach_all_gather", CollectiveKind::AllGather},
                                                            {"teach_all_reduce", CollectiveKind::AllReduce},
                                                            {"teach_reduce_scatter", CollectiveKind::ReduceScatter},
                                                            {"teach_all_to_all", CollectiveKind::AllToAll}};
  for (const auto& [name, kind] : samples) {
    INFO(name);
    Plan plan = loadSample(std::string(name) + ".plan.json");
    CHECK(plan.executable());
    CHECK(checkPlan(plan).items.empty());
    bool found = false;
    for (const Redistribute& r : plan.redistributes) {
      const TensorMeta* m = plan.graph.meta(plan.graph.inputs(r.node)[r.input]);
      REQUIRE(m != nullptr);
      for (const auto& s : planRedistribute(*m, plan.mesh, r.from, r.to).steps) found |= s.kind == kind;
    }
    CHECK(found);
    // Without its redistributes the plan is broken at exactly those edges.
    Plan broken = plan;
    broken.redistributes.clear();
    Diagnostics d = checkPlan(broken);
    CHECK(d.hasErrors());
    int missing = 0;
    for (const auto& x : d.items) missing += x.kind == DiagKind::MissingRedistribute;
    CHECK(missing == static_cast<int>(plan.redistributes.size()));
  }
}

TEST_CASE("seed 2: AutoSP samples, bare tags on sequence-first inputs", "[check][autosp]") {
  Plan seqFirst = loadSample("autosp_seq_first.plan.json");
  // Every AutoSP sample's loss is a mean over the sharded sequence: a data-dependent-mean warning and DTensor's
  // replication of a mean nll_loss (info) at the loss, and nothing else where the plan is right.
  auto apartFromLoss = [](Diagnostics d) {
    int loss = 0;
    std::erase_if(d.items, [&](const Diagnostic& x) {
      const bool isLoss = x.kind == DiagKind::DataDependentMean || x.kind == DiagKind::ImplicitRedistribute;
      loss += isLoss;
      return isLoss;
    });
    CHECK(loss == 2);
    return d;
  };
  Diagnostics d = apartFromLoss(checkPlan(seqFirst));
  REQUIRE(d.items.size() == 2);
  for (const auto& x : d.items) {
    CHECK(x.kind == DiagKind::SeqDimMismatch);
    CHECK(x.severity == Severity::Error);
    CHECK(x.message.find("a bare key: AutoSP slices dim 1") != std::string::npos);
    CHECK(x.want->toMeshString() == "S(0)");
  }
  CHECK(seqFirst.graph.nodes[d.items[0].node].name == "input_ids");
  CHECK(seqFirst.graph.nodes[d.items[1].node].name == "labels");
  CHECK(apartFromLoss(checkPlan(loadSample("autosp_seq_first_fixed.plan.json"))).items.empty());
  CHECK(apartFromLoss(checkPlan(loadSample("autosp_batch_first.plan.json"))).items.empty());

  // The fix retags both inputs with dim 0, which is what the fixed sample carries.
  FixPlan f = planFix(seqFirst);
  CHECK(!f.remaining.hasErrors());
  for (const Command& c : f.batch.commands) REQUIRE(applyCommand(seqFirst, c).ok());
  Plan fixed = loadSample("autosp_seq_first_fixed.plan.json");
  for (const auto& [node, tag] : fixed.tags) {
    int n = seqFirst.graph.find(fixed.graph.nodes[node].name);
    REQUIRE(seqFirst.tags.count(n));
    CHECK(seqFirst.tags.at(n).effectiveDim() == tag.effectiveDim());
  }
}
