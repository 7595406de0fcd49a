// float8's _scaled_mm (core/rules/scaled_mm.cpp): scales placed as DTensor 2.14 derives them from their operands,
// and the Partial-times-Partial-scale row DTensor keeps refused. The oracle cases (tests/dtensor/case_ops/
// scaled_mm.py) compare every layout with DTensor; these pin the messages.
#include <catch2/catch.hpp>

#include "core/ops/op_table.h"
#include "rules_case.h"

using namespace ss;
using namespace ss::test;

namespace {
constexpr DType F8 = DType::F8E4M3FN;

// _scaled_mm(self [8, 16], mat2 [16, 4], scale_a, scale_b, None, None) on `mesh`.
struct ScaledMm {
  RuleCase c;
  ScaledMm(std::vector<int64_t> mesh, const char* a, const char* b, std::vector<int64_t> sa, const char* psa,
           std::vector<int64_t> sb, const char* psb, DType scaleType = DType::F32)
      : c(std::move(mesh), "aten._scaled_mm.default") {
    c.args({c.in({8, 16}, a, F8), c.in({16, 4}, b, F8), c.in(std::move(sa), psa, scaleType),
            c.in(std::move(sb), psb, scaleType), Arg::none(), Arg::none()})
        .out({8, 4}, F8);
  }
  std::string out() { return c.outSpec(); }
};
}  // namespace

TEST_CASE("_scaled_mm: tensor-wise scales stay Replicate, the data as mm", "[rules][scaled_mm]") {
  CHECK(ScaledMm({4}, "R", "R", {}, "R", {}, "R").out() == "R");
  CHECK(ScaledMm({4}, "S(0)", "R", {}, "R", {}, "R").out() == "S(0)");
  CHECK(ScaledMm({4}, "R", "S(1)", {}, "R", {}, "R").out() == "S(1)");
  CHECK(ScaledMm({4}, "S(1)", "S(0)", {}, "R", {}, "R").out() == "P(sum)");
  // A Partial factor times a Replicate one: the tensor-wise scale is Replicate, so the product is right.
  CHECK(ScaledMm({4}, "P(sum)", "R", {}, "R", {}, "R").out() == "P(sum)");
  CHECK(ScaledMm({4}, "R", "P(avg)", {}, "R", {}, "R").out() == "P(avg)");
  CHECK(ScaledMm({2, 2}, "S(0)R", "RS(1)", {}, "RR", {}, "RR").out() == "S(0)S(1)");
  // A Partial tensor-wise scale: DTensor keeps it Replicate (it reduces the scale first).
  ScaledMm p({4}, "R", "R", {}, "P(sum)", {}, "R");
  CHECK(p.out() == "error");
  CHECK(p.c.result.input == 2);
  CHECK(p.c.want() == "R");
  CHECK(p.c.result.message ==
        "on mesh dim 0 (dim0), self arrives as R, so scale_a [] must be R there (a tensor-wise scale is "
        "Replicate), but it arrives as P(sum)");
}

TEST_CASE("_scaled_mm: row-wise scales follow their operand's rows", "[rules][scaled_mm]") {
  CHECK(ScaledMm({4}, "S(0)", "R", {8, 1}, "S(0)", {1, 4}, "R").out() == "S(0)");
  CHECK(ScaledMm({4}, "R", "S(1)", {8, 1}, "R", {1, 4}, "S(1)").out() == "S(1)");
  CHECK(ScaledMm({2, 2}, "S(0)S(0)", "RR", {8, 1}, "S(0)S(0)", {1, 4}, "RR").out() == "S(0)S(0)");
  // The scale must arrive as its operand's rows are split.
  ScaledMm rows({4}, "S(0)", "R", {8, 1}, "R", {1, 4}, "R");
  CHECK(rows.out() == "error");
  CHECK(rows.c.result.input == 2);
  CHECK(rows.c.want() == "S(0)");
  CHECK(rows.c.result.message ==
        "on mesh dim 0 (dim0), self arrives as S(0), so scale_a [8, 1] must be S(0) there (a scale of rank >= 2 is "
        "placed as its operand), but it arrives as R");
  // K on both: the row-wise scale would have to split its size-1 dim (DTensor redistributes).
  ScaledMm k({4}, "S(1)", "S(0)", {8, 1}, "R", {1, 4}, "R");
  CHECK(k.out() == "error");
  CHECK(k.c.result.input == 0);
  CHECK(k.c.want() == "R");
  CHECK(k.c.result.message ==
        "on mesh dim 0 (dim0), self arrives as S(1): DTensor's strategy would split scale_a [8, 1] as S(1), and its "
        "dim 1 (size 1) does not split over 4 ranks; replicate it, or shard M or N");
  CHECK(!k.c.result.alternatives.empty());
}

