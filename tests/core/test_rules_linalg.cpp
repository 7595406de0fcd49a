// Sharding rules of the linear-algebra, FFT and random-number ops (core/rules/linalg.cpp), as DTensor 2.14.1
// shards them: batched matrix ops split batch dims only, the replicate-only ones refuse any shard with their
// reason, FFTs keep transformed dims whole, random fills follow self.
#include <catch2/catch.hpp>

#include "core/rules/families.h"
#include "rules_case.h"

using namespace ss;
using namespace ss::test;

namespace {
bool says(const RuleCase& c, const std::string& part) {
  for (const auto& s : c.result.implicitRedistributes)
    if (s.find(part) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("batched linalg: only the batch dims before the matrix dims split", "[rules][linalg]") {
  auto cholesky = [](const char* spec, int o = 0) {
    RuleCase c({4}, "aten.linalg_cholesky_ex.default");
    c.args({c.in({4, 3, 3}, spec)}).out({4, 3, 3}).out({4}, DType::I32);
    return c.outSpec(o);
  };
  CHECK(cholesky("S(0)") == "S(0)");
  CHECK(cholesky("S(0)", 1) == "S(0)");  // info: one per matrix of the batch
  CHECK(cholesky("R", 1) == "R");
  CHECK(cholesky("P(sum)") == "partial-into-nonlinear");
  RuleCase inv({4}, "aten.linalg_inv_ex.default");
  inv.args({inv.in({4, 3, 3}, "S(2)")}).out({4, 3, 3}).out({4}, DType::I32);
  CHECK(inv.outSpec() == "error");
  CHECK(inv.result.message ==
        "linalg_inv_ex reads dim 2 of input 0 whole, but it arrives as S(2), split on mesh dim 0 "
        "(dim0)");
  CHECK(inv.want() == "R");

  RuleCase det({2, 2}, "aten._linalg_det.default");
  det.args({det.in({2, 4, 3, 3}, "S(1)S(0)")}).out({2, 4}).out({2, 4, 3, 3}).out({2, 4, 3}, DType::I32);
  CHECK(det.outSpec(0) == "S(1)S(0)");
  CHECK(det.outSpec(1) == "S(1)S(0)");
  CHECK(det.outSpec(2) == "S(1)S(0)");
  CHECK(det.result.implicitRedistributes.empty());
  RuleCase det2({2, 2}, "aten._linalg_det.default");
  det2.args({det2.in({2, 4, 3, 3}, "S(0)S(3)")}).out({2, 4}).out({2, 4, 3, 3}).out({2, 4, 3}, DType::I32);
  CHECK(det2.outSpec() == "error");
  CHECK(det2.want() == "S(0)R");
}

TEST_CASE("batched linalg with several inputs: one batch shard for all, Partial only in the linear operand",
          "[rules][linalg]") {
  auto cholSolve = [](const char* b, const char* a) {
    RuleCase c({4}, "aten.cholesky_solve.default");
    c.args({c.in({4, 3, 2}, b), c.in({4, 3, 3}, a), B(false)}).out({4, 3, 2});
    c.run();
    return c;
  };
  CHECK(cholSolve("S(0)", "S(0)").outSpec() == "S(0)");
  CHECK(cholSolve("P(sum)", "R").outSpec() == "P(sum)");
  RuleCase avg = cholSolve("P(avg)", "R");
  CHECK(avg.outSpec() == "P(avg)");  // linear, so right; DTensor keeps only Partial(sum) and reduces it first
  CHECK(says(avg, "DTensor redistributes the inputs of cholesky_solve (P(avg), R) first"));
  RuleCase mixed = cholSolve("R", "S(0)");
  CHECK(mixed.outSpec() == "error");
  CHECK(mixed.result.input == 0);
  CHECK(mixed.want() == "S(0)");
  CHECK(cholSolve("R", "P(sum)").outSpec() == "partial-into-nonlinear");  // not linear in the factor
  CHECK(cholSolve("P(sum)", "P(sum)").outSpec() == "partial-into-nonlinear");

  // _linalg_solve_ex(A, B) -> (result, LU, pivots, info): only the result is linear in B.
  RuleCase solve({4}, "aten._linalg_solve_ex.default");
  solve.args({solve.in({4, 3, 3}, "R"), solve.in({4, 3}, "P(sum)")})
      .out({4, 3})
      .out({4, 3, 3})
      .out({4, 3}, DType::I32)
      .out({4}, DType::I32);
  CHECK(solve.outSpec(0) == "P(sum)");
  CHECK(solve.outSpec(1) == "R");
  CHECK(solve.outSpec(3) == "R");
  CHECK(solve.result.implicitRedistributes.empty());
  RuleCase solve2({4}, "aten._linalg_solve_ex.default");
  solve2.args({solve2.in({4, 3, 3}, "S(0)"), solve2.in({4, 3}, "S(0)")})
      .out({4, 3})
      .out({4, 3, 3})
      .out({4, 3}, DType::I32)
      .out({4}, DType::I32);
  CHECK(solve2.outSpec(0) == "S(0)");
  CHECK(solve2.outSpec(2) == "S(0)");
  // B's vector dim is its matrix dim: not a batch dim.
  RuleCase solve3({4}, "aten._linalg_solve_ex.default");
  solve3.args({solve3.in({4, 3, 3}, "S(1)"), solve3.in({4, 3}, "S(1)")})
      .out({4, 3})
      .out({4, 3, 3})
      .out({4, 3})
      .out({4});
  CHECK(solve3.outSpec() == "error");

  // linalg_solve_triangular(A, B): B's batch shards with A Replicate where A has no such batch dim (it broadcasts).
  RuleCase tri({4}, "aten.linalg_solve_triangular.default");
  tri.args({tri.in({3, 3}, "R"), tri.in({4, 3, 2}, "S(0)")}).kwarg("upper", B(true)).out({4, 3, 2});
  CHECK(tri.outSpec() == "S(0)");
  CHECK(tri.result.implicitRedistributes.empty());
  // A full batch of A replicated against a sharded B: DTensor lists it, but each rank would solve all of A's batch
  // against its slice of B. Core refuses (stricter).
  RuleCase tri2({4}, "aten.linalg_solve_triangular.default");
  tri2.args({tri2.in({4, 3, 3}, "R"), tri2.in({4, 3, 2}, "S(0)")}).kwarg("upper", B(true)).out({4, 3, 2});
  CHECK(tri2.outSpec() == "error");
  CHECK(tri2.want() == "S(0)");
  RuleCase tri3({4}, "aten.linalg_solve_triangular.default");
  tri3.args({tri3.in({4, 3, 3}, "R"), tri3.in({4, 3, 2}, "P(avg)")}).kwarg("upper", B(true)).out({4, 3, 2});
  CHECK(tri3.outSpec() == "P(avg)");
  CHECK(tri3.result.implicitRedistributes.empty());  // solve_triangular keeps Partial(avg) too

  RuleCase hh({4}, "aten.linalg_householder_product.default");
  hh.args({hh.in({4, 3, 2}, "S(0)"), hh.in({4, 2}, "S(0)")}).out({4, 3, 2});
  CHECK(hh.outSpec() == "S(0)");
  RuleCase hh2({4}, "aten.linalg_householder_product.default");
  hh2.args({hh2.in({4, 3, 2}, "S(0)"), hh2.in({4, 2}, "S(1)")}).out({4, 3, 2});
  CHECK(hh2.outSpec() == "error");
}

TEST_CASE("linalg_pinv: batch dims split, atol/rtol Replicate", "[rules][linalg]") {
  auto pinv = [](const char* spec) {
    RuleCase c({4}, "aten.linalg_pinv.atol_rtol_tensor");
    c.args({c.in({4, 2, 3}, spec)}).out({4, 3, 2});
    return c.outSpec();
  };
  CHECK(pinv("S(0)") == "S(0)");
  CHECK(pinv("S(1)") == "error");
  CHECK(pinv("P(sum)") == "partial-into-nonlinear");
  RuleCase c({2, 2}, "aten.linalg_pinv.atol_rtol_tensor");
  Arg self = c.in({4, 2, 3}, "S(0)R");
  c.args({self}).kwarg("atol", c.in({4}, "S(0)R")).out({4, 3, 2});
  CHECK(c.outSpec() == "error");
  CHECK(c.result.input == 1);
}

TEST_CASE("replicate-only linalg ops refuse a sharded or Partial input with their reason", "[rules][linalg]") {
  RuleCase qr({4}, "aten.linalg_qr.default");
  qr.args({qr.in({6, 4}, "S(0)")}).out({6, 4}).out({4, 4});
  CHECK(qr.outSpec() == "error");
  CHECK(qr.result.message ==
        "linalg_qr runs on whole tensors only (DTensor 2.14 lists only the all-Replicate strategy for this "
        "factorisation, not even a split of its batch dims), but input 0 arrives as S(0); replicate it first");
  CHECK(qr.want() == "R");
  RuleCase qr2({4}, "aten.linalg_qr.default");
  qr2.args({qr2.in({6, 4}, "P(sum)")}).out({6, 4}).out({4, 4});
  CHECK(qr2.outSpec() == "partial-into-nonlinear");
  RuleCase qr3({2, 2}, "aten.linalg_qr.default");
  qr3.args({qr3.in({6, 4}, "RR")}).out({6, 4}).out({4, 4});
  CHECK(qr3.outSpec(0) == "RR");
  CHECK(qr3.outSpec(1) == "RR");

  RuleCase tril({4}, "aten.tril.default");
  tril.args({tril.in({6, 4}, "S(1)")}).out({6, 4});
  CHECK(tril.outSpec() == "error");
  CHECK(tril.result.message.find("depends on its global offset") != std::string::npos);
  for (const char* key : {"_linalg_eigh", "_linalg_svd", "diag", "diag_embed", "diagonal", "diagonal_copy", "linalg_qr",
                          "tril", "triu", "eye"}) {
    INFO(key);
    CHECK(rules::replicateOnlyOps().count(key) == 1);
  }
  RuleCase diag({2, 2}, "aten.diagonal.default");
  diag.args({diag.in({6, 4}, "RS(0)")}).out({4});
  CHECK(diag.outSpec() == "error");
  CHECK(diag.result.message.find("a shard's local diagonal is not its part of the global one") != std::string::npos);

  // eye(n, m, out=): the out tensor must be Replicate (eye_out_single_dim_strategy).
  RuleCase eye({4}, "aten.eye.m_out");
  eye.args({I(4), I(4)}).kwarg("out", eye.in({4, 4}, "S(0)")).out({4, 4});
  CHECK(eye.outSpec() == "error");
  RuleCase eye2({4}, "aten.eye.default");
  eye2.args({I(4)}).out({4, 4});
  CHECK(eye2.outSpec() == "R");
}

TEST_CASE("linalg_cross: every dim but the cross dim splits", "[rules][linalg]") {
  auto cross = [](const char* a, const char* b, std::vector<int64_t> shape, std::optional<int64_t> dim) {
    RuleCase c({4}, "aten.linalg_cross.default");
    c.args({c.in(shape, a), c.in(shape, b)}).out(shape);
    if (dim) c.kwarg("dim", I(*dim));
    c.run();
    return c;
  };
  CHECK(cross("S(0)", "S(0)", {4, 3}, std::nullopt).outSpec() == "S(0)");
  RuleCase bad = cross("S(1)", "S(1)", {4, 3}, std::nullopt);
  CHECK(bad.outSpec() == "error");
  CHECK(bad.result.message ==
        "linalg_cross cannot split dim 1 of input 0 (S(1)): it is the cross-product dim (size 3), "
        "read whole");
  CHECK(cross("R", "S(0)", {4, 3}, std::nullopt).outSpec() == "error");
  CHECK(cross("P(sum)", "R", {4, 3}, std::nullopt).outSpec() == "partial-into-nonlinear");
  CHECK(cross("S(1)", "S(1)", {3, 4}, 0).outSpec() == "S(1)");
  CHECK(cross("S(0)", "S(0)", {3, 4}, 0).outSpec() == "error");
  // other broadcasts a size-1 batch dim: right, but DTensor lists only both inputs on the same shard.
  RuleCase bc({4}, "aten.linalg_cross.default");
  bc.args({bc.in({4, 3}, "S(0)"), bc.in({1, 3}, "R")}).out({4, 3});
  CHECK(bc.outSpec() == "S(0)");
  CHECK(says(bc, "DTensor redistributes the inputs of linalg_cross first: on mesh dim 0"));
}

TEST_CASE("FFT: transformed dims whole, linear in a Partial(sum|avg) input", "[rules][linalg]") {
  auto r2c = [](const char* spec, std::vector<int64_t> shape, int64_t dim) {
    RuleCase c({4}, "aten._fft_r2c.default");
    c.args({c.in(shape, spec), ints({dim}), I(0), B(true)}).out({shape[0], shape[1] / 2 + 1});
    return c.outSpec();
  };
  CHECK(r2c("S(0)", {4, 8}, 1) == "S(0)");
  CHECK(r2c("S(1)", {4, 8}, 1) == "error");
  CHECK(r2c("S(1)", {6, 8}, 0) == "S(1)");
  CHECK(r2c("S(0)", {6, 8}, 0) == "error");
  CHECK(r2c("P(sum)", {4, 8}, 1) == "P(sum)");
  CHECK(r2c("P(avg)", {4, 8}, 1) == "P(avg)");
  CHECK(r2c("P(max)", {4, 8}, 1) == "partial-into-nonlinear");  // DTensor passes it through: wrong, core refuses

  RuleCase c2c({2, 2}, "aten._fft_c2c.default");
  c2c.args({c2c.in({4, 8, 6}, "S(0)S(1)", DType::C64), ints({1, 2}), I(0), B(true)}).out({4, 8, 6}, DType::C64);
  CHECK(c2c.outSpec() == "error");
  RuleCase c2c2({2, 2}, "aten._fft_c2c.default");
  c2c2.args({c2c2.in({4, 8, 6}, "S(0)P(sum)", DType::C64), ints({-1}), I(0), B(false)}).out({4, 8, 6}, DType::C64);
  CHECK(c2c2.outSpec() == "S(0)P(sum)");
  RuleCase c2r({4}, "aten._fft_c2r.default");
  c2r.args({c2r.in({4, 5}, "S(0)", DType::C64), ints({1}), I(0), I(8)}).out({4, 8});
  CHECK(c2r.outSpec() == "S(0)");
  // No allow_uneven_sharding: a dim split into more pieces than it has elements is redistributed by DTensor.
  RuleCase few({4}, "aten._fft_r2c.default");
  few.args({few.in({2, 8}, "S(0)"), ints({1}), I(0), B(true)}).out({2, 5});
  CHECK(few.outSpec() == "S(0)");
  CHECK(says(few, "is split into 4 pieces"));
}

TEST_CASE("random fills follow self on any dim and refuse Partial", "[rules][linalg]") {
  auto fill = [](const char* op, const char* spec) {
    RuleCase c({2, 2}, op);
    c.args({c.in({8, 6}, spec), F(0.0), F(1.0)}).out({8, 6});
    return c.outSpec();
  };
  CHECK(fill("aten.normal_.default", "S(1)S(0)") == "S(1)S(0)");
  CHECK(fill("aten.normal_.default", "RS(1)") == "RS(1)");
  CHECK(fill("aten.normal_.default", "P(sum)R") == "partial-into-nonlinear");
  CHECK(fill("aten.normal_functional.default", "S(1)S(0)") == "S(1)S(0)");  // the functional form: the same
  CHECK(fill("aten.normal_functional.default", "P(sum)R") == "partial-into-nonlinear");
  CHECK(fill("aten.uniform_.default", "S(0)S(0)") == "S(0)S(0)");
  CHECK(fill("aten.uniform.out", "S(0)R") == "S(0)R");
  CHECK(fill("aten.log_normal_.default", "RP(sum)") == "partial-into-nonlinear");
  RuleCase exp({4}, "aten.exponential_.default");
  exp.args({exp.in({3, 6}, "S(0)"), F(1.0)}).out({3, 6});
  CHECK(exp.outSpec() == "S(0)");  // uneven shards are kept (allow_uneven_sharding)
  CHECK(exp.result.implicitRedistributes.empty());
  // normal with tensor mean/std: DTensor has no strategy; core cannot tell.
  RuleCase nt({4}, "aten.normal.Tensor_Tensor");
  nt.args({nt.in({8, 6}, "S(0)"), nt.in({8, 6}, "S(0)")}).out({8, 6});
  CHECK(nt.outSpec() == "none");
}

TEST_CASE("multinomial splits batch dims; randint_like follows its input", "[rules][linalg]") {
  auto multinomial = [](const char* spec, std::vector<int64_t> shape) {
    RuleCase c({4}, "aten.multinomial.default");
    c.args({c.in(shape, spec), I(2), B(true)}).out({shape[0], 2}, DType::I64);
    c.run();
    return c;
  };
  CHECK(multinomial("S(0)", {4, 6}).outSpec() == "S(0)");
  CHECK(multinomial("S(1)", {4, 6}).outSpec() == "error");
  CHECK(multinomial("P(sum)", {4, 6}).outSpec() == "partial-into-nonlinear");
  RuleCase few = multinomial("S(0)", {2, 6});
  CHECK(few.outSpec() == "S(0)");
  CHECK(says(few, "is split into 4 pieces"));

  auto randint = [](const char* op, const char* spec, std::vector<Arg> rest) {
    RuleCase c({2, 2}, op);
    std::vector<Arg> args{c.in({8, 6}, spec)};
    for (auto& a : rest) args.push_back(a);
    c.args(args).out({8, 6}, DType::I64);
    return c.outSpec();
  };
  CHECK(randint("aten.randint_like.default", "S(1)S(0)", {I(10)}) == "S(1)S(0)");
  CHECK(randint("aten.randint_like.default", "P(sum)S(0)", {I(10)}) == "RS(0)");
  CHECK(randint("aten.randint_like.low_dtype", "P(max)P(max)", {I(0), I(10)}) == "RR");
}
