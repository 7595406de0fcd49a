// Core against DTensor: layouts, redistribute plans and sharding rules, case by case.
//
// The questions are tests/dtensor/cases.json (written by tests/dtensor/gen_cases.py); the answers are oracle
// files in the same format (shardscope-dtensor-oracle/1):
//   - tests/dtensor/oracle_2.14.json and oracle_2.6.json: every case, as DTensor itself answered them
//     (scripts/dtensor_fixtures.sh runs scripts/dtensor_oracle.py under PyTorch 2.14.1 and 2.6.0 on a fake
//     process group, CPU only). Compared in every run; a missing file, an answer missing for a case, or an answer
//     skipped for another reason than "this PyTorch cannot ask it" fails;
//   - tests/dtensor/oracle_handchecked.json: a subset worked out by hand, each entry citing the DTensor rule it
//     follows (always compared, as the newest DTensor answers);
//   - $SHARDSCOPE_DTENSOR_ORACLE: another answer file, when set (judged by its own torch_version).
// A disagreement fails the test unless tests/dtensor/known_differences.json lists it: an entry without "torch"
// holds for every version, one with "torch": "2.6" only for answers of that version. Each entry states how
// many cases it covers ("cases"), and that count must be exact, so a stale or too-wide entry fails too. Each is
// written down in the one table in docs/checks.md ("Checked against DTensor"), which the test holds it to. An
// entry with "core_says": "implicit-redistribute" is a case core accepts where DTensor redistributes an input at
// run time: core's rule must then say so (RuleResult::implicitRedistributes, an info at the node).
//
// What "agree" means (see docs/checks.md, "Checked against DTensor"):
//   layout: every rank's local shape and global offset (DTensor's compute_local_shape_and_global_offset);
//   redistribute: DTensor's transform infos (mesh dim, src -> dst), minus those on size-1 mesh dims (DTensor
//     executes them as no-ops, core plans none), with _StridedShard(d, sf) compared as Shard(d) inside a plan;
//     a plan DTensor cannot execute (its redistribute raises) must be one core refuses. Core plans with the
//     topology the answers were computed on (CPU: one device per host), which DTensor's graph planner prices;
//   rule: when DTensor runs the op on the inputs as given (no implicit redistribute), core's rule accepts them
//     and gives the same output placements; when DTensor redistributes an input first, core's rule refuses.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/model/layout.h"
#include "core/model/placement_parse.h"
#include "core/redistribute/dtensor_cost.h"
#include "core/redistribute/redistribute.h"
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
  std::vector<std::string> badSkips;  // skipped for another reason than "this PyTorch cannot ask it"
  std::set<std::string> unknownIds;   // answers to cases that cases.json does not have (a stale fixture)
  std::vector<std::string> missing;   // cases the oracle did not answer at all (only when complete answers are due)
  std::map<size_t, int> used;         // known-differences entry -> disagreements it covered
  std::vector<std::string> silent;    // documented implicit redistributes core's rule does not report
  int devicesPerHost = 1;             // the oracle's MeshTopoInfo host size (its top-level "devices_per_host")
  int costsCompared = 0;              // redistributes whose DTensor redistribute_cost core's model reproduced
  bool comparesCosts = false;         // the oracle is the DTensor core's cost model follows (2.14)
};

struct KnownEntry {
  std::string name;                     // unique; the docs' table names it in backticks
  std::string kind;                     // layout | redistribute | rule
  std::string idContains;               // a substring of the case ids it covers, or
  std::set<std::string> ids;            // ... exactly these case ids
  std::string torch;                    // "" = every version, else one version ("2.6")
  std::string reason;                   // why the difference is accepted (also the docs' row)
  std::map<std::string, int> cases;     // version ("2.14") -> how many disagreements it covers (exact)
  bool implicitRedistribute = false;    // core accepts, DTensor redistributes: core's rule must say so
  bool matches(const std::string& id) const {
    return ids.empty() ? !idContains.empty() && id.find(idContains) != std::string::npos : ids.count(id) > 0;
  }
};

