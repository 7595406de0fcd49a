// `shardscope diff` as a process: seed 1 as shipped against `shardscope fix`'s output, exit codes, JSON.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli_run.h"

namespace {
ss::test::CliRun run(const std::string& args) { return ss::test::runCli(args); }
std::string sample(const char* name) { return std::string(SHARDSCOPE_SAMPLES_DIR) + "/" + name; }
std::string temp(const std::string& name) { return (std::filesystem::temp_directory_path() / name).string(); }

// Seed 1 fixed by the real fix verb.
std::string fixedSeed1() {
  const std::string out = temp("ss_diff_seed1_fixed.plan.json");
  const auto f = run("fix " + sample("falcon_index_put_2d.plan.json") + " -o " + out);
  INFO(f.out);
  REQUIRE(f.code == 0);
  return out;
}
}  // namespace

TEST_CASE("diff: seed 1 as shipped against fixed is one all-to-all and two errors gone", "[cli][diff]") {
  const std::string a = sample("falcon_index_put_2d.plan.json");
  const std::string b = fixedSeed1();
  const auto r = run("diff " + a + " " + b);
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find("matched 34 nodes by name, 0 by structure; 0 only in A, 0 only in B\n") != std::string::npos);
  CHECK(r.out.find("1 change:\n"
                   "  redistribute-added: index_put (input 2): redistribute added RS(1) -> RS(0) [backward]\n"
                   "    B: all_to_all on mesh dim 1 (dim1), 48.0 KiB, 9.3 us\n"
                   "    cost +48.0 KiB, +9.3 us\n") != std::string::npos);
  CHECK(r.out.find("diagnostics gone (2):\n  error: index_put (input 2) [missing-redistribute]") != std::string::npos);
  CHECK(r.out.find("  error: index_put (input 2) [incompatible-inputs]") != std::string::npos);
  CHECK(r.out.find("diagnostics new (0)\n") != std::string::npos);
  CHECK(r.out.find("  backward: 15.9 MiB, 123.2 us -> 16.0 MiB, 132.5 us (+48.0 KiB, +9.3 us)\n") != std::string::npos);

  const auto j = run("diff --json " + a + " " + b);
  CHECK(j.code == 1);
  const nlohmann::json d = nlohmann::json::parse(j.out);
  REQUIRE(d["changes"].size() == 1);
  const auto& c = d["changes"][0];
  CHECK(c["kind"] == "redistribute-added");
  CHECK(c["node"] == "index_put");
  CHECK(c["input"] == 2);
  CHECK(c["before"].is_null());
  CHECK(c["after"] == "RS(1) -> RS(0)");
  CHECK(c["bytes_delta"] == 48 * 1024);
  CHECK(c["cost_delta_us"].get<double>() == Approx(9.32768).epsilon(1e-6));
  CHECK(c["collectives_after"] == "all_to_all on mesh dim 1 (dim1), 48.0 KiB, 9.3 us");
  CHECK(c["phase"] == "backward");
  REQUIRE(d["diagnostics"]["removed"].size() == 2);
  CHECK(d["diagnostics"]["removed"][0]["kind"] == "missing-redistribute");
  CHECK(d["diagnostics"]["removed"][1]["kind"] == "incompatible-inputs");
  for (const auto& x : d["diagnostics"]["removed"]) {
    CHECK(x["severity"] == "error");
    CHECK(x["node"] == "index_put");
    CHECK(x["input"] == 2);
  }
  CHECK(d["diagnostics"]["added"].empty());
  CHECK(d["summary"]["same"] == false);
  CHECK(d["summary"]["errors_before"] == 2);
  CHECK(d["summary"]["errors_after"] == 0);
  CHECK(d["summary"]["bytes_delta"] == 48 * 1024);
  CHECK(d["summary"]["cost_delta_us"].get<double>() == Approx(9.32768).epsilon(1e-6));
  CHECK(d["match"]["by_name"] == 34);
  CHECK(d["match"]["only_a"] == 0);

  // The other way round: the redistribute is removed and the two errors come back.
  const nlohmann::json back = nlohmann::json::parse(run("diff --json " + b + " " + a).out);
  REQUIRE(back["changes"].size() == 1);
  CHECK(back["changes"][0]["kind"] == "redistribute-removed");
  CHECK(back["changes"][0]["bytes_delta"] == -48 * 1024);
  CHECK(back["diagnostics"]["added"].size() == 2);
  CHECK(back["diagnostics"]["removed"].empty());
}

