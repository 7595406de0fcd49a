// What the real tools wrote: tests/data/real/ holds the TORCH_TRACE logs and artifacts that autoparallel and
// PyTorch themselves wrote when scripts/real_artifacts.sh ran them (tests/data/real/README.md: how, which
// versions). Every reader reads them exactly as written; the checker's verdicts on them are the user's.
#include <catch2/catch.hpp>

#include <filesystem>

#include "test_data.h"

#include "core/applied/applied.h"
#include "core/applied/session.h"
#include "core/check/check.h"
#include "core/io/autoparallel/artifacts.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/io/trace/trace_log.h"
#include "core/model/placement_parse.h"

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
    // torch_version is kept (the checker judges by it: core/check/torch_version.h); the compile artifacts are
    // there and not kept.
    const TraceRecord* v = log->artifact(kTorchVersionArtifact);
    REQUIRE(v);
    CHECK(v->kept);
    CHECK(v->payload.find("\"pytorch_version\": \"2.14.1+debian\"") != std::string::npos);
    const TraceRecord* other = log->artifact("compiled_function_forward");
    REQUIRE(other);
    CHECK_FALSE(other->kept);
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
