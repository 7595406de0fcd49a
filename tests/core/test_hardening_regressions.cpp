// Regression tests for what fuzzing and the bad-input sweep found (docs/reliability.md lists each).
// Each case replays the exact input that failed.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <limits>

#include "core/model/graph.h"
#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"
#include "core/model/layout.h"
#include "core/model/placement_parse.h"
#include "core/model/result.h"

using namespace ss;

namespace {
std::string readRegression(const std::string& target, const std::string& name) {
  std::ifstream f(std::string(SHARDSCOPE_SOURCE_DIR) + "/fuzz/regressions/" + target + "/" + name, std::ios::binary);
  REQUIRE(f.good());
  return std::string(std::istreambuf_iterator<char>(f), {});
}
}  // namespace

TEST_CASE("fuzz_placement: a quoted JAX mesh dim name holding NUL and newline stays on one line", "[hardening]") {
  // Found by fuzz_placement: the parser echoed the raw name into the message, which then spanned two lines.
  const std::string text = readRegression("fuzz_placement", "newline-in-quoted-mesh-dim-name");
  REQUIRE(text == std::string("P(('\0\ndp', 'vp'), None)", 23));
  DeviceMesh mesh({2, 4}, {"dp", "tp"});
  auto spec = parseSpec(text, ParseContext{&mesh, -1});
  REQUIRE_FALSE(spec.ok());
  CHECK(spec.error().toString() == "no mesh dim is named '\\x00\\ndp' (the mesh is 2x4 (dp, tp)) (column 4)");
  CHECK(spec.error().toString("f.txt") == "f.txt:1:4: no mesh dim is named '\\x00\\ndp' (the mesh is 2x4 (dp, tp))");
}

