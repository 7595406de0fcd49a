// Core against DTensor: layouts, redistribute plans and sharding rules, case by case.
//
// The questions are tests/dtensor/cases.json (written by tests/dtensor/gen_cases.py); the answers are oracle
// files in the same format (shardscope-dtensor-oracle/1):
//   - tests/dtensor/oracle_handchecked.json: a subset worked out by hand from DTensor's documented semantics,
//     each entry citing the DTensor rule it follows (always compared);
//   - tests/dtensor/oracle.json: every case, as DTensor itself answered them (scripts/dtensor_oracle.py, run by
//     scripts/gpu_check.sh on a machine with PyTorch 2.x); compared when present, as is $SHARDSCOPE_DTENSOR_ORACLE.
// A disagreement fails the test unless tests/dtensor/known_differences.json lists it (each entry quotes
// DTensor's behaviour and is written down in docs/checks.md).
//
// What "agree" means (see docs/checks.md, "Checked against DTensor"):
//   layout: every rank's local shape and global offset (DTensor's compute_local_shape_and_global_offset; an
//     empty shard's offset is the dim size);
//   redistribute: DTensor's transform infos (mesh dim, src -> dst), minus those on size-1 mesh dims (DTensor
//     executes them as no-ops, core plans none), with _StridedShard(d, sf) compared as Shard(d) inside a plan;
//     a plan DTensor cannot execute (its redistribute raises) must be one core refuses;
//   rule: when DTensor runs the op on the inputs as given (no implicit redistribute), core's rule accepts them
//     and gives the same output placements; when DTensor redistributes an input first, core's rule refuses.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/layout.h"
#include "core/placement_parse.h"
#include "core/redistribute.h"
#include "core/rules/rules.h"

using namespace ss;
using nlohmann::json;

