// The op table's shape facts (core/ops/op_shapes.h): output metas, inputs that cannot go together (with both
// shapes named), collectives by group size, symbolic sizes, and the autoparallel-export (tensor-only) mode.
#include <catch2/catch.hpp>

#include "core/ops/op_shapes.h"

using namespace ss;

namespace {
struct Case {
  Node node;
  std::vector<TensorMeta> ins;
  explicit Case(std::string op) { node.op = std::move(op); }
  Arg in(std::vector<int64_t> shape, DType d = DType::F32, bool known = true) {
    ins.push_back(TensorMeta{std::move(shape), d, known});
    return Arg::tensor({static_cast<int>(ins.size()) - 1, 0});
  }
  Case& args(std::vector<Arg> a) {
    node.args = std::move(a);
    return *this;
  }
  Case& kwarg(std::string k, Arg v) {
    node.kwargs.push_back({std::move(k), std::move(v)});
    return *this;
  }
  ops::ShapeResult run(bool complete = true) const {
    return ops::inferOutputs(node, [this](TensorRef r) { return &ins.at(r.node); }, complete);
  }
  std::vector<int64_t> shape(int o = 0) const {
    auto r = run();
    REQUIRE(r.verdict == ops::ShapeVerdict::Known);
    REQUIRE(o < static_cast<int>(r.outputs.size()));
    REQUIRE(r.outputs[o].known);
    return r.outputs[o].shape;
  }
  std::string mismatch() const {
    auto r = run();
    REQUIRE(r.verdict == ops::ShapeVerdict::Mismatch);
    return std::to_string(r.input) + ": " + r.message;
  }
};
Arg I(int64_t v) { return Arg::integer(v); }
Arg ints(std::vector<int64_t> v) {
  std::vector<Arg> a;
  for (auto x : v) a.push_back(I(x));
  return Arg::list(std::move(a));
}
using Shape = std::vector<int64_t>;
}  // namespace

TEST_CASE("op table: matmuls, broadcasting and views name the shapes that collide", "[ops]") {
  Case mm("aten.mm.default");
  mm.args({mm.in({8, 16}), mm.in({15, 4})});
  CHECK(mm.mismatch() == "1: mm: [8, 16] @ [15, 4]: the contracted dims differ (16 and 15)");
  Case ok("aten.mm.default");
  ok.args({ok.in({8, 16}), ok.in({16, 4})});
  CHECK(ok.shape() == Shape{8, 4});
  CHECK(ok.run(false).verdict == ops::ShapeVerdict::Known);  // tensor-only: runs on autoparallel exports too

  Case add("aten.add.Tensor");
  add.args({add.in({7, 4}), add.in({3, 4})});
  CHECK(add.mismatch() == "1: add: shapes [7, 4] and [3, 4] do not broadcast");

  Case view("aten.view.default");
  view.args({view.in({4, 6}), ints({3, -1})});
  CHECK(view.shape() == Shape{3, 8});
  Case view2("aten.view.default");
  view2.args({view2.in({4, 6}), ints({5, 5})});
  CHECK(view2.mismatch() == "0: view: input shape [4, 6] (24 elements) cannot be viewed as [5, 5]");
  CHECK(view2.run(false).verdict == ops::ShapeVerdict::Unknown);  // needs its size argument

  Case cat("aten.cat.default");
  Arg a = cat.in({2, 3}), b = cat.in({2, 4});
  cat.args({Arg::list({a, b}), I(0)});
  CHECK(cat.mismatch() == "1: cat: input 1 has shape [2, 4], which does not go with [2, 3] outside dim 0");
}

TEST_CASE("op table: index_put's values must broadcast to the slots the indices select", "[ops]") {
  Case ip("aten.index_put.default");
  Arg self = ip.in({4, 128, 1, 64}, DType::BF16), idx = ip.in({128}, DType::I64), v = ip.in({16, 32, 1, 64}, DType::BF16);
  ip.args({self, Arg::list({Arg::none(), idx}), v});
  CHECK(ip.mismatch() ==
        "2: index_put: values of shape [16, 32, 1, 64] do not broadcast to the slots they fill in self, [4, 128, 1, 64]");
  Case fits("aten.index_put.default");
  Arg s2 = fits.in({4, 128, 1, 64}), i2 = fits.in({128}, DType::I64), v2 = fits.in({128, 1, 1});
  fits.args({s2, Arg::list({Arg::none(), i2}), v2});
  CHECK(fits.shape() == Shape{4, 128, 1, 64});
}

