// The applied graph checked against its plan (core/applied/): seed 1 from its TORCH_TRACE log, group mapping,
// node matching, unplanned collectives, local shapes, an applied graph alone, the export-only variants.
#include <catch2/catch.hpp>

#include "test_data.h"
#include "trace_cases.h"

#include "core/applied/applied.h"
#include "core/applied/session.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/model/placement_parse.h"

using namespace ss;

using ss::test::kSeed1Error;
using ss::test::kTl;
using ss::test::trace;

namespace {
std::string readTrace(const std::string& name) { return test::readFile(trace(name)); }

AppliedSession session(const std::string& primary) {
  SessionInputs in;
  in.primary = primary;
  auto s = loadSession(in);
  INFO((s.ok() ? "" : s.error().toString()));
  REQUIRE(s.ok());
  return std::move(*s);
}

std::vector<std::string> kindsAt(const Plan& p, const Diagnostics& d, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& x : d.items)
    if (std::string(diagKindName(x.kind)).rfind(prefix, 0) == 0 || prefix.empty())
      out.push_back(std::string(diagKindName(x.kind)) + "@" + (x.node >= 0 ? p.graph.nodes[x.node].name : "-") + ":" + std::to_string(x.input));
  return out;
}
}  // namespace

TEST_CASE("each rank's applied graph is checked at its coordinate", "[applied][cli]") {
  AppliedSession s = session(trace("seed1_ranks"));
  REQUIRE(s.applied.size() == 2);
  CHECK(s.applied[0].rank == 0);
  CHECK(s.applied[0].coord == std::vector<int64_t>{0, 0});
  CHECK(s.applied[1].rank == 5);
  CHECK(s.applied[1].coord == std::vector<int64_t>{1, 1});
  Diagnostics d = checkSession(s);
  CHECK(kindsAt(s.plan, d, "transition") ==
        std::vector<std::string>{"transition-not-applied@index_put:2", "transition-not-applied@index_put:2"});
  // Rank 5's getitem takes chunk 1 of the gathered view: its shape is still the plan's, so nothing else is flagged.
  CHECK(kindsAt(s.plan, d, "local-shape") == std::vector<std::string>{});
}

TEST_CASE("applied nodes match plan nodes by compute order; collectives are mapped and costed", "[applied]") {
  AppliedSession s = session(trace("seed1_applied.log"));
  REQUIRE(s.applied.size() == 1);
  CHECK(checkSession(s).summary().errors == 0);  // judging claims each collective for its transition
  const AppliedGraph& a = s.applied[0];
  CHECK(a.matched == 26);
  CHECK(a.planNodes == 26);
  // t was traced as permute; names were re-made.
  CHECK(a.appliedOf[s.plan.graph.find("t")] == a.graph.graph.find("permute"));
  CHECK(a.appliedOf[s.plan.graph.find("t_1")] == a.graph.graph.find("permute_1"));
  CHECK(a.appliedOf[s.plan.graph.find("mm_1")] == a.graph.graph.find("mm_1"));
  REQUIRE(a.collectives.size() == 4);
  const AppliedCollective& ata = a.collectives[0];
  CHECK(a.graph.graph.nodes[ata.node].name == "shard_dim_alltoall");
  CHECK(ata.kind == CollectiveKind::AllToAll);
  CHECK(ata.groupSize == 4);  // from its shapes: [16, 32, 1, 64] -> [4, 128, 1, 64]
  CHECK(ata.meshDim == 1);
  CHECK(ata.bytes == 49152);  // docs/cost-model.md example 1
  CHECK(ata.planConsumer == s.plan.graph.find("index_put"));
  CHECK(ata.planInput == 2);
  const AppliedCollective& ag = a.collectives[2];
  CHECK(ag.kind == CollectiveKind::AllGather);
  CHECK(ag.meshDim == 0);
  CHECK(ag.wait == a.graph.graph.find("wait_tensor"));
  CHECK(ag.bytes == 1024 * 4672 * 2);
  // The weight gradient's reduction to its parameter's RR, before the output.
  const AppliedCollective& ar = a.collectives[3];
  CHECK(ar.kind == CollectiveKind::AllReduce);
  CHECK(ar.meshDim == 1);
  CHECK(ar.wait == a.graph.graph.find("wait_tensor_1"));
  CHECK(ar.planConsumer == s.plan.graph.outputNode());
  CHECK(ar.planInput == 1);
  auto totals = a.totals();
  REQUIRE(totals.size() == 3);
  CHECK(totals[0].kind == CollectiveKind::AllGather);
  CHECK(totals[0].meshDim == 0);
  CHECK(totals[1].kind == CollectiveKind::AllReduce);
  CHECK(totals[1].count == 1);
  CHECK(totals[2].kind == CollectiveKind::AllToAll);
  CHECK(totals[2].count == 2);
}

