// The corpus of real autoparallel logs (tests/data/real/, issue 39) and its mutants: every clean log checks with 0
// errors and 0 warnings, and every mutant (tests/core/applied_mutants.h: a planned transition's collectives
// dropped, regrouped to another mesh dim, regathered on another tensor dim; an all_reduce dropped) exits 1 with an
// error at the plan node whose transition was damaged. CI runs a sample of each class per log (seconds);
// scripts/mutation_sweep.sh runs every mutant ("[.mutants-full]") and prints the per-class table.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "applied_cases.h"
#include "applied_mutants.h"
#include "test_data.h"


using namespace ss;
using namespace ss::test::mutants;

namespace {

// The committed clean logs of the corpus (seed1_buggy is a real defect, tested on its own; autosp has no plan).
const std::vector<std::string>& corpus() {
  static const std::vector<std::string> cases = [] {
    std::vector<std::string> out;
    for (const char* c : {"seed1_fixed", "conv", "flex_attn", "llama3_1d", "llama3_2d", "dsv3_2x2",
                          "ex_autoparallel_2x4", "ex_autoparallel_2x2", "ex_local_map_2x2x2", "llama3_4_fsdp",
                          "llama3_4_tp", "llama3_8", "llama3_2x4", "llama3_2x2_dp2", "llama3_2x2_vocab",
                          "llama3_4x2_seq", "llama3_2x2x2", "dsv3_4", "dsv3_2x2x2"})
      if (std::filesystem::exists(test::realCase(std::string(c) + "/rank0.log"))) out.push_back(c);
    return out;
  }();
  return cases;
}

std::string readAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string problemsText(const Plan& p, const Diagnostics& d) {
  std::string out;
  for (const Diagnostic& x : d.items)
    if (x.severity != Severity::Info)
      out += std::string(severityName(x.severity)) + " " + diagKindName(x.kind) + " at " +
             (x.node >= 0 ? p.graph.nodes[static_cast<size_t>(x.node)].name : std::string("-")) + ":" +
             std::to_string(x.input) + ": " + x.message + "\n";
  return out;
}

// Mutants the check does not catch yet (issue 39, open): a transition DTensor performs by a longer route than
// planRedistribute's (ex_autoparallel_2x4's S(0)S(0) -> RS(0): all_gather on tp, a chunk, all_gathers on dp and
// tp, a chunk) is judged by its steps, and the route's extra collectives are claimed by mesh dim: one of them
// regrouped to another involved mesh dim or reassembled on another tensor dim goes unseen. Judging the route by
// simulating each op's effect on the placements would catch them. Asserted missed, so that catching one fails here
// until it is taken off the list.
const std::set<std::string> kKnownMisses = {
    "regroup all_gather_into_tensor_6 '5' -> '1' (mesh dim 0) on dtype_cast_3 -> permute_7:0",
    "redim all_gather_into_tensor_6's reassembly cat_3 cat dim 1 -> 0 on dtype_cast_3 -> permute_7:0",
    "redim all_gather_into_tensor_7's reassembly cat_4 cat dim 2 -> 0 on add -> alias_default_8:0",
    "regroup all_gather_into_tensor_13 '5' -> '1' (mesh dim 0) on alias_default_13 -> einsum_default_10:0",
    "redim all_gather_into_tensor_13's reassembly cat_7 cat dim 1 -> 0 on alias_default_13 -> einsum_default_10:0",
    "regroup all_gather_into_tensor_11 '5' -> '1' (mesh dim 0) on alias_default_13 -> einsum_default_10:0",
    "redim all_gather_into_tensor_11's reassembly cat_6 cat dim 2 -> 0 on alias_default_13 -> einsum_default_10:0",
};

// Mutants caught (exit 1), but with the error at another node than the damaged transition's consumer (issue 39,
// open): a collective regrouped onto the other mesh dim of a longer route, or dsv3_2x2's gradient reduce_scatter
// moved off the flattened mesh. Asserted so.
const std::set<std::string> kKnownElsewhere = {
    "regroup reduce_scatter_tensor '0' -> '1' (mesh dim 0) on view_53 -> add_1035:1",
    "regroup all_gather_into_tensor_12 '1' -> '5' (mesh dim 1) on add_2 -> alias_default_13:0",
    "regroup all_gather_into_tensor_10 '1' -> '5' (mesh dim 1) on add_2 -> alias_default_13:0",
    "regroup all_gather_into_tensor_12 '1' -> '5' (mesh dim 1) on alias_default_13 -> einsum_default_10:0",
    "regroup all_gather_into_tensor_10 '1' -> '5' (mesh dim 1) on alias_default_13 -> einsum_default_10:0",
};

struct Tally {
  int mutants = 0, caught = 0, elsewhere = 0, missed = 0, known = 0;  // known: in kKnownMisses / kKnownElsewhere
};

enum class Verdict { Caught, Elsewhere, Missed };

// A mutant's log, checked as `shardscope check LOG` reads it.
Verdict judge(const std::string& mutantLog, const Mutant& m, const Plan& plan, std::string* problems) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "shardscope-mutant-XXXXXX").string();
  REQUIRE(mkdtemp(tmpl.data()) != nullptr);
  const std::string path = tmpl + "/rank0.log";
  {
    std::ofstream f(path, std::ios::binary);
    f << mutantLog;
  }
  SessionInputs in;
  in.primary = path;
  auto s = loadSession(in);
  std::filesystem::remove_all(tmpl);
  if (!s.ok()) {
    *problems = "refused: " + s.error().toString();
    return Verdict::Missed;
  }
  Diagnostics d = checkSession(*s);
  *problems = problemsText(s->plan, d);
  const std::string& want = plan.graph.nodes[static_cast<size_t>(m.expectNode)].name;
  bool any = false;
  for (const Diagnostic& x : d.items) {
    if (x.severity != Severity::Error) continue;
    any = true;
    // At the damaged transition's consumer, or at the first node the damage reaches, naming it. (A collective
    // several consumers share damages each of their transitions: one error each.)
    if (x.node == m.expectNode || x.message.find(" " + want + " ") != std::string::npos) return Verdict::Caught;
  }
  return any ? Verdict::Elsewhere : Verdict::Missed;
}