// "2.14.1+debian" -> "2.14"; "" stays "".
std::string majorMinor(const std::string& v) {
  const auto a = v.find('.');
  if (a == std::string::npos) return v;
  const auto b = v.find_first_of(".+", a + 1);
  return v.substr(0, b);
}

struct Known {
  std::vector<KnownEntry> entries;
  std::string version;  // the answers' major.minor ("" = the newest semantics, e.g. the hand-checked file)
  bool applies(const KnownEntry& e) const { return e.torch.empty() || e.torch == version; }
  // The entry covering this disagreement, or -1.
  int find(const std::string& kind, const std::string& id) const {
    for (size_t i = 0; i < entries.size(); ++i)
      if (entries[i].kind == kind && applies(entries[i]) && entries[i].matches(id)) return static_cast<int>(i);
    return -1;
  }
};

Known readKnown(const std::string& version) {
  Known k;
  k.version = majorMinor(version);
  const auto file = readJson(kDir + "known_differences.json");  // kept alive: the loop walks into it
  for (const auto& e : file.at("differences")) {
    KnownEntry x;
    x.name = e.at("name").get<std::string>();
    x.kind = e.at("kind").get<std::string>();
    x.idContains = e.value("id_contains", std::string());
    if (e.contains("ids"))
      for (const auto& id : e.at("ids")) x.ids.insert(id.get<std::string>());
    x.torch = e.value("torch", std::string());
    x.reason = e.value("reason", std::string());
    for (const auto& [v, n] : e.at("cases").items()) x.cases[v] = n.get<int>();
    x.implicitRedistribute = e.value("core_says", std::string()) == "implicit-redistribute";
    k.entries.push_back(std::move(x));
  }
  return k;
}

void disagree(Comparison& c, const Known& known, const std::string& kind, const std::string& id,
              const std::string& what) {
  if (int i = known.find(kind, id); i >= 0) {
    ++c.documented;
    ++c.used[static_cast<size_t>(i)];
  } else {
    c.mismatches.push_back(id + ": " + what);
  }
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

// DTensor's redistribute_cost (the answer's "cost": microseconds, "inf", or null where that PyTorch has none)
// against core's reproduction of its model (core/redistribute/dtensor_cost.h), on core's plan of the same steps.
void compareCost(const json& cs, const json& ans, const TensorMeta& meta, const DeviceMesh& mesh,
                 const ShardingSpec& from, const ShardingSpec& to, const RedistributePlan& plan, const Known& known,
                 Comparison& c) {
  // Core models the newest DTensor's cost (2.6's constants and steps differ).
  if (!c.comparesCosts || !ans.contains("cost") || ans["cost"].is_null()) return;
  const double want = ans["cost"].is_string() ? std::numeric_limits<double>::infinity() : ans["cost"].get<double>();
  const auto got = dtensorRedistributeCost(meta, mesh, from, to, plan, c.devicesPerHost);
  const std::string id = cs.at("id");
  if (!got) return disagree(c, known, "redistribute", id, "DTensor's redistribute_cost is " + ans["cost"].dump() +
                                                              ", core cannot price it");
  const bool same = std::isinf(want) ? std::isinf(*got) : std::abs(*got - want) <= 1e-9 * std::max(1.0, want);
  if (!same)
    return disagree(c, known, "redistribute", id,
                    "DTensor's redistribute_cost is " + ans["cost"].dump() + " us, core's model of it " +
                        std::to_string(*got) + " us");
  ++c.costsCompared;
}

void compareRedistribute(const json& cs, const json& ans, const Known& known, Comparison& c) {
  const std::string id = cs.at("id");
  DeviceMesh mesh(ints(cs.at("mesh")));
  TensorMeta meta;
  meta.shape = ints(cs.at("shape"));
  meta.dtype = dtypeFromName(cs.value("dtype", "f32"));
  const ShardingSpec from = specOf(cs.at("src").at("placements"), cs.at("src").at("shard_order"));
  const ShardingSpec to = specOf(cs.at("dst").at("placements"), cs.at("dst").at("shard_order"));
  // DTensor's graph planner prices each mesh dim as intra- or inter-host: a dim is inter-host when the mesh dims
  // from it to the last hold more devices than one host (_mesh_resources.num_devices_per_host). The answers were
  // computed on CPU, where a host counts one device: every mesh dim from which on more than one device remains.
  CostModel cost;
  cost.interNodeDims.assign(static_cast<size_t>(mesh.ndim()), false);
  int64_t devices = 1;
  for (int m = mesh.ndim() - 1; m >= 0; --m) {
    devices *= mesh.dimSize(m);
    cost.interNodeDims[static_cast<size_t>(m)] = devices > 1;
  }
  const RedistributePlan plan = planRedistribute(meta, mesh, from, to, cost);
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
    return disagree(c, known, "redistribute", id, "DTensor " + stepsText(want) + ", core " + stepsText(got));
  compareCost(cs, ans, meta, mesh, from, to, plan, known, c);
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
  for (const auto& s : cs.at("out_shapes"))  // null: no tensor there (convolution_backward without a bias)
    node.outputs.push_back(s.is_null() ? TensorMeta{} : TensorMeta{ints(s), DType::F32, true});
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
      // A documented "core is more permissive" difference: core must say at the node that DTensor redistributes.
      const int e = known.find("rule", id);
      if (e >= 0 && known.entries[static_cast<size_t>(e)].implicitRedistribute && res.implicitRedistributes.empty())
        c.silent.push_back(id);
    }
    return;
  }
  if (!res.implicitRedistributes.empty() && res.ok())
    return disagree(c, known, "rule", id,
                    "DTensor runs it as given, core says DTensor redistributes: " + res.implicitRedistributes[0]);
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

