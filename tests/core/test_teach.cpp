// Teaching expansion (core/plan/teach.h): the blocks each redistribute step moves, per kind, against hand-worked
// values (the arithmetic is in the comments), uneven shards and padding included.
#include <catch2/catch.hpp>

#include "core/check/check.h"
#include "core/model/placement_parse.h"
#include "core/plan/teach.h"

using namespace ss;

namespace {

TensorMeta meta(std::vector<int64_t> shape, DType dt = DType::F32) { return TensorMeta{std::move(shape), dt, true}; }

ShardingSpec spec(const DeviceMesh& mesh, const char* text) {
  auto s = parseSpec(text, ParseContext{&mesh, -1});
  REQUIRE(s.ok());
  return *s;
}

TeachPlan teach(std::vector<int64_t> shape, const DeviceMesh& mesh, const char* from, const char* to,
                DType dt = DType::F32) {
  TeachPlan tp = teachRedistribute(meta(std::move(shape), dt), mesh, spec(mesh, from), spec(mesh, to));
  INFO(tp.whyNot);
  REQUIRE(tp.possible);
  return tp;
}

// "r0->r1 [2:4, 0:2] 4+0" for compact comparison of transfer lists.
std::string t(const Transfer& x) {
  return "r" + std::to_string(x.src) + "->r" + std::to_string(x.dst) + " " + x.block.toString() + " " +
         std::to_string(x.elements) + "+" + std::to_string(x.paddingElements());
}

std::vector<std::string> round(const TeachStep& s, int r) {
  std::vector<std::string> out;
  for (const Transfer& x : s.transfers)
    if (x.round == r) out.push_back(t(x));
  return out;
}

std::string contributors(const Transfer& x) {
  std::string s;
  for (int64_t r : x.contributors) s += (s.empty() ? "r" : "+r") + std::to_string(r);
  return s;
}

const DeviceMesh mesh4({4}, {"tp"});
const DeviceMesh mesh2x4({2, 4}, {"dp", "tp"});
const DeviceMesh mesh2x2({2, 2}, {"dp", "tp"});

}  // namespace

TEST_CASE("teach: all_to_all RS(1) -> RS(0) of [8, 6] on 2x4, the uneven last column shard is padding only", "[teach]") {
  // Columns 6 on 4 ranks: 2, 2, 2, 0 (the tp=3 ranks hold nothing). Rows after: 2 each. Each pairwise block is
  // padded to 2 rows x 2 columns = 4 elements; the planner's bytes: 3 * 2 * 2 * 4 B = 48 B.
  const TeachPlan tp = teach({8, 6}, mesh2x4, "RS(1)", "RS(0)");
  REQUIRE(tp.steps.size() == 1);
  const TeachStep& s = tp.steps[0];
  CHECK(s.step.kind == CollectiveKind::AllToAll);
  CHECK(s.rounds == 1);
  REQUIRE(s.groups.size() == 2);
  CHECK(s.groups[0] == std::vector<int64_t>{0, 1, 2, 3});
  CHECK(s.groups[1] == std::vector<int64_t>{4, 5, 6, 7});
  REQUIRE(s.transfers.size() == 24);
  const std::vector<std::string> all = round(s, 0);
  const std::vector<std::string> group0(all.begin(), all.begin() + 12);
  CHECK(group0 == std::vector<std::string>{
                      "r0->r1 [2:4, 0:2] 4+0", "r0->r2 [4:6, 0:2] 4+0", "r0->r3 [6:8, 0:2] 4+0",
                      "r1->r0 [0:2, 2:4] 4+0", "r1->r2 [4:6, 2:4] 4+0", "r1->r3 [6:8, 2:4] 4+0",
                      "r2->r0 [0:2, 4:6] 4+0", "r2->r1 [2:4, 4:6] 4+0", "r2->r3 [6:8, 4:6] 4+0",
                      "r3->r0 [0:2, none] 0+4", "r3->r1 [2:4, none] 0+4", "r3->r2 [4:6, none] 0+4"});
  for (const RankBytes& b : s.bytes) {
    CHECK(b.sent == 48);
    CHECK(b.received == 48);
  }
  CHECK(s.maxBytesSent() == s.step.bytesSent);
  CHECK(blockOf(tp.layoutBefore[3]).toString() == "[0:8, none]");
  CHECK(blockOf(s.layoutAfter[3]).toString() == "[6:8, 0:6]");
  CHECK(blockOf(s.layoutAfter[5]).toString() == "[2:4, 0:6]");
}

