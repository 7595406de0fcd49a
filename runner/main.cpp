// shardscope-runner: the child process that `shardscope run` and the GUI's Run panel start, so that LibTorch's
// load time and any crash inside a run stay out of the app.
//
// Usage: shardscope-runner PLAN|- [--options JSON] [--events]
//   PLAN is any plan file core can load; `-` reads a native plan from stdin, or rank programs
//   (core/run/rank_programs.h: one graph per rank, as `shardscope run` sends an AutoSP log's).
//   --options: a RunOptions object as JSON (core/run/run_report.h), e.g. {"scale": 4, "batches": 3}.
//   --events: stdout carries one RunEvent JSON object per line, the last one {"event": "report", ...};
//             otherwise a human summary. Exit code: RunReport::exitCode() (0 match, 1 mismatch, 2 refused,
//             3 failed), 2 for unusable arguments or input.
//   --sandbox-report [CANARY]: enter the sandbox, probe it (CANARY: a file it must not change), print JSON, exit.
// Usage: shardscope-runner --gemm-bench M K N: the float product speed on every core, as JSON (benchmarks).
// Before running, the child refuses a plan with an op off core's allow-list (core/ops/op_safety.h: it trusts no
// parent) and what runner/runner.h refusalBeforeRun refuses (ranks, threads, shape errors), enters its sandbox
// (runner/sandbox.h: a supervisor process, no inherited descriptors, its own network namespace, Landlock, no
// capabilities, seccomp, a private working folder, an address-space cap) and arms a watchdog for the wall-clock budget (RunOptions::budgetSec).
#include <malloc.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>
#include <iterator>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/io/load/load.h"
#include "core/ops/op_safety.h"
#include "core/run/run_report.h"
#include "core/model/saturate.h"
#include "runner/infer_shapes.h"
#include "runner/rank_programs.h"
#include "runner/runner.h"
#include "runner/sandbox.h"

namespace {

std::mutex gEmitMutex;

void emitLine(const std::string& line) {
  std::lock_guard<std::mutex> lock(gEmitMutex);
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

int usage(const std::string& why) {
  std::fprintf(stderr, "shardscope-runner: %s\nusage: shardscope-runner PLAN|- [--options JSON] [--events]\n",
               why.c_str());
  return 2;
}

void emitReport(const ss::RunReport& report) {
  ss::RunEvent e;
  e.kind = ss::RunEvent::Kind::Report;
  e.report = report;
  emitLine(ss::runEventLine(e));
}

// Address space the run may map (RLIMIT_AS): what is mapped now (LibTorch's libraries and the plan), plus what the
// run may allocate (the share of the memory allowance runPlan's memory check admits), plus the virtual reservations
// of its threads (stacks, at most kArenas malloc arenas). All virtual: one rank of a small plan on a 24 GB machine
// gets about 20 GB, below the machine's memory. Saturating: a huge --memory-limit cannot wrap it.
constexpr int64_t kArenasPerCore = 2;
int64_t addressSpaceFor(const ss::RunOptions& o, int64_t ranks) {
  const int64_t allowance = o.memoryLimitBytes > 0 ? o.memoryLimitBytes : ss::runner::availableMemoryBytes();
  if (allowance <= 0) return 0;
  const int64_t cores = std::max<int64_t>(1, static_cast<int64_t>(std::thread::hardware_concurrency()));
  const int64_t threads = 4 * ranks + 2 * cores + 8;  // rank, Gloo and watchdog threads; intra-op pools
  int64_t bytes = ss::satAdd(ss::runner::mappedBytes(), allowance / 10 * 8);
  bytes = ss::satAdd(bytes, ss::satMul(threads, int64_t{8} << 20));              // 8 MiB stacks
  bytes = ss::satAdd(bytes, ss::satMul(kArenasPerCore * cores, int64_t{64} << 20));  // 64 MiB arena heaps
  return ss::satAdd(bytes, int64_t{512} << 20);
}

// Stops the run at its budget: asks runPlan to stop between nodes; if it has not returned 15 s later (one op
// running long), reports the budget itself and exits.
class Watchdog {
 public:
  Watchdog(double seconds, bool events, std::atomic<bool>& stop) : events_(events) {
    if (seconds <= 0) return;
    thread_ = std::thread([this, seconds, &stop] {
      std::unique_lock<std::mutex> lock(m_);
      if (cv_.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return done_; })) return;
      expired = true;
      stop = true;
      if (cv_.wait_for(lock, std::chrono::seconds(15), [&] { return done_; })) return;
      ss::RunReport r;
      r.error = ss::RunError{"budget", -1, -1, "", budgetMessage(seconds)};
      if (events_) emitReport(r);
      std::fprintf(stderr, "%s\n", r.error->message.c_str());
      ss::runner::leaveSandbox();
      std::_Exit(r.exitCode());
    });
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(m_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  static std::string budgetMessage(double seconds) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "the run exceeded its wall-clock budget of %g s (--budget)", seconds);
    return buf;
  }
  std::atomic<bool> expired{false};

