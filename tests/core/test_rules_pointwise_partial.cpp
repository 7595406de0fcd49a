// Pointwise ops carrying Partial(max) / Partial(min) as DTensor 2.14 lets them (core/rules/pointwise_partial.cpp),
// and placement lists mixing Partial reduce ops, which DTensor refuses.
#include <catch2/catch.hpp>

#include "core/model/placement_parse.h"
#include "rules_case.h"

using namespace ss;
using namespace ss::test;

namespace {
std::string unary(const char* op, const char* spec) {
  RuleCase c({2, 2}, op);
  c.args({c.in({8, 6}, spec)}).out({8, 6});
  return c.outSpec();
}
std::string binary(const char* op, const char* a, const char* b) {
  RuleCase c({2, 2}, op);
  c.args({c.in({8, 6}, a), c.in({8, 6}, b)}).out({8, 6});
  return c.outSpec();
}
}  // namespace

TEST_CASE("monotone unary ops keep P(max) / P(min); non-increasing ones swap them", "[rules][pointwise][dtensor]") {
  CHECK(unary("aten.exp.default", "P(max)S(0)") == "P(max)S(0)");
  CHECK(unary("aten.relu.default", "S(1)P(min)") == "S(1)P(min)");
  CHECK(unary("aten.relu_.default", "P(max)R") == "P(max)R");  // the derived in-place form reads relu's rules
  CHECK(unary("aten.exp.default", "P(sum)R") == "partial-into-nonlinear");
  CHECK(unary("aten.erfc.default", "P(max)R") == "P(min)R");
  CHECK(unary("aten.erfc.default", "RP(min)") == "RP(max)");
  CHECK(unary("aten.neg.default", "P(max)P(max)") == "P(min)P(min)");
  CHECK(unary("aten.neg.default", "P(sum)R") == "P(sum)R");
  CHECK(unary("aten.special_modified_bessel_k0.default", "P(min)R") == "P(max)R");
  CHECK(unary("aten.special_modified_bessel_k0.default", "P(max)R") == "partial-into-nonlinear");
  // acos is not monotone for DTensor (its domain): no Partial at all.
  CHECK(unary("aten.acos.default", "P(max)R") == "partial-into-nonlinear");
}

TEST_CASE("binary max / min ops: one Partial side, or both of their own op", "[rules][pointwise][dtensor]") {
  CHECK(binary("aten.maximum.default", "P(max)R", "RR") == "P(max)R");
  CHECK(binary("aten.maximum.default", "P(max)R", "P(max)R") == "P(max)R");
  CHECK(binary("aten.maximum.default", "P(min)R", "P(min)R") == "partial-into-nonlinear");
  CHECK(binary("aten.minimum.default", "P(min)R", "P(min)R") == "P(min)R");
  CHECK(binary("aten.logaddexp.default", "P(max)R", "P(max)R") == "partial-into-nonlinear");
  CHECK(binary("aten.logaddexp.default", "RS(0)", "P(min)S(0)") == "P(min)S(0)");
  // clamp_min with a tensor bound keeps P(max); with a scalar bound DTensor lists no Partial rule.
  CHECK(binary("aten.clamp_min.Tensor", "P(max)R", "P(max)R") == "P(max)R");
  RuleCase scalar({2, 2}, "aten.clamp_min.default");
  scalar.args({scalar.in({8, 6}, "P(max)R"), F(0.5)}).out({8, 6});
  CHECK(scalar.outSpec() == "partial-into-nonlinear");
  // Two mesh dims giving two different Partials would be no placement list: the later input is reduced first.
  RuleCase mixed({2, 2}, "aten.maximum.default");
  mixed.args({mixed.in({8, 6}, "RP(max)"), mixed.in({8, 6}, "P(min)R")}).out({8, 6});
  CHECK(mixed.outSpec() == "partial-into-nonlinear");
  CHECK(mixed.result.input == 0);
  CHECK(mixed.want() == "RR");
}

TEST_CASE("a placement list mixing Partial reduce ops is invalid, but sum with avg", "[placement][dtensor]") {
  DeviceMesh mesh({2, 2});
  ParseContext pc;
  pc.mesh = &mesh;
  auto spec = [&](const char* s) { return parseSpec(s, pc).value(); };
  CHECK(validateSpec(spec("P(sum)P(avg)"), mesh, 2).empty());
  CHECK(validateSpec(spec("P(max)P(max)"), mesh, 2).empty());
  CHECK(validateSpec(spec("P(max)P(min)"), mesh, 2) ==
        "the spec P(max)P(min) mixes Partial(max) and Partial(min): DTensor allows one Partial reduce op per placement "
        "list (sum with avg excepted)");
  CHECK(!validateSpec(spec("P(sum)P(max)"), mesh, 2).empty());
}

TEST_CASE("max / min: two tensors are elementwise, one tensor a reduction", "[rules][pointwise][reduction][dtensor]") {
  // max.other checks both inputs (it was read as a reduction of input 0 alone).
  CHECK(binary("aten.max.other", "S(0)R", "S(1)R") == "error");
  CHECK(binary("aten.max.other", "P(max)S(0)", "RS(0)") == "P(max)S(0)");
  CHECK(binary("aten.min.other", "P(min)R", "P(min)R") == "P(min)R");
  // max() of a sharded tensor folds into P(max); max(dim) returns indices too and reads the dim whole.
  RuleCase all({4}, "aten.max.default");
  all.args({all.in({8, 6}, "S(0)")}).out({});
  CHECK(all.outSpec() == "P(max)");
  RuleCase dim({4}, "aten.max.dim");
  dim.args({dim.in({8, 6}, "S(0)"), I(0)}).out({6}).out({6}, DType::I64);
  CHECK(dim.outSpec() == "error");
}
