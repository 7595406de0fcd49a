// Sharding rules of the ops real MoE and rotary-embedding graphs add: complex views, padding, topk,
// sort, cumsum, histc, _grouped_mm, flex_attention, user Triton kernels and symbolic scalars.
#include <catch2/catch.hpp>

#include "rules_case.h"

using namespace ss;
using namespace ss::test;

namespace {
Arg S(const char* s) { return Arg::string(s); }
Arg pair(const char* k, Arg v) { return Arg::list({S(k), std::move(v)}); }
}  // namespace

TEST_CASE("view_as_complex / view_as_real: the (real, imaginary) pair is never split", "[rules][moe]") {
  auto complexOf = [](const char* spec) {
    RuleCase c({4}, "aten.view_as_complex.default");
    c.args({c.in({8, 16, 2}, spec)}).out({8, 16}, DType::C64);
    return c.outSpec();
  };
  CHECK(complexOf("S(0)") == "S(0)");
  CHECK(complexOf("S(1)") == "S(1)");
  CHECK(complexOf("P(sum)") == "P(sum)");
  CHECK(complexOf("S(2)") == "error");
  RuleCase r({2, 2}, "aten.view_as_real.default");
  r.args({r.in({8, 16}, "S(1)S(0)", DType::C64)}).out({8, 16, 2});
  CHECK(r.outSpec() == "S(1)S(0)");
  CHECK(*r.shape(0) == std::vector<int64_t>{8, 16, 2});
}

TEST_CASE("constant_pad_nd: a padded dim is read whole; zero padding is linear", "[rules][moe]") {
  auto pad = [](const char* spec, double value) {
    RuleCase c({4}, "aten.constant_pad_nd.default");
    c.args({c.in({8, 16}, spec), ints({0, 4}), F(value)}).out({8, 20});
    return c.outSpec();
  };
  CHECK(pad("S(0)", 0.0) == "S(0)");
  CHECK(pad("S(1)", 0.0) == "error");
  CHECK(pad("P(sum)", 0.0) == "P(sum)");
  CHECK(pad("P(sum)", 1.0) == "partial-into-nonlinear");
}

TEST_CASE("topk, sort and cumsum read their dim whole", "[rules][moe]") {
  RuleCase t({4}, "aten.topk.default");
  t.args({t.in({8, 64}, "S(0)"), I(6), I(-1), B(true), B(false)}).out({8, 6}).out({8, 6}, DType::I64);
  CHECK(t.outSpec(0) == "S(0)");
  CHECK(t.outSpec(1) == "S(0)");
  RuleCase t2({4}, "aten.topk.default");
  t2.args({t2.in({8, 64}, "S(1)"), I(6)}).out({8, 6}).out({8, 6}, DType::I64);
  CHECK(t2.outSpec() == "error");
  CHECK(t2.result.message == "topk cannot split dim 1 of input 0 (S(1)): it ranks the whole dim, and a shard would "
                             "rank only its own slice");
  CHECK(t2.want() == "R");
  RuleCase t3({4}, "aten.topk.default");
  t3.args({t3.in({8, 64}, "P(sum)"), I(6)}).out({8, 6}).out({8, 6}, DType::I64);
  CHECK(t3.outSpec() == "partial-into-nonlinear");

  RuleCase s({4}, "aten.sort.stable");
  s.args({s.in({8, 64}, "S(0)")}).kwarg("stable", B(true)).kwarg("dim", I(0)).out({8, 64}).out({8, 64}, DType::I64);
  CHECK(s.outSpec() == "error");
  RuleCase s2({4}, "aten.sort.stable");
  s2.args({s2.in({8, 64}, "S(0)")}).kwarg("stable", B(true)).out({8, 64}).out({8, 64}, DType::I64);
  CHECK(s2.outSpec(1) == "S(0)");  // dim defaults to -1

  auto cumsum = [](const char* spec) {
    RuleCase c({4}, "aten.cumsum.default");
    c.args({c.in({4, 8}, spec), I(1)}).out({4, 8});
    return c.outSpec();
  };
  CHECK(cumsum("S(0)") == "S(0)");
  CHECK(cumsum("S(1)") == "error");
  CHECK(cumsum("P(sum)") == "P(sum)");
  CHECK(cumsum("P(max)") == "partial-into-nonlinear");
}

TEST_CASE("histc counts every element: a sharded input gives partial counts", "[rules][moe]") {
  auto histc = [](const char* spec, int64_t lo, int64_t hi) {
    RuleCase c({4}, "aten.histc.default");
    c.args({c.in({64}, spec, DType::I64), I(8), I(lo), I(hi)}).out({8}, DType::I64);
    return c.outSpec();
  };
  CHECK(histc("S(0)", 0, 8) == "P(sum)");
  CHECK(histc("R", 0, 8) == "R");
  CHECK(histc("P(sum)", 0, 8) == "partial-into-nonlinear");
  CHECK(histc("S(0)", 0, 0) == "error");  // the range comes from each rank's own data
}

