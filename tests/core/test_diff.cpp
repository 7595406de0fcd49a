// The plan diff (core/plan/diff.h): matching, every change kind, cost ownership, diagnostics appearing and disappearing.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "core/plan/diff.h"
#include "core/gen/llama.h"
#include "core/io/load/load.h"
#include "plan_text.h"

using namespace ss;
using ss::test::call;
using ss::test::ph;
using ss::test::planOf;
using ss::test::ref;

namespace {

Plan sample(const char* name) {
  auto p = loadPlanFile(std::string(SHARDSCOPE_SAMPLES_DIR) + "/" + name);
  if (!p.ok()) throw std::runtime_error(p.error().toString(name));
  Plan plan = std::move(p.value());
  plan.normalizeSpecs();
  return plan;
}

// x [8, 4] -> relu (S(0)) -> mm with w -> out, on a 1-D mesh of 2.
nlohmann::json chain(const std::string& reluSpec, const std::string& mmIn0 = "S(0)") {
  return nlohmann::json::array({ph("x", {8, 4}, "S(0)"), ph("w", {4, 4}, "R", "param"),
                                call("r", "aten.relu.default", {ref("x")}, {8, 4}, reluSpec),
                                call("m", "aten.mm.default", {ref("r"), ref("w")}, {8, 4}, "S(0)",
                                     nlohmann::json::array({mmIn0, "R"}))});
}

std::vector<std::string> kinds(const PlanDiff& d) {
  std::vector<std::string> out;
  for (const PlanChange& c : d.changes) out.push_back(changeKindName(c.kind));
  return out;
}

}  // namespace

TEST_CASE("diff: a plan against itself is the same", "[diff]") {
  const Plan a = sample("falcon_index_put_2d.plan.json");
  const PlanDiff d = diffPlans(a, a);
  CHECK(d.same());
  CHECK(d.matchedByName == a.graph.size());
  CHECK(d.matchedByStructure == 0);
  CHECK(d.onlyA == 0);
  CHECK(d.onlyB == 0);
  CHECK(d.diagnosticsA.items.size() == d.diagnosticsB.items.size());
  CHECK(d.bytesBefore == d.bytesAfter);
}

TEST_CASE("diff: change kind names are stable", "[diff]") {
  CHECK(std::string(changeKindName(ChangeKind::Mesh)) == "mesh");
  CHECK(std::string(changeKindName(ChangeKind::NodeRemoved)) == "node-removed");
  CHECK(std::string(changeKindName(ChangeKind::NodeAdded)) == "node-added");
  CHECK(std::string(changeKindName(ChangeKind::OutputSpec)) == "output-spec");
  CHECK(std::string(changeKindName(ChangeKind::InputSpec)) == "input-spec");
  CHECK(std::string(changeKindName(ChangeKind::RedistributeAdded)) == "redistribute-added");
  CHECK(std::string(changeKindName(ChangeKind::RedistributeRemoved)) == "redistribute-removed");
  CHECK(std::string(changeKindName(ChangeKind::RedistributeChanged)) == "redistribute-changed");
  CHECK(std::string(changeKindName(ChangeKind::AutoSpTag)) == "autosp-tag");
  CHECK(std::string(matchMethodName(MatchMethod::Structure)) == "structure");
}