TEST_CASE("teach: ring all_gather S(0) -> R of [10, 3] on 4 ranks forwards blocks, the short one padded", "[teach]") {
  // Rows 10 on 4 ranks: 3, 3, 3, 1 -> r3's block travels padded to 3 rows (3 elements + 6 padding).
  // Round r: position i sends what position i-r held. Bytes per rank: 3 rounds * 9 elements * 4 B = 108 B.
  const TeachPlan tp = teach({10, 3}, mesh4, "S(0)", "R");
  const TeachStep& s = tp.steps.at(0);
  CHECK(s.step.kind == CollectiveKind::AllGather);
  CHECK(s.rounds == 3);
  CHECK(round(s, 0) == std::vector<std::string>{"r0->r1 [0:3, 0:3] 9+0", "r1->r2 [3:6, 0:3] 9+0",
                                                "r2->r3 [6:9, 0:3] 9+0", "r3->r0 [9:10, 0:3] 3+6"});
  CHECK(round(s, 1) == std::vector<std::string>{"r0->r1 [9:10, 0:3] 3+6", "r1->r2 [0:3, 0:3] 9+0",
                                                "r2->r3 [3:6, 0:3] 9+0", "r3->r0 [6:9, 0:3] 9+0"});
  CHECK(round(s, 2) == std::vector<std::string>{"r0->r1 [6:9, 0:3] 9+0", "r1->r2 [9:10, 0:3] 3+6",
                                                "r2->r3 [0:3, 0:3] 9+0", "r3->r0 [3:6, 0:3] 9+0"});
  for (const RankBytes& b : s.bytes) CHECK(b.sent == 108);
  CHECK(s.step.bytesSent == 108);
  for (const RankShard& r : s.layoutAfter) CHECK(blockOf(r).toString() == "[0:10, 0:3]");
}

TEST_CASE("teach: ring reduce_scatter P(sum) -> S(0) of [8, 2] on 4 ranks combines partial sums", "[teach]") {
  // Round r: position i sends its running sum of chunk i-r-1 (rows 2 each) to i+1, which adds its own; after 3
  // rounds r_i holds chunk i summed over all four ranks.
  const TeachPlan tp = teach({8, 2}, mesh4, "P(sum)", "S(0)");
  const TeachStep& s = tp.steps.at(0);
  CHECK(s.step.kind == CollectiveKind::ReduceScatter);
  CHECK(s.rounds == 3);
  CHECK(round(s, 0) == std::vector<std::string>{"r0->r1 [6:8, 0:2] 4+0", "r1->r2 [0:2, 0:2] 4+0",
                                                "r2->r3 [2:4, 0:2] 4+0", "r3->r0 [4:6, 0:2] 4+0"});
  CHECK(round(s, 2) == std::vector<std::string>{"r0->r1 [2:4, 0:2] 4+0", "r1->r2 [4:6, 0:2] 4+0",
                                                "r2->r3 [6:8, 0:2] 4+0", "r3->r0 [0:2, 0:2] 4+0"});
  std::vector<std::string> sums;
  for (const Transfer& x : s.transfers) {
    CHECK(x.reduces);
    sums.push_back(contributors(x));
  }
  CHECK(sums == std::vector<std::string>{"r0", "r1", "r2", "r3",                      // round 1: own values
                                         "r0+r3", "r0+r1", "r1+r2", "r2+r3",          // round 2
                                         "r0+r2+r3", "r0+r1+r3", "r0+r1+r2", "r1+r2+r3"});  // round 3
  for (const RankBytes& b : s.bytes) CHECK(b.sent == 3 * 4 * 4);
  CHECK(s.maxBytesSent() == s.step.bytesSent);
  CHECK(blockOf(s.layoutAfter[2]).toString() == "[4:6, 0:2]");
  CHECK_FALSE(s.layoutAfter[2].partial);
}