 private:
  bool events_;
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// Parses the flags and the plan argument; returns the exit status when main must stop now (a usage error,
// --help, --sandbox-report), nothing when the run goes on.
std::optional<int> parseCommandLine(int argc, char** argv, std::string& planPath, std::string& optionsJson,
                                    bool& events) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--events") events = true;
    else if (a == "--sandbox-report") {
      // Tests: `--sandbox-report [CANARY]` enters the sandbox of an 8-rank local run, probes it and prints JSON.
      ss::runner::SandboxPolicy policy;
      policy.maxOpenFiles = ss::runner::openFilesFor(8);
      const std::string canary = i + 1 < argc ? argv[i + 1] : "";
      const ss::runner::SandboxInfo info = ss::runner::enterSandbox(policy);
      std::printf("%s\n", ss::runner::sandboxReportJson(info, canary).c_str());
      ss::runner::leaveSandbox();
      return 0;
    }
    else if (a == "--options" && i + 1 < argc) optionsJson = argv[++i];
    else if (a.rfind("--options=", 0) == 0) optionsJson = a.substr(10);
    else if (a == "--help" || a == "-h") return usage("runs a plan on local ranks and compares with a reference"), 0;
    else if (!a.empty() && a[0] == '-' && a != "-") return usage("unknown flag '" + a + "'");
    else if (planPath.empty()) planPath = a;
    else return usage("more than one plan given");
  }
  if (planPath.empty()) return usage("no plan given");
  return std::nullopt;
}

// Loads the plan from `planPath` (`-`: stdin); on failure reports why (as an event too with `events`).
ss::Result<ss::Plan> loadPlan(const std::string& planPath, const std::string& stdinText, bool events) {
  ss::Result<ss::Plan> plan = ss::Error{"no plan", 0, 0, {}};
  if (planPath == "-") {
    plan = ss::loadPlanText(stdinText, "<stdin>");
  } else {
    plan = ss::loadPlanFile(planPath);
  }
  if (!plan) {
    std::string msg = plan.error().toString(planPath == "-" ? "<stdin>" : planPath);
    if (events) {
      ss::RunReport report;
      report.error = ss::RunError{"load", -1, -1, "", msg};
      emitReport(report);
    }
    std::fprintf(stderr, "%s\n", msg.c_str());
  }
  return plan;
}

