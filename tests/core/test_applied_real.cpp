// The applied graphs autoparallel itself wrote for DeepSeek-V3 (MoE with local_map, 2x2 dp x ep), flex attention
// (1-D mesh of 4) and LLaMA-3 on a 2x4 mesh, tests/data/real/dsv3_2x2, flex_attn and llama3_2d: matched on what the
// apply pass emits (issue 30). Their
// correct logs check without a false transition or collective finding; hand-made variants (the real graph with one
// thing changed, made here in memory) give exactly one error at the right node.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <stdlib.h>

#include "applied_cases.h"
#include "test_data.h"

#include "core/applied/session.h"
#include "core/check/check.h"

using namespace ss;

namespace {

std::string real(const std::string& name) { return test::realCase(name); }

// "severity kind at node:input" for every warning and error.
std::vector<std::string> problems(const Plan& p, const Diagnostics& d) {
  std::vector<std::string> out;
  for (const Diagnostic& x : d.items)
    if (x.severity != Severity::Info)
      out.push_back(std::string(severityName(x.severity)) + " " + diagKindName(x.kind) + " at " +
                    (x.node >= 0 ? p.graph.nodes[x.node].name : std::string("-")) + ":" + std::to_string(x.input));
  return out;
}

// A case's rank-0 log as `shardscope check LOG` reads it.
Diagnostics checkLog(const std::string& c, AppliedSession& out) {
  SessionInputs in;
  in.primary = real(c + "/rank0.log");
  auto s = loadSession(in);
  INFO((s.ok() ? std::string() : s.error().toString()));
  REQUIRE(s.ok());
  out = std::move(*s);
  return checkSession(out);
}

Diagnostics checkWithApplied(const std::string& c, const std::string& applied, AppliedSession& out) {
  return test::checkCaseWithApplied(c, applied, out);
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  return test::replacedOnce(std::move(text), from, to);
}

const Diagnostic* find(const Plan& p, const Diagnostics& d, DiagKind kind, const char* node, int input) {
  for (const Diagnostic& x : d.items)
    if (x.kind == kind && x.node >= 0 && p.graph.nodes[x.node].name == node && x.input == input) return &x;
  return nullptr;
}

// The applied node plan node `name` matched ("-" when none).
std::string imageOf(const Plan& p, const AppliedGraph& a, const char* name) {
  const int i = p.graph.find(name);
  REQUIRE(i >= 0);
  const int j = a.appliedOf[static_cast<size_t>(i)];
  return j >= 0 ? a.graph.graph.nodes[static_cast<size_t>(j)].name : std::string("-");
}

int collectiveNamed(const AppliedGraph& a, const char* name) {
  for (size_t k = 0; k < a.collectives.size(); ++k)
    if (a.graph.graph.nodes[a.collectives[k].node].name == name) return static_cast<int>(k);
  return -1;
}

}  // namespace

TEST_CASE("torch's group numbering names each mesh dim's group on each rank", "[applied]") {
  DeviceMesh m24({2, 4}), m22({2, 2});
  // Seed 1's and LLaMA-3's 2x4 logs: mesh dim 0 is group '1', mesh dim 1 group '5' on rank 0.
  CHECK(torchGroupName(m24, 0, {0, 0}) == "1");
  CHECK(torchGroupName(m24, 1, {0, 0}) == "5");
  // Dim 0's four groups are the columns ('1'..'4'), dim 1's two the rows ('5', '6').
  CHECK(torchGroupName(m24, 0, {1, 3}) == "4");
  CHECK(torchGroupName(m24, 1, {1, 3}) == "6");
  // dsv3_2x2: the "ep" group is '3' on rank 0.
  CHECK(torchGroupName(m22, 1, {0, 0}) == "3");
  CHECK(torchGroupName(m22, 0, {0, 0}) == "1");
  CHECK(torchGroupName(m22, 0, {0, 1}) == "2");
  CHECK(torchGroupName(m22, 2, {0, 0}).empty());

  auto coll = [](const char* group, int64_t size) {
    AppliedCollective c;
    c.kind = CollectiveKind::AllGather;
    c.group = group;
    c.groupSize = size;
    return c;
  };
  // A size-2 group on a 2x2 mesh fits both dims: without a coordinate it stays ambiguous, with rank 0's it is dim 1.
  std::vector<AppliedCollective> cs{coll("0", 4), coll("3", 2)};
  auto amb = mapGroups(cs, m22, {});
  REQUIRE(amb.size() == 2);
  CHECK(amb[1].meshDim == -1);
  const std::vector<int64_t> rank0{0, 0};
  auto g = mapGroups(cs, m22, {}, &rank0);
  CHECK(g[0].meshDim == -2);
  CHECK(g[1].meshDim == 1);
  CHECK(g[1].how == "torch's group numbering");
  // The applied graph alone: the world group '0' (4) and '3' (2) are a 2x2 mesh, not 4x2.
  std::map<std::string, int> dims;
  auto m = inferMesh(cs, &dims);
  REQUIRE(m);
  CHECK(m->shape() == std::vector<int64_t>{2, 2});
  CHECK(dims == std::map<std::string, int>{{"3", 1}});
}