TEST_CASE("_grouped_mm: experts' matmuls over row groups", "[rules][moe]") {
  auto gmm = [](const char* a, const char* b, const char* offs) {
    RuleCase c({4}, "aten._grouped_mm.default");
    c.args({c.in({16, 32}, a, DType::BF16), c.in({4, 32, 64}, b, DType::BF16), c.in({4}, offs, DType::I32)})
        .out({16, 64}, DType::BF16);
    std::string s = c.outSpec();
    if (s == "R") CHECK(*c.shape(0) == std::vector<int64_t>{16, 64});
    return s;
  };
  CHECK(gmm("R", "R", "R") == "R");
  CHECK(gmm("R", "S(2)", "R") == "S(1)");
  CHECK(gmm("S(1)", "S(1)", "R") == "P(sum)");
  CHECK(gmm("S(0)", "R", "R") == "error");  // rows are cut into groups at global offsets
  CHECK(gmm("R", "S(0)", "R") == "error");  // every group needs its own expert
  CHECK(gmm("R", "R", "S(0)") == "error");
  // 2-D by 2-D (the weight gradient): groups over K, output [G, M, N].
  RuleCase w({2, 2}, "aten._grouped_mm.default");
  w.args({w.in({32, 16}, "S(0)R"), w.in({16, 64}, "RS(1)"), w.in({4}, "RR", DType::I32)}).out({4, 32, 64});
  CHECK(w.outSpec() == "S(1)S(2)" );
  CHECK(*w.shape(0) == std::vector<int64_t>{4, 32, 64});
}

TEST_CASE("flex_attention: batch and heads shard, the sequence and the block mask are whole", "[rules][moe]") {
  auto flex = [](const char* q, const char* mask) {
    RuleCase c({2}, "higher_order.flex_attention");
    Arg qa = c.in({2, 4, 16, 8}, q, DType::BF16), ka = c.in({2, 4, 16, 8}, "S(0)", DType::BF16),
        va = c.in({2, 4, 16, 8}, "S(0)", DType::BF16), m = c.in({2, 1, 1}, mask, DType::I32);
    c.args({qa, ka, va, Arg::none(), Arg::list({I(16), I(16), m, Arg::none(), I(128), I(128), Arg::none()}), F(0.25),
            Arg::list({pair("BACKEND", S("AUTO"))}), Arg::list({}), Arg::list({})})
        .out({2, 4, 16, 8}, DType::BF16)
        .out({2, 4, 16});
    return c.outSpec(0) + " " + c.outSpec(1);
  };
  CHECK(flex("S(0)", "R") == "S(0) S(0)");
  CHECK(flex("S(2)", "R") == "error error");
  CHECK(flex("S(0)", "S(0)") == "error error");  // the block mask is bookkeeping
  RuleCase b({2}, "higher_order.flex_attention_backward");
  std::vector<Arg> a;
  for (int i = 0; i < 3; ++i) a.push_back(b.in({2, 4, 16, 8}, "S(1)"));
  a.push_back(b.in({2, 4, 16, 8}, "S(1)"));
  a.push_back(b.in({2, 4, 16}, "S(1)"));
  a.push_back(b.in({2, 4, 16, 8}, "S(1)"));
  a.push_back(Arg::none());
  b.args(a).out({2, 4, 16, 8}).out({2, 4, 16, 8}).out({2, 4, 16, 8}).out({});
  CHECK(b.outSpec(0) == "S(1)");
  CHECK(b.outSpec(2) == "S(1)");
  CHECK(b.outSpec(3) == "none");
}

TEST_CASE("A user Triton kernel runs on whole tensors", "[rules][moe]") {
  auto kernel = [](const char* spec) {
    RuleCase c({4}, "higher_order.triton_kernel_wrapper_functional");
    Arg t = c.in({64}, spec, DType::I32);
    c.args({});
    c.kwarg("kernel_idx", I(0)).kwarg("kwargs", Arg::list({pair("out_ptr", t)})).kwarg("tensors_to_clone", Arg::list({S("out_ptr")}));
    c.out({64}, DType::I32);
    return c.outSpec();
  };
  CHECK(kernel("R") == "R");
  CHECK(kernel("S(0)") == "error");
  CHECK(kernel("P(sum)") == "partial-into-nonlinear");
}

TEST_CASE("Symbolic scalars: one value every rank agrees on", "[rules][moe]") {
  auto dense = [](const char* spec) {
    RuleCase c({4}, "aten._local_scalar_dense.default");
    c.args({c.in({}, spec, DType::I64)}).out({}, DType::I64);
    return c.outSpec();
  };
  CHECK(dense("R") == "none");  // a SymInt, not a tensor
  CHECK(dense("P(sum)") == "partial-into-nonlinear");
  RuleCase sz({4}, "aten.sym_size.int");
  sz.args({sz.in({8, 64}, "S(0)"), I(0)});
  CHECK(sz.outSpec() == "none");
  RuleCase fd({4}, "operator.floordiv");
  fd.args({fd.in({}, "", DType::I64), I(2)});
  CHECK(fd.outSpec() == "none");
  RuleCase ss({4}, "torch.sym_sum");
  ss.args({Arg::list({I(1), ss.in({}, "", DType::I64)})});
  CHECK(ss.outSpec() == "none");
}
