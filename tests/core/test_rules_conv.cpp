// Sharding rules of convolution, pooling, upsampling, batch/group/RMS norm and grid sampling
// (core/rules/conv.cpp), as DTensor 2.14's single-dim strategies propagate them (tests/dtensor/case_ops/conv.py
// holds the cases DTensor itself answered).
#include <catch2/catch.hpp>

#include "rules_case.h"

using namespace ss;
using namespace ss::test;

namespace {

Arg none() { return Arg::none(); }
Arg bools(std::vector<bool> v) {
  std::vector<Arg> a;
  for (bool b : v) a.push_back(B(b));
  return Arg::list(std::move(a));
}

// convolution(x[4, 2, 6, W], w[4, 2, 3, 3], bias?) with stride [1, strideW], no padding.
RuleCase conv(std::vector<int64_t> mesh, const char* x, const char* w, const char* bias = nullptr, int64_t width = 6,
              int64_t strideW = 1) {
  RuleCase c(std::move(mesh), "aten.convolution.default");
  Arg in = c.in({4, 2, 6, width}, x), wt = c.in({4, 2, 3, 3}, w);
  Arg b = bias ? c.in({4}, bias) : none();
  c.args({in, wt, b, ints({1, strideW}), ints({0, 0}), ints({1, 1}), B(false), ints({0, 0}), I(1)})
      .out({4, 4, 4, (width - 3) / strideW + 1});
  return c;
}

}  // namespace

TEST_CASE("convolution shards the batch; weight and bias stay Replicate", "[rules][conv]") {
  auto a = conv({4}, "S(0)", "R", "R");
  CHECK(a.outSpec() == "S(0)");
  auto b = conv({2, 2}, "S(0)S(0)", "RR");
  CHECK(b.outSpec() == "S(0)S(0)");
  auto c = conv({4}, "S(1)", "R");
  CHECK(c.outSpec() == "error");
  CHECK(c.want() == "R");
  CHECK(c.result.message ==
        "convolution cannot split dim 1 of input 0 (S(1)): a convolution sums over every input "
        "channel (DTensor's convolution strategies shard the batch only)");
  auto w = conv({4}, "S(0)", "S(0)");
  CHECK(w.outSpec() == "error");
  CHECK(w.result.input == 1);
  CHECK(w.want() == "R");
  auto bias = conv({4}, "R", "R", "S(0)");
  CHECK(bias.outSpec() == "error");
  CHECK(bias.result.input == 2);
  // Linear in its input, but DTensor lists no Partial strategy: it reduces first.
  auto p = conv({4}, "P(sum)", "R");
  CHECK(p.outSpec() == "error");
  CHECK(p.want() == "R");
  CHECK(p.result.message ==
        "convolution keeps no Partial input, but input 0 arrives as P(sum), a Partial(sum) value "
        "on mesh dim 0 (dim0); reduce it first (all_reduce): convolution_single_dim_strategy "
        "lists no Partial placement");
  // A batch of 2 over 4 ranks leaves two ranks empty: DTensor's is_tensor_shardable drops the strategy.
  RuleCase e({4}, "aten.convolution.default");
  e.args({e.in({2, 2, 6, 6}, "S(0)"), e.in({4, 2, 3, 3}, "R"), none(), ints({1, 1}), ints({0, 0}), ints({1, 1}),
          B(false), ints({0, 0}), I(1)})
      .out({2, 4, 4, 4});
  CHECK(e.outSpec() == "error");
  CHECK(e.want() == "R");
}

TEST_CASE("convolution shards the last spatial dim only where its windows do not overlap", "[rules][conv]") {
  CHECK(conv({4}, "S(3)", "R", nullptr, 12, 3).outSpec() == "S(3)");
  CHECK(conv({2, 2}, "S(0)S(3)", "RR", nullptr, 12, 3).outSpec() == "S(0)S(3)");
  auto overlap = conv({4}, "S(3)", "R", nullptr, 12, 1);  // stride 1 < kernel width 3
  CHECK(overlap.outSpec() == "error");
  CHECK(overlap.want() == "R");
  auto partialWindows = conv({4}, "S(3)", "R", nullptr, 6, 3);  // 6 % (3 * 4) != 0
  CHECK(partialWindows.outSpec() == "error");
  CHECK(partialWindows.result.message ==
        "convolution cannot split the last dim of input 0 (S(3)): its size 6 does not split into whole windows of "
        "stride 3 over 4 ranks (DTensor's _convolution_full_mesh_strategy_filter)");
  auto twice = conv({2, 2}, "S(3)S(3)", "RR", nullptr, 12, 3);
  CHECK(twice.outSpec() == "error");
  CHECK(twice.want() == "RR");
}

