// The LLaMA-like generator and every format on its output: structure, consistency of specs, round trips,
// and (hidden, [.perf]) load times of the 32-layer graph in each format.
#include <catch2/catch.hpp>

#include <algorithm>

#include <chrono>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "core/gen/llama.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"
#include "core/model/placement_parse.h"

using namespace ss;

namespace {
gen::LlamaOptions small() {
  gen::LlamaOptions o = gen::LlamaOptions::small(2, 4);
  return o;
}
ShardingSpec spec(const std::string& s) {
  auto r = parseSpec(s, {});
  REQUIRE(r.ok());
  return *r;
}
}  // namespace

TEST_CASE("the generator builds a consistent, deterministic joint graph", "[io][gen]") {
  Plan a = gen::makeLlamaPlan(small());
  Plan b = gen::makeLlamaPlan(small());
  CHECK(a == b);
  CHECK(a.graph.size() == 60 + 2 * 295);
  CHECK(a.graph.validate().empty());
  CHECK(a.validate().empty());
  CHECK(a.executable());
  CHECK(a.mesh == DeviceMesh({2, 4}, {"dp", "tp"}));
  const Node& loss = a.graph.nodes[a.graph.find(a.run.lossNode)];
  CHECK(loss.outputs[0] == TensorMeta{{}, DType::F32, true});
  // first projection of layer 0: wq is column-parallel, FSDP-gathered on the mm's weight edge
  int mm = a.graph.find("mm");
  REQUIRE(mm >= 0);
  CHECK(a.graph.nodes[mm].modulePath == "layers.0.attention.wq");
  CHECK(a.graph.nodes[mm].outputs[0] == TensorMeta{{256, 256}, DType::BF16, true});
  CHECK(a.specs[mm].outputs[0] == spec("S(0)S(1)"));
  CHECK(a.consumerSpec(mm, 1) == spec("RS(1)"));
  CHECK(a.producerSpec(mm, 1) == spec("S(1)S(1)"));
  REQUIRE(a.findRedistribute(mm, 1) != nullptr);
  // every redistribute turns the producer's spec into the consumer's
  for (const auto& r : a.redistributes) {
    INFO(a.graph.nodes[r.node].name << " input " << r.input);
    CHECK(a.producerSpec(r.node, r.input) == r.from);
    CHECK(a.consumerSpec(r.node, r.input) == r.to);
  }
  CHECK(a.redistributes.size() == 11 + 2 * 36);  // per layer: 18 forward+recompute, 7 backward mm, 2 norm grads, 9 param grads
  int phases[4] = {0, 0, 0, 0};
  for (const auto& n : a.graph.nodes) phases[static_cast<int>(n.phase)]++;
  CHECK(phases[static_cast<int>(Phase::Unknown)] == 0);
  CHECK(phases[static_cast<int>(Phase::Backward)] > phases[static_cast<int>(Phase::Forward)]);
}