TEST_CASE("op table: collectives by group size, all_to_all_single by its splits", "[ops]") {
  Case ag("_c10d_functional.all_gather_into_tensor.default");
  ag.args({ag.in({32, 16}), I(4), Arg::string("1")});
  CHECK(ag.shape() == Shape{128, 16});
  Case rs("_c10d_functional.reduce_scatter_tensor.default");
  rs.args({rs.in({8, 16}), Arg::string("sum"), I(4), Arg::string("1")});
  CHECK(rs.shape() == Shape{2, 16});
  Case rs3("_c10d_functional.reduce_scatter_tensor.default");
  rs3.args({rs3.in({8, 16}), Arg::string("sum"), I(3), Arg::string("1")});
  CHECK(rs3.mismatch() == "0: reduce_scatter_tensor: dim 0 of [8, 16] does not split into 3 equal parts (the group size)");
  Case ar("_c10d_functional.all_reduce.default");
  ar.args({ar.in({8, 16}), Arg::string("sum"), Arg::string("0")});
  CHECK(ar.shape() == Shape{8, 16});
  // The coalesced forms: one output per listed tensor.
  Case agc("_c10d_functional.all_gather_into_tensor_coalesced.default");
  agc.args({Arg::list({agc.in({32, 16}), agc.in({2})}), I(4), Arg::string("1")});
  CHECK(agc.shape(0) == Shape{128, 16});
  CHECK(agc.shape(1) == Shape{8});
  Case rsc("_c10d_functional.reduce_scatter_tensor_coalesced.default");
  rsc.args({Arg::list({rsc.in({8, 16}), rsc.in({6})}), Arg::string("sum"), I(4), Arg::string("1")});
  CHECK(rsc.mismatch() == "1: reduce_scatter_tensor_coalesced: dim 0 of [6] does not split into 4 equal parts (the group size)");
  Case arc("_c10d_functional.all_reduce_coalesced.default");
  arc.args({Arg::list({arc.in({8, 16}), arc.in({})}), Arg::string("sum"), Arg::string("0")});
  CHECK(arc.shape(0) == Shape{8, 16});
  CHECK(arc.shape(1) == Shape{});
  Case wt("_c10d_functional.wait_tensor.default");
  wt.args({wt.in({8, 16})});
  CHECK(wt.shape() == Shape{8, 16});

  Case a2a("_c10d_functional.all_to_all_single.default");
  a2a.args({a2a.in({8, 16}), ints({2, 2, 6}), ints({4, 2, 2}), Arg::string("0")});
  CHECK(a2a.shape() == Shape{10, 16});
  Case bad("_c10d_functional.all_to_all_single.default");
  bad.args({bad.in({8, 16}), ints({2, 6}), ints({4, 2}), Arg::string("0")});
  CHECK(bad.mismatch() == "0: all_to_all_single: the input splits [4, 2] add up to 6, but dim 0 of the input [8, 16] is 8");
  // Output splits read at run time (MoE token counts): dim 0 is data, the rest is known.
  Case sym("_c10d_functional.all_to_all_single.default");
  Arg x = sym.in({8, 16}, DType::BF16), u0 = sym.in({}, DType::I64, false), u1 = sym.in({}, DType::I64, false);
  sym.args({x, Arg::list({u0, u1}), ints({4, 4}), Arg::string("0")});
  auto r = sym.run();
  REQUIRE(r.verdict == ops::ShapeVerdict::Known);
  CHECK(r.outputs[0] == TensorMeta{{-1, 16}, DType::BF16, false});

  // shard_dim_alltoall names its group only: the group size is read off the declared output's gather dim.
  auto sdAll = [](std::vector<int64_t> in, int64_t gather, int64_t shard, std::vector<int64_t> out) {
    Case c("_dtensor.shard_dim_alltoall.default");
    c.args({c.in(std::move(in)), I(gather), I(shard), Arg::string("2")});
    c.node.outputs = {TensorMeta{std::move(out), DType::F32, true}};
    return c;
  };
  CHECK(sdAll({4, 128, 16}, 0, 1, {16, 32, 16}).shape() == Shape{16, 32, 16});
  CHECK(sdAll({4, 128, 16}, -1, 0, {1, 128, 64}).shape() == Shape{1, 128, 64});
  // The output the text declares is not what the gather dim's group size gives: checkShapes names both shapes.
  CHECK(sdAll({4, 128, 16}, 0, 1, {16, 128, 16}).shape() == Shape{16, 32, 16});
  CHECK(sdAll({4, 128, 16}, 0, 1, {6, 32, 16}).mismatch() ==
        "0: shard_dim_alltoall: the output's dim 0 (6) is no whole multiple of the input's 4 (input [4, 128, 16] "
        "gathered on dim 0)");
  CHECK(sdAll({4, 6, 16}, 0, 1, {16, 1, 16}).mismatch() ==
        "0: shard_dim_alltoall: dim 1 of [4, 6, 16] does not split into 4 equal parts (the group size its output's "
        "dim 0 shows)");
  CHECK(sdAll({4, 6, 16}, 1, 1, {4, 6, 16}).shape() == Shape{4, 6, 16});
  Case undeclared("_dtensor.shard_dim_alltoall.default");
  undeclared.args({undeclared.in({4, 128, 16}), I(0), I(1), Arg::string("2")});
  CHECK(undeclared.run().verdict != ops::ShapeVerdict::Known);
}

