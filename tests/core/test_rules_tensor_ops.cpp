// Sharding rules of core/rules/tensor_ops.cpp: scans, dim reductions with indices, norms, index_fill /
// index_reduce / _index_put_impl, bucketize, diagonal_scatter, flip, roll, repeat, equal, zero and the *_copy
// forms, as DTensor 2.14.1 propagates them (tests/dtensor/case_ops/tensor_ops.py asks DTensor the same).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "rules_case.h"

using namespace ss;
using namespace ss::test;

namespace {

// A one-input op on `mesh` with its args after the tensor and its output shapes.
std::string unaryOut(std::vector<int64_t> mesh, const char* op, std::vector<int64_t> shape, const char* spec,
                     std::vector<Arg> rest, std::vector<std::vector<int64_t>> outs, int o = 0) {
  RuleCase c(std::move(mesh), op);
  std::vector<Arg> args{c.in(std::move(shape), spec)};
  for (auto& a : rest) args.push_back(std::move(a));
  c.args(std::move(args));
  for (auto& s : outs) c.out(std::move(s));
  return c.outSpec(o);
}

const double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("scans read their dim whole and keep no Partial", "[rules][tensor_ops]") {
  auto cumprod = [](const char* spec) {
    return unaryOut({4}, "aten.cumprod.default", {8, 6}, spec, {I(1)}, {{8, 6}});
  };
  CHECK(cumprod("R") == "R");
  CHECK(cumprod("S(0)") == "S(0)");
  CHECK(cumprod("S(1)") == "error");
  CHECK(cumprod("P(sum)") == "partial-into-nonlinear");
  RuleCase c({4}, "aten.cumprod.default");
  c.args({c.in({8, 6}, "S(1)"), I(-1)}).out({8, 6});
  CHECK(c.outSpec() == "error");
  CHECK(c.result.message ==
        "cumprod cannot split dim 1 of input 0 (S(1)): the scan runs along the whole dim, so every rank needs all of it");
  CHECK(c.want() == "R");
  CHECK(unaryOut({4}, "aten.logcumsumexp.default", {8, 6}, "S(1)", {I(0)}, {{8, 6}}) == "S(1)");
  CHECK(unaryOut({4}, "aten.logcumsumexp.default", {8, 6}, "S(0)", {I(0)}, {{8, 6}}) == "error");
  // cummax / cummin: values and indices alike.
  CHECK(unaryOut({4}, "aten.cummax.default", {8, 6}, "S(0)", {I(1)}, {{8, 6}, {8, 6}}, 1) == "S(0)");
  CHECK(unaryOut({2, 2}, "aten.cummin.default", {4, 6, 8}, "S(0)S(1)", {I(-1)}, {{4, 6, 8}, {4, 6, 8}}, 0) ==
        "S(0)S(1)");
  CHECK(unaryOut({2, 2}, "aten.cummin.default", {4, 6, 8}, "S(0)S(2)", {I(-1)}, {{4, 6, 8}, {4, 6, 8}}) == "error");
  CHECK(unaryOut({4}, "aten.cummax.default", {8, 6}, "P(max)", {I(1)}, {{8, 6}, {8, 6}}) == "partial-into-nonlinear");
}

TEST_CASE("kthvalue, median, nanmedian and mode read the reduced dim whole", "[rules][tensor_ops]") {
  // kthvalue(self, k, dim, keepdim): dim 1 dropped, so dim 0 keeps its shard.
  CHECK(unaryOut({4}, "aten.kthvalue.default", {8, 6}, "S(0)", {I(2), I(1)}, {{8}, {8}}, 1) == "S(0)");
  CHECK(unaryOut({4}, "aten.kthvalue.default", {8, 6}, "S(1)", {I(2), I(1)}, {{8}, {8}}) == "error");
  CHECK(unaryOut({4}, "aten.kthvalue.default", {8, 6}, "S(0)", {I(2)}, {{8}, {8}}) == "S(0)");  // dim -1
  CHECK(unaryOut({4}, "aten.kthvalue.default", {4, 6, 8}, "S(2)", {I(2), I(0), B(true)}, {{1, 6, 8}, {1, 6, 8}}) ==
        "S(2)");
  CHECK(unaryOut({4}, "aten.kthvalue.default", {8, 6}, "P(sum)", {I(2), I(1)}, {{8}, {8}}) == "partial-into-nonlinear");
  // median.dim(self, 0): dim 1 becomes dim 0.
  CHECK(unaryOut({4}, "aten.median.dim", {8, 6}, "S(1)", {I(0)}, {{6}, {6}}) == "S(0)");
  CHECK(unaryOut({4}, "aten.median.dim", {8, 6}, "S(0)", {I(0)}, {{6}, {6}}) == "error");
  CHECK(unaryOut({2, 2}, "aten.nanmedian.dim", {4, 6, 8}, "S(0)S(2)", {I(1), B(true)}, {{4, 1, 8}, {4, 1, 8}}, 1) ==
        "S(0)S(2)");
  CHECK(unaryOut({4}, "aten.mode.default", {8, 6}, "S(0)", {}, {{8}, {8}}) == "S(0)");
  CHECK(unaryOut({4}, "aten.mode.default", {8, 6}, "S(1)", {}, {{8}, {8}}) == "error");
  // median() of every element: whole tensors only.
  CHECK(unaryOut({4}, "aten.median.default", {8, 6}, "R", {}, {{}}) == "R");
  CHECK(unaryOut({4}, "aten.median.default", {8, 6}, "S(0)", {}, {{}}) == "error");
  CHECK(unaryOut({4}, "aten.nanmedian.default", {8, 6}, "P(sum)", {}, {{}}) == "partial-into-nonlinear");
  // No dim and no arguments in the file: undecidable, never a default.
  RuleCase u({4}, "aten.median.dim");
  u.argsComplete(false);
  u.args({u.in({8, 6}, "S(0)")}).out({6}).out({6});
  CHECK(u.outSpec() == "none");
}

TEST_CASE("norms over a sharded dim: Partial only where core has the reduce op", "[rules][tensor_ops]") {
  auto norm = [](const char* spec, std::vector<Arg> rest, std::vector<int64_t> out = {}) {
    return unaryOut({4}, "aten.norm.Scalar", {8, 6}, spec, std::move(rest), {std::move(out)});
  };
  CHECK(norm("R", {}) == "R");
  CHECK(norm("S(0)", {I(0)}) == "P(sum)");  // a count of non-zeros
  CHECK(norm("S(1)", {I(1)}) == "P(sum)");  // DTensor's _NormPartial(1) is a plain sum
  CHECK(norm("S(0)", {F(kInf)}) == "P(max)");
  CHECK(norm("S(0)", {F(-kInf)}) == "P(min)");
  CHECK(norm("P(max)", {F(kInf)}) == "P(max)");  // DTensor keeps the reduction's own Partial
  CHECK(norm("P(sum)", {I(1)}) == "partial-into-nonlinear");
  CHECK(norm("P(sum)", {I(0)}) == "partial-into-nonlinear");
  RuleCase c({4}, "aten.norm.Scalar");
  c.args({c.in({8, 6}, "S(0)")}).out({});
  CHECK(c.outSpec() == "error");  // DTensor: _NormPartial(2), which core cannot express
  CHECK(c.result.message.find("_NormPartial") != std::string::npos);
  CHECK(unaryOut({4}, "aten.norm.ScalarOpt_dim", {8, 6}, "S(0)", {I(2), ints({1})}, {{8}}) == "S(0)");
  CHECK(unaryOut({4}, "aten.norm.ScalarOpt_dim", {8, 6}, "S(1)", {I(2), ints({1})}, {{8}}) == "error");
  CHECK(unaryOut({4}, "aten.norm.ScalarOpt_dim", {8, 6}, "S(1)", {I(2), ints({0}), B(true)}, {{1, 6}}) == "S(1)");
  // linalg__powsum: sum(|x|^ord), a plain sum; a Partial(sum) input stays so (DTensor's powsum strategy).
  CHECK(unaryOut({4}, "aten.linalg__powsum.default", {8, 6}, "S(1)", {I(2), ints({1})}, {{8}}) == "P(sum)");
  CHECK(unaryOut({2, 2}, "aten.linalg__powsum.default", {8, 6}, "S(0)P(sum)", {I(2), ints({1})}, {{8}}) ==
        "S(0)P(sum)");
  CHECK(unaryOut({4}, "aten.linalg__powsum.default", {8, 6}, "P(max)", {I(2), ints({1})}, {{8}}) ==
        "partial-into-nonlinear");
}

TEST_CASE("index_fill: the filled dim is whole, the index Replicate, Partials by the value's kind",
          "[rules][tensor_ops]") {
  auto scalarFill = [](const char* self, const char* index) {
    RuleCase c({4}, "aten.index_fill.int_Scalar");
    c.args({c.in({8, 6}, self), I(1), c.in({3}, index, DType::I64), F(1.5)}).out({8, 6});
    return c.outSpec();
  };
  CHECK(scalarFill("S(0)", "R") == "S(0)");
  CHECK(scalarFill("S(1)", "R") == "error");
  CHECK(scalarFill("R", "S(0)") == "error");
  CHECK(scalarFill("P(avg)", "R") == "P(avg)");
  CHECK(scalarFill("P(max)", "R") == "P(max)");
  CHECK(scalarFill("P(sum)", "R") == "partial-into-nonlinear");  // each rank would add the value once
  auto tensorFill = [](std::vector<int64_t> mesh, const char* self, const char* value) {
    const char* index = mesh.size() == 1 ? "R" : "RR";
    RuleCase c(std::move(mesh), "aten.index_fill.int_Tensor");
    c.args({c.in({8, 6}, self), I(0), c.in({3}, index, DType::I64), c.in({}, value)}).out({8, 6});
    return c.outSpec();
  };
  CHECK(tensorFill({4}, "S(1)", "R") == "S(1)");
  CHECK(tensorFill({4}, "S(0)", "R") == "error");
  CHECK(tensorFill({4}, "P(sum)", "P(sum)") == "P(sum)");
  CHECK(tensorFill({4}, "P(sum)", "R") == "partial-into-nonlinear");
  CHECK(tensorFill({4}, "R", "P(sum)") == "partial-into-nonlinear");
  CHECK(tensorFill({2, 2}, "S(1)P(sum)", "RP(sum)") == "S(1)P(sum)");
  // An index split into more pieces than it has elements is refused anyway (the index must be Replicate); a self
  // dim of 2 over 4 ranks runs, but DTensor (no allow_uneven_sharding) redistributes it first.
  RuleCase u({4}, "aten.index_fill.int_Scalar");
  u.args({u.in({8, 2}, "S(1)"), I(0), u.in({3}, "R", DType::I64), F(0.0)}).out({8, 2});
  CHECK(u.outSpec() == "S(1)");
  CHECK(u.result.implicitRedistributes.size() == 1);
}

TEST_CASE("index_reduce shards self and source alike; _index_put_impl has no DTensor strategy",
          "[rules][tensor_ops]") {
  auto reduce = [](const char* self, const char* index, const char* source) {
    RuleCase c({4}, "aten.index_reduce.default");
    c.args({c.in({8, 6}, self), I(0), c.in({4}, index, DType::I64), c.in({4, 6}, source), Arg::string("amax")})
        .out({8, 6});
    return c.outSpec();
  };
  CHECK(reduce("S(1)", "R", "S(1)") == "S(1)");
  CHECK(reduce("S(1)", "R", "R") == "error");
  CHECK(reduce("R", "R", "S(0)") == "error");
  CHECK(reduce("S(0)", "R", "S(0)") == "error");
  CHECK(reduce("R", "S(0)", "R") == "error");
  CHECK(reduce("P(sum)", "R", "P(sum)") == "partial-into-nonlinear");

  RuleCase impl({4}, "aten._index_put_impl.default");
  impl.args({impl.in({8, 6}, "R"), Arg::list({impl.in({4}, "R", DType::I64)}), impl.in({4, 6}, "R")}).out({8, 6});
  CHECK(impl.outSpec() == "error");  // DTensor 2.14 raises for every placement
  RuleCase out({4}, "aten._index_put_impl.out");
  out.args({out.in({8, 6}, "S(1)"), Arg::list({out.in({4}, "R", DType::I64)}), out.in({4, 6}, "S(1)")}).out({8, 6});
  CHECK(out.outSpec() == "S(1)");  // index_put's rule
}

TEST_CASE("bucketize: a sharded input, sharded boundaries (Partial(sum)), monotone Partials", "[rules][tensor_ops]") {
  auto bucketize = [](std::vector<int64_t> mesh, const char* self, const char* boundaries) {
    RuleCase c(std::move(mesh), "aten.bucketize.Tensor");
    c.args({c.in({8, 6}, self), c.in({8}, boundaries)}).out({8, 6}, DType::I64);
    return c.outSpec();
  };
  CHECK(bucketize({4}, "S(1)", "R") == "S(1)");
  CHECK(bucketize({4}, "R", "S(0)") == "P(sum)");
  CHECK(bucketize({4}, "S(0)", "S(0)") == "error");
  CHECK(bucketize({4}, "P(max)", "R") == "P(max)");
  CHECK(bucketize({4}, "P(min)", "R") == "P(min)");
  CHECK(bucketize({4}, "P(sum)", "R") == "partial-into-nonlinear");
  CHECK(bucketize({4}, "R", "P(sum)") == "partial-into-nonlinear");
  CHECK(bucketize({2, 2}, "RS(0)", "S(0)R") == "P(sum)S(0)");
  CHECK(bucketize({2, 2}, "RR", "S(0)S(0)") == "P(sum)P(sum)");
}

TEST_CASE("diagonal_scatter: the diagonal's dims are whole, the others shard alike", "[rules][tensor_ops]") {
  auto scatter = [](const char* self, const char* src) {
    RuleCase c({4}, "aten.diagonal_scatter.default");
    c.args({c.in({4, 6, 6}, self), c.in({4, 6}, src), I(0), I(1), I(2)}).out({4, 6, 6});
    return c.outSpec();
  };
  CHECK(scatter("S(0)", "S(0)") == "S(0)");
  CHECK(scatter("S(0)", "R") == "error");
  CHECK(scatter("S(1)", "R") == "error");
  CHECK(scatter("R", "S(1)") == "error");
  CHECK(scatter("P(sum)", "P(sum)") == "partial-into-nonlinear");
}

TEST_CASE("flip and roll read the dims they move whole and keep sum/avg/max/min Partials", "[rules][tensor_ops]") {
  CHECK(unaryOut({4}, "aten.flip.default", {8, 6}, "S(0)", {ints({1})}, {{8, 6}}) == "S(0)");
  CHECK(unaryOut({4}, "aten.flip.default", {8, 6}, "S(1)", {ints({-1})}, {{8, 6}}) == "error");
  CHECK(unaryOut({4}, "aten.flip.default", {8, 6}, "P(sum)", {ints({1})}, {{8, 6}}) == "P(sum)");
  CHECK(unaryOut({4}, "aten.flip.default", {8, 6}, "P(max)", {ints({1})}, {{8, 6}}) == "P(max)");
  CHECK(unaryOut({4}, "aten.flip.default", {8, 6}, "P(product)", {ints({1})}, {{8, 6}}) == "partial-into-nonlinear");
  CHECK(unaryOut({2, 2}, "aten.flip.default", {4, 6, 8}, "S(1)P(avg)", {ints({0, 2})}, {{4, 6, 8}}) == "S(1)P(avg)");
  CHECK(unaryOut({4}, "aten.roll.default", {8, 6}, "S(1)", {ints({1}), ints({0})}, {{8, 6}}) == "S(1)");
  CHECK(unaryOut({4}, "aten.roll.default", {8, 6}, "S(0)", {ints({1}), ints({0})}, {{8, 6}}) == "error");
  // No dims: roll moves the flattened tensor, so no dim may be sharded.
  CHECK(unaryOut({4}, "aten.roll.default", {4, 8}, "S(1)", {ints({2})}, {{4, 8}}) == "error");
  CHECK(unaryOut({4}, "aten.roll.default", {4, 8}, "P(sum)", {ints({2})}, {{4, 8}}) == "P(sum)");
  // A dim of 2 over 4 ranks: core runs it, DTensor (no allow_uneven_sharding) redistributes first.
  RuleCase u({4}, "aten.flip.default");
  u.args({u.in({2, 8}, "S(0)"), ints({1})}).out({2, 8});
  CHECK(u.outSpec() == "S(0)");
  CHECK(u.result.implicitRedistributes.size() == 1);
}

TEST_CASE("repeat: a tiled dim is whole, new leading dims are never sharded, Partials pass", "[rules][tensor_ops]") {
  CHECK(unaryOut({4}, "aten.repeat.default", {8, 6}, "S(1)", {ints({2, 1})}, {{16, 6}}) == "S(1)");
  CHECK(unaryOut({4}, "aten.repeat.default", {8, 6}, "S(0)", {ints({2, 1})}, {{16, 6}}) == "error");
  CHECK(unaryOut({4}, "aten.repeat.default", {4, 8}, "S(0)", {ints({2, 1, 3})}, {{2, 4, 24}}) == "S(1)");
  CHECK(unaryOut({4}, "aten.repeat.default", {4, 8}, "S(1)", {ints({2, 1, 3})}, {{2, 4, 24}}) == "error");
  CHECK(unaryOut({2, 2}, "aten.repeat.default", {4, 8}, "P(sum)S(0)", {ints({2, 1, 3})}, {{2, 4, 24}}) ==
        "P(sum)S(1)");
}

TEST_CASE("equal and is_same_size: dims below the smaller rank sharded alike, no Partial", "[rules][tensor_ops]") {
  auto equal = [](const char* op, std::vector<int64_t> mesh, std::vector<int64_t> other, const char* a,
                  const char* b) {
    RuleCase c(std::move(mesh), op);
    c.args({c.in({8, 6}, a), c.in(std::move(other), b)});
    c.run();
    return c.result.verdict;
  };
  using rules::Verdict;
  CHECK(equal("aten.equal.default", {4}, {8, 6}, "S(1)", "S(1)") == Verdict::Ok);
  CHECK(equal("aten.equal.default", {4}, {8, 6}, "S(0)", "R") == Verdict::Incompatible);
  CHECK(equal("aten.equal.default", {4}, {8, 6}, "S(0)", "S(1)") == Verdict::Incompatible);
  CHECK(equal("aten.equal.default", {4}, {8, 6}, "P(sum)", "P(sum)") == Verdict::PartialIntoNonlinear);
  CHECK(equal("aten.equal.default", {2, 2}, {8, 6}, "S(0)S(1)", "S(0)S(1)") == Verdict::Ok);
  // Aligned from the left: [8, 6] against [6] pairs dim 0 with dim 0; self's dim 1 has no partner.
  CHECK(equal("aten.is_same_size.default", {4}, {6}, "S(0)", "S(0)") == Verdict::Ok);
  CHECK(equal("aten.is_same_size.default", {4}, {6}, "S(1)", "S(0)") == Verdict::Incompatible);
}

TEST_CASE("zero, view_of, frexp and the forms of other families' ops", "[rules][tensor_ops]") {
  CHECK(unaryOut({2, 2}, "aten.zero.default", {8, 6}, "S(0)P(sum)", {}, {{8, 6}}) == "S(0)R");
  CHECK(unaryOut({4}, "aten.zero_.default", {8, 6}, "P(sum)", {}, {{8, 6}}) == "P(sum)");
  CHECK(unaryOut({4}, "prims.view_of.default", {8, 6}, "P(sum)", {}, {{8, 6}}) == "P(sum)");
  CHECK(unaryOut({4}, "aten.frexp.Tensor", {8, 6}, "S(1)", {}, {{8, 6}, {8, 6}}, 1) == "S(1)");
  CHECK(unaryOut({4}, "aten.frexp.Tensor", {8, 6}, "P(sum)", {}, {{8, 6}, {8, 6}}) == "partial-into-nonlinear");
  CHECK(unaryOut({4}, "aten._safe_softmax.default", {8, 6}, "S(0)", {I(1)}, {{8, 6}}) == "S(0)");
  CHECK(unaryOut({4}, "aten._safe_softmax.default", {8, 6}, "S(1)", {I(1)}, {{8, 6}}) == "error");
  CHECK(unaryOut({4}, "aten.expand_copy.default", {1, 6}, "S(1)", {ints({8, 6})}, {{8, 6}}) == "S(1)");
  CHECK(unaryOut({4}, "aten.expand_copy.default", {1, 6}, "S(0)", {ints({8, 6})}, {{8, 6}}) == "error");
  CHECK(unaryOut({4}, "aten.split_with_sizes_copy.default", {8, 6}, "P(sum)", {ints({2, 4}), I(1)}, {{8, 2}, {8, 4}},
                 1) == "P(sum)");
  CHECK(unaryOut({4}, "aten.split_with_sizes_copy.default", {8, 6}, "S(1)", {ints({2, 4}), I(1)}, {{8, 2}, {8, 4}}) ==
        "error");
  // view_copy is view, except that DTensor redistributes where view would give a _StridedShard.
  CHECK(unaryOut({4}, "aten.view_copy.default", {8, 6}, "S(0)", {ints({48})}, {{48}}) == "S(0)");
  CHECK(unaryOut({4}, "aten.view.default", {8, 8}, "S(1)", {ints({64})}, {{64}}) == "_S(0, 8)");
  RuleCase v({4}, "aten.view_copy.default");
  v.args({v.in({8, 8}, "S(1)"), ints({64})}).out({64});
  CHECK(v.outSpec() == "error");
  CHECK(v.want() == "R");
}
