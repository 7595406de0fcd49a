// Softmax (+backward), SDPA (+backward), nll_loss (+backward), layer norm.
#include <catch2/catch.hpp>

#include "rules_case.h"

using namespace ss;
using namespace ss::test;

TEST_CASE("softmax needs its dim whole", "[rules][attention]") {
  RuleCase a({4}, "aten._softmax.default");
  a.args({a.in({8, 16}, "S(0)"), I(1), B(false)}).out({8, 16});
  CHECK(a.outSpec() == "S(0)");
  RuleCase b({4}, "aten._log_softmax.default");
  b.args({b.in({8, 16}, "S(1)"), I(-1), B(false)}).out({8, 16});
  CHECK(b.outSpec() == "error");
  CHECK(b.want() == "R");
  RuleCase c({4}, "aten._softmax.default");
  c.args({c.in({8, 16}, "P(sum)"), I(1), B(false)}).out({8, 16});
  CHECK(c.outSpec() == "partial-into-nonlinear");
  RuleCase d({4}, "aten._softmax_backward_data.default");
  d.args({d.in({8, 16}, "S(0)"), d.in({8, 16}, "S(0)"), I(1), Arg::dtype(DType::F32)}).out({8, 16});
  CHECK(d.outSpec() == "S(0)");
  RuleCase e({4}, "aten._softmax_backward_data.default");
  e.args({e.in({8, 16}, "S(0)"), e.in({8, 16}, "R"), I(1), Arg::dtype(DType::F32)}).out({8, 16});
  CHECK(e.outSpec() == "error");
}

TEST_CASE("attention: heads and batch shard, the sequence does not", "[rules][attention]") {
  RuleCase f({2}, "aten._scaled_dot_product_flash_attention.default");
  f.args({f.in({2, 4, 16, 8}, "S(1)"), f.in({2, 4, 16, 8}, "S(1)"), f.in({2, 4, 16, 8}, "S(1)"), F(0.0), B(true)})
      .out({2, 4, 16, 8}).out({2, 4, 16}).out({}).out({});
  CHECK(f.outSpec(0) == "S(1)");
  CHECK(f.outSpec(1) == "S(1)");
  CHECK(f.outSpec(2) == "none");

  RuleCase s({2}, "aten.scaled_dot_product_attention.default");
  s.args({s.in({2, 4, 16, 8}, "S(2)"), s.in({2, 4, 16, 8}, "S(2)"), s.in({2, 4, 16, 8}, "S(2)")}).out({2, 4, 16, 8});
  CHECK(s.outSpec() == "error");
  CHECK(s.result.message.find("Ulysses") != std::string::npos);

  RuleCase m({2}, "aten.scaled_dot_product_attention.default");
  m.args({m.in({2, 4, 16, 8}, "S(0)"), m.in({2, 4, 16, 8}, "S(1)"), m.in({2, 4, 16, 8}, "S(0)")}).out({2, 4, 16, 8});
  CHECK(m.outSpec() == "error");
  CHECK(m.result.input == 1);

  RuleCase b({2}, "aten._scaled_dot_product_flash_attention_backward.default");
  b.args({b.in({2, 4, 16, 8}, "S(0)"), b.in({2, 4, 16, 8}, "S(0)"), b.in({2, 4, 16, 8}, "S(0)"),
          b.in({2, 4, 16, 8}, "S(0)"), b.in({2, 4, 16, 8}, "S(0)"), b.in({2, 4, 16}, "S(0)"), Arg::none(), Arg::none(),
          I(16), I(16), F(0.0), B(true), b.in({}, "R", DType::I64), b.in({}, "R", DType::I64)})
      .out({2, 4, 16, 8}).out({2, 4, 16, 8}).out({2, 4, 16, 8});
  CHECK(b.outSpec(0) == "S(0)");
  CHECK(b.outSpec(2) == "S(0)");
}