TEST_CASE("real flex_attn log: the tangent's all-gather inside the decomposed einsum is the planned transition",
          "[applied][real]") {
  AppliedSession s;
  const Diagnostics d = checkLog("flex_attn", s);
  CHECK(problems(s.plan, d).empty());
  REQUIRE(s.applied.size() == 1);
  const AppliedGraph& a = s.applied[0];
  CHECK(a.transitionsPlanned == 3);
  CHECK(a.transitionsFound == 3);
  CHECK(a.unplanned.empty());
  // alias_default_1 = alias(tangents_1) S(0) -> R, read by einsum_default_4 (bmm_4's second operand in the
  // applied graph, two views and permutes away from view_24, the einsum's image).
  const AppliedTransition* t = a.transitionAt(s.plan.graph.find("alias_default_1"), 0);
  REQUIRE(t);
  CHECK(t->state == TransitionState::Applied);
  REQUIRE(t->collectives.size() == 1);
  CHECK(t->collectives[0] == collectiveNamed(a, "all_gather_into_tensor_1"));
}

TEST_CASE("flex_attn variant: the tangent's all-gather removed is one error at the alias", "[applied][real]") {
  // The gather replaced by a local repeat of the same result shape: no collective on the tangent's path.
  const std::string text = replaced(test::readFile(real("flex_attn/autoparallel_parallel_graph.txt")),
                                    "torch.ops._c10d_functional.all_gather_into_tensor.default(tangents_1, 4, '0')",
                                    "torch.ops.aten.repeat.default(tangents_1, [4, 1, 1])");
  AppliedSession s;
  const Diagnostics d = checkWithApplied("flex_attn", text, s);
  // (wait_tensor_1 now waits on a plain tensor: no collective, so nothing to report there.)
  CHECK(problems(s.plan, d) == std::vector<std::string>{"error transition-not-applied at alias_default_1:0"});
  const Diagnostic* x = find(s.plan, d, DiagKind::TransitionNotApplied, "alias_default_1", 0);
  REQUIRE(x);
  CHECK(x->message ==
        "the planned S(0) -> R (all_gather on mesh dim 0 (dp), 192.0 KiB per rank) is not in the applied graph: on "
        "rank 0 (0) alias_default_1 input 0 receives local ? where R needs [8, 64, 128]");
}

