// One small plan per diagnostic kind, with the exact diagnostic, and the fix planner's answer to it.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <set>

#include "core/check/check.h"
#include "core/plan/fix.h"
#include "plan_text.h"

using namespace ss;
using namespace ss::test;
using nlohmann::json;

namespace {

std::vector<std::string> kinds(const Diagnostics& d) {
  std::vector<std::string> k;
  for (const auto& x : d.items) k.push_back(diagKindName(x.kind));
  return k;
}

Plan applied(Plan p, const FixPlan& f) {
  for (const Command& c : f.batch.commands) REQUIRE(applyCommand(p, c).ok());
  return p;
}

}  // namespace

TEST_CASE("unchecked-op is reported once per op", "[check]") {
  Plan p = planOf({4}, {ph("x", {8, 4}, "S(0)"), call("a", "aten.ctc_loss.IntList", {ref("x")}, {8, 4}, "S(0)"),
                        call("b", "aten.ctc_loss.IntList", {ref("a")}, {8, 4}, "S(0)"),
                        call("c", "aten.relu.default", {ref("b")}, {8, 4}, "S(0)")},
                 json::array(), "c");
  Diagnostics d = checkPlan(p);
  REQUIRE(d.items.size() == 1);
  CHECK(d.items[0].kind == DiagKind::UncheckedOp);
  CHECK(d.items[0].severity == Severity::Info);
  CHECK(d.items[0].node == p.graph.find("a"));
  CHECK(d.items[0].message == "no sharding rule for aten.ctc_loss.IntList; its specs are not checked");
  CHECK(d.items[0].notes == std::vector<std::string>{"and 1 more node with this op"});
  CHECK(!d.hasErrors());
}

TEST_CASE("partial-into-nonlinear and its fix (an all_reduce)", "[check][fix]") {
  Plan p = planOf({4}, {ph("x", {8, 16}, "S(1)"), ph("w", {16, 4}, "S(0)", "param"),
                        call("mm", "aten.mm.default", {ref("x"), ref("w")}, {8, 4}, "P(sum)"),
                        call("relu", "aten.relu.default", {ref("mm")}, {8, 4}, "P(sum)")},
                 json::array(), "relu");
  Diagnostics d = checkPlan(p);
  REQUIRE(d.items.size() == 1);
  CHECK(d.items[0].kind == DiagKind::PartialIntoNonlinear);
  CHECK(d.items[0].input == 0);
  CHECK(d.items[0].have->toMeshString() == "P(sum)");
  CHECK(d.items[0].want->toMeshString() == "R");
  CHECK(d.items[0].message == "relu is not linear, but input 0 arrives as P(sum), a Partial(sum) value on mesh dim 0 "
                              "(dim0); reduce it first (all_reduce)");
  FixPlan f = planFix(p);
  CHECK(f.remaining.items.empty());
  Plan q = applied(p, f);
  const Redistribute* r = q.findRedistribute(q.graph.find("relu"), 0);
  REQUIRE(r);
  CHECK(r->to.toMeshString() == "R");
  // The fix declares relu's output as what the op now makes.
  CHECK(q.specs[q.graph.find("relu")].outputs[0]->toMeshString() == "R");
}

TEST_CASE("output-spec-mismatch: consumers keep what they expected through a redistribute", "[check][fix]") {
  Plan p = planOf({4}, {ph("x", {8, 16}, "S(1)"), ph("w", {16, 4}, "S(0)", "param"),
                        call("mm", "aten.mm.default", {ref("x"), ref("w")}, {8, 4}, "R"),
                        call("relu", "aten.relu.default", {ref("mm")}, {8, 4}, "R")},
                 json::array(), "relu");
  Diagnostics d = checkPlan(p);
  REQUIRE(kinds(d) == std::vector<std::string>{"output-spec-mismatch"});
  CHECK(d.items[0].message == "mm is declared R, but its inputs as they arrive make P(sum)");
  FixPlan f = planFix(p);
  CHECK(f.remaining.items.empty());
  Plan q = applied(p, f);
  CHECK(q.specs[q.graph.find("mm")].outputs[0]->toMeshString() == "P(sum)");
  const Redistribute* r = q.findRedistribute(q.graph.find("relu"), 0);
  REQUIRE(r);
  CHECK(r->from.toMeshString() == "P(sum)");
  CHECK(r->to.toMeshString() == "R");
}