TEST_CASE("conv2d takes convolution's rule with its defaults", "[rules][conv]") {
  RuleCase c({4}, "aten.conv2d.default");
  c.args({c.in({4, 2, 6, 6}, "S(0)"), c.in({4, 2, 3, 3}, "R")}).out({4, 4, 4, 4});
  CHECK(c.outSpec() == "S(0)");
  RuleCase last({4}, "aten.conv2d.default");  // stride 1 by default: the last dim's windows overlap
  last.args({last.in({4, 2, 6, 12}, "S(3)"), last.in({4, 2, 3, 3}, "R")}).out({4, 4, 4, 10});
  CHECK(last.outSpec() == "error");
}

TEST_CASE("convolution_backward: grad_input keeps the batch shard, weight and bias grads are Partial(sum)",
          "[rules][conv]") {
  auto bwd = [](std::vector<int64_t> mesh, const char* g, const char* x, const char* w, bool bias,
                std::vector<int64_t> xShape = {4, 2, 6, 6}, int64_t strideW = 1) {
    RuleCase c(std::move(mesh), "aten.convolution_backward.default");
    const int64_t ow = (xShape[3] - 3) / strideW + 1;
    c.args({c.in({4, 4, 4, ow}, g), c.in(xShape, x), c.in({4, 2, 3, 3}, w), bias ? ints({4}) : none(),
            ints({1, strideW}), ints({0, 0}), ints({1, 1}), B(false), ints({0, 0}), I(1), bools({true, true, bias})})
        .out(xShape)
        .out({4, 2, 3, 3})
        .out({4});
    return c;
  };
  auto a = bwd({4}, "S(0)", "S(0)", "R", true);
  CHECK(a.outSpec(0) == "S(0)");
  CHECK(a.outSpec(1) == "P(sum)");
  CHECK(a.outSpec(2) == "P(sum)");
  auto noBias = bwd({2, 2}, "S(0)R", "S(0)R", "RR", false);
  CHECK(noBias.outSpec(1) == "P(sum)R");
  CHECK(noBias.outSpec(2) == "none");
  auto last = bwd({4}, "S(3)", "S(3)", "R", true, {4, 2, 6, 12}, 3);
  CHECK(last.outSpec(0) == "S(3)");
  CHECK(last.outSpec(1) == "P(sum)");
  auto mismatch = bwd({4}, "S(0)", "R", "R", true);
  CHECK(mismatch.outSpec() == "error");
  CHECK(mismatch.result.input == 1);
  CHECK(mismatch.want() == "S(0)");
  auto p = bwd({4}, "P(sum)", "R", "R", true);
  CHECK(p.outSpec() == "error");
  CHECK(p.result.input == 0);
  CHECK(p.want() == "R");
}

TEST_CASE("pools shard batch and channel; avg pools carry Partial(sum|avg)", "[rules][conv]") {
  auto maxPool = [](std::vector<int64_t> mesh, const char* x, std::vector<int64_t> shape = {4, 2, 6, 6}) {
    RuleCase c(std::move(mesh), "aten.max_pool2d_with_indices.default");
    std::vector<int64_t> out = shape;
    out[out.size() - 1] /= 2;
    out[out.size() - 2] /= 2;
    c.args({c.in(shape, x), ints({2, 2}), ints({2, 2}), ints({0, 0}), ints({1, 1}), B(false)})
        .out(out)
        .out(out, DType::I64);
    return c;
  };
  auto a = maxPool({2, 2}, "S(1)S(0)");
  CHECK(a.outSpec(0) == "S(1)S(0)");
  CHECK(a.outSpec(1) == "S(1)S(0)");
  CHECK(maxPool({4}, "S(1)").outSpec() == "S(1)");  // allow_uneven_sharding: 2 channels over 4 ranks run as given
  auto spatial = maxPool({4}, "S(2)");
  CHECK(spatial.outSpec() == "error");
  CHECK(spatial.want() == "R");
  CHECK(maxPool({4}, "P(sum)").outSpec() == "partial-into-nonlinear");
  auto unbatched = maxPool({4}, "S(1)", {8, 6, 6});  // [C, H, W]: dim 1 is spatial
  CHECK(unbatched.outSpec() == "error");
  CHECK(maxPool({4}, "S(0)", {8, 6, 6}).outSpec() == "S(0)");

  auto avgPool = [](const char* x) {
    RuleCase c({4}, "aten.avg_pool2d.default");
    c.args({c.in({4, 2, 6, 6}, x), ints({2, 2}), ints({2, 2}), ints({0, 0}), B(false), B(true), none()})
        .out({4, 2, 3, 3});
    return c.outSpec();
  };
  CHECK(avgPool("S(0)") == "S(0)");
  CHECK(avgPool("P(sum)") == "P(sum)");
  CHECK(avgPool("P(avg)") == "P(avg)");
  CHECK(avgPool("P(max)") == "partial-into-nonlinear");
  CHECK(avgPool("S(3)") == "error");
}

