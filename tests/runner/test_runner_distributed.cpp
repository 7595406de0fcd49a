// `shardscope run FILE --distributed`: 2 and 4 real processes over loopback, started with torch.distributed's
// env:// variables set by hand (as torchrun or a Slurm script sets them), against the one-process run; a killed
// process and a rendezvous that never completes end the others with a clear error, never a hang.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/io/load/load.h"
#include "runner_test_util.h"

using namespace ss;

namespace {

using Clock = std::chrono::steady_clock;

// A port nobody listens on right now (the kernel's pick for port 0).
int freePort() {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  REQUIRE(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  REQUIRE(::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  ::close(s);
  return ntohs(a.sin_port);
}

std::string tempPath(const std::string& name) {
  return "/tmp/shardscope_dist_" + std::to_string(::getpid()) + "_" + name;
}

struct Proc {
  pid_t pid = -1;
  std::string outPath;  // stdout + stderr
  int exitCode = -1;
  std::string output;
};

// Starts argv with the env:// variables for process `rank` of `world`; output goes to a file.
Proc spawn(const std::vector<std::string>& argv, int port, int world, int rank, const std::string& tag) {
  Proc p;
  p.outPath = tempPath(tag + "_" + std::to_string(rank) + ".out");
  p.pid = ::fork();
  REQUIRE(p.pid >= 0);
  if (p.pid == 0) {
    int fd = ::open(p.outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::setenv("MASTER_ADDR", "127.0.0.1", 1);
    ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
    ::setenv("WORLD_SIZE", std::to_string(world).c_str(), 1);
    ::setenv("RANK", std::to_string(rank).c_str(), 1);
    ::setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return p;
}

// Waits for every process (killing all of them after `limitSec`, so a hang fails the test instead of hanging it).
void waitAll(std::vector<Proc>& procs, double limitSec) {
  auto t0 = Clock::now();
  size_t left = procs.size();
  while (left > 0) {
    for (auto& p : procs) {
      if (p.pid < 0 || p.exitCode != -1) continue;
      int status = 0;
      if (::waitpid(p.pid, &status, WNOHANG) == p.pid) {
        p.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        --left;
      }
    }
    if (left == 0) break;
    if (std::chrono::duration<double>(Clock::now() - t0).count() > limitSec) {
      for (auto& p : procs)
        if (p.exitCode == -1) {
          ::kill(p.pid, SIGKILL);
          ::waitpid(p.pid, nullptr, 0);
          p.exitCode = 999;  // hung
        }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (auto& p : procs) {
    std::ifstream f(p.outPath);
    std::stringstream ss;
    ss << f.rdbuf();
    p.output = ss.str();
    ::unlink(p.outPath.c_str());
  }
}

std::vector<Proc> runDistributed(const std::string& plan, int world, const std::vector<std::string>& extra,
                                 const std::string& tag) {
  int port = freePort();
  std::vector<Proc> procs;
  for (int r = 0; r < world; ++r) {
    std::vector<std::string> argv = {SHARDSCOPE_BINARY, "run", plan, "--distributed", "--json", "--timeout", "20"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    procs.push_back(spawn(argv, port, world, r, tag));
  }
  waitAll(procs, 240);
  return procs;
}

nlohmann::json reportOf(const std::string& output) {
  auto brace = output.find('{');
  REQUIRE(brace != std::string::npos);
  auto end = output.rfind('}');
  return nlohmann::json::parse(output.substr(brace, end - brace + 1));
}

// Process 0's report against the one-process run: same verdict, losses, divergence.
void sameAsOneProcess(const std::string& plan, int world, int expectedExit, const std::vector<std::string>& extra = {}) {
  std::string args = "run " + plan + " --json";
  for (const auto& e : extra) args += " " + e;
  test::CliResult one = test::runCli(args);
  INFO(one.output);
  REQUIRE(one.exitCode == expectedExit);
  nlohmann::json ref = reportOf(one.output);

  auto procs = runDistributed(plan, world, extra, "same" + std::to_string(world));
  for (const auto& p : procs) {
    INFO("process output:\n" << p.output);
    CHECK(p.exitCode == expectedExit);  // every process exits with the verdict's code
  }
  nlohmann::json rep = reportOf(procs[0].output);
  CHECK(rep["processes"] == world);
  CHECK(rep["verdict"] == ref["verdict"]);
  REQUIRE(rep["batches"].size() == ref["batches"].size());
  for (size_t b = 0; b < ref["batches"].size(); ++b) {
    CHECK(rep["batches"][b]["combined"].get<double>() ==
          Approx(ref["batches"][b]["combined"].get<double>()).epsilon(1e-9));
    CHECK(rep["batches"][b]["reference"].get<double>() == ref["batches"][b]["reference"].get<double>());
    CHECK(rep["batches"][b]["rank_losses"].size() == ref["batches"][b]["rank_losses"].size());
    CHECK(rep["batches"][b]["match"] == ref["batches"][b]["match"]);
  }
  const auto& fd = rep["first_divergence"];
  const auto& fr = ref["first_divergence"];
  REQUIRE(fd.is_null() == fr.is_null());
  if (!fr.is_null()) {
    for (const char* k : {"node", "batch", "spec", "wrong_ranks", "disagreeing_replicas", "shape_mismatch", "detail"})
      CHECK(fd[k] == fr[k]);
    if (!fr["rel_error"].is_null()) CHECK(fd["rel_error"].get<double>() == Approx(fr["rel_error"].get<double>()));
  }
  for (size_t r = 1; r < procs.size(); ++r) CHECK(procs[r].output.find("verdict") == std::string::npos);
}

}  // namespace

TEST_CASE("run --distributed: FSDP x TP on 2 and 4 processes gives the one-process verdict and losses",
          "[runner][distributed]") {
  const std::string plan = test::samplePath("teach_fsdp_tp.plan.json");
  sameAsOneProcess(plan, 2, 0);
  sameAsOneProcess(plan, 4, 0);
  // Broken (the all_reduce before pow_1 removed): the same first divergence, found across processes.
  Plan broken = test::loadOrFail(plan);
  int pow1 = broken.graph.find("pow_1");
  auto& rs = broken.redistributes;
  rs.erase(std::remove_if(rs.begin(), rs.end(), [&](const Redistribute& x) { return x.node == pow1; }), rs.end());
  std::string path = tempPath("fsdp_tp_broken.plan.json");
  REQUIRE(savePlanFile(broken, path).ok());
  sameAsOneProcess(path, 4, 1);
  ::unlink(path.c_str());
}

TEST_CASE("run --distributed: the AutoSP samples on 2 processes give the one-process verdicts and divergence",
          "[runner][distributed]") {
  sameAsOneProcess(test::samplePath("autosp_seq_first.plan.json"), 2, 1);
  sameAsOneProcess(test::samplePath("autosp_seq_first_fixed.plan.json"), 2, 0);
}

TEST_CASE("run --distributed: a killed process ends the others with a clear error, never a hang",
          "[runner][distributed][failure]") {
  const std::string plan = test::samplePath("teach_fsdp_tp.plan.json");
  int port = freePort();
  auto t0 = Clock::now();
  // Process 0: the CLI. Process 1: the runner itself (the process that holds ranks 2-3), killed mid-run.
  std::vector<Proc> procs;
  procs.push_back(spawn({SHARDSCOPE_BINARY, "run", plan, "--distributed", "--timeout", "5", "--batches", "1000",
                         "--no-localise"},
                        port, 2, 0, "kill"));
  procs.push_back(spawn({SHARDSCOPE_RUNNER_BINARY, plan, "--events", "--options",
                         R"({"distributed": true, "timeout_s": 5, "batches": 1000, "localise": false})"},
                        port, 2, 1, "kill"));
  // Kill process 1 once its ranks are running (its first progress event of rank 2).
  bool running = false;
  while (!running && std::chrono::duration<double>(Clock::now() - t0).count() < 120) {
    std::ifstream f(procs[1].outPath);
    std::string line;
    while (std::getline(f, line))
      if (line.find("\"event\":\"progress\"") != std::string::npos && line.find("\"rank\":2") != std::string::npos)
        running = true;
    if (!running) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(running);
  ::kill(procs[1].pid, SIGKILL);
  auto killedAt = Clock::now();
  waitAll(procs, 60);
  double secs = std::chrono::duration<double>(Clock::now() - killedAt).count();
  INFO("process 0:\n" << procs[0].output);
  CHECK(procs[1].exitCode == 128 + SIGKILL);
  CHECK(procs[0].exitCode == 3);
  CHECK(procs[0].output.find("process 1 (ranks 2-3) stopped responding for 5 s") != std::string::npos);
  CHECK(secs < 20);
}

TEST_CASE("run --distributed: a rendezvous that never completes, or missing variables, fail within the timeout",
          "[runner][distributed][failure]") {
  const std::string plan = test::samplePath("teach_fsdp_tp.plan.json");
  int port = freePort();
  auto t0 = Clock::now();
  std::vector<Proc> alone = {
      spawn({SHARDSCOPE_BINARY, "run", plan, "--distributed", "--timeout", "3"}, port, 2, 0, "alone")};
  waitAll(alone, 60);
  double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  INFO(alone[0].output);
  CHECK(alone[0].exitCode == 3);
  CHECK(alone[0].output.find("the rendezvous at 127.0.0.1:" + std::to_string(port) +
                             " (process 0 of WORLD_SIZE=2) did not complete within 3") != std::string::npos);
  CHECK(secs < 30);

  // WORLD_SIZE must divide the mesh: 3 processes for 4 ranks is refused.
  std::vector<Proc> three = {spawn({SHARDSCOPE_BINARY, "run", plan, "--distributed"}, freePort(), 3, 0, "three")};
  waitAll(three, 60);
  CHECK(three[0].exitCode == 3);
  CHECK(three[0].output.find("WORLD_SIZE=3 does not divide the mesh's 4 ranks") != std::string::npos);

  ::unsetenv("MASTER_ADDR");
  test::CliResult none = test::runCli("run " + plan + " --distributed");
  CHECK(none.exitCode == 3);
  CHECK(none.output.find("MASTER_ADDR is not set") != std::string::npos);
}
