// Reductions: a reduced shard becomes Partial of the reduction's own fold, kept dims keep their shards.
#include <catch2/catch.hpp>

#include "rules_case.h"

using namespace ss;
using namespace ss::test;

namespace {
std::string reduce(const char* op, const char* spec, std::vector<int64_t> dims, bool keepdim,
                   std::vector<int64_t> out) {
  RuleCase c({4}, op);
  c.args({c.in({8, 16}, spec), ints(dims), B(keepdim)}).out(out);
  return c.outSpec();
}
}  // namespace

TEST_CASE("reductions over a sharded dim give the matching Partial", "[rules][reduction]") {
  CHECK(reduce("aten.sum.dim_IntList", "S(0)", {0}, false, {16}) == "P(sum)");
  CHECK(reduce("aten.mean.dim", "S(0)", {0}, false, {16}) == "P(avg)");
  CHECK(reduce("aten.amax.default", "S(0)", {0}, false, {16}) == "P(max)");
  CHECK(reduce("aten.amin.default", "S(1)", {-1}, true, {8, 1}) == "P(min)");
  CHECK(reduce("aten.var_mean.correction", "S(0)", {0}, false, {16}) == "error");
  CHECK(reduce("aten.argmax.default", "S(1)", {1}, false, {8}) == "error");
}

TEST_CASE("reductions keep and renumber the other shards", "[rules][reduction]") {
  CHECK(reduce("aten.sum.dim_IntList", "S(0)", {1}, true, {8, 1}) == "S(0)");
  CHECK(reduce("aten.sum.dim_IntList", "S(1)", {0}, false, {16}) == "S(0)");
  CHECK(reduce("aten.var_mean.correction", "S(1)", {0}, false, {16}) == "S(0)");
  // Linear reductions keep a Partial input; folds that are not linear refuse it.
  CHECK(reduce("aten.sum.dim_IntList", "P(sum)", {1}, false, {8}) == "P(sum)");
  CHECK(reduce("aten.mean.dim", "P(sum)", {1}, false, {8}) == "P(sum)");
  CHECK(reduce("aten.amax.default", "P(sum)", {1}, false, {8}) == "partial-into-nonlinear");

  RuleCase all({2, 4}, "aten.sum.default");
  all.args({all.in({16, 128, 71, 64}, "S(0)R")}).out({});
  CHECK(all.outSpec() == "P(sum)R");
  CHECK(*all.shape(0) == std::vector<int64_t>{});

  // Seed 1's expand backward on its RS(1) branch.
  RuleCase s({2, 4}, "aten.sum.dim_IntList");
  s.args({s.in({16, 128, 71, 64}, "RS(1)"), ints({2}), B(true)}).out({16, 128, 1, 64});
  CHECK(s.outSpec() == "RS(1)");
  CHECK(*s.shape(0) == std::vector<int64_t>{16, 128, 1, 64});
}

TEST_CASE("mean and sum of Partial inputs, and mean over an uneven shard", "[rules][reduction][dtensor]") {
  auto mean = [](const std::string& spec, std::vector<int64_t> shape, std::vector<int64_t> dims) {
    RuleCase c({4}, "aten.mean.dim");
    std::vector<int64_t> out = shape;
    for (int64_t d : dims) out[d] = 1;
    c.args({c.in(shape, spec), ints(dims), B(true)}).out(out);
    return c;
  };
  // mean is linear: a Partial(sum) input stays Partial(sum) in core; DTensor keeps only Partial(avg), and
  // reduces a Partial(sum) first (implicit-redistribute).
  RuleCase ps = mean("P(sum)", {8, 6, 4}, {2});
  CHECK(ps.outSpec() == "P(sum)");
  REQUIRE(ps.result.implicitRedistributes.size() == 1);
  CHECK(ps.result.implicitRedistributes[0] ==
        "DTensor reduces input 0 (the reduced tensor, P(sum)) before mean: its mean strategies keep only "
        "Partial(avg) inputs (core computes the Partial result directly)");
  RuleCase pa = mean("P(avg)", {8, 6, 4}, {2});
  CHECK(pa.outSpec() == "P(avg)");
  CHECK(pa.result.implicitRedistributes.empty());
  // sum keeps Partial(sum) only.
  RuleCase s({4}, "aten.sum.dim_IntList");
  s.args({s.in({8, 6}, "P(avg)"), ints({1})}).out({8});
  CHECK(s.outSpec() == "P(avg)");
  CHECK(s.result.implicitRedistributes.size() == 1);
  // mean over a sharded dim: Partial(avg) when every rank holds as many elements; refused when uneven (the
  // average of unequal shards' means is not the mean).
  CHECK(mean("S(2)", {8, 6, 4}, {2}).outSpec() == "P(avg)");
  RuleCase uneven = mean("S(1)", {8, 6, 4}, {1});
  CHECK(uneven.outSpec() == "error");
  CHECK(uneven.want() == "R");
  CHECK(uneven.result.message ==
        "mean over dim 1 (size 6), which S(1) splits unevenly into 4 pieces: the average of the per-rank means "
        "would weight unequal shards equally");
}
