// The applied-graph reader on hostile numbers (issue 43, docs/reliability.md #23): a group size, split list,
// gather or shard dim the graph gives is checked before it indexes the mesh or multiplies a size. Each case is a
// real applied graph (seed 1's, tests/data/real/seed1_buggy) or the applied-only fixture with one number changed;
// the file opens, and each wrong collective is one invalid-collective error at its node.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "applied_cases.h"
#include "test_data.h"
#include "trace_cases.h"

#include "core/applied/applied.h"
#include "core/applied/session.h"
#include "core/io/formats.h"

using namespace ss;

namespace {

const std::string kSeedGather = "all_gather_into_tensor.default(convert_element_type, 2, '1')";

std::string seedApplied() { return test::readFile(test::realCase("seed1_buggy/autoparallel_parallel_graph.txt")); }
std::string appliedOnly() { return test::readFile(test::trace("seed1_applied_only.txt")); }

// "kind@node:input: message" of every error.
std::vector<std::string> errors(const Plan& p, const Diagnostics& d) {
  std::vector<std::string> out;
  for (const auto& x : d.items)
    if (x.severity == Severity::Error)
      out.push_back(std::string(diagKindName(x.kind)) + "@" + (x.node >= 0 ? p.graph.nodes[x.node].name : "-") + ":" +
                    std::to_string(x.input) + ": " + x.message);
  return out;
}

// seed 1's plan checked with its applied graph whose forward all_gather has `size` as its group size.
std::vector<std::string> seedErrorsWithGatherSize(const std::string& size, AppliedSession& s) {
  const std::string applied =
      test::replacedOnce(seedApplied(), kSeedGather, "all_gather_into_tensor.default(convert_element_type, " + size + ", '1')");
  return errors(s.plan, test::checkCaseWithApplied("seed1_buggy", applied, s));
}

// The applied-only fixture with one text replaced, analysed alone (mesh inferred) and checked as `check` does.
struct Alone {
  AppliedSession s;
  std::vector<std::string> errs;
};
Alone aloneWith(const std::string& from, const std::string& to) {
  auto p = readFxText(test::replacedOnce(appliedOnly(), from, to));
  INFO((p.ok() ? std::string() : p.error().toString()));
  REQUIRE(p.ok());
  Alone a;
  a.s.alone = analyzeAppliedAlone(std::move(*p), std::nullopt);
  a.s.plan = a.s.alone->plan;
  a.errs = errors(a.s.plan, checkSession(a.s));
  return a;
}

const std::string kTransitionErrors[] = {
    "transition-not-applied@alias_default_1:0: the planned S(0)R -> RR (all_gather on mesh dim 0 (dim0), 9.1 MiB per rank) "
    "is not in the applied graph: on rank 0 (0, 0) alias_default_1 input 0 receives local ? where RR needs [16, 128, 4672]",
    "transition-not-applied@index_put:2: the planned RS(1) -> RS(0) (all_to_all on mesh dim 1 (dim1), 48.0 KiB per rank) is "
    "not in the applied graph: on rank 0 (0, 0) index_put input 2 (values) receives local [16, 32, 1, 64] where RS(0) needs "
    "[4, 128, 1, 64]"};

std::string invalidAtEinsum(const std::string& why) {
  return "invalid-collective@einsum_default_1:0: the applied graph's 'all_gather_into_tensor' (all_gather_into_tensor on "
         "group '1') is no collective a process group runs: " + why + " (it feeds einsum_default_1)";
}

}  // namespace

TEST_CASE("a group size of 2^20 in a real applied graph opens with an error at the collective", "[applied][hardening]") {
  // Was: "internal error: vector::_M_range_check" (the applied graph alone) and a 9.1 TiB all_gather (with the plan).
  AppliedSession s;
  auto errs = seedErrorsWithGatherSize("1048576", s);
  CHECK(errs == std::vector<std::string>{kTransitionErrors[0], kTransitionErrors[1],
                                         invalidAtEinsum("group size 1048576 is the size of no process group of the mesh 2x4 "
                                                         "(dim0, dim1) (a mesh dim, or a product of mesh dims)")});
  REQUIRE(s.applied.size() == 1);
  const AppliedCollective& c = s.applied[0].collectives[0];
  CHECK(s.applied[0].graph.graph.nodes[c.node].name == "all_gather_into_tensor");
  CHECK(c.groupSize == 0);
  CHECK(c.meshDim == -1);
  CHECK(c.bytes == 0);
  // No unplanned-collective warning besides the error: one report per wrong thing.
  CHECK(s.applied[0].unplanned.empty());
}

