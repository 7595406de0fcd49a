// Placement parsing and printing: every notation, round trips, and errors with columns.
#include <catch2/catch.hpp>

#include "core/model/placement_parse.h"

using namespace ss;

namespace {
const DeviceMesh mesh2x4({2, 4}, {"dim0", "dim1"});
const DeviceMesh mesh1d({8});
const DeviceMesh mesh3d({2, 2, 2}, {"pp", "dp", "tp"});

ShardingSpec spec(std::string_view t, const DeviceMesh& m = mesh2x4, int rank = -1) {
  auto r = parseSpec(t, ParseContext{&m, rank});
  INFO("parsing " << t << ": " << (r ? std::string() : r.error().toString()));
  REQUIRE(r.ok());
  return *r;
}
Error specError(std::string_view t, const DeviceMesh* m = &mesh2x4, int rank = -1) {
  auto r = parseSpec(t, ParseContext{m, rank});
  REQUIRE_FALSE(r.ok());
  return r.error();
}
}  // namespace

TEST_CASE("single placements in short and long form", "[placement]") {
  CHECK(parsePlacement("S(0)")->shortString() == "S(0)");
  CHECK(*parsePlacement("Shard(dim=2)") == Placement::shard(2));
  CHECK(*parsePlacement("Shard(1)") == Placement::shard(1));
  CHECK(*parsePlacement("R") == Placement::replicate());
  CHECK(*parsePlacement("Replicate()") == Placement::replicate());
  CHECK(*parsePlacement("P") == Placement::partial(ReduceOp::Sum));
  CHECK(*parsePlacement("P(avg)") == Placement::partial(ReduceOp::Avg));
  CHECK(*parsePlacement("Partial(sum)") == Placement::partial(ReduceOp::Sum));
  CHECK(*parsePlacement("Partial(reduce_op=max)") == Placement::partial(ReduceOp::Max));
  CHECK(*parsePlacement("Partial(reduce_op='min')") == Placement::partial(ReduceOp::Min));
  CHECK(*parsePlacement("P(product)") == Placement::partial(ReduceOp::Product));
  CHECK(*parsePlacement("_S(0, 2)") == Placement::strided(0, 2));
  CHECK(*parsePlacement("_StridedShard(dim=0, sf=2)") == Placement::strided(0, 2));
  CHECK(*parsePlacement("_StridedShard(dim=1, split_factor=4)") == Placement::strided(1, 4));
  CHECK(Placement::strided(0, 2).longString() == "_StridedShard(dim=0, sf=2)");
  CHECK(Placement::partial(ReduceOp::Avg).longString() == "Partial(avg)");
  CHECK(Placement::shard(3).longString() == "Shard(dim=3)");
  CHECK(Placement::replicate().longString() == "Replicate()");
}

TEST_CASE("mesh-centric concatenated specs", "[placement]") {
  CHECK(spec("RS(0)").placements == std::vector{Placement::replicate(), Placement::shard(0)});
  CHECK(spec("S(0)S(1)").placements == std::vector{Placement::shard(0), Placement::shard(1)});
  CHECK(spec("P(sum)S(0)").placements == std::vector{Placement::partial(), Placement::shard(0)});
  CHECK(spec("RR").isReplicated());
  CHECK(spec("S(0), R").placements == std::vector{Placement::shard(0), Placement::replicate()});
  CHECK(spec("PR").placements == std::vector{Placement::partial(), Placement::replicate()});
  auto s3 = spec("S(1)[1]S(1)[0]R", mesh3d);
  CHECK(s3.meshDimsSharding(1) == std::vector<int>{1, 0});
  CHECK(s3.toMeshString() == "S(1)[1]S(1)[0]R");
  // Brackets in mesh-dim order are the default order and print without brackets.
  CHECK(spec("S(1)[0]S(1)[1]").toMeshString() == "S(1)S(1)");
  CHECK(spec("S(1)[0]S(1)[1]") == spec("S(1)S(1)"));
  CHECK(spec("S(1)[1]S(1)[0]") != spec("S(1)S(1)"));
}

TEST_CASE("DTensor long-form lists and tuples", "[placement]") {
  auto a = spec("(Shard(dim=0), Replicate())");
  CHECK(a.placements == std::vector{Placement::shard(0), Placement::replicate()});
  CHECK(a.toLongString() == "(Shard(dim=0), Replicate())");
  CHECK(spec("[Shard(dim=0), Replicate()]") == a);
  CHECK(spec("(S(0), R)") == a);
  CHECK(spec("(Partial(reduce_op=sum), Shard(dim=1))").toMeshString() == "P(sum)S(1)");
  CHECK(spec("(Shard(dim=0),)", mesh1d).toLongString() == "(Shard(dim=0),)");
  CHECK(spec("Partial(sum)", mesh1d).placements == std::vector{Placement::partial()});
  CHECK(spec("_StridedShard(dim=0, sf=2)", mesh1d).placements == std::vector{Placement::strided(0, 2)});
  CHECK(spec("(_S(0, 4), S(0))").toMeshString() == "_S(0, 4)S(0)");
}

TEST_CASE("tensor-centric Colossal-AI specs", "[placement]") {
  auto s = spec("[R, R, S0, S1]");
  CHECK(s.placements == std::vector{Placement::shard(2), Placement::shard(3)});
  CHECK(s.toTensorString(4) == "[R, R, S0, S1]");
  auto s01 = spec("[S01, R]");
  CHECK(s01.placements == std::vector{Placement::shard(0), Placement::shard(0)});
  CHECK(s01.toTensorString(2) == "[S01, R]");
  auto s10 = spec("[S10, R]");
  CHECK(s10.meshDimsSharding(0) == std::vector<int>{1, 0});
  CHECK(s10.toTensorString(2) == "[S10, R]");
  CHECK(spec("[R, R, R]").isReplicated());
  CHECK(spec("P(sum)S(0)").toTensorString(2) == "[S1, R] + P(sum)@0");
  auto e = specError("[R, S2]");
  CHECK(e.message.find("mesh dim 2 does not exist") != std::string::npos);
  CHECK(e.column == 5);
}

