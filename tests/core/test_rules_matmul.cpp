// Matmul family and embedding: free dims shard the output, a contracted shard gives Partial(sum), biases add
// under the pointwise-add rule.
#include <catch2/catch.hpp>

#include "rules_case.h"

using namespace ss;
using namespace ss::test;

namespace {
std::string mm(const char* a, const char* b, std::vector<int64_t> mesh = {4}) {
  RuleCase c(mesh, "aten.mm.default");
  c.args({c.in({8, 16}, a), c.in({16, 4}, b)}).out({8, 4});
  return c.outSpec();
}
}  // namespace

TEST_CASE("mm: row, column and contraction sharding", "[rules][matmul]") {
  CHECK(mm("S(0)", "R") == "S(0)");
  CHECK(mm("R", "S(1)") == "S(1)");
  CHECK(mm("S(1)", "S(0)") == "P(sum)");
  CHECK(mm("P(sum)", "R") == "P(sum)");
  CHECK(mm("R", "P(avg)") == "P(avg)");
  CHECK(mm("R", "R") == "R");
  CHECK(mm("P(sum)", "P(sum)") == "partial-into-nonlinear");
  CHECK(mm("P(max)", "R") == "partial-into-nonlinear");
  CHECK(mm("S(0)R", "RS(1)", {2, 4}) == "S(0)S(1)");
  CHECK(mm("S(1)S(0)", "S(0)R", {2, 4}) == "P(sum)S(0)");
}

TEST_CASE("mm: incompatible factors name the input and what it needs", "[rules][matmul]") {
  RuleCase c({4}, "aten.mm.default");
  c.args({c.in({8, 16}, "S(1)"), c.in({16, 4}, "R")}).out({8, 4});
  CHECK(c.outSpec() == "error");  // K split on one factor only
  CHECK(c.result.input == 1);
  CHECK(c.want() == "S(0)");
  // Both assignments that work are offered to the fix planner: K split on both, or all replicated.
  CHECK(c.result.alternatives.size() == 2);

  RuleCase d({4}, "aten.mm.default");
  d.args({d.in({8, 16}, "S(0)"), d.in({16, 4}, "S(0)")}).out({8, 4});
  CHECK(d.outSpec() == "error");  // M on one factor, K on the other
  CHECK(d.want() == "R");
}

TEST_CASE("mm infers the output shape", "[rules][matmul]") {
  RuleCase c({2, 4}, "aten.mm.default");
  c.args({c.in({2048, 4672}, "S(0)R"), c.in({4672, 4672}, "RR")}).out({2048, 4672});
  CHECK(c.outSpec() == "S(0)R");
  CHECK(*c.shape(0) == std::vector<int64_t>{2048, 4672});
}

TEST_CASE("bmm, matmul and linear", "[rules][matmul]") {
  RuleCase b({4}, "aten.bmm.default");
  b.args({b.in({4, 8, 16}, "S(0)"), b.in({4, 16, 2}, "S(0)")}).out({4, 8, 2});
  CHECK(b.outSpec() == "S(0)");
  RuleCase b2({4}, "aten.bmm.default");
  b2.args({b2.in({4, 8, 16}, "S(2)"), b2.in({4, 16, 2}, "S(1)")}).out({4, 8, 2});
  CHECK(b2.outSpec() == "P(sum)");

  RuleCase m({4}, "aten.matmul.default");
  m.args({m.in({2, 8, 16}, "S(1)"), m.in({16, 4}, "R")}).out({2, 8, 4});
  CHECK(m.outSpec() == "S(1)");
  CHECK(*m.shape(0) == std::vector<int64_t>{2, 8, 4});
  RuleCase m2({4}, "aten.matmul.default");
  m2.args({m2.in({2, 8, 16}, "S(2)"), m2.in({16, 4}, "S(0)")}).out({2, 8, 4});
  CHECK(m2.outSpec() == "P(sum)");

  RuleCase l({4}, "aten.linear.default");
  l.args({l.in({8, 16}, "S(0)"), l.in({4, 16}, "R"), l.in({4}, "R")}).out({8, 4});
  CHECK(l.outSpec() == "S(0)");
  RuleCase l2({4}, "aten.linear.default");
  l2.args({l2.in({8, 16}, "R"), l2.in({4, 16}, "S(0)"), l2.in({4}, "S(0)")}).out({8, 4});
  CHECK(l2.outSpec() == "S(1)");
  // Column-parallel weight with a replicated bias: the bias would cover all 4 columns on a rank that has 1.
  RuleCase l3({4}, "aten.linear.default");
  l3.args({l3.in({8, 16}, "R"), l3.in({4, 16}, "S(0)"), l3.in({4}, "R")}).out({8, 4});
  CHECK(l3.outSpec() == "error");
  CHECK(l3.result.input == 2);
}