TEST_CASE("group sizes that are no number of ranks: 0, negative, INT64_MAX, 3 on a 2x4 mesh", "[applied][hardening]") {
  const std::string noRanks = " is not a number of ranks (1 to 1048576)";
  for (const auto& [size, why] : std::vector<std::pair<std::string, std::string>>{
           {"0", "group size 0" + noRanks},
           {"-1", "group size -1" + noRanks},
           {"-1048576", "group size -1048576" + noRanks},
           {"9223372036854775807", "group size 9223372036854775807" + noRanks},
           {"1048577", "group size 1048577" + noRanks},
           {"3", "group size 3 is the size of no process group of the mesh 2x4 (dim0, dim1) (a mesh dim, or a product of mesh dims)"}}) {
    INFO(size);
    AppliedSession s;
    CHECK(seedErrorsWithGatherSize(size, s) ==
          std::vector<std::string>{kTransitionErrors[0], kTransitionErrors[1], invalidAtEinsum(why)});
  }
  // 8, the whole mesh: a valid group size (the flattened mesh); not an invalid collective.
  AppliedSession s;
  auto errs = seedErrorsWithGatherSize("8", s);
  CHECK(errs == std::vector<std::string>{kTransitionErrors[0], kTransitionErrors[1]});
  CHECK(s.applied[0].collectives[0].invalid.empty());
  CHECK(s.applied[0].collectives[0].groupSize == 8);
}

TEST_CASE("an applied graph alone whose group sizes make no mesh names them all", "[applied][hardening]") {
  // 2^20 ranks on group '1' and 4 on group '2' are 2^22 ranks: no mesh is inferred. Was an internal error.
  Alone a = aloneWith("(view, 2, '1')", "(view, 1048576, '1')");
  const std::string why = "the group sizes of its collectives (1048576 on group '1', 4 on group '2') make no mesh of at "
                          "most 1048576 ranks and 8 dims";
  CHECK(a.s.alone->meshProblem == why);
  CHECK(a.s.plan.mesh.toString() == "1");
  // The all_gather's own shape is the error at its node; the all-to-alls, whose shapes agree, are invalid.
  // The checker's own errors first, then the invalid collectives.
  CHECK(a.errs == std::vector<std::string>{
                      "shape-mismatch@all_gather_into_tensor:-1: all_gather_into_tensor declares shape [2048, 4672], but "
                      "all_gather_into_tensor of its inputs gives [1073741824, 4672]",
                      "invalid-collective@shard_dim_alltoall:-1: the applied graph's 'shard_dim_alltoall' (shard_dim_alltoall "
                      "on group '2') is no collective a process group runs: " + why,
                      "invalid-collective@shard_dim_alltoall_1:-1: the applied graph's 'shard_dim_alltoall_1' "
                      "(shard_dim_alltoall on group '2') is no collective a process group runs: " + why});
  for (const auto& c : a.s.alone->collectives) CHECK(c.meshDim == -1);
}

TEST_CASE("an applied graph alone: a negative group size is the all_gather's shape error, once", "[applied][hardening]") {
  Alone a = aloneWith("(view, 2, '1')", "(view, -1, '1')");
  CHECK(a.errs == std::vector<std::string>{"shape-mismatch@all_gather_into_tensor:-1: all_gather_into_tensor: group_size -1 "
                                           "is not a number of ranks (1 to 1048576)"});
  CHECK(a.s.alone->collectives[2].invalid == "group size -1 is not a number of ranks (1 to 1048576)");
  // Gathered past a tensor's limits: an error, never a wrapped size.
  auto p = readFxText(
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[4503599627370496, 2]\"):\n"
      "        all_gather_into_tensor: \"f32[4503599627370496, 2]\" = "
      "torch.ops._c10d_functional.all_gather_into_tensor.default(x, 4, '0');  x = None\n"
      "        return (all_gather_into_tensor,)\n");
  REQUIRE(p.ok());
  Alone g;
  g.s.alone = analyzeAppliedAlone(std::move(*p), std::nullopt);
  g.s.plan = g.s.alone->plan;
  CHECK(errors(g.s.plan, checkSession(g.s)) ==
        std::vector<std::string>{"shape-mismatch@all_gather_into_tensor:0: all_gather_into_tensor: dim 0 of "
                                 "[4503599627370496, 2] gathered over 4 ranks is past the limits of a tensor"});
  // Its cost: 3 x 2^53 elements of 4 bytes each, computed without overflow.
  CHECK(g.s.alone->collectives[0].bytes == 3 * (int64_t{1} << 55));
}

TEST_CASE("shard_dim_alltoall's gather and shard dims are checked against its tensor", "[applied][hardening]") {
  // Was narrowed to int: 2^32 read as gather dim 0.
  for (const auto& [args, why] : std::vector<std::pair<std::string, std::string>>{
           {"(sum_1, 9223372036854775807, 0, '2')", "gather dim 9223372036854775807 is out of range for a tensor of 4 dims"},
           {"(sum_1, 4294967296, 0, '2')", "gather dim 4294967296 is out of range for a tensor of 4 dims"},
           {"(sum_1, 1, -5, '2')", "shard dim -5 is out of range for a tensor of 4 dims"},
           {"(sum_1, 4, 0, '2')", "gather dim 4 is out of range for a tensor of 4 dims"}}) {
    INFO(args);
    Alone a = aloneWith("(sum_1, 1, 0, '2')", args);
    CHECK(a.errs == std::vector<std::string>{"invalid-collective@shard_dim_alltoall:-1: the applied graph's "
                                             "'shard_dim_alltoall' (shard_dim_alltoall on group '2') is no collective a "
                                             "process group runs: " + why});
  }
  // Negative dims count from the end, as torch's do: (1, -4) is (1, 0), the fixture's own.
  Alone ok = aloneWith("(sum_1, 1, 0, '2')", "(sum_1, -3, -4, '2')");
  CHECK(ok.errs.empty());
  CHECK(ok.s.alone->collectives[0].gatherDim == 1);
  CHECK(ok.s.alone->collectives[0].shardDim == 0);
}

