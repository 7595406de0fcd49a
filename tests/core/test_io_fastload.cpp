// The fast native plan reader (planFromJsonTextFast, simdjson) against the DOM reader (planFromJson): the same
// Plan for every input the fast one accepts, and it declines (so loadPlanText falls back with the located
// message) wherever it cannot be sure.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>

#include "core/gen/llama.h"
#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"

using namespace ss;

namespace {

// The DOM path exactly as loadPlanText takes it without the fast reader.
Result<Plan> slowRead(const std::string& text) {
  auto j = parseJsonText(text);
  if (!j) return j.error();
  return planFromJson(*j);
}

// NaN != NaN in Plan::operator==: NaN float args become 0 (kind kept) before comparing whole plans.
void zeroNaN(Arg& a) {
  if (a.kind == Arg::Kind::Float && std::isnan(a.f)) a.f = 0;
  for (Arg& x : a.items) zeroNaN(x);
}
Plan withoutNaN(Plan p) {
  for (Node& n : p.graph.nodes) {
    for (Arg& a : n.args) zeroNaN(a);
    for (auto& kv : n.kwargs) zeroNaN(kv.second);
  }
  return p;
}

// Same Plan; the writer's text too (which writes NaN as {"float": "nan"}).
void requireSame(const std::string& text, const std::string& what) {
  INFO(what);
  auto slow = slowRead(text);
  INFO((slow ? std::string() : slow.error().toString(what)));
  REQUIRE(slow.ok());
  auto fast = planFromJsonTextFast(text);
  REQUIRE(fast.ok());
  CHECK(withoutNaN(*fast) == withoutNaN(*slow));
  CHECK(writePlanString(*fast) == writePlanString(*slow));
  CHECK(fast->graph.validate() == slow->graph.validate());
  for (int i = 0; i < slow->graph.size(); ++i) {
    REQUIRE(fast->graph.inputs(i) == slow->graph.inputs(i));
    REQUIRE(fast->graph.users(i) == slow->graph.users(i));
  }
}

const char* kEveryField = R"json({"format": "shardscope-plan", "version": 1, "name": "f\u00fcr \u2713 caf\u00e9", "description": "日本語 ok",
 "mesh": {"shape": [2, 4], "dim_names": ["dp", "tp"]},
 "run": {"seed": 7, "loss": "loss", "batches": 2, "rtol": 0.001, "sp_size": 2},
 "summary": {"total": 10, "comm": 2.5, "compute": 7, "transition": 0.5},
 "unknown_top_level": {"ignored": [1, 2, {"deep": null}]},
 "nodes": [
  {"name": "x", "op": "placeholder", "placeholder_kind": "input", "phase": "forward",
   "meta": [{"shape": [16, 128], "dtype": "bf16"}], "spec": ["S(0)R"], "tag": {"key": "input_id", "seq_dim": 1}},
  {"name": "w", "op": "placeholder", "placeholder_kind": "param", "meta": [{"shape": [128, 64]}], "spec": ["RS(1)"],
   "tag": "label_id"},
  {"name": "mm", "op": "aten.mm.default", "args": [{"t": "x"}, {"t": "w"}], "phase": "forward",
   "meta": [{"shape": [16, 64], "dtype": "bf16"}], "spec": ["S(0)S(1)"], "input_specs": [null, "RS(1)"],
   "module": "layers.0.attn", "source": {"file": "m\u00e9.py", "line": 3, "func": "forward", "code": "y = x @ w"},
   "compute_cost": 12, "transition_cost": 0.25, "cluster_id": 4, "ac_region": "0",
   "edge_costs": [{"input": 1, "comm": 3.5, "transition": 1}, {"input": 0, "comm": 0}]},
  {"name": "split", "op": "aten.split.Tensor", "args": [{"t": "mm"}, 8],
   "meta": [{"shape": [8, 64], "dtype": "bf16"}, {"shape": [8, 64], "dtype": "bf16"}, null],
   "spec": ["S(0)S(1)", null, "S(0)S(1)"]},
  {"name": "mul", "op": "aten.mul.Tensor", "args": [{"t": "split", "i": 1}, 2, 2.0, -0.0, 1e-05, -3, true, false, null,
   "tp \u00e9 \"q\"", [1, [2.5, {"dtype": "float32"}]], {"float": "inf"}, {"float": "-inf"}, {"float": "nan"},
   {"device": "cuda:0"}, {"sym": "torch.contiguous_format"}, {"t": "x", "sym": "ignored"}],
   "kwargs": {"zeta": 1, "alpha": 2.0, "Beta": "b", "memory_format": {"sym": "torch.preserve_format"}, "\u00e9": null},
   "meta": [{"shape": [8, 64], "dtype": "bf16"}]},
  {"name": "loss", "op": "aten.sum.default", "args": [{"t": "mul"}], "meta": [{"shape": [], "dtype": "f32"}],
   "spec": ["RR"]},
  {"name": "output", "op": "output", "args": [[{"t": "loss"}, null]], "meta": null}],
 "redistributes": [{"node": "mm", "input": 1, "from": "RS(1)", "to": "RS(1)"},
                   {"node": "mm", "input": 0, "from": "S(0)R", "to": "S(0)R"}]})json";

}  // namespace

