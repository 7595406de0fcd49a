// Sharding rules of the list ops (core/rules/foreach.cpp): each list position is its own problem over the i-th
// elements, the first failing position names its input in the node's numbering, in-place forms keep every element
// of their first list, keyword tensors are Replicate, and the Partial rules are DTensor 2.14's for each list op.
#include <catch2/catch.hpp>

#include "rules_case.h"

using namespace ss;
using namespace ss::test;

namespace {
Arg L(std::vector<Arg> items) { return Arg::list(std::move(items)); }

// _foreach_<op>.List([a, b], [c, d]) on mesh [4]: a, c are [8, 6], b, d are [6] (inputs 0..3 in that order).
RuleCase binaryList(const char* op, const char* a, const char* b, const char* c, const char* d) {
  RuleCase r({4}, op);
  Arg x = r.in({8, 6}, a), y = r.in({6}, b);
  Arg z = r.in({8, 6}, c), w = r.in({6}, d);
  r.args({L({x, y}), L({z, w})}).out({8, 6}).out({6});
  return r;
}

// _fused_adam_(params, grads, exp_avgs, exp_avg_sqs, [], state_steps, lr=..., ...): one position of [6] tensors.
RuleCase adamInPlace(const char* op, const char* param, const char* grad, const char* step = "R") {
  RuleCase r({4}, op);
  Arg p = r.in({6}, param), g = r.in({6}, grad), m = r.in({6}, param), v = r.in({6}, param), s = r.in({}, step);
  r.args({L({p}), L({g}), L({m}), L({v}), L({}), L({s})});
  for (const auto& [k, x] : std::vector<std::pair<const char*, Arg>>{{"lr", F(0.01)},
                                                                     {"beta1", F(0.9)},
                                                                     {"beta2", F(0.999)},
                                                                     {"weight_decay", F(0.0)},
                                                                     {"eps", F(1e-8)},
                                                                     {"amsgrad", B(false)},
                                                                     {"maximize", B(false)}})
    r.kwarg(k, x);
  r.out({});
  return r;
}
}  // namespace

TEST_CASE("_foreach_add.List: each position is solved on its own, outputs one per element", "[rules][foreach]") {
  auto c = binaryList("aten._foreach_add.List", "S(0)", "R", "S(0)", "R");
  CHECK(c.outSpec(0) == "S(0)");
  CHECK(c.outSpec(1) == "R");
  auto d = binaryList("aten._foreach_add.List", "S(1)", "S(0)", "S(1)", "S(0)");
  CHECK(d.outSpec(0) == "S(1)");
  CHECK(d.outSpec(1) == "S(0)");
  // Partial(sum) + Partial(sum) stays Partial per position; P(max) + R keeps P(max).
  auto p = binaryList("aten._foreach_add.List", "P(sum)", "P(max)", "P(sum)", "R");
  CHECK(p.outSpec(0) == "P(sum)");
  CHECK(p.outSpec(1) == "P(max)");
  // P(avg) + R: DTensor's least-cost choice turns the R into P(avg) first (a free redistribute), so core refuses.
  CHECK(binaryList("aten._foreach_add.List", "P(avg)", "R", "R", "R").outSpec() == "partial-into-nonlinear");
  // P(sum) + R would count the replicated value 4 times: no rule keeps it, so the Partial is reduced first.
  auto q = binaryList("aten._foreach_add.List", "R", "P(sum)", "R", "R");
  CHECK(q.outSpec() == "partial-into-nonlinear");
  CHECK(q.result.input == 1);
  CHECK(q.want() == "R");
}

