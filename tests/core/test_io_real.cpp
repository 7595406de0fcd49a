// What the real tools wrote: tests/data/real/ holds the TORCH_TRACE logs and artifacts that autoparallel and
// PyTorch themselves wrote when scripts/real_artifacts.sh ran them (tests/data/real/README.md: how, which
// versions). Every reader reads them exactly as written; the checker's verdicts on them are the user's.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli_run.h"
#include "test_data.h"

#include "core/applied/applied.h"
#include "core/applied/session.h"
#include "core/check.h"
#include "core/io/autoparallel_artifacts.h"
#include "core/io/formats.h"
#include "core/io/load.h"
#include "core/io/trace_log.h"
#include "core/placement_parse.h"

using namespace ss;

namespace {

std::string real(const std::string& name) { return std::string(SHARDSCOPE_TESTDATA_DIR) + "/real/" + name; }
std::string readReal(const std::string& name) { return test::readFile(real(name)); }

// The one log of a case's folder (seed1_buggy keeps the name torch gave it).
std::string logOf(const std::string& c) {
  if (c == "seed1_buggy") return real(c + "/dedicated_log_torch_trace_rank_0_trj4f_tb.log");
  return real(c + "/rank0.log");
}

const char* const kCases[] = {"seed1_fixed", "seed1_buggy", "llama3_1d", "llama3_2d", "conv"};

int countKind(const Diagnostics& d, Severity s) {
  int n = 0;
  for (const auto& x : d.items) n += x.severity == s;
  return n;
}

const ShardingSpec* inputSpec(const Plan& p, const char* node, int input) {
  const int i = p.graph.find(node);
  if (i < 0 || input >= static_cast<int>(p.specs[i].inputs.size()) || !p.specs[i].inputs[input]) return nullptr;
  return &*p.specs[i].inputs[input];
}

}  // namespace

TEST_CASE("real joint graphs: pytree codegen, one line of declarations, the flatten line, tree_unflatten", "[io][real]") {
  for (const char* c : kCases) {
    INFO(c);
    auto p = readFxText(readReal(std::string(c) + "/autoparallel_joint_graph.txt"));
    REQUIRE(p.ok());
    // The signature's containers (primals, tangents) are no nodes; the unpacked names are the placeholders.
    CHECK(p->graph.find("primals") < 0);
    CHECK(p->graph.find("tangents") < 0);
    const int w = p->graph.find("primals_1");
    REQUIRE(w >= 0);
    CHECK(p->graph.nodes[w].kind == NodeKind::Placeholder);
    CHECK(p->graph.nodes[w].outputs[0].known);
    CHECK(p->graph.find("tangents_1") >= 0);
    CHECK(p->graph.nodes[p->graph.find("tangents_1")].placeholderKind == PlaceholderKind::Tangent);
    CHECK(p->graph.outputNode() >= 0);
  }
  auto s1 = readFxText(readReal("seed1_fixed/autoparallel_joint_graph.txt"));
  REQUIRE(s1.ok());
  const Graph& g = s1->graph;
  CHECK(g.nodes[g.find("primals_1")].outputs[0].shape == std::vector<int64_t>{4672, 4672});
  CHECK(g.nodes[g.find("primals_2")].outputs[0].shape == std::vector<int64_t>{16, 128, 4672});
  CHECK(g.nodes[g.find("tangents_1")].outputs[0].dtype == DType::BF16);
  // autoparallel's passes: its mixed-precision cast, einsum linears, alias nodes, a lifted constant.
  CHECK(g.nodes[g.find("dtype_cast")].op == "autoparallel.dtype_cast.default");
  CHECK(g.nodes[g.find("dtype_cast")].outputs[0].dtype == DType::BF16);
  CHECK(g.nodes[g.find("einsum_default")].op == "aten.einsum.default");
  CHECK(g.nodes[g.find("_tensor_constant0")].op == "get_attr");
  CHECK(g.nodes[g.find("index_put")].outputs[0].shape == std::vector<int64_t>{16, 128, 73, 64});
}