TEST_CASE("diff: an output spec change owns its outgoing edge's cost", "[diff]") {
  // A: relu S(0) feeds mm wanting S(0): no communication. B: relu S(1) feeds mm wanting S(0).
  const Plan a = planOf({2}, chain("S(0)"));
  const Plan b = planOf({2}, chain("S(1)"));
  const PlanDiff d = diffPlans(a, b);
  REQUIRE(kinds(d) == std::vector<std::string>{"output-spec"});
  const PlanChange& c = d.changes[0];
  CHECK(c.nodeA == a.graph.find("r"));
  CHECK(c.output == 0);
  CHECK(c.before == "S(0)");
  CHECK(c.after == "S(1)");
  // The plan is native and has no redistribute on that edge: a missing one performs nothing (it is an error).
  CHECK(c.bytesDelta() == 0);
  CHECK(d.diagnosticsRemoved.empty());
  REQUIRE(d.diagnosticsAdded.size() == 3);
  const auto& added = d.diagnosticsB.items;
  CHECK(added[static_cast<size_t>(d.diagnosticsAdded[0])].kind == DiagKind::OutputSpecMismatch);
  CHECK(added[static_cast<size_t>(d.diagnosticsAdded[0])].node == b.graph.find("r"));
  CHECK(added[static_cast<size_t>(d.diagnosticsAdded[1])].kind == DiagKind::MissingRedistribute);
  CHECK(added[static_cast<size_t>(d.diagnosticsAdded[1])].node == b.graph.find("m"));
  CHECK(added[static_cast<size_t>(d.diagnosticsAdded[1])].input == 0);
  CHECK(added[static_cast<size_t>(d.diagnosticsAdded[2])].kind == DiagKind::IncompatibleInputs);

  // As a solver's export the edge's transition is planned (its apply pass inserts it): the output spec change owns
  // the all_to_all it causes, 32 bytes per rank ([8, 4] f32 on 2 ranks: half of each [8, 2] shard).
  Plan sa = a, sb = b;
  sa.sourceFormat = sb.sourceFormat = PlanFormat::AutoparallelJson;
  const PlanDiff ds = diffPlans(sa, sb);
  REQUIRE(kinds(ds) == std::vector<std::string>{"output-spec"});
  CHECK(ds.changes[0].bytesBefore == 0);
  CHECK(ds.changes[0].bytesAfter == 32);
  CHECK(ds.changes[0].collectivesAfter.rfind("all_to_all on mesh dim 0", 0) == 0);
  CHECK(ds.bytesAfter - ds.bytesBefore == 32);
}

TEST_CASE("diff: a redistribute added owns its edge; input spec, removal and change", "[diff]") {
  const nlohmann::json redist = nlohmann::json::array({{{"node", "m"}, {"input", 0}, {"from", "S(1)"}, {"to", "S(0)"}}});
  const Plan a = planOf({2}, chain("S(1)"));
  const Plan b = planOf({2}, chain("S(1)"), redist);
  const PlanDiff d = diffPlans(a, b);
  REQUIRE(kinds(d) == std::vector<std::string>{"redistribute-added"});
  const PlanChange& c = d.changes[0];
  CHECK(c.input == 0);
  CHECK(c.before.empty());
  CHECK(c.after == "S(1) -> S(0)");
  // all_to_all of an [8, 4] f32 on 2 ranks: each sends half its [4, 4] shard, 32 bytes.
  CHECK(c.bytesBefore == 0);
  CHECK(c.bytesAfter == 32);
  CHECK(c.timeDeltaUs() > 0);
  CHECK(c.collectivesAfter.rfind("all_to_all on mesh dim 0", 0) == 0);
  CHECK(d.bytesAfter - d.bytesBefore == 32);
  // The missing redistribute is gone.
  REQUIRE(d.diagnosticsRemoved.size() >= 1);
  bool missingGone = false;
  for (int k : d.diagnosticsRemoved) missingGone |= d.diagnosticsA.items[static_cast<size_t>(k)].kind == DiagKind::MissingRedistribute;
  CHECK(missingGone);
  CHECK(d.diagnosticsAdded.empty());

  const PlanDiff back = diffPlans(b, a);
  REQUIRE(kinds(back) == std::vector<std::string>{"redistribute-removed"});
  CHECK(back.changes[0].before == "S(1) -> S(0)");
  CHECK(back.changes[0].bytesDelta() == -32);

  // The consumer now wants S(1) on input 0 and no redistribute: an input spec change and the redistribute removed;
  // the redistribute change owns the edge's cost.
  const Plan c2 = planOf({2}, chain("S(1)", "S(1)"));
  const PlanDiff d2 = diffPlans(b, c2);
  REQUIRE(kinds(d2) == std::vector<std::string>{"input-spec", "redistribute-removed"});
  CHECK(d2.changes[0].before == "S(0)");
  CHECK(d2.changes[0].after == "S(1)");
  CHECK(d2.changes[0].bytesDelta() == 0);
  CHECK(d2.changes[1].bytesDelta() == -32);

  const nlohmann::json redist2 = nlohmann::json::array({{{"node", "m"}, {"input", 0}, {"from", "S(1)"}, {"to", "R"}}});
  const Plan e = planOf({2}, chain("S(1)", "R"), redist2);
  const PlanDiff d3 = diffPlans(b, e);
  REQUIRE(kinds(d3) == std::vector<std::string>{"input-spec", "redistribute-changed"});
  CHECK(d3.changes[1].before == "S(1) -> S(0)");
  CHECK(d3.changes[1].after == "S(1) -> R");
  // all_gather of the [8, 4] f32 from [4, 4] shards: each rank sends its 64 bytes.
  CHECK(d3.changes[1].bytesAfter == 64);
}

