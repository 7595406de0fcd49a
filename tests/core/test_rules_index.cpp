// Indexing: index, index_put (seed 1), gather, scatter, slice_scatter, select_scatter.
#include <catch2/catch.hpp>

#include "rules_case.h"

using namespace ss;
using namespace ss::test;

TEST_CASE("index: non-indexed dims keep their shards; indexed dims must be whole", "[rules][index]") {
  RuleCase c({2, 4}, "aten.index.Tensor");
  c.args({c.in({16, 128, 73, 64}, "S(0)R", DType::BF16),
          Arg::list({Arg::none(), Arg::none(), c.in({1}, "RR", DType::I64)})})
      .out({16, 128, 1, 64}, DType::BF16);
  CHECK(c.outSpec() == "S(0)R");
  CHECK(*c.shape(0) == std::vector<int64_t>{16, 128, 1, 64});

  RuleCase bad({4}, "aten.index.Tensor");
  bad.args({bad.in({8, 8, 8}, "S(2)"), Arg::list({Arg::none(), Arg::none(), bad.in({2}, "R", DType::I64)})})
      .out({8, 8, 2});
  CHECK(bad.outSpec() == "error");
  CHECK(bad.want() == "R");

  // A sharded index into a replicated table: each rank looks up its own rows.
  RuleCase rows({2}, "aten.index.Tensor");
  rows.args({rows.in({10, 8}, "R"), Arg::list({rows.in({6}, "S(0)", DType::I64)})}).out({6, 8});
  CHECK(rows.outSpec() == "S(0)");
}

TEST_CASE("index_put: seed 1, self RS(0) with values RS(1) on the 2x4 mesh", "[rules][index][seed1]") {
  RuleCase c({2, 4}, "aten.index_put.default");
  c.args({c.in({16, 128, 73, 64}, "RS(0)", DType::BF16),
          Arg::list({Arg::none(), Arg::none(), c.in({1}, "RR", DType::I64)}), c.in({16, 128, 1, 64}, "RS(1)", DType::BF16),
          B(true)})
      .out({16, 128, 73, 64}, DType::BF16);
  CHECK(c.outSpec() == "error");
  CHECK(c.result.input == 2);
  CHECK(c.want() == "RS(0)");
  CHECK(c.result.message ==
        "index_put cannot write values into self as they arrive: values are RS(1) and self is RS(0); on rank 0 values "
        "have local shape [16, 32, 1, 64] but the slots they fill in self have [4, 128, 1, 64], which cannot "
        "broadcast");

  RuleCase ok({2, 4}, "aten.index_put.default");
  ok.args({ok.in({16, 128, 73, 64}, "RS(0)", DType::BF16),
           Arg::list({Arg::none(), Arg::none(), ok.in({1}, "RR", DType::I64)}),
           ok.in({16, 128, 1, 64}, "RS(0)", DType::BF16), B(true)})
      .out({16, 128, 73, 64}, DType::BF16);
  CHECK(ok.outSpec() == "RS(0)");

  // Values that broadcast over the sharded dim may stay replicated.
  RuleCase bc({2, 4}, "aten.index_put.default");
  bc.args({bc.in({16, 128, 73, 64}, "S(0)R"), Arg::list({Arg::none(), Arg::none(), bc.in({1}, "RR", DType::I64)}),
           bc.in({64}, "RR"), B(false)})
      .out({16, 128, 73, 64});
  CHECK(bc.outSpec() == "S(0)R");

  // The indexed dim itself cannot be sharded.
  RuleCase idx({4}, "aten.index_put.default");
  idx.args({idx.in({8, 73}, "S(1)"), Arg::list({Arg::none(), idx.in({1}, "R", DType::I64)}), idx.in({8, 1}, "R"),
            B(true)})
      .out({8, 73});
  CHECK(idx.outSpec() == "error");
  CHECK(idx.result.input == 0);
}