TEST_CASE("expanded_def joint graphs: descriptors name parameters, plain inputs and gradients", "[io][real]") {
  auto p = readFxText(readReal("seed1_fixed/joint_graph_expanded_def.txt"));
  REQUIRE(p.ok());
  const Graph& g = p->graph;
  const Node& w = g.nodes[g.find("primals_1")];
  CHECK(w.placeholderKind == PlaceholderKind::Param);
  CHECK(w.modulePath == "proj.weight");
  // The input x is a plain input although its name says primals_: the descriptor wins.
  CHECK(g.nodes[g.find("primals_2")].placeholderKind == PlaceholderKind::Input);
  CHECK(g.nodes[g.find("tangents_1")].placeholderKind == PlaceholderKind::Tangent);
  // Output 1 is the weight's gradient; outputs 0 (the activation) and 2 (None) are no gradient.
  REQUIRE(p->gradientOf.size() == 3);
  CHECK(p->gradientOf[0].empty());
  CHECK(p->gradientOf[1] == "primals_1");
  CHECK(p->gradientOf[2].empty());
  // The same graph as the plain print: same nodes, same ops.
  auto plain = readFxText(readReal("seed1_fixed/autoparallel_joint_graph.txt"));
  REQUIRE(plain.ok());
  REQUIRE(plain->graph.size() == g.size());
  for (int i = 0; i < g.size(); ++i) {
    CHECK(plain->graph.nodes[i].name == g.nodes[i].name);
    CHECK(plain->graph.nodes[i].op == g.nodes[i].op);
  }
  for (const char* c : {"llama3_1d", "llama3_2d", "conv", "seed1_buggy"}) {
    INFO(c);
    auto e = readFxText(readReal(std::string(c) + "/joint_graph_expanded_def.txt"));
    REQUIRE(e.ok());
    int params = 0, grads = 0;
    for (const Node& n : e->graph.nodes) params += n.placeholderKind == PlaceholderKind::Param && !n.modulePath.empty();
    for (const auto& s : e->gradientOf) grads += !s.empty();
    CHECK(params > 0);
    CHECK(grads == params);  // every parameter of these models gets a gradient
  }
}

TEST_CASE("real logs: the artifacts autoparallel wrote, the others skipped by name", "[io][real][trace]") {
  for (const char* c : kCases) {
    INFO(c);
    auto log = readTraceLog(test::readFile(logOf(c)));
    REQUIRE(log.ok());
    CHECK(log->rank == 0);
    for (const char* a : {kJointGraphArtifact, kOptimizerLogArtifact, kSolutionArtifact, kAppliedGraphArtifact}) {
      const TraceRecord* r = log->artifact(a);
      INFO(a);
      REQUIRE(r);
      CHECK(r->kept);
    }
    // The payload is what was extracted from the log (md5-checked by the extracting script).
    CHECK(log->artifact(kJointGraphArtifact)->payload == readReal(std::string(c) + "/autoparallel_joint_graph.txt"));
    CHECK(log->artifact(kAppliedGraphArtifact)->payload == readReal(std::string(c) + "/autoparallel_parallel_graph.txt"));
    // torch_version and the compile artifacts are there and not kept.
    const TraceRecord* v = log->artifact("torch_version");
    REQUIRE(v);
    CHECK_FALSE(v->kept);
  }
}