TEST_CASE("teach: uneven reduce_scatter P(sum) -> S(0) of [5, 2] pads the empty last chunk", "[teach]") {
  // Rows 5 on 4 ranks: 2, 2, 1, 0; every chunk travels as 2 rows x 2 = 4 elements.
  const TeachPlan tp = teach({5, 2}, mesh4, "P", "S(0)");
  const TeachStep& s = tp.steps.at(0);
  CHECK(round(s, 0) == std::vector<std::string>{"r0->r1 [none, 0:2] 0+4", "r1->r2 [0:2, 0:2] 4+0",
                                                "r2->r3 [2:4, 0:2] 4+0", "r3->r0 [4:5, 0:2] 2+2"});
  CHECK(s.maxBytesSent() == s.step.bytesSent);
  CHECK(s.maxBytesSent() == 3 * 4 * 4);
  CHECK(s.layoutAfter[3].empty);
}

TEST_CASE("teach: ring all_reduce P(sum) -> R of [8, 4] is a reduce-scatter then an all_gather", "[teach]") {
  // Chunks: rows 2 each (dim 0 is the first dim with >= 4 rows). 6 rounds of 8 elements: 6 * 8 * 4 B = 192 B,
  // the planner's 2(k-1) * ceil(32/4) * 4 B.
  const TeachPlan tp = teach({8, 4}, mesh4, "P(sum)", "R");
  const TeachStep& s = tp.steps.at(0);
  CHECK(s.step.kind == CollectiveKind::AllReduce);
  CHECK(s.rounds == 6);
  REQUIRE(s.transfers.size() == 24);
  CHECK(round(s, 0) == std::vector<std::string>{"r0->r1 [6:8, 0:4] 8+0", "r1->r2 [0:2, 0:4] 8+0",
                                                "r2->r3 [2:4, 0:4] 8+0", "r3->r0 [4:6, 0:4] 8+0"});
  // Gather phase: round 4 (index 3) position i forwards its reduced chunk i.
  CHECK(round(s, 3) == std::vector<std::string>{"r0->r1 [0:2, 0:4] 8+0", "r1->r2 [2:4, 0:4] 8+0",
                                                "r2->r3 [4:6, 0:4] 8+0", "r3->r0 [6:8, 0:4] 8+0"});
  CHECK(round(s, 5) == std::vector<std::string>{"r0->r1 [4:6, 0:4] 8+0", "r1->r2 [6:8, 0:4] 8+0",
                                                "r2->r3 [0:2, 0:4] 8+0", "r3->r0 [2:4, 0:4] 8+0"});
  for (const Transfer& x : s.transfers) CHECK(x.reduces == (x.round < 3));
  CHECK(contributors(s.transfers[20]) == "r0+r1+r2+r3");
  for (const RankBytes& b : s.bytes) CHECK(b.sent == 192);
  CHECK(s.step.bytesSent == 192);
}