// Why an answer may be skipped: the installed PyTorch cannot ask the question (the oracle's Skip reasons all
// begin "this PyTorch has no ..." or "this PyTorch's ... takes no ..."). Anything else, such as "time budget",
// is an incomplete answer file.
bool cannotAsk(const std::string& why) {
  return why.rfind("this PyTorch ", 0) == 0 || why.rfind("this PyTorch's ", 0) == 0;
}

// Compares every answer in `oracle` with core. `complete`: every case of cases.json must have an answer.
Comparison compareAll(const json& cases, const json& oracle, const Known& known, bool complete = false) {
  Comparison c;
  c.comparesCosts = oracle.value("torch_version", json()).is_string() &&
                    oracle["torch_version"].get<std::string>().rfind("2.14.", 0) == 0;
  if (oracle.contains("devices_per_host") && oracle["devices_per_host"].is_number_integer())
    c.devicesPerHost = oracle["devices_per_host"].get<int>();
  const std::pair<const char*, void (*)(const json&, const json&, const Known&, Comparison&)> kinds[] = {
      {"layouts", compareLayout}, {"redistributes", compareRedistribute}, {"rules", compareRule}};
  for (const auto& [kind, fn] : kinds) {
    std::map<std::string, const json*> byId;
    for (const auto& cs : cases.at(kind)) byId[cs.at("id").get<std::string>()] = &cs;
    const json empty = json::object();
    const json& answers = oracle.contains(kind) ? oracle.at(kind) : empty;
    if (complete)
      for (const auto& [id, cs] : byId)
        if (!answers.contains(id)) c.missing.push_back(std::string(kind) + ": " + id);
    for (const auto& [id, ans] : answers.items()) {
      auto it = byId.find(id);
      if (it == byId.end()) {
        c.unknownIds.insert(id);
        continue;
      }
      if (ans.contains("skipped")) {
        ++c.skipped;
        const std::string why = ans["skipped"].is_string() ? ans["skipped"].get<std::string>() : std::string("?");
        if (!cannotAsk(why)) c.badSkips.push_back(id + ": skipped (" + why + ")");
        continue;
      }
      fn(*it->second, ans, known, c);
    }
  }
  return c;
}