// Checks the mutants of every corpus log; `perClass` limits each class per log (0: all). Prints the table.
void runMutants(size_t perClass) {
  std::map<DefectClass, Tally> total;
  for (const std::string& c : corpus()) {
    const std::string logPath = test::realCase(c + "/rank0.log");
    const std::string log = readAll(logPath);
    auto traced = readTraceLog(log);
    REQUIRE(traced.ok());
    const TraceRecord* rec = traced->artifact("autoparallel_parallel_graph");
    REQUIRE(rec != nullptr);
    AppliedSession clean = test::openSession(logPath);
    checkSession(clean);  // attributes the collectives to transitions
    std::vector<Mutant> all = makeMutants(clean, rec->payload);
    std::map<DefectClass, std::vector<const Mutant*>> byClass;
    for (const Mutant& m : all) byClass[m.cls].push_back(&m);
    for (auto& [cls, ms] : byClass) {
      // An even spread over the graph when sampling.
      const size_t n = perClass == 0 ? ms.size() : std::min(perClass, ms.size());
      for (size_t i = 0; i < n; ++i) {
        const Mutant& m = *ms[perClass == 0 ? i : i * ms.size() / n];
        std::string problems;
        const Verdict v = judge(replacePayload(log, *rec, m.payload), m, clean.plan, &problems);
        Tally& t = total[cls];
        ++t.mutants;
        if (v == Verdict::Caught) ++t.caught;
        if (v == Verdict::Elsewhere) ++t.elsewhere;
        if (v == Verdict::Missed) ++t.missed;
        INFO(c << ": " << defectName(cls) << ": " << m.what << " (expected an error at "
               << clean.plan.graph.nodes[static_cast<size_t>(m.expectNode)].name << ":" << m.expectInput << ")\n"
               << problems);
        if (kKnownMisses.count(m.what)) {
          ++t.known;
          CHECK(v != Verdict::Caught);
        } else if (kKnownElsewhere.count(m.what)) {
          ++t.known;
          CHECK(v == Verdict::Elsewhere);
        } else {
          CHECK(v == Verdict::Caught);
        }
      }
    }
  }
  std::printf("%-16s %8s %8s %10s %8s %8s\n", "class", "mutants", "caught", "elsewhere", "missed", "known");
  for (const auto& [cls, t] : total)
    std::printf("%-16s %8d %8d %10d %8d %8d\n", defectName(cls), t.mutants, t.caught, t.elsewhere, t.missed, t.known);
}

}  // namespace

TEST_CASE("every clean log of the corpus checks with no error and no warning", "[applied][corpus]") {
  REQUIRE(corpus().size() >= 6);
  for (const std::string& c : corpus()) {
    AppliedSession s = test::openSession(test::realCase(c + "/rank0.log"));
    Diagnostics d = checkSession(s);
    INFO(c << ":\n" << problemsText(s.plan, d));
    CHECK(d.summary().errors == 0);
    CHECK(d.summary().warnings == 0);
    REQUIRE(!s.applied.empty());
    const AppliedGraph& a = s.applied.front();
    CHECK(a.transitionsFound == a.transitionsPlanned);
  }
}

TEST_CASE("the mutation harness rewrites the payload and its md5 so the log still reads", "[applied][mutants]") {
  const std::string logPath = test::realCase("seed1_fixed/rank0.log");
  const std::string log = readAll(logPath);
  auto traced = readTraceLog(log);
  REQUIRE(traced.ok());
  const TraceRecord* rec = traced->artifact("autoparallel_parallel_graph");
  REQUIRE(rec != nullptr);
  // The identity edit gives the log back byte for byte.
  CHECK(replacePayload(log, *rec, rec->payload) == log);
  AppliedSession clean = test::openSession(logPath);
  checkSession(clean);
  std::vector<Mutant> all = makeMutants(clean, rec->payload);
  REQUIRE(!all.empty());
  const std::string mutated = replacePayload(log, *rec, all.front().payload);
  auto again = readTraceLog(mutated);
  REQUIRE(again.ok());  // md5 rewritten: the reader accepts it
  CHECK(again->artifact("autoparallel_parallel_graph")->payload == all.front().payload);
  CHECK(replaceIdent("wait_tensor_1(wait_tensor_12, wait_tensor_1)", "wait_tensor_1", "x") == "x(wait_tensor_12, x)");
  CHECK(replaceIdent("w = ops.wait_tensor.default(wait_tensor)", "wait_tensor", "x") == "w = ops.wait_tensor.default(x)");
}

TEST_CASE("a sample of every defect class on every corpus log is caught at the damaged node", "[applied][mutants]") {
  runMutants(2);
}

TEST_CASE("every mutant of every corpus log is caught at the damaged node", "[.mutants-full]") { runMutants(0); }