TEST_CASE("nll_loss: a sharded batch gives a Partial loss, a sharded class dim is refused", "[rules][attention]") {
  auto nll = [](const char* self, const char* target, int64_t reduction) {
    RuleCase c({4}, "aten.nll_loss_forward.default");
    c.args({c.in({8, 10}, self), c.in({8}, target, DType::I64), Arg::none(), I(reduction), I(-100)});
    if (reduction == 0) c.out({8}); else c.out({});
    c.out({});
    return c.outSpec();
  };
  CHECK(nll("S(0)", "S(0)", 1) == "P(avg)");
  CHECK(nll("S(0)", "S(0)", 2) == "P(sum)");
  CHECK(nll("S(0)", "S(0)", 0) == "S(0)");
  CHECK(nll("S(1)", "R", 1) == "error");
  CHECK(nll("S(0)", "R", 1) == "error");

  RuleCase b({4}, "aten.nll_loss_backward.default");
  b.args({b.in({}, "R"), b.in({8, 10}, "S(0)"), b.in({8}, "S(0)", DType::I64), Arg::none(), I(1), I(-100),
          b.in({}, "R")})
      .out({8, 10});
  CHECK(b.outSpec() == "S(0)");

  RuleCase ce({4}, "aten.cross_entropy_loss.default");
  ce.args({ce.in({8, 10}, "S(0)"), ce.in({8}, "S(0)", DType::I64)}).out({});
  CHECK(ce.outSpec() == "P(avg)");
}

TEST_CASE("a mean loss over a sharded dim divides by a count the data decides", "[rules][attention][semantics]") {
  // Buggy: reduction=mean with the sequence sharded. Each rank divides by its own count of targets not ignored,
  // so the Partial(avg) loss is right only when every rank counts alike: a warning naming the dim, and DTensor
  // (which keeps no sharded strategy for a mean nll_loss) replicates first.
  auto loss = [](const char* self, int64_t reduction, std::vector<int64_t> shape = {8, 10}) {
    RuleCase c({2, 2}, "aten.nll_loss_forward.default");
    std::vector<int64_t> target = {shape[0]};
    c.args({c.in(shape, self), c.in(target, std::string(self).substr(0, 4) == "S(0)" ? "S(0)R" : "RR", DType::I64),
            Arg::none(), I(reduction), I(-100)})
        .out({})
        .out({});
    return c;
  };
  RuleCase buggy = loss("S(0)R", 1);
  CHECK(buggy.outSpec() == "P(avg)R");
  REQUIRE(buggy.result.dataDependentMeans.size() == 1);
  CHECK(buggy.result.dataDependentMeans[0] ==
        "nll_loss_forward with reduction=mean over dim 0 (size 8), sharded on mesh dim 0 (dim0): each rank divides "
        "its loss by its own count of targets not equal to ignore_index (-100), so the average of the per-rank "
        "losses is the global mean only when every rank counts alike; use reduction=sum and divide by the "
        "all-reduced count, or replicate dim 0 (size 8)");
  REQUIRE(buggy.result.implicitRedistributes.size() == 1);
  CHECK(buggy.result.implicitRedistributes[0] ==
        "DTensor replicates the input (S(0)R) and target before nll_loss_forward: its strategies for reduction=mean "
        "keep no shard (nll_loss_forward_single_dim_strategy)");
  // Fixed: the sum (divided by the all-reduced count afterwards), or the loss on replicated logits.
  RuleCase sum = loss("S(0)R", 2);
  CHECK(sum.outSpec() == "P(sum)R");
  CHECK(sum.result.dataDependentMeans.empty());
  CHECK(sum.result.implicitRedistributes.empty());
  RuleCase replicated = loss("RR", 1);
  CHECK(replicated.outSpec() == "RR");
  CHECK(replicated.result.dataDependentMeans.empty());
  // Uneven shards: the average of per-rank means is wrong whatever the targets (as for mean itself).
  RuleCase uneven = loss("S(0)R", 1, {7, 10});
  CHECK(uneven.outSpec() == "error");
  CHECK(uneven.want() == "RR");
  CHECK(uneven.result.message ==
        "nll_loss_forward with reduction=mean over dim 0 (size 7), which S(0)R splits unevenly into 2 pieces: the "
        "average of the per-rank means would weight unequal shards equally");
}

TEST_CASE("layer norm normalises over whole trailing dims", "[rules][attention]") {
  RuleCase a({4}, "aten.native_layer_norm.default");
  a.args({a.in({8, 16}, "S(0)"), ints({16}), a.in({16}, "R"), a.in({16}, "R"), F(1e-5)})
      .out({8, 16}).out({8, 1}).out({8, 1});
  CHECK(a.outSpec(0) == "S(0)");
  CHECK(a.outSpec(1) == "S(0)");
  RuleCase b({4}, "aten.native_layer_norm.default");
  b.args({b.in({8, 16}, "S(1)"), ints({16}), b.in({16}, "S(0)"), b.in({16}, "S(0)"), F(1e-5)})
      .out({8, 16}).out({8, 1}).out({8, 1});
  CHECK(b.outSpec() == "error");
}