TEST_CASE("max_pool2d_with_indices_backward: batch and channel alike; Partial grad_output only", "[rules][conv]") {
  auto bwd = [](const char* g, const char* x, const char* idx) {
    RuleCase c({4}, "aten.max_pool2d_with_indices_backward.default");
    Arg go = c.in({4, 8, 3, 3}, g), self = c.in({4, 8, 6, 6}, x);
    c.args({go, self, ints({2, 2}), ints({2, 2}), ints({0, 0}), ints({1, 1}), B(false),
            c.in({4, 8, 3, 3}, idx, DType::I64)})
        .out({4, 8, 6, 6});
    return c;
  };
  CHECK(bwd("S(1)", "S(1)", "S(1)").outSpec() == "S(1)");
  CHECK(bwd("P(sum)", "R", "R").outSpec() == "P(sum)");
  CHECK(bwd("P(avg)", "R", "R").outSpec() == "P(avg)");
  auto self = bwd("R", "P(sum)", "R");
  CHECK(self.outSpec() == "partial-into-nonlinear");
  CHECK(self.result.input == 1);
  auto idx = bwd("S(0)", "S(0)", "R");
  CHECK(idx.outSpec() == "error");
  CHECK(idx.result.input == 2);
  CHECK(idx.want() == "S(0)");
}

TEST_CASE("max_unpool2d and _adaptive_avg_pool2d_backward: batch and channel, no Partial", "[rules][conv]") {
  auto unpool = [](const char* x, const char* idx) {
    RuleCase c({4}, "aten.max_unpool2d.default");
    c.args({c.in({4, 8, 3, 3}, x), c.in({4, 8, 3, 3}, idx, DType::I64), ints({6, 6})}).out({4, 8, 6, 6});
    return c;
  };
  CHECK(unpool("S(1)", "S(1)").outSpec() == "S(1)");
  auto p = unpool("P(sum)", "R");
  CHECK(p.outSpec() == "error");
  CHECK(p.want() == "R");
  RuleCase a({2, 2}, "aten._adaptive_avg_pool2d_backward.default");
  a.args({a.in({4, 2, 3, 3}, "S(1)S(0)"), a.in({4, 2, 6, 6}, "S(1)S(0)")}).out({4, 2, 6, 6});
  CHECK(a.outSpec() == "S(1)S(0)");
  RuleCase empty({4}, "aten._adaptive_avg_pool2d_backward.default");  // 2 channels over 4 ranks
  empty.args({empty.in({4, 2, 3, 3}, "S(1)"), empty.in({4, 2, 6, 6}, "S(1)")}).out({4, 2, 6, 6});
  CHECK(empty.outSpec() == "error");
  CHECK(empty.want() == "R");
}