TEST_CASE("shape-mismatch, uneven-shard, empty-shard", "[check]") {
  Plan p = planOf({4}, {ph("x", {8, 16}, "S(0)"), ph("w", {16, 4}, "R", "param"),
                        call("mm", "aten.mm.default", {ref("x"), ref("w")}, {8, 5}, "S(0)")},
                 json::array(), "mm");
  Diagnostics d = checkPlan(p);
  REQUIRE(kinds(d) == std::vector<std::string>{"shape-mismatch"});
  CHECK(d.items[0].message == "mm declares shape [8, 5], but mm of its inputs gives [8, 4]");

  Plan u = planOf({4}, {ph("x", {7, 4}, "S(0)"), ph("y", {3, 4}, "S(0)"),
                        call("a", "aten.add.Tensor", {ref("x"), 1.0}, {7, 4}, "S(0)")},
                 json::array(), "a");
  Diagnostics du = checkPlan(u);
  REQUIRE(kinds(du) == std::vector<std::string>{"uneven-shard", "empty-shard", "uneven-shard"});
  CHECK(du.items[0].severity == Severity::Warning);
  CHECK(du.items[0].message == "dim 0 of size 7 splits over 4 ranks (S(0)) into local sizes 2, 1: shards are uneven");
  CHECK(du.items[1].message ==
        "dim 0 of size 3 splits over 4 ranks (S(0)) into local sizes 1, 0: some ranks hold no elements");
  CheckOptions quiet;
  quiet.reportUnevenShards = false;
  CHECK(checkPlan(u, quiet).items.empty());
}

TEST_CASE("redistributes: bad ones are errors, autoparallel transitions are info", "[check]") {
  json nodes = {ph("x", {8, 16}, "S(0)"), call("r", "aten.relu.default", {ref("x")}, {8, 16}, "R", {"R"})};
  Plan wrongFrom = planOf({4}, nodes, {{{"node", "r"}, {"input", 0}, {"from", "S(1)"}, {"to", "R"}}}, "r");
  Diagnostics d = checkPlan(wrongFrom);
  REQUIRE(kinds(d) == std::vector<std::string>{"bad-redistribute"});
  CHECK(d.items[0].message == "the redistribute on this edge starts from S(1), but x delivers S(0)");
  FixPlan f = planFix(wrongFrom);
  CHECK(f.remaining.items.empty());
  Plan q = applied(wrongFrom, f);
  REQUIRE(q.findRedistribute(q.graph.find("r"), 0));
  CHECK(q.findRedistribute(q.graph.find("r"), 0)->from.toMeshString() == "S(0)");

  Plan missing = planOf({4}, nodes, json::array(), "r");
  REQUIRE(kinds(checkPlan(missing)) == std::vector<std::string>{"missing-redistribute"});
  missing.sourceFormat = PlanFormat::AutoparallelJson;
  Diagnostics ap = checkPlan(missing);
  REQUIRE(kinds(ap) == std::vector<std::string>{"redistribute-required"});
  CHECK(ap.items[0].severity == Severity::Info);
  CHECK(ap.items[0].message.rfind("the solver plans a transition from S(0) (x) to R: all_gather on mesh dim 0 (dim0)", 0) == 0);
}

TEST_CASE("implicit-redistribute: core accepts, DTensor would move an input at run time; said at the node",
          "[check][dtensor]") {
  // mean of a Partial(sum): linear, so core keeps Partial(sum); DTensor 2.14 keeps only Partial(avg) for mean.
  Plan p = planOf({4}, {ph("x", {8, 6, 4}, "P(sum)"),
                        call("m", "aten.mean.dim", {ref("x"), json::array({2}), true}, {8, 6, 1}, "P(sum)")},
                 json::array(), "m");
  Diagnostics d = checkPlan(p);
  REQUIRE(kinds(d) == std::vector<std::string>{"implicit-redistribute"});
  CHECK(d.items[0].severity == Severity::Info);
  CHECK(d.items[0].node == p.graph.find("m"));
  CHECK(d.items[0].message.rfind("DTensor reduces input 0 (the reduced tensor, P(sum)) before mean", 0) == 0);
  // Nothing to fix: the plan is valid as it is.
  const FixPlan f = planFix(p);
  CHECK(f.batch.commands.empty());
  CHECK(kinds(f.remaining) == std::vector<std::string>{"implicit-redistribute"});
}

TEST_CASE("incompatible-inputs: the fix picks the cheaper side", "[check][fix]") {
  // add(a, b): b is replicated where a splits dim 0. Chunking b locally costs nothing; gathering a would not.
  Plan p = planOf({4}, {ph("a", {64, 64}, "S(0)"), ph("b", {64, 1}, "R"),
                        call("add", "aten.add.Tensor", {ref("a"), ref("b")}, {64, 64}, "S(0)")},
                 json::array(), "add");
  Diagnostics d = checkPlan(p);
  REQUIRE(kinds(d) == std::vector<std::string>{"incompatible-inputs"});
  CHECK(d.items[0].input == 1);
  CHECK(d.items[0].want->toMeshString() == "S(0)");
  FixPlan f = planFix(p);
  CHECK(f.remaining.items.empty());
  Plan q = applied(p, f);
  REQUIRE(q.findRedistribute(q.graph.find("add"), 1));
  CHECK(q.findRedistribute(q.graph.find("add"), 1)->to.toMeshString() == "S(0)");
  CHECK(q.findRedistribute(q.graph.find("add"), 0) == nullptr);
  CHECK(f.totalBytes == 0);  // R -> S(0) is a local chunk
}