TEST_CASE("_foreach_add.List: a shard mismatch between a position's operands names the node's input",
          "[rules][foreach]") {
  auto c = binaryList("aten._foreach_add.List", "S(0)", "R", "S(1)", "R");
  CHECK(c.outSpec() == "error");
  CHECK(c.result.input == 2);
  CHECK(c.want() == "S(0)");
  CHECK(c.result.message ==
        "_foreach_add cannot combine its inputs as they arrive: input 2 is S(1) but input 0 is S(0), which split them "
        "differently on mesh dim 0 (dim0); on rank 0 input 2 is [8, 2] against [2, 6] for input 0 (list element 0)");
  // The second position fails alone: its inputs are 1 and 3.
  auto d = binaryList("aten._foreach_add.List", "S(0)", "S(0)", "S(0)", "R");
  CHECK(d.outSpec() == "error");
  CHECK(d.result.input == 3);
  CHECK(d.want() == "S(0)");
  REQUIRE_FALSE(d.result.alternatives.empty());
  // Each alternative fixes the node as a whole.
  for (const auto& alt : d.result.alternatives) {
    REQUIRE(alt.size() == 4);
    CHECK(*alt[1] == *alt[3]);
  }
}

TEST_CASE("_foreach_mul.Scalar is linear: Partial(sum|avg) passes, P(max) does not", "[rules][foreach]") {
  auto mul = [](const char* a, const char* b) {
    RuleCase r({2, 2}, "aten._foreach_mul.Scalar");
    Arg x = r.in({8, 6}, a), y = r.in({6}, b);
    r.args({L({x, y}), F(2.0)}).out({8, 6}).out({6});
    return r;
  };
  auto c = mul("S(0)P(sum)", "P(avg)S(0)");
  CHECK(c.outSpec(0) == "S(0)P(sum)");
  CHECK(c.outSpec(1) == "P(avg)S(0)");
  auto m = mul("RR", "P(max)R");
  CHECK(m.outSpec() == "partial-into-nonlinear");
  CHECK(m.result.input == 1);
}

TEST_CASE("_foreach_addcmul.Scalar and _foreach_sqrt are not linear", "[rules][foreach]") {
  RuleCase a({4}, "aten._foreach_addcmul.Scalar");
  Arg s0 = a.in({6}, "S(0)"), s1 = a.in({5}, "R");
  Arg t0 = a.in({6}, "S(0)"), t1 = a.in({5}, "R");
  Arg u0 = a.in({6}, "S(0)"), u1 = a.in({5}, "P(sum)");
  a.args({L({s0, s1}), L({t0, t1}), L({u0, u1}), F(0.5)}).out({6}).out({5});
  CHECK(a.outSpec() == "partial-into-nonlinear");
  CHECK(a.result.input == 5);

  auto sqrt = [](const char* x, const char* y) {
    RuleCase r({4}, "aten._foreach_sqrt.default");
    Arg a0 = r.in({8, 6}, x), a1 = r.in({5}, y);
    r.args({L({a0, a1})}).out({8, 6}).out({5});
    return r;
  };
  auto ok = sqrt("S(1)", "S(0)");
  CHECK(ok.outSpec(0) == "S(1)");
  CHECK(ok.outSpec(1) == "S(0)");
  auto p = sqrt("R", "P(sum)");
  CHECK(p.outSpec() == "partial-into-nonlinear");
  CHECK(p.result.input == 1);
  CHECK(p.want() == "R");
  CHECK(p.result.message ==
        "_foreach_sqrt is not linear, but input 1 arrives as P(sum), a Partial(sum) value on mesh "
        "dim 0 (dim0); reduce it first (all_reduce) (list element 1)");
}

TEST_CASE("monotone list ops keep P(max) / P(min) as DTensor lists them", "[rules][foreach]") {
  auto unary = [](const char* op, const char* spec, const Arg& scalar = Arg::none()) {
    RuleCase r({4}, op);
    Arg x = r.in({6}, spec);
    if (scalar.kind == Arg::Kind::None)
      r.args({L({x})});
    else
      r.args({L({x}), scalar});
    r.out({6});
    return r.outSpec();
  };
  CHECK(unary("aten._foreach_exp.default", "P(max)") == "P(max)");
  CHECK(unary("aten._foreach_exp.default", "P(sum)") == "partial-into-nonlinear");
  CHECK(unary("aten._foreach_erfc.default", "P(max)") == "P(min)");
  CHECK(unary("aten._foreach_neg.default", "P(max)") == "P(min)");
  CHECK(unary("aten._foreach_neg.default", "P(sum)") == "P(sum)");
  // clamp_min with a scalar: only the in-place form keeps P(max) (DTensor lists no functional one).
  CHECK(unary("aten._foreach_clamp_min.Scalar", "P(max)", F(0.5)) == "partial-into-nonlinear");
  CHECK(unary("aten._foreach_clamp_min_.Scalar", "P(max)", F(0.5)) == "P(max)");
  CHECK(unary("aten._foreach_clone.default", "P(min)") == "P(min)");
}