TEST_CASE("upsampling shards batch and channel and is linear", "[rules][conv]") {
  auto up = [](std::vector<int64_t> mesh, const char* x, int64_t channels = 8) {
    RuleCase c(std::move(mesh), "aten.upsample_nearest2d.default");
    c.args({c.in({4, channels, 6, 6}, x), ints({12, 12})}).out({4, channels, 12, 12});
    return c;
  };
  CHECK(up({2, 2}, "S(0)S(1)").outSpec() == "S(0)S(1)");
  CHECK(up({4}, "P(sum)").outSpec() == "P(sum)");
  CHECK(up({4}, "P(max)").outSpec() == "partial-into-nonlinear");
  auto spatial = up({4}, "S(2)");
  CHECK(spatial.outSpec() == "error");
  CHECK(spatial.want() == "R");
  CHECK(up({4}, "S(1)", 2).outSpec() == "error");  // no allow_uneven_sharding: 2 channels over 4 ranks
  RuleCase b({4}, "aten.upsample_bilinear2d_backward.default");
  b.args({b.in({4, 8, 12, 12}, "S(1)"), ints({12, 12}), ints({4, 8, 6, 6}), B(false)}).out({4, 8, 6, 6});
  CHECK(b.outSpec() == "S(1)");
}

TEST_CASE("batch norm shards channels only", "[rules][conv]") {
  auto bn = [](const char* op, const char* x, const char* c, int nOut) {
    RuleCase r({4}, op);
    Arg in = r.in({4, 4, 3, 3}, x), w = r.in({4}, c), b = r.in({4}, c), rm = r.in({4}, c), rv = r.in({4}, c);
    if (std::string(op) == "aten.native_batch_norm.default")
      r.args({in, w, b, rm, rv, B(true), F(0.1), F(1e-5)});
    else
      r.args({in, w, b, rm, rv, F(0.1), F(1e-5)});
    r.out({4, 4, 3, 3});
    for (int o = 1; o < nOut; ++o) r.out({o == 3 ? 0 : 4});
    return r;
  };
  auto a = bn("aten.native_batch_norm.default", "S(1)", "S(0)", 3);
  CHECK(a.outSpec(0) == "S(1)");
  CHECK(a.outSpec(1) == "S(0)");
  CHECK(a.outSpec(2) == "S(0)");
  auto u = bn("aten._batch_norm_with_update.default", "S(1)", "S(0)", 4);
  CHECK(u.outSpec(0) == "S(1)");
  CHECK(u.outSpec(3) == "R");  // the reserve workspace
  auto batch = bn("aten.native_batch_norm.default", "S(0)", "R", 3);
  CHECK(batch.outSpec() == "error");
  CHECK(batch.want() == "R");
  auto stats = bn("aten.native_batch_norm.default", "S(1)", "R", 3);
  CHECK(stats.outSpec() == "error");
  CHECK(stats.result.input == 1);
  CHECK(stats.want() == "S(0)");
  CHECK(bn("aten.native_batch_norm.default", "P(sum)", "R", 3).outSpec() == "partial-into-nonlinear");
}

TEST_CASE("native_batch_norm_backward shards channels; output_mask drops outputs", "[rules][conv]") {
  auto bwd = [](const char* g, const char* c, std::vector<bool> mask) {
    RuleCase r({4}, "aten.native_batch_norm_backward.default");
    Arg go = r.in({4, 4, 3, 3}, g), x = r.in({4, 4, 3, 3}, g), w = r.in({4}, c);
    r.args({go, x, w, none(), none(), r.in({4}, c), r.in({4}, c), B(true), F(1e-5), bools(mask)})
        .out({4, 4, 3, 3})
        .out({4})
        .out({4});
    return r;
  };
  auto a = bwd("S(1)", "S(0)", {true, false, true});
  CHECK(a.outSpec(0) == "S(1)");
  CHECK(a.outSpec(1) == "none");
  CHECK(a.outSpec(2) == "S(0)");
  CHECK(bwd("S(0)", "R", {true, true, true}).outSpec() == "error");
  CHECK(bwd("P(sum)", "R", {true, true, true}).outSpec() == "partial-into-nonlinear");
}

TEST_CASE("native_group_norm shards the batch; weight and bias stay Replicate", "[rules][conv]") {
  auto gn = [](std::vector<int64_t> mesh, const char* x, const char* w, int64_t batch = 4) {
    RuleCase r(std::move(mesh), "aten.native_group_norm.default");
    r.args({r.in({batch, 4, 3, 3}, x), r.in({4}, w), r.in({4}, w), I(batch), I(4), I(9), I(2), F(1e-5)})
        .out({batch, 4, 3, 3})
        .out({batch, 2})
        .out({batch, 2});
    return r;
  };
  auto a = gn({2, 2}, "S(0)S(0)", "RR");
  CHECK(a.outSpec(0) == "S(0)S(0)");
  CHECK(a.outSpec(1) == "S(0)S(0)");
  auto channel = gn({4}, "S(1)", "R");
  CHECK(channel.outSpec() == "error");
  CHECK(channel.want() == "R");
  auto w = gn({4}, "S(0)", "S(0)");
  CHECK(w.outSpec() == "error");
  CHECK(w.result.input == 1);
  CHECK(gn({4}, "S(0)", "R", 2).outSpec() == "error");  // a batch of 2 over 4 ranks
  CHECK(gn({4}, "P(sum)", "R").outSpec() == "partial-into-nonlinear");
}