TEST_CASE("real dsv3_2x2 log: local_map regions, their own collectives, cast-then-split, R + P(avg)",
          "[applied][real]") {
  AppliedSession s;
  const Diagnostics d = checkLog("dsv3_2x2", s);
  const Plan& p = s.plan;
  // Clean: no transition, shape, group or rule finding. The runner's refusal of the two local_map_hop nodes (a
  // higher-order op whose body the plan does not hold) is an info.
  CHECK(problems(p, d) == std::vector<std::string>{});
  CHECK_FALSE(d.hasErrors());
  for (const char* hop : {"local_map_hop", "local_map_hop_1"}) {
    const Diagnostic* u = find(p, d, DiagKind::UnsafeOp, hop, -1);
    REQUIRE(u);
    CHECK(u->severity == Severity::Info);
  }
  CHECK_FALSE(find(p, d, DiagKind::IncompatibleInputs, "add_1093", 0));  // R + P(avg) -> P(avg), as DTensor 2.14
  REQUIRE(s.applied.size() == 1);
  const AppliedGraph& a = s.applied[0];
  CHECK(a.unplanned.empty());
  // Group '3' (size 2) is mesh dim 1 ("ep") by torch's numbering; '0' (size 4) the flattened mesh.
  for (const GroupMapping& g : a.groups) {
    INFO(g.group);
    if (g.group == "0") CHECK(g.meshDim == -2);
    if (g.group == "3") {
      CHECK(g.meshDim == 1);
      CHECK(g.how == "torch's group numbering");
    }
  }
  auto state = [&](const char* node, int input) {
    const AppliedTransition* t = a.transitionAt(p.graph.find(node), input);
    return t ? std::string(transitionStateName(t->state)) : std::string("none");
  };
  // Every planned transition judged and found: the weight gradients' einsums (einsum_default_12, _26) are their
  // chains' results, not the chunk of their S(2)S(2) input (clone_9, clone_26), which took the next einsum's place
  // and left the backward after einsum_default_26 unmatched.
  CHECK(a.transitionsPlanned == 63);
  CHECK(a.transitionsFound == 63);
  CHECK(imageOf(p, a, "einsum_default_12") == "view_90");
  CHECK(imageOf(p, a, "einsum_default_13") == "view_94");
  CHECK(imageOf(p, a, "einsum_default_26") == "view_170");
  CHECK(imageOf(p, a, "einsum_default_27") == "view_174");
  for (const auto& [node, input] : std::vector<std::pair<const char*, int>>{
           {"einsum_default_12", 0}, {"einsum_default_26", 0}, {"dtype_cast_38", 0}, {"permute_86", 0},
           {"permute_107", 0}}) {
    INFO(node);
    CHECK(state(node, input) == "applied");
  }
  auto by = [&](const char* node, int input) {
    const AppliedTransition* t = a.transitionAt(p.graph.find(node), input);
    std::vector<std::string> out;
    if (t)
      for (int k : t->collectives) out.push_back(a.graph.graph.nodes[a.collectives[k].node].name);
    return out;
  };
  // The forward region's inputs: gathered (the flattened mesh) and reduce-scattered before the inlined body.
  CHECK(state("local_map_hop", 4) == "applied");
  CHECK(by("local_map_hop", 4) == std::vector<std::string>{"all_gather_into_tensor_20"});
  CHECK(by("local_map_hop", 5) == std::vector<std::string>{"all_gather_into_tensor_21"});
  CHECK(by("local_map_hop", 6) == std::vector<std::string>{"all_gather_into_tensor_22"});
  CHECK(by("local_map_hop", 7) == std::vector<std::string>{"reduce_scatter_tensor"});
  // The backward region's outputs RS(0) -> S(0)S(0): all-gathered on "ep" before the graph's output.
  CHECK(state("alias_default_155", 0) == "applied");
  CHECK(by("alias_default_155", 0) == std::vector<std::string>{"all_gather_into_tensor_27"});
  CHECK(state("alias_default_157", 0) == "applied");
  CHECK(by("alias_default_157", 0) == std::vector<std::string>{"all_gather_into_tensor_28"});
  // P(sum) -> P(avg), which DTensor refuses, done by the apply pass as an all_reduce (then the free R -> P(avg)).
  CHECK(state("add_1093", 1) == "applied");
  CHECK(by("add_1093", 1) == std::vector<std::string>{"all_reduce"});
  CHECK(by("add_1094", 1) == std::vector<std::string>{"all_reduce_1"});
  // The MoE's all_to_all_single are the region's own program: no transition claims them, none is reported.
  for (const char* c : {"all_to_all_single", "all_to_all_single_1", "all_to_all_single_2", "all_to_all_single_3",
                        "all_to_all_single_4"}) {
    INFO(c);
    const int k = collectiveNamed(a, c);
    REQUIRE(k >= 0);
    CHECK(a.collectives[k].planConsumer == -1);
  }
  // dtype_cast_47: its own cast (of the [32] slice), no local-shape finding.
  CHECK_FALSE(find(p, d, DiagKind::LocalShapeMismatch, "dtype_cast_47", -1));
  CHECK_FALSE(find(p, d, DiagKind::LocalShapeMismatch, "dtype_cast_47", 0));
}