TEST_CASE("in-place list ops keep every element of their first list", "[rules][foreach]") {
  auto c = binaryList("aten._foreach_add_.List", "S(0)", "R", "S(0)", "R");
  CHECK(c.outSpec(0) == "S(0)");
  CHECK(c.outSpec(1) == "R");
  // The self element cannot move: the other operand is blamed instead.
  auto d = binaryList("aten._foreach_add_.List", "R", "R", "S(0)", "R");
  CHECK(d.outSpec() == "error");
  CHECK(d.result.input == 2);
  CHECK(d.want() == "R");
  for (const auto& alt : d.result.alternatives) CHECK(alt[0]->toMeshString() == "R");
  // neg_ of a P(max) would be P(min): not in place.
  RuleCase n({4}, "aten._foreach_neg_.default");
  Arg x = n.in({6}, "P(max)");
  n.args({L({x})}).out({6});
  CHECK(n.outSpec() == "error");
  CHECK(n.result.input == 0);
  CHECK(n.result.message ==
        "_foreach_neg_ writes its result into input 0 (list element 0 of self), which arrives as "
        "P(max), but the result would be P(min): an in-place op cannot change its self's placement");
}

TEST_CASE("_foreach_norm, _foreach_powsum, _foreach_max and _foreach_mm solve each element by its op's rule",
          "[rules][foreach]") {
  auto reduce = [](const char* op, const char* a, const char* b, const Arg& ord) {
    RuleCase r({4}, op);
    Arg x = r.in({8, 6}, a), y = r.in({5}, b);
    if (ord.kind == Arg::Kind::None)
      r.args({L({x, y})});
    else
      r.args({L({x, y}), ord});
    r.out({}).out({});
    return r;
  };
  auto n1 = reduce("aten._foreach_norm.Scalar", "S(1)", "R", I(1));
  CHECK(n1.outSpec(0) == "P(sum)");
  CHECK(n1.outSpec(1) == "R");
  // The 2-norm of a shard needs DTensor's _NormPartial(2): refused (strict-norm-partial).
  auto n2 = reduce("aten._foreach_norm.Scalar", "R", "S(0)", I(2));
  CHECK(n2.outSpec() == "error");
  CHECK(n2.result.input == 1);
  CHECK(reduce("aten._foreach_powsum.Scalar", "S(0)", "P(sum)", I(2)).outSpec(1) == "P(sum)");
  auto mx = reduce("aten._foreach_max.default", "S(0)", "P(max)", Arg::none());
  CHECK(mx.outSpec(0) == "P(max)");
  CHECK(mx.outSpec(1) == "P(max)");
  CHECK(reduce("aten._foreach_max.default", "R", "P(sum)", Arg::none()).outSpec() == "partial-into-nonlinear");

  RuleCase mm({4}, "aten._foreach_mm.default");
  Arg a = mm.in({8, 4}, "S(0)"), b = mm.in({4, 8}, "R");
  mm.args({L({a}), L({b})}).out({8, 8});
  CHECK(mm.outSpec() == "S(0)");
}