TEST_CASE("JAX PartitionSpec with mesh dim names", "[placement]") {
  auto s = spec("P(None, 'dim1')");
  CHECK(s.placements == std::vector{Placement::replicate(), Placement::shard(1)});
  CHECK(s.toJaxString(2, mesh2x4) == "P(None, 'dim1')");
  auto t = spec("PartitionSpec(('dim0', 'dim1'), None)");
  CHECK(t.placements == std::vector{Placement::shard(0), Placement::shard(0)});
  CHECK(t.toJaxString(2, mesh2x4) == "P(('dim0', 'dim1'), None)");
  auto e = specError("P(None, 'tp')");
  CHECK(e.message == "no mesh dim is named 'tp' (the mesh is 2x4 (dim0, dim1))");
  CHECK(e.column == 9);
  const DeviceMesh unnamed({2, 4});
  CHECK(specError("P(None, 'tp')", &unnamed).message.find("needs mesh dim names") != std::string::npos);
}

TEST_CASE("round trips through every printed form", "[placement]") {
  for (const char* t : {"RS(0)", "S(0)S(1)", "P(sum)S(0)", "P(avg)R", "RR", "_S(0, 2)S(0)", "S(1)[1]S(1)[0]"}) {
    auto s = spec(t);
    CHECK(spec(s.toMeshString()) == s);
    if (s.order.empty()) CHECK(spec(s.toLongString()) == s);  // the long form has no shard-order notation
    if (!s.hasPartial()) {
      bool strided = s.toMeshString().find("_S") != std::string::npos;
      if (!strided) CHECK(spec(s.toTensorString(3)) == s);
      if (!strided) CHECK(spec(s.toJaxString(3, mesh2x4)) == s);
    }
  }
}

TEST_CASE("autoparallel strategy lines and tuple outputs", "[placement]") {
  auto l = parseStrategy("(S(0)R, RS(1)) -> S(0)S(1)", ParseContext{&mesh2x4});
  REQUIRE(l.ok());
  REQUIRE(l->inputs.size() == 2);
  CHECK(l->inputs[0]->toMeshString() == "S(0)R");
  CHECK(l->inputs[1]->toMeshString() == "RS(1)");
  REQUIRE(l->outputs.size() == 1);
  CHECK(l->outputs[0]->toMeshString() == "S(0)S(1)");
  auto l2 = parseStrategy("S(0)R, RS(1) -> S(0)S(1)", ParseContext{&mesh2x4});
  REQUIRE(l2.ok());
  CHECK(l2->inputs.size() == 2);
  auto t = parseSpecTuple("(RS(0), RS(0), None)", ParseContext{&mesh2x4});
  REQUIRE(t.ok());
  REQUIRE(t->size() == 3);
  CHECK((*t)[1]->toMeshString() == "RS(0)");
  CHECK_FALSE((*t)[2].has_value());
  auto bad = parseStrategy("(S(0)R, RX) -> S(0)S(1)", ParseContext{&mesh2x4});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().column == 9);
  CHECK(bad.error().message.rfind("unknown placement 'RX'", 0) == 0);
}

TEST_CASE("bad placement text gives the column", "[placement][errors]") {
  auto e = specError("S(0)Q(1)");
  CHECK(e.column == 5);
  CHECK(e.message.rfind("unknown placement 'Q'", 0) == 0);
  CHECK(specError("S(0").column == 4);
  CHECK(specError("S(x)R").message == "expected a tensor dim, found 'x'");
  CHECK(specError("S(x)R").column == 3);
  CHECK(specError("P(mean2)R").message.find("unknown reduce op 'mean2'") != std::string::npos);
  CHECK(specError("S(0)").message == "got 1 placement for a 2-dim mesh (2x4 (dim0, dim1))");
  CHECK(specError("S(0)RR").message == "got 3 placements for a 2-dim mesh (2x4 (dim0, dim1))");
  CHECK(specError("S(3)R", &mesh2x4, 2).message == "shard dim 3 is out of range for a tensor with 2 dims");
  CHECK(specError("_S(0, 0)R").message == "split factor must be >= 1");
  CHECK(specError("").message == "empty placement spec");
  CHECK(specError("(S(0), R").message == "unclosed '('");
  CHECK(spec("S(-1)R", mesh2x4, 3).placements[0] == Placement::shard(2));
  CHECK(specError("S(-1)R", &mesh2x4, -1).message.find("needs the tensor's rank") != std::string::npos);
  CHECK(specError("Replicate(1)R").message == "Replicate takes no arguments");
  CHECK(specError(std::string(5000, 'R')).message.find("too long") != std::string::npos);
}

TEST_CASE("spec equality and hashing ignore fields that do not matter", "[placement]") {
  Placement a = Placement::replicate();
  Placement b = Placement::replicate();
  b.dim = 7;
  CHECK(a == b);
  CHECK(a.hash() == b.hash());
  CHECK(std::hash<ShardingSpec>{}(spec("RS(0)")) == std::hash<ShardingSpec>{}(spec("(Replicate(), Shard(dim=0))")));
  CHECK(spec("RS(0)") != spec("RS(1)"));
}