TEST_CASE("_scaled_mm: a Partial operand with a row-wise scale is refused (DTensor multiplies two Partials)",
          "[rules][scaled_mm]") {
  // DTensor accepts P(sum) self with a P(sum) scale_a (its strategy copies the Partial onto the scale): the ranks'
  // sum of s_r * x_r is not (sum s_r) * (sum x_r). With a Replicate scale it makes the scale Partial first.
  for (const char* scale : {"P(sum)", "R"}) {
    ScaledMm c({4}, "P(sum)", "R", {8, 1}, scale, {1, 4}, "R");
    INFO(scale);
    CHECK(c.out() == "partial-into-nonlinear");
    CHECK(c.c.result.input == 0);
    CHECK(c.c.want() == "R");
    CHECK(c.c.result.message ==
          "on mesh dim 0 (dim0), self arrives as P(sum): _scaled_mm multiplies self by scale_a [8, 1] (not "
          "tensor-wise), so a Partial self would need a Partial scale too (DTensor's strategy copies the placement "
          "onto it), and a sum of per-rank products is not the product of the sums; reduce it first (all_reduce)");
  }
  ScaledMm b({2, 2}, "RR", "RP(avg)", {8, 1}, "RR", {1, 4}, "RP(avg)");
  CHECK(b.out() == "partial-into-nonlinear");
  CHECK(b.c.result.input == 1);
  CHECK(b.c.want() == "RR");
}

TEST_CASE("_scaled_mm: 1-D blockwise (MX) scales, a bias, and the float8 dtypes", "[rules][scaled_mm]") {
  auto mx = [](const char* a, const char* sa) {
    RuleCase c({4}, "aten._scaled_mm.default");
    c.args({c.in({8, 32}, a, F8), c.in({32, 4}, "R", F8), c.in({512}, sa, DType::F8E8M0FNU),
            c.in({512}, "R", DType::F8E8M0FNU), Arg::none(), Arg::none()})
        .out({8, 4}, F8);
    return c.outSpec();
  };
  CHECK(mx("S(0)", "S(0)") == "S(0)");
  CHECK(mx("S(0)", "R") == "error");
  CHECK(mx("P(sum)", "R") == "P(sum)");  // a 1-D blockwise scale stays Replicate under a Partial operand: right
  CHECK(mx("S(1)", "R") == "error");     // no strategy follows K with a 1-D blockwise scale
  // A bias: DTensor's strategy raises.
  RuleCase c({4}, "aten._scaled_mm.default");
  c.args({c.in({8, 16}, "R", F8), c.in({16, 4}, "R", F8), c.in({}, "R"), c.in({}, "R"), c.in({4}, "R", DType::BF16),
          Arg::none()})
      .out({8, 4}, DType::BF16);
  CHECK(c.outSpec() == "error");
  CHECK(c.result.input == 4);
  CHECK(c.result.message == "DTensor has no _scaled_mm strategy with a bias (its strategy raises): apply it after the matmul");
  // The .out overload shares the rule; FX's dtype names read back.
  const ops::OpEntry* e = ops::findOp("aten._scaled_mm.out");
  REQUIRE(e);
  CHECK(e->sharding != nullptr);
  CHECK(dtypeFromName("f8e4m3fn") == DType::F8E4M3FN);
  CHECK(dtypeFromName("torch.float8_e5m2") == DType::F8E5M2);
  CHECK(std::string(dtypeName(DType::F8E8M0FNU)) == "f8e8m0fnu");
  CHECK(dtypeBytes(DType::F8E4M3FN) == 1);
}