// Whether the plan is refused before anything runs (an unsafe op, or ranks, threads or shapes a run cannot
// take); a refusal is reported (as an event too with `events`).
bool refusedBeforeRun(const ss::Plan& plan, const ss::RunOptions& options, const std::string& planPath, bool events) {
  // Refuse before anything runs (runPlan checks again, and every node is checked right before it runs).
  if (auto unsafe = ss::unsafeNodes(plan.graph); !unsafe.empty()) {
    ss::RunReport report;
    report.planName = plan.name;
    report.error = ss::RunError{"unsafe-op", -1, unsafe[0].node, unsafe[0].name, unsafe[0].reason};
    if (events) emitReport(report);
    std::fprintf(stderr, "%s: refused: %s\n", planPath == "-" ? "<stdin>" : planPath.c_str(),
                 unsafe[0].toString().c_str());
    return true;
  }

  // Ranks, threads and shapes a run cannot take: refused before the sandbox (whose descriptor limit grows with the
  // ranks) and before anything starts.
  if (std::vector<std::string> notes; auto refused = ss::runner::refusalBeforeRun(plan, options, &notes)) {
    ss::RunReport report;
    report.planName = plan.name;
    report.error = *refused;
    report.notes = notes;
    if (events) emitReport(report);
    std::fprintf(stderr, "%s: refused: %s\n", planPath == "-" ? "<stdin>" : planPath.c_str(),
                 refused->toString().c_str());
    return true;
  }
  return false;
}