TEST_CASE("a collective no transition explains is an unplanned-collective warning", "[applied]") {
  AppliedSession s = session(trace("seed1_applied.log"));
  // The plan now takes slice_scatter's tangents as they come (RS(1)): the applied all-to-all is unexplained.
  Plan plan = s.plan;
  const int ss = plan.graph.find("slice_scatter");
  plan.specs[ss].inputs[1] = parseSpec("RS(1)").value();
  AppliedGraph a = analyzeApplied(plan, s.applied[0].graph);
  Diagnostics d = checkApplied(plan, a);
  CHECK(kindsAt(plan, d, "") == std::vector<std::string>{"unplanned-collective@slice_scatter:1"});
  CHECK(d.items[0].severity == Severity::Warning);
  CHECK(d.items[0].message ==
        "the applied graph's 'shard_dim_alltoall_1' (all_to_all (shard_dim_alltoall) on mesh dim 1 (dim1), group '2', "
        "3.3 MiB per rank, 32.3 us) performs no transition the plan has (it feeds slice_scatter)");
}

TEST_CASE("an applied shape that is not the plan's layout is a local-shape-mismatch", "[applied]") {
  AppliedSession s = session(trace("seed1_applied.log"));
  std::string text = readTrace("seed1_applied_only.txt");
  const std::string from = "full: \"bf16[4, 128, 73, 64]";
  text.replace(text.find(from), from.size(), "full: \"bf16[8, 128, 73, 64]");
  auto applied = readFxText(text);
  REQUIRE(applied.ok());
  AppliedGraph a = analyzeApplied(s.plan, *applied);
  Diagnostics d = checkApplied(s.plan, a);
  REQUIRE(kindsAt(s.plan, d, "") == std::vector<std::string>{"local-shape-mismatch@full:-1"});
  CHECK(d.items[0].message ==
        "on rank 0 (0, 0) the applied graph's 'full' has local shape [8, 128, 73, 64]; the plan's RS(0) of "
        "[16, 128, 73, 64] gives [4, 128, 73, 64]");
}

TEST_CASE("group names map to mesh dims by size, elimination and --group", "[applied]") {
  auto coll = [](const char* group, int64_t size) {
    AppliedCollective c;
    c.kind = CollectiveKind::AllGather;
    c.group = group;
    c.groupSize = size;
    return c;
  };
  DeviceMesh m24({2, 4});
  std::vector<AppliedCollective> cs{coll("7", 4), coll("3", 2), coll("9", 8)};
  auto g = mapGroups(cs, m24, {});
  REQUIRE(g.size() == 3);
  CHECK(g[0].group == "3");
  CHECK(g[0].meshDim == 0);
  CHECK(g[1].meshDim == 1);
  CHECK(g[2].meshDim == -2);  // the flattened mesh
  CHECK(g[2].how == "size (the flattened mesh)");
  // 4x4: sizes cannot tell; an all_reduce's group (no size) neither.
  DeviceMesh m44({4, 4});
  std::vector<AppliedCollective> amb{coll("1", 4), coll("2", 4)};
  auto ga = mapGroups(amb, m44, {});
  CHECK(ga[0].meshDim == -1);
  CHECK(ga[0].how == "ambiguous: mesh dims 0 1 fit (pass --group 1=MESHDIM)");
  auto go = mapGroups(amb, m44, {{"1", 1}});
  CHECK(go[0].meshDim == 1);
  CHECK(go[0].how == "--group");
  CHECK(go[1].meshDim == 0);
  CHECK(go[1].how == "elimination");
  // The mesh an applied graph alone implies: one dim per group, the flattened group left out.
  std::map<std::string, int> dims;
  auto inferred = inferMesh(cs, &dims);
  REQUIRE(inferred);
  CHECK(inferred->shape() == std::vector<int64_t>{2, 4});
  CHECK(dims == std::map<std::string, int>{{"3", 0}, {"7", 1}});
}

