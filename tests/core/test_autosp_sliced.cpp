// AutoSP's slices of its inputs as DeepSpeed's real run left them (tests/data/real/autosp/, README there): each
// rank's TORCH_TRACE log holds the aten graph after AutoSP's passes (symbolic sizes) and Dynamo's create_symbol
// records (each symbol's hint and source). Read from those alone: which input is sliced, on which dim, into how
// many parts, whose part; the SP mesh and the specs the mesh view draws, at the hint sizes.
#include <catch2/catch.hpp>

#include "applied_cases.h"

#include <string>
#include <utility>
#include <vector>

#include "core/applied/session.h"
#include "core/check/autosp_slices.h"
#include "core/io/file.h"
#include "core/io/trace/trace_log.h"
#include "core/model/layout.h"

using namespace ss;

namespace {

std::string real(const std::string& p) { return std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/real/autosp/" + p; }

AppliedSession open(const std::string& path) { return test::openSession(path); }

// "slice_2 of primals_4 dim 1 / 2, rank 0, s70 L['input_ids'].size()[1], hint [8, 2], seq dim 0"
std::string summary(const Plan& p, const AutoSpSlicedInput& x) {
  return p.graph.nodes[x.slice].name + " of " + p.graph.nodes[x.placeholder].name + " dim " + std::to_string(x.dim) +
         " / " + std::to_string(x.parts) + ", rank " + std::to_string(x.rank) + ", " + x.symbol + " " + x.symbolSource +
         ", hint " + shapeToString(x.hintShape) + ", seq dim " + std::to_string(x.seqDim);
}

std::vector<std::string> summaries(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& x : p.autoSpSliced) out.push_back(summary(p, x));
  return out;
}

std::vector<std::pair<int64_t, int64_t>> ranges(const AutoSpSlicedInput& x) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (int r = 0; r < x.parts; ++r) out.push_back(x.rangeOf(r));
  return out;
}

// Each rank's global range on `dim` under the plan's spec of the slice output, over the placeholder's hint sizes.
std::vector<std::pair<int64_t, int64_t>> meshRanges(const Plan& p, const AutoSpSlicedInput& x) {
  std::vector<std::pair<int64_t, int64_t>> out;
  const auto& spec = p.specs[x.slice].outputs.at(0);
  REQUIRE(spec.has_value());
  auto shards = layoutAllRanks(x.hintShape, p.mesh, *spec);
  REQUIRE(shards.ok());
  for (const RankShard& s : *shards)
    out.emplace_back(s.offset[x.dim], s.offset[x.dim] + s.localShape[x.dim]);
  return out;
}

}  // namespace

TEST_CASE("AutoSP real logs: the log's create_symbol records give each symbol's hint and source", "[real][autosp]") {
  auto text = readFileText(real("seq0_buggy/rank0.log"));
  REQUIRE(text.ok());
  auto log = readTraceLog(*text);
  REQUIRE(log.ok());
  std::vector<std::string> got;
  for (const TraceSymbol& s : log->symbols)
    got.push_back(s.symbol + "=" + (s.hint ? std::to_string(*s.hint) : "?") + " " + s.source);
  CHECK(got == std::vector<std::string>{"s72=8 L['input_ids'].size()[0]", "s70=2 L['input_ids'].size()[1]",
                                        "s97=8 L['labels'].size()[0]", "s38=2 L['labels'].size()[1]"});
}

TEST_CASE("AutoSP real logs: sequence-first inputs as fetched are sliced on dim 1, the batch", "[real][autosp]") {
  for (int rank : {0, 1}) {
    INFO("rank " << rank);
    AppliedSession s = open(real("seq0_buggy/rank" + std::to_string(rank) + ".log"));
    const Plan& p = s.plan;
    const std::string r = std::to_string(rank);
    CHECK(summaries(p) == std::vector<std::string>{
                              "slice_2 of primals_4 dim 1 / 2, rank " + r + ", s70 L['input_ids'].size()[1], hint [8, 2], seq dim 0",
                              "slice_4 of primals_7 dim 1 / 2, rank " + r + ", s38 L['labels'].size()[1], hint [8, 2], seq dim 0"});
    REQUIRE(p.autoSpSliced.size() == 2);
    const AutoSpSlicedInput& ids = p.autoSpSliced[0];
    CHECK(ids.describe() == "sliced by AutoSP on dim 1 (symbol s70, hint 2)");
    CHECK(ids.chunk() == 1);
    CHECK(ranges(ids) == std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {1, 2}});
    // The SP mesh the divisor names; this rank's part is Shard(1) of the full input.
    CHECK(p.mesh == DeviceMesh({2}, {"sp"}));
    CHECK_FALSE(p.specs[ids.placeholder].outputs[0].has_value());
    CHECK(p.specs[ids.slice].outputs[0]->toMeshString() == "S(1)");
    CHECK(meshRanges(p, ids) == ranges(ids));
    auto local = localShape(ids.hintShape, p.mesh, *p.specs[ids.slice].outputs[0], rank);
    REQUIRE(local.ok());
    CHECK(*local == std::vector<int64_t>{8, 1});
    // Nothing else got a spec: the rest of the graph is rank-local (the placeholders are the full inputs).
    int specified = 0;
    for (const NodeSpecs& n : p.specs)
      for (const auto& o : n.outputs) specified += o.has_value();
    CHECK(specified == 2);
    // The checker's verdict is at the slices, as before the mesh was given.
    Diagnostics d = checkSession(s);
    std::vector<std::string> errors;
    for (const auto& x : d.items)
      if (x.severity != Severity::Info) errors.push_back(std::string(diagKindName(x.kind)) + "@" + p.graph.nodes[x.node].name);
    CHECK(errors == std::vector<std::string>{"seq-dim-mismatch@slice_2", "seq-dim-mismatch@slice_4"});
  }
}