TEST_CASE("teach: chunk R -> S(1) and divide R -> P move nothing", "[teach]") {
  const TeachPlan c = teach({8, 6}, mesh4, "R", "S(1)");
  REQUIRE(c.steps.size() == 1);
  CHECK(c.steps[0].step.kind == CollectiveKind::LocalChunk);
  CHECK(c.steps[0].rounds == 0);
  CHECK(c.steps[0].transfers.empty());
  CHECK(blockOf(c.steps[0].layoutAfter[3]).toString() == "[0:8, none]");  // 6 columns: 2, 2, 2, 0
  CHECK(c.steps[0].maxBytesSent() == 0);
  const TeachPlan d = teach({8, 6}, mesh4, "R", "P(sum)");
  CHECK(d.steps.at(0).step.kind == CollectiveKind::LocalDivide);
  CHECK(d.steps[0].transfers.empty());
  CHECK(d.steps[0].layoutAfter[1].partial);
  CHECK(d.steps[0].lines(d.meta, d.mesh).front() ==
        "no communication: each rank divides its copy by 4, so the 4 partial values sum to it");
}

TEST_CASE("teach: S(0)S(0) -> RR of [7, 5] on 2x2 gathers the inner split first, in every group", "[teach]") {
  // Rows 7: dp splits 4 | 3, tp splits each: [0:2] [2:4] | [4:6] [6:7]. Step 1 (tp): groups {r0, r1} and
  // {r2, r3}; r3's one row travels padded to 2 rows (5 + 5). Step 2 (dp): [0:4] and [4:7] padded to 4 rows.
  const TeachPlan tp = teach({7, 5}, mesh2x2, "S(0)S(0)", "RR");
  REQUIRE(tp.steps.size() == 2);
  const TeachStep& a = tp.steps[0];
  CHECK(a.step.meshDim == 1);
  CHECK(a.before.toMeshString() == "S(0)S(0)");
  CHECK(a.after.toMeshString() == "S(0)R");
  CHECK(round(a, 0) == std::vector<std::string>{"r0->r1 [0:2, 0:5] 10+0", "r1->r0 [2:4, 0:5] 10+0",
                                                "r2->r3 [4:6, 0:5] 10+0", "r3->r2 [6:7, 0:5] 5+5"});
  CHECK(a.maxBytesSent() == a.step.bytesSent);
  CHECK(a.step.bytesSent == 40);
  const TeachStep& b = tp.steps[1];
  CHECK(b.step.meshDim == 0);
  CHECK(b.groups == std::vector<std::vector<int64_t>>{{0, 2}, {1, 3}});
  CHECK(round(b, 0) == std::vector<std::string>{"r0->r2 [0:4, 0:5] 20+0", "r2->r0 [4:7, 0:5] 15+5",
                                                "r1->r3 [0:4, 0:5] 20+0", "r3->r1 [4:7, 0:5] 15+5"});
  CHECK(b.maxBytesSent() == b.step.bytesSent);
}

TEST_CASE("teach: a non-default shard order is followed to the target's layout", "[teach]") {
  // S(0)[1]S(0)[0]: tp splits rows first, dp second. Whatever the planner's path, the last layout is the target's.
  const TeachPlan tp = teach({8, 4}, mesh2x2, "S(0)S(0)", "S(0)[1]S(0)[0]");
  REQUIRE_FALSE(tp.steps.empty());
  CHECK(tp.steps.back().after.toMeshString() == "S(0)[1]S(0)[0]");
  for (const TeachStep& s : tp.steps) CHECK(s.maxBytesSent() == s.step.bytesSent);
}

TEST_CASE("teach: refusals are one line", "[teach]") {
  // S -> P(max): DTensor 2.14 raises "redistribute from Shard(dim=0) to Partial(max) not supported yet".
  const TeachPlan sp = teachRedistribute(meta({8, 6}), mesh4, spec(mesh4, "S(0)"), spec(mesh4, "P(max)"));
  CHECK_FALSE(sp.possible);
  CHECK(sp.whyNot == "mesh dim 0 (tp): S(0) -> P(max): DTensor turns only a Shard into Partial(sum) (the shard "
                     "written into zeros); a shard cannot become a Partial(max) value");
  CHECK(sp.text() == sp.whyNot + "\n");
  const DeviceMesh big({1024});
  const TeachPlan b = teachRedistribute(meta({8}), big, ShardingSpec({Placement::shard(0)}), ShardingSpec({Placement::replicate()}));
  CHECK(b.whyNot == "the mesh has 1024 ranks; teaching pictures show at most 256");
}