TEST_CASE("fast reader: every sample reads as the DOM reader reads it", "[io][fastload]") {
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(SHARDSCOPE_SAMPLES_DIR)) {
    const std::string path = entry.path().string();
    if (path.size() < 10 || path.substr(path.size() - 10) != ".plan.json") continue;
    auto text = readFileText(path);
    REQUIRE(text.ok());
    requireSame(*text, path);
    ++seen;
  }
  CHECK(seen >= 11);
}

TEST_CASE("fast reader: generated LLaMA plans round-trip identically", "[io][fastload]") {
  for (bool recompute : {true, false}) {
    gen::LlamaOptions o;
    o.layers = 2;
    o.recompute = recompute;
    Plan p = gen::makeLlamaPlan(o);
    const std::string text = writePlanString(p);
    requireSame(text, recompute ? "llama recompute" : "llama");
    auto fast = planFromJsonTextFast(text);
    REQUIRE(fast.ok());
    CHECK(*fast == p);
    CHECK(writePlanString(*fast) == text);
    CHECK(fast->redistributes.size() == p.redistributes.size());
    CHECK(!fast->redistributes.empty());
  }
}

TEST_CASE("fast reader: every field, kwargs order, int vs float, unicode, costs, tags", "[io][fastload]") {
  requireSame(kEveryField, "every field");
  {
    // get_attr is a placeholder (it may carry a tag) in both readers.
    std::string getAttr = kEveryField;
    const std::string from = "\"op\": \"placeholder\", \"placeholder_kind\": \"param\"";
    REQUIRE(getAttr.find(from) != std::string::npos);
    getAttr.replace(getAttr.find(from), from.size(), "\"op\": \"get_attr\", \"placeholder_kind\": \"param\"");
    requireSame(getAttr, "get_attr");
    CHECK(planFromJsonTextFast(getAttr)->graph.nodes[1].kind == NodeKind::Placeholder);
  }
  auto p = planFromJsonTextFast(kEveryField);
  REQUIRE(p.ok());
  CHECK(p->name == "f\xC3\xBCr \xE2\x9C\x93 caf\xC3\xA9");
  CHECK(p->description == "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E ok");
  CHECK(p->run == RunSettings{7, "loss", 2, 0.001, 2});
  CHECK(p->summary == CostSummary{10, 2.5, 7, 0.5});
  const Node& mul = p->graph.nodes[p->graph.find("mul")];
  REQUIRE(mul.args.size() == 17);
  CHECK(mul.args[0] == Arg::tensor(TensorRef{p->graph.find("split"), 1}));
  CHECK(mul.args[1].kind == Arg::Kind::Int);
  CHECK(mul.args[1].i == 2);
  CHECK(mul.args[2].kind == Arg::Kind::Float);
  CHECK(mul.args[2].f == 2.0);
  CHECK(mul.args[3].kind == Arg::Kind::Float);
  CHECK(std::signbit(mul.args[3].f));
  CHECK(mul.args[4] == Arg::real(1e-05));
  CHECK(mul.args[5] == Arg::integer(-3));
  CHECK(mul.args[9] == Arg::string("tp \xC3\xA9 \"q\""));
  CHECK(mul.args[10] == Arg::list({Arg::integer(1), Arg::list({Arg::real(2.5), Arg::dtype(DType::F32)})}));
  CHECK(mul.args[11].f == INFINITY);
  CHECK(mul.args[12].f == -INFINITY);
  CHECK(std::isnan(mul.args[13].f));
  CHECK(mul.args[14] == Arg::device("cuda:0"));
  CHECK(mul.args[15] == Arg::symbol("torch.contiguous_format"));
  CHECK(mul.args[16] == Arg::tensor(TensorRef{0, 0}));  // "t" wins, as in the DOM reader
  // The DOM reader's json keeps keys sorted (byte order): so does the fast one.
  std::vector<std::string> keys;
  for (const auto& [k, v] : mul.kwargs) keys.push_back(k);
  CHECK(keys == std::vector<std::string>{"Beta", "alpha", "memory_format", "zeta", "\xC3\xA9"});
  CHECK(mul.kwargs[1].second.kind == Arg::Kind::Float);
  CHECK(mul.kwargs[3].second.kind == Arg::Kind::Int);
  const int mm = p->graph.find("mm");
  CHECK(p->edgeCosts.at({mm, 1}) == std::pair<double, double>{3.5, 1.0});
  CHECK(p->edgeCosts.at({mm, 0}) == std::pair<double, double>{0.0, 0.0});
  CHECK(p->graph.nodes[mm].source == SourceLoc{"m\xC3\xA9.py", 3, "forward", "y = x @ w"});
  CHECK(p->graph.nodes[mm].computeCost == 12);
  CHECK(p->graph.nodes[mm].clusterId == 4);
  CHECK(p->tags.at(0).toString() == "(input_id, 1)");
  CHECK(p->tags.at(1).toString() == "label_id");
  CHECK(p->graph.nodes[1].outputs[0].dtype == DType::F32);
  const int split = p->graph.find("split");
  CHECK_FALSE(p->graph.nodes[split].outputs[2].known);
  CHECK_FALSE(p->specs[split].outputs[1].has_value());
  REQUIRE(p->redistributes.size() == 2);
  CHECK(p->redistributes[0].input == 0);  // sorted by (node, input)
  CHECK(p->specs[mm].inputs[1]->toMeshString() == "RS(1)");
  CHECK_FALSE(p->specs[mm].inputs[0].has_value());
}