TEST_CASE("diff: an input spec spelled out equal to its producer's is no change", "[diff]") {
  nlohmann::json bare = chain("S(0)");
  bare[3].erase("input_specs");
  const Plan a = planOf({2}, bare);
  const Plan b = planOf({2}, chain("S(0)"));  // declares S(0) and R: what the producers deliver
  CHECK(diffPlans(a, b).changes.empty());
  // Declared against what arrives: a change, the undeclared side shown as produced.
  const Plan c = planOf({2}, chain("S(0)", "R"));
  const PlanDiff d = diffPlans(a, c);
  REQUIRE(kinds(d) == std::vector<std::string>{"input-spec"});
  CHECK(d.changes[0].input == 0);
  CHECK(d.changes[0].before == "S(0) (as produced)");
  CHECK(d.changes[0].after == "R");
}

TEST_CASE("diff: renamed nodes match by structure, added and removed nodes are listed", "[diff]") {
  const Plan a = planOf({2}, chain("S(0)"));
  Plan b = a;
  for (Node& n : b.graph.nodes) n.name = "renamed_" + n.name;
  b.graph.reindex();
  const PlanDiff d = diffPlans(a, b);
  CHECK(d.matchedByName == 0);
  CHECK(d.matchedByStructure == a.graph.size());
  CHECK(d.same());

  // B inserts a neg between relu and mm: relu and the placeholders match by name, neg is added, mm (now reading
  // neg) still matches by name; the output node too.
  nlohmann::json nodes = chain("S(0)");
  nodes.insert(nodes.begin() + 3, call("n", "aten.neg.default", {ref("r")}, {8, 4}, "S(0)"));
  nodes[4]["args"][0] = ref("n");
  const Plan c = planOf({2}, nodes);
  const PlanDiff d2 = diffPlans(a, c);
  REQUIRE(kinds(d2) == std::vector<std::string>{"node-added"});
  CHECK(d2.changes[0].nodeB == c.graph.find("n"));
  CHECK(d2.changes[0].after == "aten.neg.default");
  CHECK(d2.onlyB == 1);
  CHECK(d2.onlyA == 0);
  const PlanDiff d3 = diffPlans(c, a);
  REQUIRE(kinds(d3) == std::vector<std::string>{"node-removed"});
  CHECK(d3.changes[0].nodeA == c.graph.find("n"));
}