// The rank-programs run: refused before the sandbox as a plan is (the allow-list over every program, the ranks),
// then the same sandbox, address-space cap and watchdog.
int runRankProgramsMain(const std::string& text, const ss::RunOptions& options, bool events) {
  auto finish = [&](ss::RunReport& report) {
    if (events) emitReport(report);
    else std::fputs(report.summary().c_str(), stdout);
    std::fflush(stdout);
    return report.exitCode();
  };
  auto programs = ss::readRankProgramsText(text);
  if (!programs) {
    ss::RunReport report;
    report.error = ss::RunError{"load", -1, -1, "", programs.error().message};
    if (events) emitReport(report);
    std::fprintf(stderr, "%s\n", programs.error().message.c_str());
    return 2;
  }
  if (auto refused = ss::rankProgramsRefusal(*programs)) {
    ss::RunReport report;
    report.planName = programs->name;
    report.error = *refused;
    std::fprintf(stderr, "%s: refused: %s\n", programs->name.c_str(), refused->toString().c_str());
    finish(report);
    return 2;
  }
  const int64_t ranks = programs->rankCount();
  ss::runner::SandboxPolicy policy;
  policy.maxOpenFiles = ss::runner::openFilesFor(ranks);
  const ss::runner::SandboxInfo sandbox = ss::runner::enterSandbox(policy);
  if (options.requireSandbox && !sandbox.complete()) {
    ss::RunReport report;
    report.planName = programs->name;
    report.sandbox = sandbox.layers;
    report.error = ss::RunError{"sandbox", -1, -1, "",
                                "--require-sandbox: this machine cannot contain the run fully: " + sandbox.missing()};
    ss::runner::leaveSandbox();
    return finish(report);
  }
  const int64_t addressSpace = addressSpaceFor(options, ranks);
  ss::runner::limitAddressSpace(addressSpace);
  std::atomic<bool> cancel{false};
  ss::RunReport report;
  {
    Watchdog watchdog(options.budgetSec, events, cancel);
    ss::runner::RankProgramsEventSink sink;
    if (events) sink = [](const ss::RunEvent& e) { emitLine(ss::runEventLine(e)); };
    report = ss::runner::runRankPrograms(*programs, options, sink, &cancel);
    if (watchdog.expired.load()) report.error = ss::RunError{"budget", -1, -1, "", Watchdog::budgetMessage(options.budgetSec)};
  }
  report.peakRssBytes = ss::runner::peakRssBytes();
  report.sandbox = sandbox.layers;
  report.addressSpaceLimitBytes = addressSpace;
  if (!sandbox.complete()) report.notes.push_back("the run was not fully contained: " + sandbox.missing());
  ss::runner::leaveSandbox();
  return finish(report);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "infer-shapes") return ss::runner::inferShapesMain(argc - 1, argv + 1);
  if (argc == 5 && std::string(argv[1]) == "--gemm-bench") {  // scripts/bench_run.sh: the product bound
    std::printf("%s\n", ss::runner::gemmBenchJson(std::atoll(argv[2]), std::atoll(argv[3]), std::atoll(argv[4])).c_str());
    return 0;
  }
  std::string planPath, optionsJson;
  bool events = false;
  if (const std::optional<int> stop = parseCommandLine(argc, argv, planPath, optionsJson, events)) return *stop;

  ss::RunOptions options;
  if (!optionsJson.empty()) {
    try {
      options = nlohmann::json::parse(optionsJson).get<ss::RunOptions>();
    } catch (const std::exception& e) {
      return usage(std::string("bad --options: ") + e.what());
    }
  }

  std::string stdinText;
  if (planPath == "-") stdinText.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  // Rank programs (runner/rank_programs.h: one graph per rank, as `shardscope run` sends a log of AutoSP's graphs).
  if (planPath == "-" && ss::looksLikeRankProgramsText(stdinText))
    return runRankProgramsMain(stdinText, options, events);

  ss::Result<ss::Plan> plan = loadPlan(planPath, stdinText, events);
  if (!plan) return 2;

  if (refusedBeforeRun(*plan, options, planPath, events)) return 2;

  ss::runner::SandboxPolicy policy;
  policy.maxOpenFiles = ss::runner::openFilesFor(plan->mesh.size());
  policy.isolateNetwork = !options.distributed;
  policy.gpuDevices = options.device == "cuda";
  const ss::runner::SandboxInfo sandbox = ss::runner::enterSandbox(policy);
  if (options.requireSandbox && !sandbox.complete()) {
    ss::RunReport report;
    report.planName = plan->name;
    report.sandbox = sandbox.layers;
    report.error = ss::RunError{"sandbox", -1, -1, "",
                                "--require-sandbox: this machine cannot contain the run fully: " + sandbox.missing()};
    if (events) emitReport(report);
    std::fprintf(stderr, "%s\n", report.error->message.c_str());
    ss::runner::leaveSandbox();
    return 2;
  }
  const int64_t addressSpace = addressSpaceFor(options, plan->mesh.size());
  ss::runner::limitAddressSpace(addressSpace);
  // Blocks of 1 MiB and more that are not tensors' (tensors that big come from runner/reuse_allocator.h) straight
  // from mmap and back to the system on free. glibc's default (a threshold that grows to the largest block freed)
  // keeps freed blocks in each thread's arena, where the other rank threads cannot reuse them: with tensors
  // still on malloc, seed 1 at real size peaked at 3.5 GB instead of 2 (docs/performance.md).
  ::mallopt(M_MMAP_THRESHOLD, 1 << 20);
  // A bounded number of malloc arenas: each reserves 64 MiB of address space, counted by addressSpaceFor.
  ::mallopt(M_ARENA_MAX, static_cast<int>(kArenasPerCore * std::max(1u, std::thread::hardware_concurrency())));
  std::atomic<bool> cancel{false};
  ss::RunReport report;
  {
    Watchdog watchdog(options.budgetSec, events, cancel);
    ss::runner::EventSink sink;
    if (events) sink = [](const ss::RunEvent& e) { emitLine(ss::runEventLine(e)); };
    report = ss::runner::runPlan(*plan, options, sink, &cancel);
    if (watchdog.expired.load()) report.error = ss::RunError{"budget", -1, -1, "", Watchdog::budgetMessage(options.budgetSec)};
  }
  report.peakRssBytes = ss::runner::peakRssBytes();
  report.sandbox = sandbox.layers;
  report.addressSpaceLimitBytes = addressSpace;
  if (!sandbox.complete()) report.notes.push_back("the run was not fully contained: " + sandbox.missing());
  ss::runner::leaveSandbox();
  if (events) {
    emitReport(report);
  } else {
    std::fputs(report.summary().c_str(), stdout);
    std::fflush(stdout);
  }
  return report.exitCode();
}