TEST_CASE("all_to_all_single's split lists: negative, unequal lengths, past a tensor dim", "[applied][hardening]") {
  auto graph = [](const std::string& outSplits, const std::string& inSplits) {
    return "class GraphModule(torch.nn.Module):\n"
           "    def forward(self, x: \"f32[8, 4]\"):\n"
           "        all_to_all_single: \"f32[8, 4]\" = torch.ops._c10d_functional.all_to_all_single.default(x, " +
           outSplits + ", " + inSplits + ", '3');  x = None\n"
           "        wait_tensor: \"f32[8, 4]\" = torch.ops._c10d_functional.wait_tensor.default(all_to_all_single);  "
           "all_to_all_single = None\n"
           "        return (wait_tensor,)\n";
  };
  auto check = [&](const std::string& outSplits, const std::string& inSplits) {
    auto p = readFxText(graph(outSplits, inSplits));
    REQUIRE(p.ok());
    Alone a;
    a.s.alone = analyzeAppliedAlone(std::move(*p), std::nullopt);
    a.s.plan = a.s.alone->plan;
    a.errs = errors(a.s.plan, checkSession(a.s));
    return a;
  };
  const std::string head = "the applied graph's 'all_to_all_single' (all_to_all_single on group '3') is no collective a "
                           "process group runs: ";
  Alone neg = check("[4, -4, 8]", "[4, 4, 0]");
  CHECK(neg.s.alone->collectives[0].invalid == "output_split_sizes entry 1 is -4, a negative size");
  CHECK(neg.errs == std::vector<std::string>{"shape-mismatch@all_to_all_single:-1: all_to_all_single: the output splits "
                                             "[4, -4, 8] hold the negative size -4"});
  Alone lengths = check("[4, 4]", "[4, 4, 0]");
  CHECK(lengths.errs == std::vector<std::string>{"invalid-collective@all_to_all_single:-1: " + head +
                                                 "output_split_sizes has 2 entries and input_split_sizes 3, where each has "
                                                 "one per rank of the group"});
  Alone huge = check("[4, 9223372036854775807]", "[4, 4]");
  CHECK(huge.errs == std::vector<std::string>{"shape-mismatch@all_to_all_single:-1: all_to_all_single: the output splits "
                                              "[4, 9223372036854775807] add up to more than a tensor dim may hold"});
  Alone fine = check("[4, 4]", "[4, 4]");
  CHECK(fine.errs.empty());
  CHECK(fine.s.alone->collectives[0].groupSize == 2);
}

TEST_CASE("a --group naming a mesh dim the mesh lacks is refused with one line", "[applied][hardening]") {
  SessionInputs in;
  in.primary = test::realCase("seed1_buggy/autoparallel_joint_graph.txt");
  in.solution = test::realCase("seed1_buggy/autoparallel_solution.json");
  in.applied = test::realCase("seed1_buggy/autoparallel_parallel_graph.txt");
  in.groups["1"] = 1048576;
  auto s = loadSession(in);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().toString() == "--group 1=1048576: the mesh 2x4 (dim0, dim1) has mesh dims 0 to 1");
  // An applied graph alone: against its inferred mesh (was vector::_M_range_check).
  SessionInputs alone;
  alone.primary = test::trace("seed1_applied_only.txt");
  alone.groups["2"] = 2;
  auto a = loadSession(alone);
  REQUIRE_FALSE(a.ok());
  CHECK(a.error().toString() == "--group 2=2: the mesh 2x4 has mesh dims 0 to 1");
  // mapGroups itself leaves such an override unmapped (the session refuses it first).
  auto p = readFxText(appliedOnly());
  REQUIRE(p.ok());
  p->graph.reindex();
  auto cs = findCollectives(p->graph);
  auto groups = mapGroups(cs, DeviceMesh({2, 4}), {{"2", 7}});
  REQUIRE(groups.size() == 2);
  CHECK(groups[1].group == "2");
  CHECK(groups[1].meshDim == -1);
  CHECK(groups[1].how == "--group names mesh dim 7, which the mesh 2x4 lacks");
}

TEST_CASE("a group name with a newline stays inside one line of the summary", "[applied][hardening]") {
  AppliedSession s;
  const std::string applied = test::replacedOnce(seedApplied(), kSeedGather,
                                                 "all_gather_into_tensor.default(convert_element_type, 2, 'a\\nerror: fake')");
  test::checkCaseWithApplied("seed1_buggy", applied, s);
  REQUIRE(s.applied.size() == 1);
  const std::string sum = s.applied[0].summary(s.plan.mesh);
  CHECK(sum.find('\n') == std::string::npos);
  CHECK(sum.find("group 'a\\nerror: fake' -> mesh dim 0 (dim0) (size)") != std::string::npos);
}