TEST_CASE("op table: float8's _scaled_mm is an mm whose result is out_dtype", "[ops]") {
  Case a("aten._scaled_mm.default");
  a.args({a.in({8, 16}, DType::F8E4M3FN), a.in({16, 4}, DType::F8E4M3FN), a.in({}), a.in({}), Arg::none(), Arg::none(),
          Arg::dtype(DType::BF16)});
  auto r = a.run();
  REQUIRE(r.verdict == ops::ShapeVerdict::Known);
  CHECK(r.outputs[0] == TensorMeta{{8, 4}, DType::BF16, true});
  Case d("aten._scaled_mm.default");
  d.args({d.in({8, 16}, DType::F8E4M3FN), d.in({16, 4}, DType::F8E4M3FN), d.in({}), d.in({})});
  CHECK(d.run().outputs.at(0) == TensorMeta{{8, 4}, DType::F8E4M3FN, true});
  Case bad("aten._scaled_mm.default");
  bad.args({bad.in({8, 16}, DType::F8E4M3FN), bad.in({32, 4}, DType::F8E4M3FN), bad.in({}), bad.in({})});
  CHECK(bad.mismatch() == "1: _scaled_mm: [8, 16] @ [32, 4]: the contracted dims differ (16 and 32)");
}

TEST_CASE("op table: MoE, complex, attention and symbolic ops", "[ops]") {
  Case g3("aten._grouped_mm.default");
  g3.args({g3.in({16, 32}, DType::BF16), g3.in({4, 32, 64}, DType::BF16), g3.in({4}, DType::I32)});
  CHECK(g3.shape() == Shape{16, 64});
  Case g2("aten._grouped_mm.default");
  g2.args({g2.in({32, 16}), g2.in({16, 64}), g2.in({4}, DType::I32)});
  CHECK(g2.shape() == Shape{4, 32, 64});
  Case gbad("aten._grouped_mm.default");
  gbad.args({gbad.in({16, 32}), gbad.in({4, 31, 64}), gbad.in({4}, DType::I32)});
  CHECK(gbad.mismatch() == "1: _grouped_mm: [16, 32] @ [4, 31, 64]: the contracted dims differ (32 and 31)");

  Case tk("aten.topk.default");
  tk.args({tk.in({8, 64}), I(6)});
  CHECK(tk.shape(0) == Shape{8, 6});
  CHECK(tk.run().outputs[1].dtype == DType::I64);
  Case tk2("aten.topk.default");
  tk2.args({tk2.in({8, 4}), I(6)});
  CHECK(tk2.mismatch() == "0: topk: k = 6 is more than dim 1 of [8, 4] holds");
  Case hc("aten.histc.default");
  hc.args({hc.in({64}, DType::I64), I(8), I(0), I(8)});
  CHECK(hc.shape() == Shape{8});
  Case cs("aten.cumsum.default");
  cs.args({cs.in({4}, DType::I64), I(0)});
  CHECK(cs.run().outputs[0] == TensorMeta{{4}, DType::I64, true});
  Case pad("aten.constant_pad_nd.default");
  pad.args({pad.in({2, 3}), ints({1, 2, 0, 1})});
  CHECK(pad.shape() == Shape{3, 6});

  Case vc("aten.view_as_complex.default");
  vc.args({vc.in({2, 16, 8, 2})});
  CHECK(vc.run().outputs[0] == TensorMeta{{2, 16, 8}, DType::C64, true});
  Case vc3("aten.view_as_complex.default");
  vc3.args({vc3.in({2, 16, 8, 3})});
  CHECK(vc3.mismatch() == "0: view_as_complex: the last dim of [2, 16, 8, 3] must be 2 (real, imaginary)");
  Case vr("aten.view_as_real.default");
  vr.args({vr.in({2, 16, 8}, DType::C64)});
  CHECK(vr.shape() == Shape{2, 16, 8, 2});

  Case sdpa("aten._scaled_dot_product_cudnn_attention.default");
  Arg q = sdpa.in({2, 4, 16, 8}, DType::BF16);
  sdpa.args({q, q, sdpa.in({2, 4, 16, 32}, DType::BF16), Arg::none(), Arg::boolean(true)});
  CHECK(sdpa.shape(0) == Shape{2, 4, 16, 32});
  CHECK(sdpa.shape(1) == Shape{2, 4, 16});

  Case lsd("aten._local_scalar_dense.default");
  lsd.args({lsd.in({2}, DType::I64)});
  CHECK(lsd.mismatch() == "0: _local_scalar_dense reads one element, but its input has shape [2]");
  Case ge("operator.ge");
  ge.args({ge.in({}, DType::I64, false), I(0)});
  auto r = ge.run();
  REQUIRE(r.verdict == ops::ShapeVerdict::Known);
  CHECK(r.outputs[0] == TensorMeta{{}, DType::Bool, false});  // a SymBool
  // full with a symbolic size: known to depend on data, not a gap in the table.
  Case full("aten.full.default");
  full.args({Arg::list({full.in({}, DType::I64, false), I(16)}), I(0)}).kwarg("dtype", Arg::dtype(DType::BF16));
  auto f = full.run();
  REQUIRE(f.verdict == ops::ShapeVerdict::Known);
  CHECK(f.outputs[0] == TensorMeta{{-1, 16}, DType::BF16, false});  // the SymInt is a symbolic size
  CHECK(ops::hasShapeRule("torch.ops.aten._grouped_mm.default"));
  CHECK_FALSE(ops::hasShapeRule("aten._foreach_norm.Scalar"));
}

