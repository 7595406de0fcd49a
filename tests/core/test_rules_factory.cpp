// Factories and collectives already in a graph.
#include <catch2/catch.hpp>

#include "rules_case.h"

using namespace ss;
using namespace ss::test;

TEST_CASE("factories take the declared spec when they can make it", "[rules][factory]") {
  auto full = [](const char* op, std::vector<Arg> args, const char* declared) {
    RuleCase c({2, 4}, op);
    c.args(std::move(args)).out({16, 128});
    if (*declared) c.declare(declared);
    return c.outSpec();
  };
  CHECK(full("aten.full.default", {ints({16, 128}), I(0)}, "RS(0)") == "RS(0)");
  CHECK(full("aten.full.default", {ints({16, 128}), F(1.5)}, "") == "RR");
  CHECK(full("aten.full.default", {ints({16, 128}), F(1.5)}, "P(sum)R") == "error");
  CHECK(full("aten.zeros.default", {ints({16, 128})}, "P(sum)R") == "P(sum)R");
  CHECK(full("aten.empty.memory_format", {ints({16, 128})}, "S(1)S(0)") == "S(1)S(0)");
  CHECK(full("aten.arange.default", {I(16)}, "S(0)R") == "error");
  CHECK(full("aten.arange.default", {I(16)}, "RR") == "RR");

  RuleCase f({2, 4}, "aten.full.default");
  f.args({ints({16, 128, 73, 64}), I(0)}).kwarg("dtype", Arg::dtype(DType::BF16)).out({16, 128, 73, 64}).declare("RS(0)");
  CHECK(f.outSpec() == "RS(0)");
  CHECK(*f.shape(0) == std::vector<int64_t>{16, 128, 73, 64});

  RuleCase z({4}, "aten.zeros_like.default");
  z.args({z.in({8, 4}, "S(0)")}).out({8, 4});
  CHECK(z.outSpec() == "S(0)");
  RuleCase o({4}, "aten.ones_like.default");
  o.args({o.in({8, 4}, "P(sum)")}).out({8, 4});
  CHECK(o.outSpec() == "R");
  // As DTensor 2.14: a zero fill of a Partial input is Replicate even where the plan declares the Partial, and
  // empty_like passes a Partial through (uninitialised memory).
  RuleCase zp({4}, "aten.zeros_like.default");
  zp.args({zp.in({8, 4}, "P(sum)")}).out({8, 4}).declare("P(sum)");
  CHECK(zp.outSpec() == "R");
  RuleCase e({2, 2}, "aten.empty_like.default");
  e.args({e.in({8, 4}, "P(max)S(1)")}).out({8, 4});
  CHECK(e.outSpec() == "P(max)S(1)");
}

TEST_CASE("collectives in the graph", "[rules][collective]") {
  RuleCase ar({4}, "_c10d_functional.all_reduce.default");
  ar.args({ar.in({8, 4}, "P(sum)"), Arg::string("sum"), Arg::string("0")}).out({8, 4}).declare("R");
  CHECK(ar.outSpec() == "R");
  RuleCase ar2({4}, "_c10d_functional.all_reduce.default");
  ar2.args({ar2.in({8, 4}, "P(sum)"), Arg::string("sum"), Arg::string("0")}).out({8, 4}).declare("S(0)");
  CHECK(ar2.outSpec() == "error");
  RuleCase ag({4}, "_c10d_functional.all_gather_into_tensor.default");
  ag.args({ag.in({2, 4}, "S(0)"), I(4), Arg::string("0")}).out({8, 4}).declare("R");
  CHECK(ag.outSpec() == "R");
  RuleCase rs({4}, "_c10d_functional.reduce_scatter_tensor.default");
  rs.args({rs.in({8, 4}, "P(sum)"), Arg::string("sum"), I(4), Arg::string("0")}).out({2, 4}).declare("S(0)");
  CHECK(rs.outSpec() == "S(0)");
  RuleCase a2a({4}, "_c10d_functional.all_to_all_single.default");
  a2a.args({a2a.in({8, 4}, "S(0)"), Arg::none(), Arg::none(), Arg::string("0")}).out({8, 4}).declare("S(1)");
  CHECK(a2a.outSpec() == "S(1)");
  RuleCase w({4}, "_c10d_functional.wait_tensor.default");
  w.args({w.in({8, 4}, "S(1)")}).out({8, 4});
  CHECK(w.outSpec() == "S(1)");
}