TEST_CASE("AutoSP real logs: the fixed passes and batch-first inputs are sliced on the sequence", "[real][autosp]") {
  struct Case {
    const char* file;
    std::vector<std::string> sliced;
    int64_t chunk;
    std::vector<int64_t> local;
  };
  const std::vector<Case> cases = {
      {"seq0_fixed/rank0.log",
       {"slice_1 of primals_3 dim 0 / 2, rank 0, s72 L['input_ids'].size()[0], hint [8, 2], seq dim 0",
        "slice_2 of primals_5 dim 0 / 2, rank 0, s72 L['input_ids'].size()[0], hint [8, 2], seq dim 0"},
       4,
       {4, 2}},
      {"seq0_fixed/rank1.log",
       {"slice_1 of primals_3 dim 0 / 2, rank 1, s72 L['input_ids'].size()[0], hint [8, 2], seq dim 0",
        "slice_2 of primals_5 dim 0 / 2, rank 1, s72 L['input_ids'].size()[0], hint [8, 2], seq dim 0"},
       4,
       {4, 2}},
      // Dynamo gave both inputs the labels' symbol (s70 was created for the ids, then unified with s38).
      {"seq1/rank0.log",
       {"slice_1 of primals_3 dim 1 / 2, rank 0, s38 L['labels'].size()[1], hint [2, 8], seq dim 1",
        "slice_2 of primals_9 dim 1 / 2, rank 0, s38 L['labels'].size()[1], hint [2, 8], seq dim 1"},
       4,
       {2, 4}},
      {"seq1/rank1.log",
       {"slice_1 of primals_3 dim 1 / 2, rank 1, s38 L['labels'].size()[1], hint [2, 8], seq dim 1",
        "slice_2 of primals_9 dim 1 / 2, rank 1, s38 L['labels'].size()[1], hint [2, 8], seq dim 1"},
       4,
       {2, 4}},
  };
  for (const Case& c : cases) {
    INFO(c.file);
    AppliedSession s = open(real(c.file));
    const Plan& p = s.plan;
    CHECK(summaries(p) == c.sliced);
    CHECK(p.mesh == DeviceMesh({2}, {"sp"}));
    for (const AutoSpSlicedInput& x : p.autoSpSliced) {
      CHECK(x.dim == x.seqDim);
      CHECK(x.chunk() == c.chunk);
      CHECK(ranges(x) == std::vector<std::pair<int64_t, int64_t>>{{0, c.chunk}, {c.chunk, 2 * c.chunk}});
      CHECK(meshRanges(p, x) == ranges(x));
      CHECK(p.specs[x.slice].outputs[0]->toMeshString() == "S(" + std::to_string(x.dim) + ")");
      auto local = localShape(x.hintShape, p.mesh, *p.specs[x.slice].outputs[0], x.rank);
      REQUIRE(local.ok());
      CHECK(*local == c.local);
    }
    Diagnostics d = checkSession(s);
    for (const auto& x : d.items) CHECK(x.severity == Severity::Info);
  }
}

TEST_CASE("AutoSP real logs: with a static batch AutoSP stops before slicing", "[real][autosp]") {
  // seq0_static: pass_shard_seq_dim's SymInt assert fired; the log has no graph after the passes, and the graph
  // DeepSpeed's backend received (before them) has no AutoSP slice.
  SessionInputs in;
  in.primary = real("seq0_static/rank0.log");
  CHECK_FALSE(loadSession(in).ok());
  AppliedSession before = open(real("seq0_static/rank0.dynamo_output_graph.txt"));
  CHECK(findAutoSpSlicedInputs(before.plan.graph, {}).empty());
  CHECK(before.plan.autoSpSliced.empty());
  CHECK(before.plan.mesh == DeviceMesh());
}

TEST_CASE("AutoSP real graphs: the graph file alone gives the slices without hints", "[real][autosp]") {
  AppliedSession s = open(real("seq0_buggy/rank1.aot_joint_graph.txt"));
  REQUIRE(s.plan.autoSpSliced.size() == 2);
  const AutoSpSlicedInput& ids = s.plan.autoSpSliced[0];
  CHECK(summary(s.plan, ids) == "slice_2 of primals_4 dim 1 / 2, rank 1, s70 , hint [], seq dim 0");
  CHECK(ids.describe() == "sliced by AutoSP on dim 1 (symbol s70)");
  CHECK(ids.chunk() == -1);
  CHECK(s.plan.mesh == DeviceMesh({2}, {"sp"}));
}
