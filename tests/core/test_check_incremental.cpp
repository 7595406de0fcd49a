// Checker::update after edits gives exactly what a full check of the edited plan gives.
#include <catch2/catch.hpp>

#include "core/check/check.h"
#include "core/plan/fix.h"
#include "core/gen/llama.h"
#include "core/io/load/load.h"
#include "core/model/placement_parse.h"

using namespace ss;

namespace {

ShardingSpec spec(const char* s, const DeviceMesh& m) {
  ParseContext pc;
  pc.mesh = &m;
  return parseSpec(s, pc).value();
}

// x -> (relu -> add(prev, x) -> mul.Scalar) * blocks -> output, all S(0) on 4 ranks.
Plan chain(int blocks) {
  Plan p;
  p.mesh = DeviceMesh({4});
  auto node = [&](std::string name, std::string op, std::vector<Arg> args) {
    Node n;
    n.name = std::move(name);
    n.op = std::move(op);
    n.kind = n.op == "placeholder" ? NodeKind::Placeholder : NodeKind::Call;
    n.args = std::move(args);
    n.outputs = {TensorMeta{{64, 32}, DType::F32}};
    p.graph.nodes.push_back(std::move(n));
    return static_cast<int>(p.graph.nodes.size()) - 1;
  };
  int x = node("x", "placeholder", {});
  p.graph.nodes[x].placeholderKind = PlaceholderKind::Input;
  int prev = x;
  for (int b = 0; b < blocks; ++b) {
    std::string s = std::to_string(b);
    int r = node("relu_" + s, "aten.relu.default", {Arg::tensor({prev, 0})});
    int a = node("add_" + s, "aten.add.Tensor", {Arg::tensor({r, 0}), Arg::tensor({x, 0})});
    prev = node("mul_" + s, "aten.mul.Scalar", {Arg::tensor({a, 0}), Arg::real(0.5)});
  }
  Node out;
  out.name = "output";
  out.op = "output";
  out.kind = NodeKind::Output;
  out.args = {Arg::list({Arg::tensor({prev, 0})})};
  p.graph.nodes.push_back(out);
  p.graph.reindex();
  p.normalizeSpecs();
  for (int n = 0; n < p.graph.size(); ++n)
    for (auto& o : p.specs[n].outputs) o = spec("S(0)", p.mesh);
  return p;
}

void sameAsFull(const Checker& c, const Plan& p) {
  Diagnostics full = checkPlan(p);
  REQUIRE(c.diagnostics().items.size() == full.items.size());
  for (size_t i = 0; i < full.items.size(); ++i) CHECK(c.diagnostics().items[i] == full.items[i]);
}

}  // namespace

TEST_CASE("incremental check follows edits and undo", "[check][incremental]") {
  Plan p = chain(200);
  Checker c;
  CHECK(c.run(p).items.empty());
  const int add = p.graph.find("add_100");
  auto applied = applyCommand(p, SetInputSpec{add, 1, spec("S(1)", p.mesh)});
  REQUIRE(applied.ok());
  c.update(p, applied->touchedNodes);
  sameAsFull(c, p);
  REQUIRE(c.diagnostics().items.size() == 1);
  CHECK(c.diagnostics().items[0].kind == DiagKind::MissingRedistribute);

  auto out = applyCommand(p, SetOutputSpec{p.graph.find("relu_50"), 0, spec("R", p.mesh)});
  REQUIRE(out.ok());
  c.update(p, out->touchedNodes);
  sameAsFull(c, p);

  auto undo = applyCommand(p, out->inverse);
  REQUIRE(undo.ok());
  c.update(p, undo->touchedNodes);
  auto undo2 = applyCommand(p, applied->inverse);
  REQUIRE(undo2.ok());
  c.update(p, undo2->touchedNodes);
  CHECK(c.diagnostics().items.empty());
}

TEST_CASE("incremental check through the seed 1 fix", "[check][incremental][seed1]") {
  auto loaded = loadPlanFile(std::string(SHARDSCOPE_SAMPLES_DIR) + "/falcon_index_put_2d.plan.json");
  REQUIRE(loaded.ok());
  Plan p = std::move(loaded.value());
  Checker c;
  CHECK(c.run(p).items.size() == 2);
  FixPlan f = planFix(p);
  for (const Command& cmd : f.batch.commands) {
    auto a = applyCommand(p, cmd);
    REQUIRE(a.ok());
    c.update(p, a->touchedNodes);
    sameAsFull(c, p);
  }
  CHECK(c.diagnostics().items.empty());
}

// Checker::run on several threads (CheckOptions::threads) gives exactly the serial result, in the same order,
// on a plan big enough for the automatic choice to go parallel and with diagnostics of many kinds in it.
TEST_CASE("a threaded full check equals the serial one", "[check][threads]") {
  gen::LlamaOptions o = gen::LlamaOptions::small(16, 4);
  Plan p = gen::makeLlamaPlan(o);
  REQUIRE(p.graph.size() >= 4096);  // the size from which threads=0 uses every core
  // Spoil every 13th output spec (replicated, or a shard of dim 0 with uneven sizes) to make diagnostics.
  const ShardingSpec rep = ShardingSpec::replicated(p.mesh.ndim());
  int spoiled = 0;
  for (int n = 0; n < p.graph.size(); n += 13) {
    if (p.graph.nodes[n].kind != NodeKind::Call || p.specs[n].outputs.empty() || !p.specs[n].outputs[0]) continue;
    p.specs[n].outputs[0] = rep;
    ++spoiled;
  }
  REQUIRE(spoiled > 100);
  auto run = [&](int threads) {
    CheckOptions opts;
    opts.threads = threads;
    Checker c(opts);
    return c.run(p);
  };
  const Diagnostics serial = run(1);
  REQUIRE(serial.summary().errors > 100);
  for (int threads : {0, 2, 5}) {
    const Diagnostics par = run(threads);
    REQUIRE(par.items.size() == serial.items.size());
    for (size_t k = 0; k < serial.items.size(); ++k) {
      INFO("threads " << threads << ", diagnostic " << k);
      CHECK(par.items[k].kind == serial.items[k].kind);
      CHECK(par.items[k].node == serial.items[k].node);
      CHECK(par.items[k].input == serial.items[k].input);
      CHECK(par.items[k].message == serial.items[k].message);
      CHECK(par.items[k].fix == serial.items[k].fix);
      CHECK(par.items[k].notes == serial.items[k].notes);
    }
  }
}
