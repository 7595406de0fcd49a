// `shardscope run` exit codes and the RunClient (child process, streaming, cancel, crash).
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "app/run_client.h"
#include "runner_test_util.h"

using namespace ss;

TEST_CASE("shardscope run: exit 1 for seed 2 with bare tags, 0 with --seq-dim KEY=0, 2 for bad flags",
          "[runner][cli]") {
  std::string file = test::samplePath("autosp_seq_first.plan.json");
  auto bad = test::runCli("run " + file);
  INFO(bad.output);
  CHECK(bad.exitCode == 1);
  CHECK(bad.output.find("DIFFERS") != std::string::npos);
  CHECK(bad.output.find("verdict: mismatch") != std::string::npos);

  auto fixed = test::runCli("run " + file + " --seq-dim input_id=0 --seq-dim label_id=0 --json");
  INFO(fixed.output);
  CHECK(fixed.exitCode == 0);
  auto j = nlohmann::json::parse(fixed.output, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  CHECK(j["verdict"] == "match");
  CHECK(j["batches"].size() == 3);
  CHECK(j["ranks"] == 2);

  CHECK(test::runCli("run " + file + " --batches 0").exitCode == 2);
  CHECK(test::runCli("run " + file + " --seq-dim nosuchkey=0").exitCode == 2);
  CHECK(test::runCli("run " + file + " --placement nosuchnode=R").exitCode == 2);
  CHECK(test::runCli("run /nonexistent.plan.json").exitCode == 2);
}

TEST_CASE("shardscope run: exit 3 for seed 1 as shipped, with rank and node", "[runner][cli]") {
  auto r = test::runCli("run " + test::falconPath() + " --scale 4 --batches 1");
  INFO(r.output);
  CHECK(r.exitCode == 3);
  CHECK(r.output.find("rank 0, node index_put: shape mismatch") != std::string::npos);
}

TEST_CASE("shardscope fix then run: seed 1 matches its reference (exit 0)", "[runner][cli]") {
  std::string out = "/tmp/shardscope_runner_test_fixed_" + std::to_string(::getpid()) + ".plan.json";
  auto fix = test::runCli("fix " + test::falconPath() + " -o " + out);
  INFO(fix.output);
  REQUIRE(fix.exitCode == 0);
  auto r = test::runCli("run " + out + " --scale 4 --batches 1");
  INFO(r.output);
  CHECK(r.exitCode == 0);
  CHECK(r.output.find("verdict: match") != std::string::npos);
  std::remove(out.c_str());
  std::remove((out + ".bak").c_str());
}

TEST_CASE("RunClient streams progress, cancels a run, and reports a crashed runner", "[runner][client]") {
  ::setenv("SHARDSCOPE_RUNNER", SHARDSCOPE_RUNNER_BINARY, 1);
  REQUIRE(app::RunClient::findRunner() == SHARDSCOPE_RUNNER_BINARY);
  Plan plan = test::loadOrFail(test::samplePath("autosp_batch_first.plan.json"));

  SECTION("a run to completion streams events and ends with one report") {
    app::RunClient client;
    RunOptions o;
    o.batches = 2;
    REQUIRE(client.start(plan, o).ok());
    CHECK_FALSE(client.start(plan, o).ok());  // one run at a time
    int progress = 0, batches = 0, reports = 0;
    for (int i = 0; i < 600 && reports == 0; ++i)
      for (const auto& e : client.wait(100)) {
        progress += e.kind == RunEvent::Kind::Progress;
        batches += e.kind == RunEvent::Kind::Batch;
        reports += e.kind == RunEvent::Kind::Report;
      }
    REQUIRE(reports == 1);
    CHECK(progress > 0);
    CHECK(batches == 2);
    REQUIRE(client.report());
    CHECK(client.report()->exitCode() == 0);
    CHECK_FALSE(client.running());
  }

  SECTION("cancel stops the child quickly") {
    app::RunClient client;
    RunOptions o;
    o.batches = 100000;  // would run for a long time
    REQUIRE(client.start(plan, o).ok());
    bool sawRank = false;
    for (int i = 0; i < 600 && !sawRank; ++i)
      for (const auto& e : client.wait(100))
        if (e.kind == RunEvent::Kind::Progress) sawRank = true;
    REQUIRE(sawRank);
    auto t0 = std::chrono::steady_clock::now();
    client.cancel();
    std::optional<RunReport> report;
    for (int i = 0; i < 100 && !report; ++i)
      for (const auto& e : client.wait(100))
        if (e.report) report = e.report;
    REQUIRE(report);
    REQUIRE(report->error);
    CHECK(report->error->stage == "cancelled");
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 5);
  }

  SECTION("a runner that dies without a report gives a crash report") {
    ::setenv("SHARDSCOPE_RUNNER", "/bin/false", 1);
    app::RunClient client;
    REQUIRE(client.start(plan, RunOptions{}).ok());
    std::optional<RunReport> report;
    for (int i = 0; i < 100 && !report; ++i)
      for (const auto& e : client.wait(100))
        if (e.report) report = e.report;
    REQUIRE(report);
    REQUIRE(report->error);
    CHECK(report->error->stage == "crash");
    CHECK(report->error->message == "the runner exited with code 1 without a report");
    CHECK(report->exitCode() == 3);
  }
  ::setenv("SHARDSCOPE_RUNNER", SHARDSCOPE_RUNNER_BINARY, 1);
}