TEST_CASE("per-transition records: what the applied graph did on each planned edge", "[applied]") {
  AppliedSession s = session(trace("seed1_missing.log"));
  Plan& plan = s.plan;
  AppliedGraph& a = s.applied[0];
  checkApplied(plan, a);
  REQUIRE(a.transitions.size() == 4);
  const AppliedTransition* ip = a.transitionAt(plan.graph.find("index_put"), 2);
  REQUIRE(ip);
  CHECK(ip->state == TransitionState::Missing);
  CHECK(std::string(transitionStateName(ip->state)) == "missing");
  REQUIRE(ip->missing.size() == 1);
  CHECK(ip->missing[0].kind == CollectiveKind::AllToAll);
  CHECK(ip->missing[0].meshDim == 1);
  CHECK(ip->missing[0].bytesSent == 49152);
  CHECK(ip->collectives.empty());
  CHECK(a.graph.graph.nodes[ip->appliedConsumer].name == "index_put");
  CHECK(a.graph.graph.nodes[ip->appliedProducer].name == "sum_1");
  CHECK(ip->label(a.collectives, plan.mesh) == "missing all_to_all dim1 48.0 KiB");
  CHECK(ip->from->toMeshString() == "RS(1)");
  CHECK(ip->to->toMeshString() == "RS(0)");
  CHECK(ip->fix == "the apply pass must insert all_to_all on mesh dim 1 (dim1), 48.0 KiB, 9.3 us on the edge sum_1 -> "
                   "index_put (input 2)");
  const AppliedTransition* sc = a.transitionAt(plan.graph.find("slice_scatter"), 1);
  REQUIRE(sc);
  CHECK(sc->state == TransitionState::Applied);
  REQUIRE(sc->collectives.size() == 1);
  CHECK(a.graph.graph.nodes[a.collectives[sc->collectives[0]].node].name == "shard_dim_alltoall");
  CHECK(sc->label(a.collectives, plan.mesh) == "all_to_all dim1 3.3 MiB 32.3 us");
  CHECK(sc->fix.empty());
  CHECK(a.unplanned.empty());
  CHECK(a.transitionAt(plan.graph.find("index_put"), 0) == nullptr);
  // The weight's gradient (mm_1's Partial over dim1) reduced to its parameter's RR before the output.
  const AppliedTransition* grad = a.transitionAt(plan.graph.outputNode(), 1);
  REQUIRE(grad);
  CHECK(grad->state == TransitionState::Applied);
  REQUIRE(grad->collectives.size() == 1);
  CHECK(a.collectives[grad->collectives[0]].kind == CollectiveKind::AllReduce);
  CHECK(a.collectives[grad->collectives[0]].meshDim == 1);
  // Re-judged from scratch: a second check gives the same records, not twice as many.
  checkApplied(plan, a);
  CHECK(a.transitions.size() == 4);
}

TEST_CASE("an applied graph alone: shard_dim_alltoall's output is checked against its gather and shard dims",
          "[applied]") {
  // seed 1's applied graph: shard_dim_alltoall(sum_1 [16, 32, 1, 64], gather 1, shard 0) on group '2' (4 ranks)
  // declares [4, 128, 1, 64]. Gathered on the wrong tensor dim (2, where sum_1 has size 1), the same declared output
  // is no all-to-all of its input: one shape-mismatch at the collective, none downstream.
  auto errorsAlone = [](const std::string& text) {
    auto applied = readFxText(text);
    REQUIRE(applied.ok());
    AppliedAlone alone = analyzeAppliedAlone(std::move(*applied), std::nullopt);
    Diagnostics d = checkPlan(alone.plan);
    std::vector<std::string> out;
    for (const auto& x : d.items)
      if (x.severity == Severity::Error)
        out.push_back(std::string(diagKindName(x.kind)) + "@" + alone.plan.graph.nodes[x.node].name + ": " + x.message);
    return out;
  };
  std::string text = readTrace("seed1_applied_only.txt");
  CHECK(errorsAlone(text) == std::vector<std::string>{});
  const std::string from = "shard_dim_alltoall.default(sum_1, 1, 0, '2')";
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(), "shard_dim_alltoall.default(sum_1, 2, 0, '2')");
  CHECK(errorsAlone(text) ==
        std::vector<std::string>{"shape-mismatch@shard_dim_alltoall: shard_dim_alltoall declares shape [4, 128, 1, 64], "
                                 "but shard_dim_alltoall of its inputs gives [16, 32, 1, 64]"});
}