std::string versionOf(const json& oracle) {
  const json v = oracle.value("torch_version", json());
  return v.is_string() ? v.get<std::string>() : std::string();
}

// Compares one answer file; `complete` answer files (DTensor's own) must answer every case, and every
// known difference that applies to their version must cover exactly its stated number of cases.
Comparison requireAgreement(const std::string& oraclePath, int minCompared, bool complete) {
  const json cases = readJson(kDir + "cases.json");
  REQUIRE(cases.at("format") == "shardscope-dtensor-cases/1");
  const json oracle = readJson(oraclePath);
  REQUIRE(oracle.at("format") == "shardscope-dtensor-oracle/1");
  const std::string version = versionOf(oracle);
  const Known known = readKnown(version);
  const Comparison c = compareAll(cases, oracle, known, complete);
  INFO(oraclePath << " (torch " << (version.empty() ? "-" : version) << "): " << c.compared << " compared, "
                  << c.mismatches.size() << " disagree, " << c.documented << " documented differences, "
                  << c.skipped << " skipped by the oracle");
  for (const char* kind : {"layouts", "redistributes", "rules"})
    if (oracle.contains(std::string(kind) + "_failure"))
      FAIL_CHECK(kind << ": the oracle failed: " << oracle.at(std::string(kind) + "_failure"));
  for (const auto& id : c.unknownIds) UNSCOPED_INFO("answer to a case cases.json does not have: " << id);
  CHECK(c.unknownIds.empty());
  for (const auto& m : c.missing) UNSCOPED_INFO("no answer: " << m);
  CHECK(c.missing.empty());
  for (const auto& m : c.badSkips) UNSCOPED_INFO(m);
  CHECK(c.badSkips.empty());
  for (const auto& m : c.mismatches) UNSCOPED_INFO(m);
  CHECK(c.mismatches.empty());
  for (const auto& m : c.silent) UNSCOPED_INFO("documented as an implicit redistribute, core's rule does not say so: " << m);
  CHECK(c.silent.empty());
  if (complete) {
    for (size_t i = 0; i < known.entries.size(); ++i) {
      const KnownEntry& e = known.entries[i];
      if (!known.applies(e)) continue;
      const auto it = c.used.find(i);
      const int n = it == c.used.end() ? 0 : it->second;
      const auto want = e.cases.find(known.version);
      INFO("known difference '" << e.name << "' covers " << n << " case(s) of torch " << known.version << ", lists "
                                << (want == e.cases.end() ? 0 : want->second));
      CHECK(n == (want == e.cases.end() ? 0 : want->second));
    }
  }
  CHECK(c.compared >= minCompared);
  return c;
}

int caseCount(const json& cases) {
  return static_cast<int>(cases.at("layouts").size() + cases.at("redistributes").size() + cases.at("rules").size());
}

void requireDTensorFixture(const std::string& file, const std::string& versionPrefix, int minCosts = 0) {
  INFO(kDir + file << ": written by scripts/dtensor_fixtures.sh");
  REQUIRE(std::filesystem::exists(kDir + file));
  const json oracle = readJson(kDir + file);
  REQUIRE(versionOf(oracle).rfind(versionPrefix + ".", 0) == 0);
  REQUIRE(oracle.at("source") == "dtensor");
  const json cases = readJson(kDir + "cases.json");
  const Comparison c = requireAgreement(kDir + file, 1, true);
  CHECK(c.compared + c.skipped == caseCount(cases));
  // DTensor's redistribute_cost, reproduced by core's model of it on every redistribute both plan alike.
  INFO(c.costsCompared << " redistribute costs agree");
  CHECK(c.costsCompared >= minCosts);
}

}  // namespace