TEST_CASE("addmm: a Partial product needs a Partial bias", "[rules][matmul][partial]") {
  auto addmm = [](const char* bias, const char* a, const char* b) {
    RuleCase c({4}, "aten.addmm.default");
    c.args({c.in({4}, bias), c.in({8, 16}, a), c.in({16, 4}, b)}).out({8, 4});
    return c.outSpec();
  };
  CHECK(addmm("R", "S(1)", "S(0)") == "error");
  CHECK(addmm("P(sum)", "S(1)", "S(0)") == "P(sum)");
  CHECK(addmm("S(0)", "R", "S(1)") == "S(1)");
  CHECK(addmm("R", "S(0)", "R") == "S(0)");
}

TEST_CASE("embedding and its dense backward", "[rules][matmul]") {
  auto emb = [](const char* w, const char* idx) {
    RuleCase c({4}, "aten.embedding.default");
    c.args({c.in({100, 8}, w), c.in({4, 6}, idx, DType::I64)}).out({4, 6, 8});
    return c.outSpec();
  };
  CHECK(emb("S(0)", "R") == "P(sum)");  // vocabulary-parallel: DTensor's masked lookup
  CHECK(emb("S(1)", "R") == "S(2)");
  CHECK(emb("R", "S(0)") == "S(0)");
  CHECK(emb("R", "P(sum)") == "error");  // indices are never Partial

  RuleCase b({4}, "aten.embedding_dense_backward.default");
  b.args({b.in({4, 6, 8}, "S(0)"), b.in({4, 6}, "S(0)", DType::I64), I(100), I(-1), B(false)}).out({100, 8});
  CHECK(b.outSpec() == "P(sum)");
  CHECK(*b.shape(0) == std::vector<int64_t>{100, 8});
  RuleCase b2({4}, "aten.embedding_dense_backward.default");
  b2.args({b2.in({4, 6, 8}, "S(2)"), b2.in({4, 6}, "R", DType::I64), I(100), I(-1), B(false)}).out({100, 8});
  CHECK(b2.outSpec() == "S(1)");
}

namespace {
// autoparallel's linear: einsum('abk,kn->abn', [x, w]) (x [2, 8, 16], w [16, 4]).
std::string linearEinsum(const char* x, const char* w, std::vector<int64_t> mesh = {4}) {
  RuleCase c(mesh, "aten.einsum.default");
  c.args({Arg::string("abk,kn->abn"), Arg::list({c.in({2, 8, 16}, x), c.in({16, 4}, w)})}).out({2, 8, 4});
  return c.outSpec();
}
}  // namespace