// K5: a stray byte from a file (nlohmann echoes it: "last read: '"\xff'") would make json::dump throw in a --json
// report, and shows as garbage on a terminal.
TEST_CASE("Error::oneLine escapes bytes that are not well-formed UTF-8", "[hardening]") {
  CHECK(Error::oneLine("last read: '\"\xff'") == "last read: '\"\\xff'");
  CHECK(Error::oneLine("\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80") == "\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80");  // 2, 3, 4 bytes
  CHECK(Error::oneLine("\xc0\x80") == "\\xc0\\x80");          // overlong NUL
  CHECK(Error::oneLine("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a UTF-16 surrogate
  CHECK(Error::oneLine("ab\xe2\x9c") == "ab\\xe2\\x9c");        // cut short at the end
  CHECK(Error::oneLine("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  const std::string msg = Error::atLine("invalid JSON: last read: '\"a\xff'", 1, 103).toString("bad.plan.json");
  CHECK(msg == "bad.plan.json:1:103: invalid JSON: last read: '\"a\\xff'");
  CHECK_NOTHROW(nlohmann::json(msg).dump());
}

TEST_CASE("Error::oneLine escapes control characters only", "[hardening]") {
  CHECK(Error::oneLine("plain text, 'quoted' \xc3\xa9") == "plain text, 'quoted' \xc3\xa9");
  CHECK(Error::oneLine(std::string("a\nb\rc\td\0e\x7f", 10)) == "a\\nb\\rc\\td\\x00e\\x7f");
  CHECK(Error::atPointer("x\ny", "/a").toString("f") == "f: /a: x\\ny");
}

TEST_CASE("layout of a 2^20-rank mesh is linear: every rank's torch.chunk piece in O(1)", "[hardening]") {
  // Was quadratic (each rank built all 2^20 chunk sizes): 65536 ranks took 12 s, 2^20 ranks ~50 minutes.
  DeviceMesh mesh({1048576});
  auto all = layoutAllRanks({7}, mesh, ShardingSpec({Placement::shard(0)}));
  REQUIRE(all.ok());
  REQUIRE(all->size() == 1048576);
  CHECK((*all)[6].localShape == std::vector<int64_t>{1});
  CHECK((*all)[6].offset == std::vector<int64_t>{6});
  CHECK((*all)[7].empty);
  CHECK((*all)[7].offset == std::vector<int64_t>{7});
  CHECK((*all)[1048575].empty);
}

TEST_CASE("layout refuses listings it could not hold instead of allocating 8 GiB per rank", "[hardening]") {
  // _S(0, 2^20) on 1024 ranks built a 2^30-entry vector per rank (11 GB RSS, then killed).
  DeviceMesh mesh({1024});
  auto all = layoutAllRanks({7}, mesh, ShardingSpec({Placement::strided(0, 1 << 20)}));
  REQUIRE_FALSE(all.ok());
  CHECK(all.error().message ==
        "the layout would hold up to 1024 rank(s) x 1048576 interval(s); the limit is 16777216 (use fewer ranks or "
        "smaller split factors)");
  // One rank of the same layout is fine: 2^20 intervals, each chunk computed directly. DTensor 2.14's
  // _StridedShard._split_tensor cuts 2^22 into 2^20 chunks of 4 and each chunk into 1024 pieces (torch.chunk:
  // pieces 0-3 hold one element, 4-1023 none); rank i keeps piece i of every chunk.
  auto one = shardOnRank({1 << 22}, mesh, ShardingSpec({Placement::strided(0, 1 << 20)}), 3);
  REQUIRE(one.ok());
  CHECK(one->localShape == std::vector<int64_t>{1 << 20});  // element 3 of each chunk: 3, 7, 11, ...
  REQUIRE(one->slices[0].parts.size() == static_cast<size_t>(1 << 20));  // one interval per chunk, not adjacent
  CHECK(one->slices[0].parts[0].start == 3);
  CHECK(one->slices[0].parts[1].start == 7);
  CHECK(one->slices[0].parts[1].length == 1);
  // Rank 5 gets piece 5 of every chunk of 4: nothing at all.
  auto none = shardOnRank({1 << 22}, mesh, ShardingSpec({Placement::strided(0, 1 << 20)}), 5);
  REQUIRE(none.ok());
  CHECK(none->localShape == std::vector<int64_t>{0});
  CHECK(none->empty);
  CHECK(none->slices[0].parts.empty());
}

TEST_CASE("layout of sizes near 2^63 does not overflow", "[hardening]") {
  // chunkSizes computed ceil(n/k) as (n + k - 1) / k: signed overflow (UBSan) for n near INT64_MAX.
  const int64_t n = std::numeric_limits<int64_t>::max();
  CHECK(chunkSizes(n, 3) == std::vector<int64_t>{3074457345618258603, 3074457345618258603, 3074457345618258601});
  auto r = shardOnRank({n}, DeviceMesh({3}), ShardingSpec({Placement::shard(0)}), 2);
  REQUIRE(r.ok());
  CHECK(r->localShape == std::vector<int64_t>{3074457345618258601});
  CHECK(r->offset == std::vector<int64_t>{6148914691236517206});
  auto whole = shardOnRank({n, n}, DeviceMesh({3}), ShardingSpec({Placement::replicate()}), 0);
  REQUIRE(whole.ok());
  CHECK(whole->numel() == n);  // saturates instead of wrapping
  TensorMeta meta{{n, 4}, DType::F32, true};
  CHECK(meta.numel() == n);
}

TEST_CASE("a shard order of the wrong size is ignored by the printers, refused by validateSpec", "[hardening]") {
  // Found by the sanitizer run: toMeshString() and meshDimsSharding() read order[m] past its end.
  ShardingSpec spec({Placement::shard(0), Placement::shard(0)}, {0});
  CHECK(spec.toMeshString() == "S(0)S(0)");
  CHECK(spec.meshDimsSharding(0) == std::vector<int>{0, 1});
  CHECK(spec == ShardingSpec({Placement::shard(0), Placement::shard(0)}));
  CHECK(validateSpec(spec, DeviceMesh({2, 4}), 1) == "the shard order must give one entry per mesh dim");
}

TEST_CASE("fuzz_placement: R printed before _S(d, sf) parses back", "[hardening]") {
  // Found by fuzz_placement: toMeshString() prints (R, _S(2, 3), S(2)) as "R_S(2, 3)S(2)", which the parser
  // read as one unknown word "R_S".
  const std::string text = readRegression("fuzz_placement", "replicate-glued-to-strided-shard");
  REQUIRE(text == "Replicate()_S(2, 3)S(2)");
  DeviceMesh mesh({2, 2, 2});
  auto spec = parseSpec(text, ParseContext{&mesh, 4});
  REQUIRE(spec.ok());
  CHECK(spec->toMeshString() == "R_S(2, 3)S(2)");
  auto again = parseSpec(spec->toMeshString(), ParseContext{&mesh, 4});
  REQUIRE(again.ok());
  CHECK(*again == *spec);
  auto glued = parseSpec("RR_S(0, 2)", ParseContext{&mesh, 1});
  REQUIRE(glued.ok());
  CHECK(glued->placements[2] == Placement::strided(0, 2));
}

TEST_CASE("an FX Sym(s0) placeholder (no dtype) survives native save and load", "[hardening]") {
  // Found by fuzz_load_plan with a fixed seed: the writer spelled DType::Unknown "unknown" and the reader refused it.
  std::ifstream f(std::string(SHARDSCOPE_SOURCE_DIR) + "/fuzz/regressions/fuzz_load_plan/sym-placeholder-dtype-unknown.py",
                  std::ios::binary);
  REQUIRE(f.good());
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto p = ss::loadPlanText(text, "x.py");
  REQUIRE(p.ok());
  const int sym = p->graph.find("primals_4");
  REQUIRE(sym >= 0);
  CHECK(p->graph.nodes[sym].outputs[0].dtype == ss::DType::Unknown);
  const std::string written = ss::writePlanString(*p);
  auto again = ss::loadPlanText(written, "y.plan.json");
  REQUIRE(again.ok());
  CHECK(ss::writePlanString(*again) == written);
}