TEST_CASE("seq-dim-mismatch: AutoSP tags against the plan's own sequence shard", "[check][fix][autosp]") {
  auto autosp = [](std::vector<int64_t> shape, const char* spec, json tag) {
    json x = ph("input_ids", shape, spec);
    x["tag"] = tag;
    json emb = {{"name", "emb"}, {"op", "aten.embedding.default"}, {"args", {ref("w"), ref("input_ids")}},
                {"meta", {{{"shape", {shape[0], shape[1], 8}}, {"dtype", "f32"}}}},
                {"spec", {std::string(spec)}}};
    return planOf({2}, {x, ph("w", {100, 8}, "R", "param"), emb}, json::array(), "emb");
  };
  // Sequence-first [seq, batch] with a bare tag: AutoSP slices dim 1 (the batch), the plan shards dim 0.
  Plan seqFirst = autosp({16, 4}, "S(0)", "input_id");
  Diagnostics d = checkPlan(seqFirst);
  REQUIRE(kinds(d) == std::vector<std::string>{"seq-dim-mismatch"});
  CHECK(d.items[0].node == seqFirst.graph.find("input_ids"));
  CHECK(d.items[0].message == "input_ids is tagged input_id (a bare key: AutoSP slices dim 1), so AutoSP shards dim 1 "
                              "of [16, 4], but the plan treats dim 0 as the sequence (its own spec is S(0))");
  CHECK(d.items[0].have->toMeshString() == "S(1)");
  CHECK(d.items[0].want->toMeshString() == "S(0)");
  CHECK(d.items[0].fix == "tag it (input_id, 0)");
  FixPlan f = planFix(seqFirst);
  CHECK(f.steps == std::vector<std::string>{"tag input_ids (input_id, 0)"});
  Plan fixed = applied(seqFirst, f);
  CHECK(fixed.tags.at(fixed.graph.find("input_ids")).seqDim == 0);
  CHECK(checkPlan(fixed).items.empty());

  CHECK(checkPlan(autosp({16, 4}, "S(0)", {{"key", "input_id"}, {"seq_dim", 0}})).items.empty());
  CHECK(checkPlan(autosp({4, 16}, "S(1)", "input_id")).items.empty());
  CHECK(checkPlan(autosp({4, 16}, "S(1)", {{"key", "input_id"}, {"seq_dim", 1}})).items.empty());
  // A replicated input has no sequence shard to compare with.
  CHECK(checkPlan(autosp({16, 4}, "R", "input_id")).items.empty());
}

TEST_CASE("fix: a declared input spec no redistribute can reach is dropped", "[check][fix]") {
  // S -> P(max) is not a redistribute DTensor runs: the planner lets relu consume the S(0) that arrives.
  Plan p = planOf({4}, {ph("x", {8, 16}, "S(0)"), call("r", "aten.relu.default", {ref("x")}, {8, 16}, "S(0)", {"P(max)"})},
                 json::array(), "r");
  Diagnostics d = checkPlan(p);
  REQUIRE(kinds(d) == std::vector<std::string>{"missing-redistribute"});
  CHECK(d.items[0].fix == "insert a redistribute S(0) -> P(max): " +
                              planRedistribute(TensorMeta{{8, 16}, DType::F32}, p.mesh, *d.items[0].have,
                                               *d.items[0].want).whyNot);
  FixPlan f = planFix(p);
  CHECK(f.steps == std::vector<std::string>{"drop the input spec P(max) at r input 0 (no redistribute reaches it from S(0))"});
  CHECK(f.remaining.items.empty());
  Plan q = applied(p, f);
  CHECK(!q.specs[q.graph.find("r")].inputs[0].has_value());
}

// The kind table: each stable string names one kind, reads back to it, and is documented in docs/checks.md.
TEST_CASE("diagnostic kinds: one table of stable strings, each documented") {
  std::ifstream in(std::string(SHARDSCOPE_SOURCE_DIR) + "/docs/checks.md");
  REQUIRE(in);
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::set<std::string> seen;
  REQUIRE(allDiagKinds().size() >= 12);
  for (DiagKind k : allDiagKinds()) {
    const std::string name = diagKindName(k);
    INFO(name);
    CHECK(seen.insert(name).second);
    CHECK(diagKindFromName(name) == k);
    CHECK(doc.find("`" + name + "`") != std::string::npos);
  }
  CHECK(diagKindName(DiagKind::OutputSpecMismatch) == std::string("output-spec-mismatch"));
  CHECK(!diagKindFromName("no-such-kind"));
  CHECK(!diagKindFromName(""));
}