TEST_CASE("diff: seed 2's AutoSP tags as shipped against fixed", "[diff][autosp]") {
  const Plan a = sample("autosp_seq_first.plan.json");
  const Plan b = sample("autosp_seq_first_fixed.plan.json");
  const PlanDiff d = diffPlans(a, b);
  REQUIRE_FALSE(d.changes.empty());
  int tags = 0;
  for (const PlanChange& c : d.changes) {
    if (c.kind != ChangeKind::AutoSpTag) continue;
    ++tags;
    CHECK(c.after.find(", 0)") != std::string::npos);
    CHECK(c.before.find('(') == std::string::npos);  // a bare tag
  }
  CHECK(tags == static_cast<int>(a.tags.size()));
  bool seqDimGone = false;
  for (int k : d.diagnosticsRemoved) seqDimGone |= d.diagnosticsA.items[static_cast<size_t>(k)].kind == DiagKind::SeqDimMismatch;
  CHECK(seqDimGone);
}

TEST_CASE("diff: a mesh change comes first and costs land in the totals", "[diff]") {
  const Plan a = planOf({2}, chain("S(0)"));
  const Plan b = planOf({4}, chain("S(0)"));
  const PlanDiff d = diffPlans(a, b);
  REQUIRE_FALSE(d.changes.empty());
  CHECK(d.changes[0].kind == ChangeKind::Mesh);
  CHECK(d.changes[0].before == a.mesh.toString());
  CHECK(d.changes[0].after == b.mesh.toString());
}

TEST_CASE("diff: JSON and text of a one-change diff", "[diff]") {
  const nlohmann::json redist = nlohmann::json::array({{{"node", "m"}, {"input", 0}, {"from", "S(1)"}, {"to", "S(0)"}}});
  const Plan a = planOf({2}, chain("S(1)"));
  const Plan b = planOf({2}, chain("S(1)"), redist);
  const PlanDiff d = diffPlans(a, b);
  const nlohmann::json j = diffToJson(a, b, d);
  REQUIRE(j["changes"].size() == 1);
  const auto& c = j["changes"][0];
  CHECK(c["kind"] == "redistribute-added");
  CHECK(c["node"] == "m");
  CHECK(c["input"] == 0);
  CHECK(c["before"].is_null());
  CHECK(c["after"] == "S(1) -> S(0)");
  CHECK(c["bytes_delta"] == 32);
  CHECK(c["cost_delta_us"].get<double>() == Approx(d.changes[0].timeDeltaUs()));
  CHECK(j["match"]["by_name"] == a.graph.size());
  CHECK(j["summary"]["same"] == false);
  CHECK(j["summary"]["by_kind"]["redistribute-added"] == 1);
  CHECK(j["diagnostics"]["added"].empty());
  CHECK(j["diagnostics"]["removed"].size() == d.diagnosticsRemoved.size());
  const std::string text = diffToText(a, b, d);
  CHECK(text.find("1 change:\n  redistribute-added: m (input 0): redistribute added S(1) -> S(0) [unknown]\n") !=
        std::string::npos);
  CHECK(text.find("cost +32 B, +") != std::string::npos);
}

TEST_CASE("diff: a generated plan against a perturbed copy", "[diff][gen]") {
  const Plan a = gen::makeLlamaPlan(gen::LlamaOptions::small(2));
  Plan b = a;
  // Perturb: drop one redistribute, rename one node.
  REQUIRE_FALSE(b.redistributes.empty());
  const Redistribute dropped = b.redistributes[b.redistributes.size() / 2];
  b.redistributes.erase(b.redistributes.begin() + static_cast<long>(b.redistributes.size() / 2));
  b.graph.nodes[10].name += "_renamed";
  b.graph.reindex();
  const PlanDiff d = diffPlans(a, b);
  CHECK(d.matchedByName == a.graph.size() - 1);
  CHECK(d.matchedByStructure == 1);
  CHECK(d.aToB[10] == 10);
  REQUIRE(kinds(d) == std::vector<std::string>{"redistribute-removed"});
  CHECK(d.changes[0].nodeA == dropped.node);
  CHECK(d.changes[0].input == dropped.input);
  CHECK(d.changes[0].bytesAfter == 0);
  CHECK(d.bytesAfter - d.bytesBefore == d.changes[0].bytesDelta());
}