TEST_CASE("teach: the text names ranks, blocks, padding and bytes", "[teach]") {
  const TeachPlan tp = teach({8, 6}, mesh2x4, "RS(1)", "RS(0)", DType::BF16);
  const std::string text = tp.text();
  CHECK(text.find("tensor [8, 6] bf16 on mesh 2x4 (dp, tp)\n") == 0);
  CHECK(text.find("from RS(1)  (Replicate(), Shard(dim=1))  [R, S1]\n") != std::string::npos);
  CHECK(text.find("  r3 (0,3) holds [0:8, none] local [8, 0] (empty)\n") != std::string::npos);
  CHECK(text.find("step 1 of 1: all_to_all on mesh dim 1 (tp): S(1) -> S(0), 24 B per rank") != std::string::npos);
  CHECK(text.find("    r0 (0,0) -> r1 (0,1): [2:4, 0:2], 4 elements\n") != std::string::npos);
  CHECK(text.find("    r3 (0,3) -> r0 (0,0): [0:2, none], 0 elements + 4 padding\n") != std::string::npos);
  CHECK(text.find("    r5 (1,1) holds [2:4, 0:6] local [2, 6], sent 24 B, received 24 B\n") != std::string::npos);
}

TEST_CASE("teach: the playground is one tensor whose layout changes by undoable commands", "[teach]") {
  Plan p = makePlayground(meta({8, 6}, DType::BF16), mesh2x4, spec(mesh2x4, "RS(1)"));
  CHECK(isPlayground(p));
  CHECK(p.validate().empty());
  CHECK(checkPlan(p).summary().errors == 0);
  EditHistory h;
  REQUIRE(h.apply(p, choosePlaygroundLayout(p, spec(mesh2x4, "RS(0)"))).ok());
  CHECK(p.producerSpec(kPlaygroundRelayout, 0)->toMeshString() == "RS(1)");
  CHECK(p.consumerSpec(kPlaygroundRelayout, 0)->toMeshString() == "RS(0)");
  REQUIRE(p.findRedistribute(kPlaygroundRelayout, 0) != nullptr);
  CHECK(checkPlan(p).summary().errors == 0);
  CHECK(h.undoLabel() == "Choose layout RS(0)");
  // The next choice starts where the last one ended.
  REQUIRE(h.apply(p, choosePlaygroundLayout(p, spec(mesh2x4, "S(0)S(1)"))).ok());
  CHECK(p.producerSpec(kPlaygroundRelayout, 0)->toMeshString() == "RS(0)");
  CHECK(p.consumerSpec(kPlaygroundRelayout, 0)->toMeshString() == "S(0)S(1)");
  REQUIRE(h.undo(p).ok());
  REQUIRE(h.undo(p).ok());
  CHECK(p == makePlayground(meta({8, 6}, DType::BF16), mesh2x4, spec(mesh2x4, "RS(1)")));
}

TEST_CASE("teach: a description's 'Look at: NODE input N' names an edge", "[teach]") {
  Plan p = makePlayground(meta({8, 6}), mesh4, spec(mesh4, "S(0)"));
  CHECK_FALSE(lookAtEdge(p).has_value());
  p.description = "Some text. Look at: relayout input 0 (press Play).";
  REQUIRE(lookAtEdge(p).has_value());
  CHECK(lookAtEdge(p)->node == kPlaygroundRelayout);
  CHECK(lookAtEdge(p)->input == 0);
  p.description = "Look at: relayout input 1";  // relayout has one input
  CHECK_FALSE(lookAtEdge(p).has_value());
  p.description = "Look at: nosuch input 0";
  CHECK_FALSE(lookAtEdge(p).has_value());
  p.description = "Look at: relayout input x";
  CHECK_FALSE(lookAtEdge(p).has_value());
}
