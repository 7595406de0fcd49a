// Exact layouts, with values worked out by hand in the comments.
#include <catch2/catch.hpp>

#include "core/model/layout.h"
#include "core/model/placement_parse.h"

using namespace ss;
using Shape = std::vector<int64_t>;

namespace {
std::vector<RankShard> layout(const Shape& shape, const DeviceMesh& mesh, std::string_view text) {
  auto s = parseSpec(text, ParseContext{&mesh, static_cast<int>(shape.size())});
  REQUIRE(s.ok());
  auto r = layoutAllRanks(shape, mesh, *s);
  REQUIRE(r.ok());
  return *r;
}
}  // namespace

TEST_CASE("torch.chunk sizes", "[layout]") {
  CHECK(chunkSizes(7, 2) == Shape{4, 3});
  CHECK(chunkSizes(5, 4) == Shape{2, 2, 1, 0});   // ceil(5/4)=2: 2,2,1 then nothing left
  CHECK(chunkSizes(3, 4) == Shape{1, 1, 1, 0});
  CHECK(chunkSizes(10, 4) == Shape{3, 3, 3, 1});
  CHECK(chunkSizes(9, 6) == Shape{2, 2, 2, 2, 1, 0});
  CHECK(chunkSizes(0, 3) == Shape{0, 0, 0});
  CHECK(chunkSizes(128, 4) == Shape{32, 32, 32, 32});
}

TEST_CASE("one tensor dim on two mesh dims, uneven", "[layout]") {
  // 7 rows on mesh dim 0 (2): 4 | 3; then each half on mesh dim 1 (2): 4 -> 2|2, 3 -> 2|1.
  DeviceMesh m({2, 2});
  auto r = layout({7, 5}, m, "S(0)S(0)");
  CHECK(r[0].localShape == Shape{2, 5});
  CHECK(r[0].offset == Shape{0, 0});
  CHECK(r[1].localShape == Shape{2, 5});
  CHECK(r[1].offset == Shape{2, 0});
  CHECK(r[2].localShape == Shape{2, 5});
  CHECK(r[2].offset == Shape{4, 0});
  CHECK(r[3].localShape == Shape{1, 5});
  CHECK(r[3].offset == Shape{6, 0});
  CHECK(r[3].coord == Shape{1, 1});
}

TEST_CASE("empty shards have offsets clamped to the size", "[layout]") {
  // 5 on 4 ranks: 2,2,1,0; the last rank's offset is 5 (clamped), and it is marked empty.
  DeviceMesh m({4});
  auto r = layout({5, 3}, m, "S(0)");
  CHECK(r[2].localShape == Shape{1, 3});
  CHECK(r[2].offset == Shape{4, 0});
  CHECK(r[3].localShape == Shape{0, 3});
  CHECK(r[3].offset == Shape{5, 0});
  CHECK(r[3].empty);
  CHECK_FALSE(r[2].empty);
  // 3 on 2x2 sharded twice: 2|1 then 2 -> 1|1 and 1 -> 1|0.
  auto t = layout({3}, DeviceMesh({2, 2}), "S(0)S(0)");
  CHECK(t[3].localShape == Shape{0});
  CHECK(t[3].offset == Shape{3});
  CHECK(t[2].offset == Shape{2});
}

TEST_CASE("seed 1 shapes: RS(0) self against RS(1) values on the 2x4 mesh", "[layout]") {
  DeviceMesh m({2, 4}, {"dim0", "dim1"});
  auto self = layout({16, 128, 73, 64}, m, "RS(0)");
  auto values = layout({16, 128, 1, 64}, m, "RS(1)");
  for (int rank = 0; rank < 8; ++rank) {
    CHECK(self[rank].localShape == Shape{4, 128, 73, 64});
    CHECK(values[rank].localShape == Shape{16, 32, 1, 64});
  }
  CHECK(values[5].offset == Shape{0, 32, 0, 0});   // rank 5 = coord (1, 1)
  CHECK(self[7].offset == Shape{12, 0, 0, 0});     // rank 7 = coord (1, 3)
}

TEST_CASE("3-D mesh", "[layout]") {
  // 2x2x2: S(0) on pp, R on dp, S(1) on tp for a [6, 10] tensor: rows 3|3, cols 5|5.
  DeviceMesh m({2, 2, 2}, {"pp", "dp", "tp"});
  auto r = layout({6, 10}, m, "S(0)RS(1)");
  CHECK(r[0].localShape == Shape{3, 5});
  CHECK(r[7].coord == Shape{1, 1, 1});
  CHECK(r[7].offset == Shape{3, 5});
  CHECK(r[2].offset == Shape{0, 0});  // coord (0,1,0): the dp replica of rank 0
  // All three mesh dims on dim 0 of 10: 5|5, then 3|2, then 2|1 and 1|1 ...
  auto t = layout({10}, m, "S(0)S(0)S(0)");
  std::vector<int64_t> sizes, offs;
  for (auto& x : t) { sizes.push_back(x.localShape[0]); offs.push_back(x.offset[0]); }
  CHECK(sizes == Shape{2, 1, 1, 1, 2, 1, 1, 1});
  CHECK(offs == Shape{0, 2, 3, 4, 5, 7, 8, 9});
}