TEST_CASE("_fused_rms_norm (+ backward): any dim before the normalised ones", "[rules][conv]") {
  auto rms = [](const char* x, int64_t batch = 4) {
    RuleCase r({4}, "aten._fused_rms_norm.default");
    r.args({r.in({batch, 6, 8}, x), ints({8}), r.in({8}, "R"), F(1e-5)}).out({batch, 6, 8}).out({batch, 6, 1});
    return r;
  };
  auto a = rms("S(1)");
  CHECK(a.outSpec(0) == "S(1)");
  CHECK(a.outSpec(1) == "S(1)");
  CHECK(rms("S(0)", 2).outSpec() == "S(0)");  // allow_uneven_sharding
  auto last = rms("S(2)");
  CHECK(last.outSpec() == "error");
  CHECK(last.result.message ==
        "_fused_rms_norm cannot split dim 2 of input 0 (S(2)): RMS norm normalises over it, so every rank needs all "
        "of it");
  CHECK(rms("P(sum)").outSpec() == "partial-into-nonlinear");

  auto bwd = [](const char* g, const char* w, std::vector<bool> mask, int64_t batch = 4) {
    RuleCase r({4}, "aten._fused_rms_norm_backward.default");
    Arg go = r.in({batch, 6, 8}, g), x = r.in({batch, 6, 8}, g), rstd = r.in({batch, 6, 1}, g);
    r.args({go, x, ints({8}), rstd, r.in({8}, w), bools(mask)}).out({batch, 6, 8}).out({8});
    return r;
  };
  auto b = bwd("S(0)", "R", {true, true});
  CHECK(b.outSpec(0) == "S(0)");
  CHECK(b.outSpec(1) == "P(sum)");
  CHECK(bwd("S(1)", "R", {true, false}).outSpec(1) == "none");
  CHECK(bwd("S(0)", "R", {true, true}, 2).outSpec() == "error");  // no allow_uneven_sharding in the backward
  auto w = bwd("S(0)", "S(0)", {true, true});
  CHECK(w.outSpec() == "error");
  CHECK(w.result.input == 3);
  CHECK(bwd("P(sum)", "R", {true, true}).outSpec() == "partial-into-nonlinear");
}

TEST_CASE("grid_sampler_2d (+ backward) shards the batch; linear in its input", "[rules][conv]") {
  auto gs = [](const char* x, const char* grid) {
    RuleCase r({4}, "aten.grid_sampler_2d.default");
    r.args({r.in({4, 8, 6, 6}, x), r.in({4, 3, 3, 2}, grid), I(0), I(0), B(false)}).out({4, 8, 3, 3});
    return r;
  };
  CHECK(gs("S(0)", "S(0)").outSpec() == "S(0)");
  CHECK(gs("P(avg)", "R").outSpec() == "P(avg)");
  auto grid = gs("R", "P(sum)");
  CHECK(grid.outSpec() == "partial-into-nonlinear");
  CHECK(grid.result.input == 1);
  auto channel = gs("S(1)", "R");
  CHECK(channel.outSpec() == "error");
  CHECK(channel.want() == "R");

  auto bwd = [](const char* s, std::vector<bool> mask) {
    RuleCase r({4}, "aten.grid_sampler_2d_backward.default");
    r.args({r.in({4, 8, 3, 3}, s), r.in({4, 8, 6, 6}, s), r.in({4, 3, 3, 2}, s), I(0), I(0), B(false), bools(mask)})
        .out({4, 8, 6, 6})
        .out({4, 3, 3, 2});
    return r;
  };
  auto b = bwd("S(0)", {false, true});
  CHECK(b.outSpec(0) == "none");
  CHECK(b.outSpec(1) == "S(0)");
  auto p = bwd("P(sum)", {true, true});
  CHECK(p.outSpec() == "error");
  CHECK(p.want() == "R");
}