TEST_CASE("real artifacts: joint + solution, the optimizer log, save_placements: one plan", "[io][real]") {
  auto joint = readFxText(readReal("seed1_fixed/autoparallel_joint_graph.txt"));
  REQUIRE(joint.ok());
  auto sol = loadPlanFile(real("seed1_fixed/autoparallel_solution.json"));
  REQUIRE(sol.ok());
  auto merged = mergeJointAndSolution(*joint, *sol);
  REQUIRE(merged.ok());
  CHECK(merged->mesh.shape() == std::vector<int64_t>{2, 4});
  // The transitions the solver planned: sum_1 RR -> RS(1) on its input, index_put's values RS(1) -> RS(0).
  const ShardingSpec* values = inputSpec(*merged, "index_put", 2);
  REQUIRE(values);
  CHECK(values->toMeshString() == "RS(0)");
  const int sum1 = merged->graph.find("sum_1");
  REQUIRE(merged->specs[sum1].outputs[0]);
  CHECK(merged->specs[sum1].outputs[0]->toMeshString() == "RS(1)");
  CHECK(merged->graph.nodes[merged->graph.find("primals_2")].placeholderKind == PlaceholderKind::Input);

  // The optimizer log (placeholders and factories with their dummy input spec) gives the same placements.
  auto opt = readOptimizerLog(readReal("seed1_fixed/autoparallel_sharding_optimizer_log.txt"), merged->mesh);
  REQUIRE(opt.ok());
  const ShardingSpec* ov = inputSpec(*opt, "index_put", 2);
  REQUIRE(ov);
  CHECK(ov->toMeshString() == "RS(0)");
  // save_placements() on the joint graph: the same again.
  auto sp = loadPlanFileWithPlacements(real("seed1_fixed/autoparallel_joint_graph.txt"), real("seed1_fixed/save_placements.json"));
  REQUIRE(sp.ok());
  const ShardingSpec* pv = inputSpec(*sp, "index_put", 2);
  REQUIRE(pv);
  CHECK(pv->toMeshString() == "RS(0)");
  for (const char* c : kCases) {
    INFO(c);
    CHECK(loadPlanFileWithPlacements(real(std::string(c) + "/autoparallel_joint_graph.txt"),
                                     real(std::string(c) + "/save_placements.json"))
              .ok());
  }
}

TEST_CASE("real solutions alone: autoparallel's own ops are checked, not refused", "[io][real][cli]") {
  for (const char* c : kCases) {
    INFO(c);
    auto r = test::runCli("check " + real(std::string(c) + "/autoparallel_solution.json"));
    CHECK(r.code == 0);
    CHECK(r.out.find("\n0 errors, 0 warnings, ") != std::string::npos);
    CHECK(r.out.find("[unsafe-op]") == std::string::npos);
    // autoparallel's cast and its einsum linears have rules: no node of either is left unchecked.
    CHECK(r.out.find("[unchecked-op]: no sharding rule for autoparallel.dtype_cast") == std::string::npos);
    CHECK(r.out.find("[unchecked-op]: no sharding rule for aten.einsum") == std::string::npos);
  }
}