TEST_CASE("diff: a plan against itself exits 0; its autoparallel export plans the same transition", "[cli][diff]") {
  const auto r = run("diff " + sample("teach_tp_mlp.plan.json") + " " + sample("teach_tp_mlp.plan.json"));
  CHECK(r.code == 0);
  CHECK(r.out.find("0 changes\n") != std::string::npos);
  // The same plan as an autoparallel export: the explicit redistribute becomes a transition the solver plans (its
  // apply pass inserts it), so the edge still moves the same bytes and the checker says so with an info.
  const std::string ap = temp("ss_diff_tp_mlp.autoparallel.json");
  REQUIRE(run("export " + sample("teach_tp_mlp.plan.json") + " --autoparallel " + ap).code == 0);
  const auto x = run("diff --json " + sample("teach_tp_mlp.plan.json") + " " + ap);
  INFO(x.out);
  CHECK(x.code == 1);
  const nlohmann::json d = nlohmann::json::parse(x.out);
  CHECK(d["match"]["by_name"] == 9);
  CHECK(d["match"]["only_a"] == 0);
  REQUIRE(d["changes"].size() == 1);
  CHECK(d["changes"][0]["kind"] == "redistribute-removed");
  CHECK(d["changes"][0]["node"] == "pow_1");
  CHECK(d["changes"][0]["input"] == 0);
  CHECK(d["changes"][0]["before"] == "P(sum) -> R");
  CHECK(d["changes"][0]["bytes_delta"] == 0);
  CHECK(d["changes"][0]["cost_delta_us"] == 0.0);
  REQUIRE(d["diagnostics"]["added"].size() == 1);
  CHECK(d["diagnostics"]["added"][0]["kind"] == "redistribute-required");
  CHECK(d["diagnostics"]["added"][0]["severity"] == "info");
  CHECK(d["summary"]["bytes_before"] == 768);
  CHECK(d["summary"]["bytes_after"] == 768);
}

TEST_CASE("diff: unusable input is one line with exit 2", "[cli][diff][errors]") {
  const auto missing = run("diff /nonexistent/a.plan.json " + sample("teach_tp_mlp.plan.json"));
  CHECK(missing.code == 2);
  CHECK(missing.out == "/nonexistent/a.plan.json: cannot open: No such file or directory\n");
  const std::string bad = temp("ss_diff_bad.plan.json");
  std::ofstream(bad) << "{\"format\": \"shardscope-plan\", \"version\": 1,\n \"mesh\": {\"shape\": [2";
  const auto t = run("diff " + sample("teach_tp_mlp.plan.json") + " " + bad);
  CHECK(t.code == 2);
  CHECK(t.out.rfind(bad + ":2:", 0) == 0);
  CHECK(std::count(t.out.begin(), t.out.end(), '\n') == 1);
  CHECK(run("diff " + sample("teach_tp_mlp.plan.json")).out ==
        "shardscope diff: expected two files A and B (see shardscope diff --help)\n");
  CHECK(run("diff a b c").code == 2);
  CHECK(run("diff " + sample("teach_tp_mlp.plan.json") + " " + sample("teach_tp_mlp.plan.json") + " --frob").code == 2);
  const auto p = run("diff " + sample("teach_tp_mlp.plan.json") + " " + sample("teach_tp_mlp.plan.json") +
                     " --placements-b /nonexistent/p.json");
  CHECK(p.code == 2);
  CHECK(p.out == "/nonexistent/p.json: cannot open: No such file or directory\n");
}