TEST_CASE("DTensor oracle: core agrees with the hand-checked answers", "[dtensor]") {
  requireAgreement(kDir + "oracle_handchecked.json", 50, false);
}

TEST_CASE("DTensor oracle: core agrees with DTensor 2.14's own answers (oracle_2.14.json)", "[dtensor]") {
  requireDTensorFixture("oracle_2.14.json", "2.14", 844);  // all 860 but 12 + 1 listed and 3 DTensor cannot run
}

TEST_CASE("DTensor oracle: core differs from DTensor 2.6's answers only where listed (oracle_2.6.json)", "[dtensor]") {
  requireDTensorFixture("oracle_2.6.json", "2.6");
}

TEST_CASE("DTensor oracle: another answer file ($SHARDSCOPE_DTENSOR_ORACLE)", "[dtensor]") {
  const char* env = std::getenv("SHARDSCOPE_DTENSOR_ORACLE");
  if (!env || !*env) return;  // nothing to compare: the fixtures above are the every-run comparison
  requireAgreement(env, 1, true);
}

TEST_CASE("DTensor oracle: every known difference is in the docs' one table", "[dtensor]") {
  std::ifstream f(std::string(SHARDSCOPE_SOURCE_DIR) + "/docs/checks.md");
  REQUIRE(f.good());
  const std::string docs((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto begin = docs.find("## Checked against DTensor");
  REQUIRE(begin != std::string::npos);
  const std::string section = docs.substr(begin, docs.find("\n## ", begin + 1) - begin);
  const Known known = readKnown("");
  std::set<std::string> names;
  for (const KnownEntry& e : known.entries) {
    INFO(e.kind << " '" << e.name << "'");
    CHECK(names.insert(e.name).second);
    CHECK((e.ids.empty() != e.idContains.empty()));
    CHECK(!e.cases.empty());
    CHECK(!e.reason.empty());
    CHECK(section.find("`" + e.name + "`") != std::string::npos);
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
  // A documented difference is counted, not failed; one for another torch version is not applied.
  Known k;
  KnownEntry e;
  e.name = "test";
  e.kind = "rule";
  e.idContains = "aten.mm.default on 4: S(1), S(0)";
  k.entries.push_back(e);
  CHECK(compareAll(cases, oracle, k).documented == 1);
  k.entries[0].torch = "2.6";
  k.version = majorMinor("2.14.1+debian");
  CHECK(compareAll(cases, oracle, k).documented == 0);
  k.version = majorMinor("2.6.0+debian");
  CHECK(k.version == "2.6");
  CHECK(compareAll(cases, oracle, k).documented == 1);
  // An entry of exact ids covers those and no other.
  k.entries[0].idContains.clear();
  k.entries[0].ids = {"rule aten.mm.default on 4: S(1), S(0)"};
  CHECK(compareAll(cases, oracle, k).documented == 1);
  k.entries[0].ids = {"rule aten.mm.default on 4: S(1)"};
  CHECK(compareAll(cases, oracle, k).documented == 0);
  // An incomplete answer file: a case without an answer, and one cut by the time budget, are both reported;
  // a question this PyTorch cannot ask is not.
  json partial = oracle;
  partial["layouts"]["layout [7] on 4: R"] = {{"skipped", "time budget"}};
  partial["layouts"]["layout [7] on 4: S(0)"] = {{"skipped", "this PyTorch has no ShardOrderEntry (shard orders)"}};
  partial["layouts"]["layout [7] on 4: P(sum)"] = {
      {"skipped", "this PyTorch's compute_local_shape_and_global_offset takes no shard_order"}};
  const Comparison p = compareAll(cases, partial, Known{}, true);
  CHECK(p.missing.size() == static_cast<size_t>(caseCount(cases) - 5));
  CHECK(p.skipped == 3);
  REQUIRE(p.badSkips.size() == 1);
  CHECK(p.badSkips[0] == "layout [7] on 4: R: skipped (time budget)");
}