namespace {

const std::string kDir = std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/dtensor/";

json readJson(const std::string& path) {
  std::ifstream f(path);
  INFO(path);
  REQUIRE(f.good());
  json j = json::parse(f, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

// One spec from DTensor placement strings and a ShardOrderEntry list [[tensor_dim, [mesh_dim, ...]], ...].
ShardingSpec specOf(const json& placements, const json& shardOrder) {
  ShardingSpec s;
  for (const auto& p : placements) {
    auto r = parsePlacement(p.get<std::string>());
    INFO(p.get<std::string>());
    REQUIRE(r.ok());
    s.placements.push_back(*r);
  }
  if (shardOrder.is_array() && !shardOrder.empty()) {
    s.order.assign(s.placements.size(), -1);
    for (size_t m = 0; m < s.placements.size(); ++m)
      if (s.placements[m].isShard()) s.order[m] = static_cast<int>(m);  // dims the entries do not name: mesh order
    for (const auto& entry : shardOrder) {
      int i = 0;
      for (const auto& m : entry.at(1)) s.order.at(m.get<size_t>()) = i++;
    }
  }
  return s;
}

std::vector<int64_t> ints(const json& j) { return j.get<std::vector<int64_t>>(); }

// A Shard of the placement's dim for _StridedShard: what a redistribute step is compared as.
Placement asPlainShard(Placement p) {
  if (p.kind == PlacementKind::StridedShard) return Placement::shard(p.dim);
  return p;
}

struct Comparison {
  int compared = 0;
  int skipped = 0;                    // answers the oracle could not give ({"skipped": why}: an older PyTorch)
  int documented = 0;                 // disagreements listed in known_differences.json
  std::vector<std::string> mismatches;
  std::set<std::string> unknownIds;   // answers to cases that cases.json does not have (a stale fixture)
};

struct Known {
  std::vector<std::pair<std::string, std::string>> entries;  // (kind, id substring)
  bool covers(const std::string& kind, const std::string& id) const {
    for (const auto& [k, sub] : entries)
      if (k == kind && id.find(sub) != std::string::npos) return true;
    return false;
  }
};

Known readKnown() {
  Known k;
  const auto file = readJson(kDir + "known_differences.json");  // kept alive: the loop walks into it
  for (const auto& e : file.at("differences"))
    k.entries.emplace_back(e.at("kind").get<std::string>(), e.at("id_contains").get<std::string>());
  return k;
}

void disagree(Comparison& c, const Known& known, const std::string& kind, const std::string& id,
              const std::string& what) {
  if (known.covers(kind, id)) ++c.documented;
  else c.mismatches.push_back(id + ": " + what);
}

// ---- layouts ----
void compareLayout(const json& cs, const json& ans, const Known& known, Comparison& c) {
  const std::string id = cs.at("id");
  DeviceMesh mesh(ints(cs.at("mesh")));
  const ShardingSpec spec = specOf(cs.at("placements"), cs.at("shard_order"));
  const auto shape = ints(cs.at("shape"));
  auto core = layoutAllRanks(shape, mesh, spec);
  ++c.compared;
  if (ans.contains("error")) {
    if (core) disagree(c, known, "layout", id, "DTensor raised (" + ans["error"].get<std::string>() + "), core lays it out");
    return;
  }
  if (!core) return disagree(c, known, "layout", id, "core refuses: " + core.error().message);
  const auto& ranks = ans.at("ranks");
  if (ranks.size() != core->size())
    return disagree(c, known, "layout", id, "DTensor answered " + std::to_string(ranks.size()) + " ranks");
  for (size_t r = 0; r < ranks.size(); ++r) {
    const auto want = ints(ranks[r].at("local_shape"));
    const auto wantOffset = ints(ranks[r].at("offset"));
    const RankShard& got = (*core)[r];
    if (got.localShape != want || got.offset != wantOffset)
      return disagree(c, known, "layout", id,
                      "rank " + std::to_string(r) + ": DTensor " + shapeToString(want) + " at " +
                          shapeToString(wantOffset) + ", core " + shapeToString(got.localShape) + " at " +
                          shapeToString(got.offset));
  }
}

// ---- redistributes ----
std::string stepsText(const std::vector<std::tuple<int, Placement, Placement>>& steps) {
  std::string s = "[";
  for (const auto& [m, a, b] : steps)
    s += (s.size() > 1 ? ", " : "") + std::to_string(m) + ": " + a.shortString() + "->" + b.shortString();
  return s + "]";
}

void compareRedistribute(const json& cs, const json& ans, const Known& known, Comparison& c) {
  const std::string id = cs.at("id");
  DeviceMesh mesh(ints(cs.at("mesh")));
  TensorMeta meta;
  meta.shape = ints(cs.at("shape"));
  meta.dtype = dtypeFromName(cs.value("dtype", "f32"));
  const ShardingSpec from = specOf(cs.at("src").at("placements"), cs.at("src").at("shard_order"));
  const ShardingSpec to = specOf(cs.at("dst").at("placements"), cs.at("dst").at("shard_order"));
  const RedistributePlan plan = planRedistribute(meta, mesh, from, to);
  ++c.compared;
  if (ans.contains("error"))  // DTensor's planner itself raised: core must refuse
    return plan.possible ? disagree(c, known, "redistribute", id,
                                    "DTensor's planner raised (" + ans["error"].get<std::string>() + "), core plans " +
                                        plan.summary())
                         : void();
  // DTensor runs the plan unless its redistribute raised ("runs": false); hand-checked answers may omit it.
  if (ans.contains("runs") && !ans["runs"].get<bool>()) {
    if (plan.possible)
      disagree(c, known, "redistribute", id,
               "DTensor cannot run it (" + ans.value("run_error", std::string("raised")) + "), core plans " +
                   plan.summary());
    return;
  }
  if (!plan.possible) return disagree(c, known, "redistribute", id, "core refuses: " + plan.whyNot);
  std::vector<std::tuple<int, Placement, Placement>> want, got;
  for (const auto& st : ans.at("steps")) {
    const int m = st.at("mesh_dim");
    if (mesh.dimSize(m) == 1) continue;  // DTensor's redistribute_local_tensor skips size-1 mesh dims
    auto a = parsePlacement(st.at("from").get<std::string>());
    auto b = parsePlacement(st.at("to").get<std::string>());
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    want.emplace_back(m, asPlainShard(*a), asPlainShard(*b));
  }
  for (const auto& st : plan.steps) got.emplace_back(st.meshDim, asPlainShard(st.from), asPlainShard(st.to));
  if (want != got)
    disagree(c, known, "redistribute", id, "DTensor " + stepsText(want) + ", core " + stepsText(got));
}

// ---- rules ----
Arg argOf(const json& j) {
  if (j.is_object()) return Arg::tensor({j.at("tensor").get<int>(), 0});
  if (j.is_array()) {
    std::vector<Arg> items;
    for (const auto& x : j) items.push_back(argOf(x));
    return Arg::list(std::move(items));
  }
  if (j.is_boolean()) return Arg::boolean(j.get<bool>());
  if (j.is_number_integer()) return Arg::integer(j.get<int64_t>());
  if (j.is_number_float()) return Arg::real(j.get<double>());
  return Arg::none();
}

void compareRule(const json& cs, const json& ans, const Known& known, Comparison& c) {
  const std::string id = cs.at("id");
  DeviceMesh mesh(ints(cs.at("mesh")));
  Node node;
  node.op = cs.at("op");
  node.name = rules::ruleKey(node.op);
  for (const auto& a : cs.at("args")) node.args.push_back(argOf(a));
  for (const auto& [k, v] : cs.at("kwargs").items()) node.kwargs.emplace_back(k, argOf(v));
  for (const auto& s : cs.at("out_shapes")) node.outputs.push_back(TensorMeta{ints(s), DType::F32, true});
  std::vector<TensorMeta> metas;
  rules::RuleContext ctx;
  for (const auto& in : cs.at("inputs")) {
    metas.push_back(TensorMeta{ints(in.at("shape")), dtypeFromName(in.at("dtype").get<std::string>()), true});
    ctx.inSpecs.push_back(specOf(in.at("placements"), json()));
  }
  for (const auto& m : metas) ctx.inMetas.push_back(&m);
  ctx.node = &node;
  ctx.mesh = &mesh;
  rules::RuleFn fn = rules::findRule(node.op);
  INFO(id);
  REQUIRE(fn != nullptr);
  const rules::RuleResult res = fn(ctx);
  ++c.compared;
  if (ans.contains("error")) {
    if (res.ok()) disagree(c, known, "rule", id, "DTensor raised (" + ans["error"].get<std::string>() + "), core accepts");
    return;
  }
  if (ans.at("redistributed").get<bool>()) {
    if (res.ok()) {
      std::string out = res.outputs.empty() || !res.outputs[0] ? "?" : res.outputs[0]->toMeshString();
      disagree(c, known, "rule", id, "DTensor redistributes an input first, core accepts the inputs (output " + out + ")");
    }
    return;
  }
  if (!res.ok()) return disagree(c, known, "rule", id, "DTensor runs it as given, core refuses: " + res.message);
  const auto& outs = ans.at("outputs");
  for (size_t o = 0; o < outs.size(); ++o) {
    if (outs[o].is_null()) continue;
    const ShardingSpec want = specOf(outs[o], json());
    const bool have = o < res.outputs.size() && res.outputs[o].has_value();
    if (!have || !(*res.outputs[o] == want))
      return disagree(c, known, "rule", id,
                      "output " + std::to_string(o) + ": DTensor " + want.toMeshString() + ", core " +
                          (have ? res.outputs[o]->toMeshString() : std::string("unknown")));
  }
}

// Compares every answer in `oracle` with core.
Comparison compareAll(const json& cases, const json& oracle, const Known& known) {
  Comparison c;
  const std::pair<const char*, void (*)(const json&, const json&, const Known&, Comparison&)> kinds[] = {
      {"layouts", compareLayout}, {"redistributes", compareRedistribute}, {"rules", compareRule}};
  for (const auto& [kind, fn] : kinds) {
    std::map<std::string, const json*> byId;
    for (const auto& cs : cases.at(kind)) byId[cs.at("id").get<std::string>()] = &cs;
    if (!oracle.contains(kind)) continue;
    for (const auto& [id, ans] : oracle.at(kind).items()) {
      auto it = byId.find(id);
      if (it == byId.end()) {
        c.unknownIds.insert(id);
        continue;
      }
      if (ans.contains("skipped")) {
        ++c.skipped;
        continue;
      }
      fn(*it->second, ans, known, c);
    }
  }
  return c;
}

void requireAgreement(const std::string& oraclePath, int minCompared) {
  const json cases = readJson(kDir + "cases.json");
  REQUIRE(cases.at("format") == "shardscope-dtensor-cases/1");
  const json oracle = readJson(oraclePath);
  REQUIRE(oracle.at("format") == "shardscope-dtensor-oracle/1");
  const Comparison c = compareAll(cases, oracle, readKnown());
  INFO(oraclePath << ": " << c.compared << " compared, " << c.mismatches.size() << " disagree, " << c.documented
                  << " documented differences, " << c.skipped << " skipped by the oracle");
  for (const auto& id : c.unknownIds) UNSCOPED_INFO("answer to a case cases.json does not have: " << id);
  CHECK(c.unknownIds.empty());
  for (const auto& m : c.mismatches) UNSCOPED_INFO(m);
  CHECK(c.mismatches.empty());
  CHECK(c.compared >= minCompared);
}

}  // namespace

TEST_CASE("DTensor oracle: core agrees with the hand-checked answers", "[dtensor]") {
  requireAgreement(kDir + "oracle_handchecked.json", 50);
}

TEST_CASE("DTensor oracle: core agrees with DTensor's own answers (oracle.json, when a GPU session wrote it)",
          "[dtensor]") {
  std::vector<std::string> files;
  if (std::filesystem::exists(kDir + "oracle.json")) files.push_back(kDir + "oracle.json");
  if (const char* env = std::getenv("SHARDSCOPE_DTENSOR_ORACLE"); env && *env) files.push_back(env);
  if (files.empty()) WARN("no tests/dtensor/oracle.json yet: run scripts/gpu_check.sh on a machine with PyTorch 2.x");
  for (const auto& f : files) {
    const json oracle = readJson(f);
    const json version = oracle.value("torch_version", json());
    INFO(f << " (torch " << (version.is_string() ? version.get<std::string>() : std::string("?")) << ")");
    // DTensor's own answers cover every case: a partial file means the oracle script stopped early.
    const json cases = readJson(kDir + "cases.json");
    for (const char* kind : {"layouts", "redistributes", "rules"})
      CHECK(oracle.at(kind).size() == cases.at(kind).size());
    requireAgreement(f, 1);
  }
}

TEST_CASE("DTensor oracle: a disagreement is caught", "[dtensor]") {
  // The comparison itself can fail: a wrong local shape, a wrong plan and a wrong rule output are each reported.
  const json cases = readJson(kDir + "cases.json");
  json oracle = {{"format", "shardscope-dtensor-oracle/1"}};
  oracle["layouts"]["layout [7] on 4: S(0)"] = {
      {"ranks", {{{"local_shape", {2}}, {"offset", {0}}}, {{"local_shape", {2}}, {"offset", {2}}},
                 {{"local_shape", {2}}, {"offset", {4}}}, {{"local_shape", {2}}, {"offset", {6}}}}}};  // rank 3 holds 1
  oracle["redistributes"]["redistribute [7, 5] on 4: S(0) -> R"] = {
      {"steps", {{{"mesh_dim", 0}, {"from", "Shard(dim=0)"}, {"to", "Partial(sum)"}}}}, {"runs", true}};
  oracle["rules"]["rule aten.mm.default on 4: S(1), S(0)"] = {{"redistributed", false},
                                                              {"outputs", {{"Replicate()"}}}};
  const Comparison c = compareAll(cases, oracle, Known{});
  CHECK(c.compared == 3);
  REQUIRE(c.mismatches.size() == 3);
  CHECK(c.mismatches[0] == "layout [7] on 4: S(0): rank 3: DTensor [2] at [6], core [1] at [6]");
  CHECK(c.mismatches[1] ==
        "redistribute [7, 5] on 4: S(0) -> R: DTensor [0: S(0)->P(sum)], core [0: S(0)->R]");
  CHECK(c.mismatches[2] == "rule aten.mm.default on 4: S(1), S(0): output 0: DTensor R, core P(sum)");
  // A documented difference is counted, not failed.
  Known k;
  k.entries.emplace_back("rule", "aten.mm.default on 4: S(1), S(0)");
  CHECK(compareAll(cases, oracle, k).documented == 1);
}