TEST_CASE("every format round-trips the generated plan", "[io][gen]") {
  Plan a = gen::makeLlamaPlan(small());
  // native
  auto n = loadPlanText(writePlanString(a), "gen.plan.json");
  REQUIRE(n.ok());
  CHECK(n->graph == a.graph);
  CHECK(n->specs == a.specs);
  // FX text: the graph exactly (args, metas, sources); phases and module paths are not in FX text
  std::string fxText = writeFxText(a).value();
  auto f = loadPlanText(fxText, "gen.py");
  REQUIRE(f.ok());
  REQUIRE(f->graph.size() == a.graph.size());
  for (int i = 0; i < a.graph.size(); ++i) {
    const Node &x = a.graph.nodes[i], &y = f->graph.nodes[i];
    INFO(x.name);
    CHECK(y.name == x.name);
    CHECK(y.op == x.op);
    CHECK(y.args == x.args);
    CHECK(y.kwargs == x.kwargs);
    CHECK(y.outputs == x.outputs);
  }
  CHECK(f->run.lossNode == a.run.lossNode);
  // placements on the FX graph: the generated specs
  auto withPl = applyPlacementsJson(*f, writePlacementsJson(a));
  REQUIRE(withPl.ok());
  // the file spells every input spec out (autoparallel reads dst placements), so compare what each edge consumes
  for (int i = 0; i < a.graph.size(); ++i) {
    INFO(a.graph.nodes[i].name);
    CHECK(withPl->specs[i].outputs == a.specs[i].outputs);
    for (int k = 0; k < static_cast<int>(a.graph.inputs(i).size()); ++k)
      CHECK(withPl->consumerSpec(i, k) == a.consumerSpec(i, k));
  }
  CHECK(withPl->executable());
  // as a correct apply pass would: the generator's redistributes are exactly its planned transitions, the output
  // node's included (save_placements() writes no entry for the output node, but its inputs end in their parameters'
  // placements: Plan::plannedTransitions inserts those gradients' reduce-scatters too)
  auto applied = applyPlacementsJson(*f, writePlacementsJson(a), true);
  REQUIRE(applied.ok());
  REQUIRE(applied->redistributes.size() == a.redistributes.size());
  for (const auto& r : a.redistributes) {
    const Redistribute* x = applied->findRedistribute(r.node, r.input);
    REQUIRE(x != nullptr);
    CHECK(*x == r);
  }
  // autoparallel export: names, ops, metas, specs, phases, module paths
  auto ap = loadPlanText(writeAutoparallelJson(a).dump(), "gen.json");
  REQUIRE(ap.ok());
  REQUIRE(ap->graph.size() == a.graph.size());
  for (int i = 0; i < a.graph.size(); ++i) {
    const Node &x = a.graph.nodes[i], &y = ap->graph.nodes[i];
    INFO(x.name);
    CHECK(y.name == x.name);
    CHECK(y.phase == x.phase);
    CHECK(y.modulePath == x.modulePath);
    CHECK(y.acRegion == x.acRegion);
    if (x.kind != NodeKind::Output) {
      CHECK(y.outputs[0] == x.outputs[0]);
      CHECK(ap->specs[i].outputs == a.specs[i].outputs);
    }
    // the export's output node lists its inputs by name only (no placements)
    if (x.kind != NodeKind::Output)
      for (int k = 0; k < static_cast<int>(a.graph.inputs(i).size()); ++k)
        CHECK(ap->consumerSpec(i, k) == a.consumerSpec(i, k));
  }
}

TEST_CASE("32-layer LLaMA-like graph: load time per format", "[.perf][io][gen]") {
  using clock = std::chrono::steady_clock;
  auto ms = [](clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  auto t0 = clock::now();
  Plan a = gen::makeLlamaPlan({});
  std::cout << "generate: " << a.graph.size() << " nodes, " << a.redistributes.size() << " redistributes, "
            << ms(clock::now() - t0) << " ms\n";
  struct F { const char* name; std::string text; };
  std::vector<F> files = {{"native", writePlanString(a)},
                          {"autoparallel", writeAutoparallelJson(a).dump(1)},
                          {"fx", writeFxText(a).value()}};
  for (auto& f : files) {
    auto s = clock::now();
    auto p = loadPlanText(f.text, f.name);
    REQUIRE(p.ok());
    CHECK(p->graph.size() == a.graph.size());
    std::cout << "load " << f.name << ": " << f.text.size() / 1e6 << " MB, " << ms(clock::now() - s) << " ms\n";
  }
  auto fx = loadPlanText(files[2].text, "fx");
  REQUIRE(fx.ok());
  std::string pl = writePlacementsJson(a).dump(2);
  auto s = clock::now();
  auto j = parseJsonText(pl);
  REQUIRE(j.ok());
  auto withPl = applyPlacementsJson(*fx, *j);
  REQUIRE(withPl.ok());
  std::cout << "apply placements: " << pl.size() / 1e6 << " MB, " << ms(clock::now() - s) << " ms\n";
}