TEST_CASE("a single tensor is an operand of every position", "[rules][foreach]") {
  auto mul = [](const char* a, const char* b, const char* other) {
    RuleCase r({4}, "aten._foreach_mul.Tensor");
    Arg x = r.in({8, 6}, a), y = r.in({5}, b), o = r.in({}, other);
    r.args({L({x, y}), o}).out({8, 6}).out({5});
    return r;
  };
  auto c = mul("S(0)", "P(sum)", "R");
  CHECK(c.outSpec(0) == "S(0)");
  CHECK(c.outSpec(1) == "P(sum)");
  // Position 1 multiplies two Partial values (DTensor fits `other` to position 0 only, and would keep P(sum)).
  auto d = mul("R", "P(sum)", "P(sum)");
  CHECK(d.outSpec() == "partial-into-nonlinear");
  CHECK(d.result.input == 1);

  RuleCase amp({4}, "aten._amp_foreach_non_finite_check_and_unscale_.default");
  Arg s0 = amp.in({8, 6}, "S(0)"), s1 = amp.in({5}, "R"), inf = amp.in({1}, "R"), inv = amp.in({}, "R");
  amp.args({L({s0, s1}), inf, inv});
  CHECK(amp.outSpec() == "none");
  CHECK(amp.result.ok());
  RuleCase amp2({4}, "aten._amp_foreach_non_finite_check_and_unscale_.default");
  Arg t0 = amp2.in({8, 6}, "R"), t1 = amp2.in({5}, "R"), inf2 = amp2.in({1}, "S(0)"), inv2 = amp2.in({}, "R");
  amp2.args({L({t0, t1}), inf2, inv2});
  CHECK(amp2.outSpec() == "error");
  CHECK(amp2.result.input == 2);
}

TEST_CASE("_fused_adam_: every list agrees per position, a Partial grad is refused", "[rules][foreach]") {
  CHECK(adamInPlace("aten._fused_adam_.default", "S(0)", "S(0)").run().ok());
  auto p = adamInPlace("aten._fused_adam_.default", "R", "P(sum)");
  CHECK(p.outSpec() == "partial-into-nonlinear");
  CHECK(p.result.input == 1);
  CHECK(p.want() == "R");
  CHECK(p.result.message ==
        "_fused_adam_ is not linear, but input 1 arrives as P(sum), a Partial(sum) value on mesh "
        "dim 0 (dim0); reduce it first (all_reduce) (list element 0)");
  // params cannot move (in place): the grad is blamed.
  auto s = adamInPlace("aten._fused_adamw_.default", "S(0)", "R");
  CHECK(s.outSpec() == "error");
  CHECK(s.result.input == 1);
  CHECK(s.want() == "S(0)");
  CHECK(adamInPlace("aten._fused_adam_.default", "R", "R", "P(sum)").outSpec() == "partial-into-nonlinear");
  // A keyword tensor (tensor_lr's lr) is read whole on every rank.
  RuleCase t = adamInPlace("aten._fused_adam_.tensor_lr", "R", "R");
  t.node.kwargs.erase(t.node.kwargs.begin());
  t.kwarg("lr", t.in({1}, "S(0)"));
  CHECK(t.outSpec() == "error");
  CHECK(t.result.input == 5);
  CHECK(t.want() == "R");
  // The functional form: DTensor 2.14 raises for every placement (its tensor-meta check of the five lists).
  auto f = adamInPlace("aten._fused_adam.default", "R", "R");
  CHECK(f.outSpec() == "error");
  CHECK(f.result.message.find("returns five tensor lists") != std::string::npos);
}

TEST_CASE("list ops DTensor cannot run, and lists of different lengths", "[rules][foreach]") {
  RuleCase a({4}, "aten._foreach_addcmul.Tensor");
  Arg x = a.in({6}, "R"), y = a.in({6}, "R"), z = a.in({6}, "R"), s = a.in({1}, "R");
  a.args({L({x}), L({y}), L({z}), s}).out({6});
  CHECK(a.outSpec() == "error");
  CHECK(a.result.message ==
        "_foreach_addcmul.Tensor has no DTensor sharding strategy (DTensor 2.14 has "
        "_foreach_addcmul only as Scalar ScalarList), so DTensor raises for every input placement");
  RuleCase b({4}, "aten._foreach_add.List");
  Arg p = b.in({6}, "R"), q = b.in({5}, "R"), r = b.in({6}, "R");
  b.args({L({p, q}), L({r})}).out({6}).out({5});
  CHECK(b.outSpec() == "bad-shapes");
  // Without an overload in the name, it is read off the arguments (.Scalar here: no Partial passes add.Scalar).
  RuleCase c({4}, "_foreach_add");
  Arg u = c.in({6}, "P(sum)");
  c.args({L({u}), F(1.0)}).out({6});
  CHECK(c.outSpec() == "partial-into-nonlinear");
}