TEST_CASE("einsum: letters are labels, letters the output lacks are contracted", "[rules][matmul]") {
  CHECK(linearEinsum("S(0)", "R") == "S(0)");       // batch a
  CHECK(linearEinsum("S(1)", "R") == "S(1)");       // sequence b
  CHECK(linearEinsum("R", "S(1)") == "S(2)");       // n: the output's dim 2
  CHECK(linearEinsum("S(2)", "S(0)") == "P(sum)");  // k on both factors
  CHECK(linearEinsum("P(sum)", "R") == "P(sum)");
  CHECK(linearEinsum("S(2)", "R") == "error");      // k on one factor only
  CHECK(linearEinsum("S(0)R", "RS(1)", {2, 4}) == "S(0)S(2)");
  // The weight gradient: einsum('abn,abk->kn', [dy, x]) contracts a and b.
  RuleCase g({4}, "aten.einsum.default");
  g.args({Arg::string("abn,abk->kn"), Arg::list({g.in({2, 8, 4}, "S(0)"), g.in({2, 8, 16}, "S(0)")})}).out({16, 4});
  CHECK(g.outSpec() == "P(sum)");
  // An equation it does not read (an ellipsis): unknown, never a guess.
  RuleCase e({4}, "aten.einsum.default");
  e.args({Arg::string("...k,kn->...n"), Arg::list({e.in({2, 8, 16}, "S(0)"), e.in({16, 4}, "R")})}).out({2, 8, 4});
  CHECK(e.outSpec() == "none");
}

TEST_CASE("implicit redistributes: inputs DTensor 2.14 moves before mm/bmm/embedding, which core accepts",
          "[rules][matmul][dtensor]") {
  // bmm with dim 2 of the second factor (size 2) split over 4 ranks: ranks 2 and 3 hold nothing. Core computes
  // the product on the shards as they are; DTensor keeps no such strategy (is_tensor_shardable) and replicates.
  RuleCase b({4}, "aten.bmm.default");
  b.args({b.in({4, 8, 6}, "R"), b.in({4, 6, 2}, "S(2)")}).out({4, 8, 2});
  CHECK(b.outSpec() == "S(2)");
  REQUIRE(b.result.implicitRedistributes.size() == 1);
  CHECK(b.result.implicitRedistributes[0] ==
        "DTensor redistributes input 1 (S(2)) before bmm: its dim 2 (size 2) is split into 4 pieces, so some ranks "
        "hold none, and DTensor keeps no bmm strategy with such a shard (is_tensor_shardable)");
  // Every rank holds some of it (uneven is fine): nothing to say.
  RuleCase even({4}, "aten.bmm.default");
  even.args({even.in({4, 8, 6}, "R"), even.in({4, 6, 6}, "S(2)")}).out({4, 8, 6});
  CHECK(even.outSpec() == "S(2)");
  CHECK(even.result.implicitRedistributes.empty());
  // Both mesh dims together: 2x2 over a dim of size 3.
  RuleCase m({2, 2}, "aten.mm.default");
  m.args({m.in({3, 8}, "S(0)S(0)"), m.in({8, 4}, "RR")}).out({3, 4});
  CHECK(m.outSpec() == "S(0)S(0)");
  CHECK(m.result.implicitRedistributes.size() == 1);
  // A Partial weight: embedding is linear in it (core's output is Partial), DTensor reduces the weight first.
  RuleCase e({4}, "aten.embedding.default");
  e.args({e.in({10, 4}, "P(sum)"), e.in({8}, "R", DType::I64)}).out({8, 4});
  CHECK(e.outSpec() == "P(sum)");
  REQUIRE(e.result.implicitRedistributes.size() == 1);
  CHECK(e.result.implicitRedistributes[0] ==
        "DTensor reduces input 0 (the weight, P(sum)) before embedding: its embedding strategies keep no Partial "
        "weight (core computes the Partial result directly)");
  // Row-wise embedding: DTensor's indices become _MaskPartial, a local step of the lookup: no implicit redistribute.
  RuleCase row({4}, "aten.embedding.default");
  row.args({row.in({10, 4}, "S(0)"), row.in({8}, "R", DType::I64)}).out({8, 4});
  CHECK(row.outSpec() == "P(sum)");
  CHECK(row.result.implicitRedistributes.empty());
}
