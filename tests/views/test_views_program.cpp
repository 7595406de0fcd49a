// The app says what the CLI says (views/model/document.h against core/applied/session.h's checkSession, which
// `shardscope check` prints) on every real file the project holds: autoparallel and AutoSP logs, DTensor
// programs (DebugMode, CommDebugMode, compiled), and the samples. And the Communication view's records
// (views/comm_view.h): DTensor's own per-module record of the TP MLP, and a plan's performed redistributes.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <tuple>

#include "core/applied/session.h"
#include "core/io/load/load.h"
#include "core/plan/costs.h"
#include "views/comm_view.h"
#include "views/model/document.h"

using namespace ss;
using namespace ss::views;
namespace fs = std::filesystem;

namespace {

const std::string kReal = std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/real/";

// (severity, kind, node, input) of every diagnostic, in order.
std::vector<std::tuple<int, int, int, int>> keys(const Diagnostics& d) {
  std::vector<std::tuple<int, int, int, int>> out;
  for (const Diagnostic& x : d.items)
    out.emplace_back(static_cast<int>(x.severity), static_cast<int>(x.kind), x.node, x.input);
  return out;
}

// What `shardscope check FILE` judges, in process.
Diagnostics cliDiagnostics(const std::string& path) {
  SessionInputs in;
  in.primary = path;
  if (needsSession(in)) {
    auto s = loadSession(in);
    if (!s) FAIL(s.error().toString());
    return checkSession(*s);
  }
  auto p = loadPlanFile(path);
  if (!p) FAIL(p.error().toString(path));
  return checkPlan(*p);
}

std::vector<std::string> realFiles() {
  std::vector<std::string> out;
  for (const char* log : {"seed1_buggy", "seed1_fixed", "conv", "llama3_1d", "llama3_2d", "flex_attn", "dsv3_2x2"})
    out.push_back(kReal + log + "/rank0.log");
  for (const char* log : {"seq0_buggy", "seq0_fixed"}) out.push_back(kReal + "autosp/" + log + "/rank0.log");
  for (const char* prog : {"tp_mlp", "implicit_ops", "sp_block", "fsdp_tp", "partial_loss"}) {
    const std::string dir = kReal + "dtensor/" + prog + "/";
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("debug_mode_", 0) == 0 || name.rfind("comm_debug", 0) == 0 || name.rfind("trace_", 0) == 0)
        out.push_back(e.path().string());
    }
  }
  for (const char* alone : {"seed1_applied_only.txt"})  // an applied graph alone
    out.push_back(std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/trace/" + alone);
  for (const auto& e : fs::directory_iterator(SHARDSCOPE_SAMPLES_DIR))
    if (e.path().string().ends_with(".plan.json")) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("the app's diagnostics are the CLI's on every real file and sample", "[views][app][real][agreement]") {
  const std::vector<std::string> files = realFiles();
  REQUIRE(files.size() >= 40);
  int dtensorPrograms = 0, refused = 0;
  for (const std::string& path : files) {
    INFO(path);
    Document doc;
    const auto opened = doc.open(path);
    if (!opened.ok()) {
      // A file the app refuses, the CLI refuses with the same line (one that needs --mesh, say).
      SessionInputs in;
      in.primary = path;
      const auto s = loadSession(in);
      REQUIRE_FALSE(s.ok());
      CHECK(opened.error().message == s.error().toString());
      ++refused;
      continue;
    }
    const Diagnostics cli = cliDiagnostics(path);
    CHECK(keys(doc.diagnostics()) == keys(cli));
    dtensorPrograms += doc.program() != nullptr;
  }
  CHECK(dtensorPrograms >= 10);
  CHECK(refused <= 6);  // DebugMode traces whose mesh sizes no argument shows (partial_loss): both need --mesh
}

TEST_CASE("communication by module: DTensor's record of the TP MLP", "[views][comm][real][dtensor]") {
  Document doc;
  REQUIRE(doc.open(kReal + "dtensor/tp_mlp/debug_mode_nn_module.rank0.txt").ok());
  REQUIRE(doc.program() != nullptr);
  const CommRecords r = commRows(doc.plan(), doc.program());
  CHECK(r.source == "DebugMode text: what DTensor recorded");
  REQUIRE(r.rows.size() == 1);
  CHECK(r.rows[0].comm.module == "MLP.w2");
  CHECK(r.rows[0].comm.forwardCount == 2);
  CHECK(r.rows[0].comm.forwardBytes == 768);
  CHECK(r.rows[0].comm.backwardCount == 0);
  CHECK(r.rows[0].firstNode >= 0);
  CHECK(r.total.forwardBytes == 768);
  CHECK(r.total.backwardBytes == 0);
}

TEST_CASE("communication by module: a plan's performed redistributes, costliest module first", "[views][comm][real]") {
  Document doc;
  REQUIRE(doc.open(kReal + "llama3_2d/rank0.log").ok());
  CHECK(doc.program() == nullptr);
  const CommRecords r = commRows(doc.plan(), nullptr);
  REQUIRE(r.rows.size() >= 2);
  // The totals are the cost report's performed edges, split by phase.
  const CostReport costs = computeCosts(doc.plan());
  int64_t bytes = 0;
  int count = 0;
  for (const EdgeCost& e : costs.edges)
    if (e.performed()) {
      bytes += e.bytes;
      ++count;
    }
  CHECK(r.total.forwardBytes + r.total.backwardBytes == bytes);
  CHECK(r.total.forwardCount + r.total.backwardCount == count);
  for (size_t i = 1; i < r.rows.size(); ++i)
    CHECK(r.rows[i - 1].comm.forwardUs + r.rows[i - 1].comm.backwardUs >= r.rows[i].comm.forwardUs + r.rows[i].comm.backwardUs);
  // Each row's node is of its module.
  for (const CommRow& row : r.rows) {
    REQUIRE(row.firstNode >= 0);
    CHECK(doc.plan().graph.nodes[static_cast<size_t>(row.firstNode)].modulePath == row.comm.module);
  }
}