TEST_CASE("real logs: the verdicts (seed 1 buggy fails at index_put; the fixed log and every model are clean)", "[io][real][cli][applied]") {
  auto bug = test::runCli("check " + logOf("seed1_buggy"));
  INFO(bug.out);
  CHECK(bug.code == 1);
  CHECK(bug.out.rfind("applied graph on rank 0 (0, 0): 24 of 24 plan nodes matched, 2 collectives, 4 of 5 planned "
                      "transitions found; group '1' -> mesh dim 0 (dim0) (size); group '5' -> mesh dim 1 (dim1) (size)\n", 0) == 0);
  CHECK(bug.out.find("error: index_put (input 2) [transition-not-applied]: the planned RS(1) -> RS(0) (all_to_all on "
                     "mesh dim 1 (dim1), 48.0 KiB per rank) is not in the applied graph: on rank 0 (0, 0) index_put "
                     "input 2 (values) receives local [16, 32, 1, 64] where RS(0) needs [4, 128, 1, 64]\n") != std::string::npos);
  CHECK(bug.out.find("  fix: the apply pass must insert all_to_all on mesh dim 1 (dim1), 48.0 KiB, 9.3 us on the edge "
                     "sum_1 -> index_put (input 2)\n") != std::string::npos);
  CHECK(bug.out.find("\n1 error, 0 warnings, 5 infos") != std::string::npos);
  // The fixed log: the planned all-to-all, done the CPU way (all-gather + split/cat), is found.
  auto fixed = test::runCli("check " + logOf("seed1_fixed"));
  CHECK(fixed.code == 0);
  CHECK(fixed.out.rfind("applied graph on rank 0 (0, 0): 24 of 24 plan nodes matched, 3 collectives, 5 of 5 planned "
                        "transitions found", 0) == 0);
  for (const char* c : {"seed1_fixed", "llama3_1d", "llama3_2d", "conv"}) {
    auto r = test::runCli("check " + logOf(c));
    INFO(c << "\n" << r.out);
    CHECK(r.code == 0);
    CHECK(r.out.find("\n0 errors, 0 warnings, ") != std::string::npos);
    CHECK(r.out.find("[unplanned-collective]") == std::string::npos);
    CHECK(r.out.find("[local-shape-mismatch]") == std::string::npos);
  }
  // Every artifact form of every case, given as separate files: the same verdicts.
  for (const char* c : kCases) {
    const std::string d = real(c) + "/";
    const int want = std::string(c) == "seed1_buggy" ? 1 : 0;
    INFO(c);
    CHECK(test::runCli("check " + d + "autoparallel_joint_graph.txt --solution " + d + "autoparallel_solution.json --applied " +
                       d + "autoparallel_parallel_graph.txt").code == want);
    CHECK(test::runCli("check " + d + "autoparallel_sharding_optimizer_log.txt --applied " + d +
                       "autoparallel_parallel_graph.txt").code == want);
    CHECK(test::runCli("check " + d + "autoparallel_joint_graph.txt --placements " + d + "save_placements.json").code == 0);
    CHECK(test::runCli("check " + d + "joint_graph_expanded_def.txt").code == 0);
  }
  // The log's folder (TORCH_TRACE's own layout) reads as the log.
  auto dir = test::runCli("check " + real("seed1_buggy"));
  CHECK(dir.code == 1);
  CHECK(dir.out.find("[transition-not-applied]") != std::string::npos);
}

TEST_CASE("a real applied graph alone: its mesh from its groups (2x4 with the flattened group of 8)", "[io][real][applied][cli]") {
  auto r = test::runCli("check " + real("llama3_2d/autoparallel_parallel_graph.txt"));
  INFO(r.out);
  CHECK(r.out.rfind("applied graph alone: 1149 nodes, mesh 2x4 (inferred from its collectives), 22 collectives\n", 0) == 0);
  CHECK(r.out.find("all_gather on the flattened mesh: 14 x") != std::string::npos);
  CHECK(r.out.find("unmapped") == std::string::npos);
}

// The applied graph alone (no plan): rank-local shapes judged by the op shape rules through its collectives and
// waits. Seed 1's buggy graph feeds index_put values of the wrong local shape: exactly that error; the correct
// graphs are clean.
TEST_CASE("real applied graphs alone: shapes checked through collectives (seed 1's bug found, the others clean)",
          "[io][real][applied][cli]") {
  auto bug = test::runCli("check " + real("seed1_buggy/autoparallel_parallel_graph.txt"));
  INFO(bug.out);
  CHECK(bug.code == 1);
  CHECK(bug.out.find("error: index_put (input 2) [shape-mismatch]: index_put: values of shape [16, 32, 1, 64] do not "
                     "broadcast to the slots they fill in self, [4, 128, 1, 64]\n1 error, 0 warnings, 0 infos\n") !=
        std::string::npos);
  for (const char* c : {"seed1_fixed", "llama3_1d", "llama3_2d"}) {
    auto r = test::runCli("check " + real(std::string(c) + "/autoparallel_parallel_graph.txt"));
    INFO(c << "\n" << r.out);
    CHECK(r.code == 0);
    CHECK(r.out.find("\n0 errors, 0 warnings, ") != std::string::npos);
    CHECK(r.out.find("[shape-mismatch]") == std::string::npos);
  }
  auto conv = test::runCli("check " + real("conv/autoparallel_parallel_graph.txt"));
  INFO(conv.out);
  CHECK(conv.code == 0);
  CHECK(conv.out.find("\n0 errors, 0 warnings, 2 infos\n") != std::string::npos);  // convolution: no sharding rule yet
}
