// The generated LLaMA joint graph (core/gen/llama.h, FSDP x TP on a 2x4 mesh) follows DTensor's rules edge by
// edge, so the checker must find nothing in it; one wrong spec must then be caught where it lands.
#include <catch2/catch.hpp>

#include "core/check/check.h"
#include "core/plan/fix.h"
#include "core/gen/llama.h"
#include "core/model/placement_parse.h"

using namespace ss;

TEST_CASE("a LLaMA joint graph with FSDP x TP checks clean but for its mean loss", "[check][llama]") {
  gen::LlamaOptions o;
  o.layers = 2;
  Plan p = gen::makeLlamaPlan(o);
  Diagnostics d = checkPlan(p);
  // The loss is a mean over the data-parallel tokens: a warning that its count is data-dependent, and DTensor's
  // replication of a mean nll_loss; nothing else.
  REQUIRE(d.items.size() == 2);
  for (const auto& x : d.items) {
    INFO(x.kind << " " << x.message);
    CHECK(p.graph.nodes[x.node].op == "aten.nll_loss_forward.default");
  }
  CHECK(d.items[0].kind == DiagKind::ImplicitRedistribute);
  CHECK(d.items[1].kind == DiagKind::DataDependentMean);
  CHECK(d.items[1].severity == Severity::Warning);
  CHECK(d.items[1].message.find("reduction=mean over dim 0 (size ") != std::string::npos);
  CHECK(!d.hasErrors());
}

TEST_CASE("a LLaMA graph with one projection's weight left replicated", "[check][llama][fix]") {
  gen::LlamaOptions o;
  o.layers = 1;
  Plan p = gen::makeLlamaPlan(o);
  // The first mm of the forward consumes a column-parallel weight; declare its output replicated instead.
  int mm = p.graph.find("mm");
  REQUIRE(mm >= 0);
  ParseContext pc;
  pc.mesh = &p.mesh;
  auto was = p.specs[mm].outputs[0];
  REQUIRE(was);
  REQUIRE(applyCommand(p, SetOutputSpec{mm, 0, parseSpec("RR", pc).value()}).ok());
  Diagnostics d = checkPlan(p);
  REQUIRE(d.hasErrors());
  CHECK(d.items[0].node == mm);
  CHECK(d.items[0].kind == DiagKind::OutputSpecMismatch);
  CHECK(d.items[0].have == was);
  FixPlan f = planFix(p);
  CHECK(!f.remaining.hasErrors());
}