TEST_CASE("op table: symbolic sizes pass through ops that only copy or compare sizes, never into arithmetic", "[ops]") {
  // mm copies M from a symbolic input: [-1, 4], still unknown (the data decides M).
  Case mm("aten.mm.default");
  mm.args({mm.in({-1, 16}, DType::BF16, false), mm.in({16, 4}, DType::BF16)});
  auto r = mm.run();
  REQUIRE(r.verdict == ops::ShapeVerdict::Known);
  CHECK(r.outputs[0] == TensorMeta{{-1, 4}, DType::BF16, false});
  // cat adds sizes: with a symbolic input it is data-shaped, never [0, 16] (-1 + 1).
  Case cat("aten.cat.default");
  Arg a = cat.in({-1, 16}, DType::BF16, false), b = cat.in({1, 16}, DType::BF16);
  cat.args({Arg::list({a, b})});
  r = cat.run();
  REQUIRE(r.verdict == ops::ShapeVerdict::Known);
  CHECK(r.outputs[0] == TensorMeta{{-1}, DType::BF16, false});
  // A comparison against a -1 is no mismatch: the view of a symbolic tensor is data-shaped.
  Case view("aten.view.default");
  view.args({view.in({-1, 16}, DType::F32, false), ints({8, 16})});
  r = view.run();
  CHECK(r.verdict == ops::ShapeVerdict::Known);
  CHECK_FALSE(r.outputs[0].known);
  // A known contradiction still is one when the symbolic size is not involved.
  Case bad("aten.mm.default");
  bad.args({bad.in({-1, 16}, DType::BF16, false), bad.in({15, 4}, DType::BF16)});
  CHECK(bad.run().verdict != ops::ShapeVerdict::Mismatch);  // an input is data-shaped: the checker does not guess
}