TEST_CASE("fast reader declines what it cannot read exactly; the DOM reader reports it", "[io][fastload]") {
  const std::string base = kEveryField;
  auto variant = [&](const std::string& from, const std::string& to) {
    auto at = base.find(from);
    REQUIRE(at != std::string::npos);
    return base.substr(0, at) + to + base.substr(at + from.size());
  };
  struct Case {
    std::string text;
    std::string message;  // the DOM reader's, through loadPlanText; empty: it loads
  };
  const std::vector<Case> cases = {
      {variant("{\"t\": \"x\"}, {\"t\": \"w\"}", "{\"t\": \"nope\"}, {\"t\": \"w\"}"),
       "unknown tensor 'nope' (a node can only use nodes listed before it)"},
      {variant("\"spec\": [\"RR\"]", "\"spec\": [\"QR\"]"), ""},  // message checked below: from parseSpec
      {variant("\"shape\": [2, 4]", "\"shape\": [2, 0]"), "mesh dim 1 has size 0; sizes must be >= 1"},
      {variant("\"seed\": 7", "\"seed\": 18446744073709551615"), ""},  // uint64: the DOM reader clamps, loads
      {variant("\"seed\": 7", "\"seed\": 7, \"seed\": 8"), ""},        // duplicate key: nlohmann keeps the last
      {variant("\"zeta\": 1", "\"zeta\": 1, \"zeta\": 3"), ""},
      {variant("8],\n   \"meta\"", "18446744073709551615],\n   \"meta\""), "integer is too large"},
      {variant("\"line\": 3", "\"line\": \"3\""), "expected an integer, got string"},
      {variant("{\"float\": \"nan\"}", "{\"float\": \"NaN\"}"), "expected \"inf\", \"-inf\" or \"nan\""},
      {"\xEF\xBB\xBF" + base, ""},  // BOM: nlohmann skips it
      {variant("\"batches\": 2", "\"batches\": 1e400"), ""},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    CHECK_FALSE(planFromJsonTextFast(c.text).ok());
    auto loaded = loadPlanText(c.text, "f.plan.json");
    auto slow = slowRead(c.text);
    CHECK(loaded.ok() == slow.ok());
    if (!loaded.ok() && !slow.ok()) {
      CHECK(loaded.error().toString("f.plan.json") == slow.error().toString("f.plan.json"));
      if (!c.message.empty()) CHECK(loaded.error().message == c.message);
    }
    if (loaded.ok() && slow.ok()) CHECK(writePlanString(*loaded) == writePlanString(*slow));
  }
  auto q = loadPlanText(variant("\"spec\": [\"RR\"]", "\"spec\": [\"QR\"]"), "f.plan.json");
  REQUIRE_FALSE(q.ok());
  CHECK(q.error().pointer == "/nodes/5/spec/0");
}

// Single-byte mutations of a plan: wherever the fast reader accepts, the DOM reader reads the same Plan.
TEST_CASE("fast reader: mutated plans never disagree with the DOM reader", "[io][fastload]") {
  const std::string base = kEveryField;
  int accepted = 0, declined = 0;
  const char repl[] = {'0', '9', '"', '-', '.', 'e', ',', ']', '}', 'n', '{', ' ', 'S', 'R', '\\'};
  for (size_t at = 0; at < base.size(); at += 3) {
    for (char r : repl) {
      std::string t = base;
      t[at] = r;
      auto fast = planFromJsonTextFast(t);
      if (!fast) {
        ++declined;
        continue;
      }
      ++accepted;
      auto slow = slowRead(t);
      INFO(t);
      REQUIRE(slow.ok());
      REQUIRE(writePlanString(*fast) == writePlanString(*slow));
    }
    std::string cut = base.substr(0, at) + base.substr(at + 1);
    auto fast = planFromJsonTextFast(cut);
    if (fast) {
      auto slow = slowRead(cut);
      INFO(cut);
      REQUIRE(slow.ok());
      REQUIRE(writePlanString(*fast) == writePlanString(*slow));
    }
  }
  CHECK(accepted > 100);
  CHECK(declined > 100);
}