TEST_CASE("gather and scatter", "[rules][index]") {
  RuleCase g({4}, "aten.gather.default");
  g.args({g.in({8, 16}, "S(0)"), I(1), g.in({8, 4}, "S(0)", DType::I64)}).out({8, 4});
  CHECK(g.outSpec() == "S(0)");
  RuleCase g2({4}, "aten.gather.default");
  g2.args({g2.in({8, 16}, "S(1)"), I(1), g2.in({8, 4}, "R", DType::I64)}).out({8, 4});
  CHECK(g2.outSpec() == "error");

  RuleCase s({4}, "aten.scatter_add.default");
  s.args({s.in({8, 16}, "S(0)"), I(1), s.in({8, 4}, "S(0)", DType::I64), s.in({8, 4}, "S(0)")}).out({8, 16});
  CHECK(s.outSpec() == "S(0)");
  RuleCase s2({4}, "aten.scatter.src");
  s2.args({s2.in({8, 16}, "R"), I(1), s2.in({8, 4}, "S(1)", DType::I64), s2.in({8, 4}, "S(1)")}).out({8, 16});
  CHECK(s2.outSpec() == "error");
}

TEST_CASE("slice_scatter and select_scatter", "[rules][index]") {
  RuleCase s({2, 4}, "aten.slice_scatter.default");
  s.args({s.in({16, 128, 73, 64}, "S(0)R"), s.in({16, 128, 71, 64}, "S(0)R"), I(2), I(0), I(-2)})
      .out({16, 128, 73, 64});
  CHECK(s.outSpec() == "S(0)R");
  RuleCase s2({4}, "aten.slice_scatter.default");
  s2.args({s2.in({16, 73}, "S(1)"), s2.in({16, 71}, "R"), I(1), I(0), I(-2)}).out({16, 73});
  CHECK(s2.outSpec() == "error");
  RuleCase s3({4}, "aten.slice_scatter.default");
  s3.args({s3.in({16, 73}, "S(0)"), s3.in({16, 71}, "R"), I(1), I(0), I(-2)}).out({16, 73});
  CHECK(s3.outSpec() == "error");  // src must be split like self
  CHECK(s3.result.input == 1);
  CHECK(s3.want() == "S(0)");

  RuleCase sel({4}, "aten.select_scatter.default");
  sel.args({sel.in({4, 8}, "S(1)"), sel.in({8}, "S(0)"), I(0), I(2)}).out({4, 8});
  CHECK(sel.outSpec() == "S(1)");
}

TEST_CASE("implicit redistributes: gather and index_select inputs DTensor 2.14 moves first", "[rules][index][dtensor]") {
  // A Partial input to gather (linear in it): core gives Partial; DTensor's gather strategy keeps no Partial.
  RuleCase g({4}, "aten.gather.default");
  g.args({g.in({8, 6}, "P(sum)"), I(1), g.in({8, 3}, "R", DType::I64)}).out({8, 3});
  CHECK(g.outSpec() == "P(sum)");
  REQUIRE(g.result.implicitRedistributes.size() == 1);
  CHECK(g.result.implicitRedistributes[0].rfind("DTensor reduces input 0 (the gathered tensor, P(sum)) before gather", 0) == 0);
  // An index of 3 over 4 ranks: one holds none, and DTensor keeps no such index_select strategy.
  RuleCase s({4}, "aten.index_select.default");
  s.args({s.in({8, 6}, "R"), I(0), s.in({3}, "S(0)", DType::I64)}).out({3, 6});
  CHECK(s.outSpec() == "S(0)");
  REQUIRE(s.result.implicitRedistributes.size() == 1);
  CHECK(s.result.implicitRedistributes[0].find("dim 0 (size 3) is split into 4 pieces") != std::string::npos);
  // index_select keeps a Partial self in DTensor too: nothing to say.
  RuleCase p({4}, "aten.index_select.default");
  p.args({p.in({8, 6}, "P(sum)"), I(0), p.in({4}, "R", DType::I64)}).out({4, 6});
  CHECK(p.outSpec() == "P(sum)");
  CHECK(p.result.implicitRedistributes.empty());
}