TEST_CASE("shard order changes who splits first", "[layout]") {
  // [8] on 2x2, mesh dim 1 splits first ([1]S(0)[0]): coords (a, b) -> 4*b + 2*a.
  DeviceMesh m({2, 2});
  auto r = layout({8}, m, "S(0)[1]S(0)[0]");
  CHECK(r[0].offset == Shape{0});
  CHECK(r[1].offset == Shape{4});
  CHECK(r[2].offset == Shape{2});
  CHECK(r[3].offset == Shape{6});
  // The same through the Colossal-AI form [S10].
  auto c = layout({8}, m, "[S10]");
  for (int i = 0; i < 4; ++i) CHECK(c[i].offset == r[i].offset);
}

TEST_CASE("strided shard keeps every k-th chunk", "[layout]") {
  // _S(0, 2) on 4 ranks over 16: 8 chunks of 2; rank i keeps chunks i and i+4.
  DeviceMesh m({4});
  auto r = layout({16}, m, "_S(0, 2)");
  CHECK(r[1].localShape == Shape{4});
  REQUIRE(r[1].slices[0].parts.size() == 2);
  CHECK(r[1].slices[0].parts[0] == Interval{2, 2});
  CHECK(r[1].slices[0].parts[1] == Interval{10, 2});
  // FSDP x TP composition: _S(0, 2) on mesh dim 0 then S(0) on mesh dim 1 equals sharding on dim 1 first.
  DeviceMesh m2({2, 2});
  auto a = layout({8}, m2, "_S(0, 2)S(0)");
  auto b = layout({8}, m2, "S(0)[1]S(0)[0]");
  for (int i = 0; i < 4; ++i) CHECK(a[i].slices == b[i].slices);
}

TEST_CASE("partial and replicate do not split", "[layout]") {
  DeviceMesh m({2, 4});
  auto r = layout({16, 8}, m, "P(sum)S(1)");
  CHECK(r[0].localShape == Shape{16, 2});
  CHECK(r[0].partial);
  CHECK(r[4].offset == Shape{0, 0});
}

TEST_CASE("layout errors", "[layout][errors]") {
  DeviceMesh m({2, 4});
  auto bad = layoutAllRanks({4, 4}, m, ShardingSpec({Placement::shard(2), Placement::replicate()}));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "S(2) on mesh dim 0 shards dim 2 of a tensor with 2 dims");
  auto wrongDims = layoutAllRanks({4}, m, ShardingSpec({Placement::shard(0)}));
  REQUIRE_FALSE(wrongDims.ok());
  CHECK(shardOnRank({4}, DeviceMesh({4}), ShardingSpec({Placement::shard(0)}), 9).error().message ==
        "rank 9 is not on the 4 mesh");
}

TEST_CASE("huge tensors are laid out without allocating", "[layout]") {
  DeviceMesh m({1024, 1024});
  auto r = shardOnRank({int64_t{1} << 40, 1 << 20}, m, ShardingSpec({Placement::shard(0), Placement::shard(1)}), 1024 * 1024 - 1);
  REQUIRE(r.ok());
  CHECK(r->localShape == Shape{int64_t{1} << 30, 1024});
  CHECK(r->numel() == int64_t{1} << 40);
}

TEST_CASE("device mesh coordinates and groups", "[mesh]") {
  DeviceMesh m({2, 4}, {"dp", "tp"});
  CHECK(m.coordOf(6) == Shape{1, 2});
  CHECK(m.rankOf(Shape{1, 2}) == 6);
  CHECK(m.groupAlong(6, 1) == Shape{4, 5, 6, 7});
  CHECK(m.groupAlong(6, 0) == Shape{2, 6});
  CHECK(m.toString() == "2x4 (dp, tp)");
  CHECK(m.dimIndex("tp") == 1);
  CHECK_FALSE(DeviceMesh::make({2, 0}).ok());
  CHECK(DeviceMesh::make({2, 0}).error().message == "mesh dim 1 has size 0; sizes must be >= 1");
  CHECK(DeviceMesh::make({2, 2}, {"a", "a"}).error().message == "mesh dim name 'a' is used twice");
  CHECK(DeviceMesh::make({1 << 20, 4}).error().message.find("more than") != std::string::npos);
  CHECK(DeviceMesh::parse("2x4")->shape() == Shape{2, 4});
  CHECK(DeviceMesh::parse("2y4").error().column == 2);
}