TEST_CASE("real llama3_2d log: a weight gradient's einsum is matched past the chunk of its input",
          "[applied][real]") {
  AppliedSession s;
  const Diagnostics d = checkLog("llama3_2d", s);
  const Plan& p = s.plan;
  CHECK(problems(p, d).empty());
  REQUIRE(s.applied.size() == 1);
  const AppliedGraph& a = s.applied[0];
  CHECK(a.transitionsPlanned == 38);
  CHECK(a.transitionsFound == 38);
  CHECK(a.unplanned.empty());
  // einsum_default_15 ('abn,abk->kn', the output projection's weight gradient) reads the gathered tangent as
  // S(2)S(2): the apply pass chunks it (split / getitem / clone) into clone_5, of einsum_default_16's local shape
  // [4, 64, 256] and on the same source line. clone_5 reads one operand only, and einsum_default_16's other operand
  // (permute_25) is still to be matched: it is no einsum's image. Each einsum is its chain's result.
  CHECK(imageOf(p, a, "einsum_default_15") == "view_85");
  CHECK(imageOf(p, a, "permute_25") == "permute_103");
  CHECK(imageOf(p, a, "einsum_default_16") == "view_89");
  const AppliedTransition* t = a.transitionAt(p.graph.find("einsum_default_15"), 0);  // RR -> S(2)S(2): a chunk
  REQUIRE(t);
  CHECK(t->state == TransitionState::Applied);
  CHECK(t->planned.empty());
  // The tangent's S(0)R -> RR at its alias: the all-gather on mesh dim 0 inside einsum_default_15's chain.
  const AppliedTransition* g = a.transitionAt(p.graph.find("alias_default_2"), 0);
  REQUIRE(g);
  CHECK(g->state == TransitionState::Applied);
  REQUIRE(g->collectives.size() == 1);
  CHECK(g->collectives[0] == collectiveNamed(a, "all_gather_into_tensor_17"));
}

TEST_CASE("dsv3_2x2 variant: a region output gathered on the wrong mesh dim is one error at its alias",
          "[applied][real]") {
  // getitem_40's RS(0) -> S(0)S(0) gathered over group '1' (mesh dim 0 by torch's numbering) instead of '3'.
  const std::string text = replaced(test::readFile(real("dsv3_2x2/autoparallel_parallel_graph.txt")),
                                    "all_gather_into_tensor.default(convert_element_type_120, 2, '3')",
                                    "all_gather_into_tensor.default(convert_element_type_120, 2, '1')");
  AppliedSession s;
  const Diagnostics d = checkWithApplied("dsv3_2x2", text, s);
  std::vector<std::string> found;
  for (const std::string& x : problems(s.plan, d)) found.push_back(x);
  CHECK(found == std::vector<std::string>{"error transition-not-applied at alias_default_155:0"});
  const Diagnostic* x = find(s.plan, d, DiagKind::TransitionNotApplied, "alias_default_155", 0);
  REQUIRE(x);
  CHECK(x->message ==
        "the planned RS(0) -> S(0)S(0) (all_gather on mesh dim 1 (ep), 128.0 KiB per rank) is not in the applied "
        "graph: on rank 0 (0, 0) alias_default_155 input 0 receives a value of the right local shape [2, 64, 128] "
        "still in RS(0), not S(0)S(0)");
}

TEST_CASE("real dsv3_2x2 applied graph alone: mesh 2x2 from its collectives, clean", "[applied][real]") {
  SessionInputs in;
  in.primary = real("dsv3_2x2/autoparallel_parallel_graph.txt");
  auto s = loadSession(in);
  REQUIRE(s.ok());
  REQUIRE(s->alone);
  CHECK(s->alone->plan.mesh.shape() == std::vector<int64_t>{2, 2});
  const Diagnostics d = checkSession(*s);
  const Plan& p = s->alone->plan;
  CHECK(problems(p, d) == std::vector<std::string>{});
  // autoparallel's own MoE op: the runner has no kernel for it, which is no fault of the graph.
  const Diagnostic* u = find(p, d, DiagKind::UnsafeOp, "fill_indices_functional", -1);
  REQUIRE(u);
  CHECK(u->severity == Severity::Info);
  CHECK(u->message ==
        "op autoparallel.fill_indices_functional.default is autoparallel's own custom op, which the runner has no "
        "kernel for (shardscope run refuses this plan)");
}
