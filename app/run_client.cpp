#include "app/run_client.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/io/native/plan_json.h"

#ifndef SHARDSCOPE_RUNNER_FROM_BIN
#error "SHARDSCOPE_RUNNER_FROM_BIN comes from cmake/install.cmake (the installed runner's folder from bin/)"
#endif

namespace ss::app {

struct RunClient::Impl {
  mutable std::mutex mutex;
  std::condition_variable cv;
  std::deque<RunEvent> queue;
  std::optional<RunReport> report;  // delivered
  bool started = false;
  bool sawReport = false;   // child sent one (queued)
  bool ended = false;       // reader finished and the child was reaped (final event queued)
  bool cancelled = false;
  bool overBudget = false;
  double budgetSec = 0;  // the run's wall-clock budget; the client kills a child that outlives it by 30 s
  std::chrono::steady_clock::time_point startedAt;
  pid_t pid = -1;
  std::string stderrTail;
  std::thread writer, reader, errReader;

  void push(RunEvent e) {
    std::lock_guard<std::mutex> lock(mutex);
    queue.push_back(std::move(e));
    cv.notify_all();
  }

  void join() {
    if (writer.joinable()) writer.join();
    if (reader.joinable()) reader.join();
    if (errReader.joinable()) errReader.join();
  }

  // The stderr reader thread's body: keeps the last 8 KiB of the child's stderr in stderrTail, then closes errFd.
  void readStderr(int errFd);
  // The stdout reader thread's body: queues the child's events read from outFd, reaps `pid`, and queues a final
  // report (over budget, cancelled or crashed) when the child sent none.
  void readEvents(int outFd, pid_t pid);
};

RunClient::RunClient() : impl_(std::make_unique<Impl>()) {}

RunClient::~RunClient() {
  cancel();
  impl_->join();
}

namespace {

bool isExecutable(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

std::string lastLine(const std::string& s) {
  size_t end = s.find_last_not_of("\n\r ");
  if (end == std::string::npos) return {};
  size_t start = s.find_last_of('\n', end);
  return s.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

void writeAll(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child closed its stdin (exited): the reader reports why
    off += static_cast<size_t>(n);
  }
}

// A started runner: its pid and the parent's ends of its stdin, stdout and stderr pipes.
struct Child {
  pid_t pid;
  int inFd, outFd, errFd;
};

// Forks and execs `runner` reading a plan on stdin (events on stdout, `optionsText` as its options), its three
// pipes its only descriptors; returns the child and the parent's pipe ends, or why it could not.
Result<Child> spawnRunner(const std::string& runner, const std::string& optionsText) {
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return Error{std::string("pipe: ") + std::strerror(errno), 0, 0, {}};
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    return Error{std::string("pipe: ") + std::strerror(errno), 0, 0, {}};
  }
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return Error{std::string("fork: ") + std::strerror(errno), 0, 0, {}};
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    // The child holds nothing it does not need: only its three pipes (the runner closes the rest again itself).
    ::close_range(3, ~0U, 0);
    const char* argv[] = {runner.c_str(), "-", "--events", "--options", optionsText.c_str(), nullptr};
    ::execv(runner.c_str(), const_cast<char* const*>(argv));
    std::string msg = "cannot start " + runner + ": " + std::strerror(errno) + "\n";
    (void)!::write(2, msg.data(), msg.size());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  return Child{pid, in[1], out[0], err[0]};
}

}  // namespace

void RunClient::Impl::readStderr(int errFd) {
  char buf[4096];
  ssize_t n;
  while ((n = ::read(errFd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
    if (n <= 0) continue;
    std::lock_guard<std::mutex> lock(mutex);
    stderrTail.append(buf, static_cast<size_t>(n));
    if (stderrTail.size() > 8192) stderrTail.erase(0, stderrTail.size() - 8192);
  }
  ::close(errFd);
}

void RunClient::Impl::readEvents(int outFd, pid_t pid) {
  Impl& m = *this;
  std::string pending;
  char buf[65536];
  ssize_t n;
  auto handleLine = [&](const std::string& line) {
    if (line.empty()) return;
    auto ev = parseRunEventLine(line);
    if (!ev) return;  // not ours (a library printed to stdout): ignore
    if (ev->kind == RunEvent::Kind::Report) {
      std::lock_guard<std::mutex> lock(m.mutex);
      if (m.sawReport) return;
      m.sawReport = true;
    }
    m.push(std::move(*ev));
  };
  while ((n = ::read(outFd, buf, sizeof buf)) != 0) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    pending.append(buf, static_cast<size_t>(n));
    size_t pos;
    while ((pos = pending.find('\n')) != std::string::npos) {
      handleLine(pending.substr(0, pos));
      pending.erase(0, pos + 1);
    }
  }
  handleLine(pending);
  ::close(outFd);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (m.errReader.joinable()) m.errReader.join();
  std::lock_guard<std::mutex> lock(m.mutex);
  m.pid = -1;
  if (!m.sawReport) {
    RunReport r;
    RunError e;
    if (m.overBudget) {
      e.stage = "budget";
      e.message = "the runner outlived its wall-clock budget of " + std::to_string(static_cast<int>(m.budgetSec)) +
                  " s and was killed";
    } else if (m.cancelled) {
      e.stage = "cancelled";
      e.message = "cancelled";
    } else {
      e.stage = "crash";
      std::string why = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                            : "exited with code " + std::to_string(WEXITSTATUS(status));
      std::string tail = lastLine(m.stderrTail);
      e.message = "the runner " + why + " without a report" + (tail.empty() ? "" : ": " + tail);
    }
    r.error = e;
    RunEvent ev;
    ev.kind = RunEvent::Kind::Report;
    ev.report = r;
    m.queue.push_back(ev);
    m.sawReport = true;
  }
  m.ended = true;
  m.cv.notify_all();
}

std::string RunClient::findRunner() {
  if (const char* env = std::getenv("SHARDSCOPE_RUNNER"); env && *env && isExecutable(env)) return env;
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return {};
  buf[n] = 0;
  std::string dir(buf);
  dir = dir.substr(0, dir.find_last_of('/'));
  // SHARDSCOPE_RUNNER_FROM_BIN: the installed runner's folder relative to the installed `shardscope`
  // ("../libexec/shardscope"), from the install dirs.
  for (const std::string& cand : {dir + "/shardscope-runner", dir + "/" SHARDSCOPE_RUNNER_FROM_BIN "/shardscope-runner",
                                  dir + "/../runner/shardscope-runner", dir + "/../app/shardscope-runner"}) {
    std::error_code ec;
    if (isExecutable(cand)) return std::filesystem::canonical(cand, ec).string();  // "bin/../libexec" said plainly
  }
  return {};
}

Result<bool> RunClient::start(const Plan& plan, const RunOptions& options) {
  Impl& im = *impl_;
  {
    std::lock_guard<std::mutex> lock(im.mutex);
    if (im.started && !im.report) return Error{"a run is already going", 0, 0, {}};
  }
  im.join();
  // A plan that breaks its own rules (Plan::validate: a spec that does not fit its tensor, an unknown loss node,
  // ...) opens and is shown, but is not run: the refusal lists every finding.
  if (const auto findings = plan.validate(); !findings.empty()) {
    std::string list;
    for (const auto& f : findings)
      list += "; " + (f.node >= 0 ? plan.graph.nodes[f.node].name : std::string("plan")) +
              (f.input >= 0 ? " (input " + std::to_string(f.input) + ")" : std::string()) + " [" + diagKindName(f.kind) +
              "]: " + f.message;
    return Error{"the plan breaks " + std::to_string(findings.size()) + " rule(s) of a valid plan, fix them first" + list,
                 0, 0, {}};
  }
  std::string planText;
  try {
    planText = writePlanString(plan);
  } catch (const std::exception& e) {
    return Error{std::string("cannot serialise the plan: ") + e.what(), 0, 0, {}};
  }
  return startInput(planText, options);
}

Result<bool> RunClient::start(const RankPrograms& programs, const RunOptions& options) {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (impl_->started && !impl_->report) return Error{"a run is already going", 0, 0, {}};
  }
  impl_->join();
  std::string text;
  try {
    text = writeRankProgramsText(programs);
  } catch (const std::exception& e) {
    return Error{std::string("cannot serialise the rank programs: ") + e.what(), 0, 0, {}};
  }
  return startInput(text, options);
}

Result<bool> RunClient::startInput(const std::string& planText, const RunOptions& options) {
  Impl& im = *impl_;
  std::string runner = findRunner();
  if (runner.empty())
    return Error{"cannot find the shardscope-runner executable next to shardscope (set SHARDSCOPE_RUNNER, or build "
                 "with -DSHARDSCOPE_WITH_TORCH=ON)", 0, 0, {}};
  std::string optionsText = nlohmann::json(options).dump();

  Result<Child> child = spawnRunner(runner, optionsText);
  if (!child.ok()) return child.error();
  const pid_t pid = child.value().pid;
  // (Re)initialise the state; the previous run's threads were joined above.
  std::lock_guard<std::mutex> lock(im.mutex);
  im.started = true;
  im.pid = pid;
  im.queue.clear();
  im.report.reset();
  im.sawReport = im.ended = im.cancelled = im.overBudget = false;
  im.budgetSec = options.budgetSec;
  im.startedAt = std::chrono::steady_clock::now();
  im.stderrTail.clear();
  int inFd = child.value().inFd, outFd = child.value().outFd, errFd = child.value().errFd;
  im.writer = std::thread([inFd, planText] {
    signal(SIGPIPE, SIG_IGN);
    writeAll(inFd, planText);
    ::close(inFd);
  });
  im.errReader = std::thread([&im, errFd] { im.readStderr(errFd); });
  im.reader = std::thread([&im, outFd, pid] { im.readEvents(outFd, pid); });
  return true;
}

std::vector<RunEvent> RunClient::poll() { return wait(0); }

std::vector<RunEvent> RunClient::wait(int timeoutMs) {
  Impl& im = *impl_;
  std::unique_lock<std::mutex> lock(im.mutex);
  // Defence in depth behind the runner's own watchdog: a child 30 s past its budget is killed.
  if (im.budgetSec > 0 && im.pid > 0 && !im.ended && !im.overBudget &&
      std::chrono::steady_clock::now() - im.startedAt > std::chrono::duration<double>(im.budgetSec + 30)) {
    im.overBudget = true;
    ::kill(im.pid, SIGKILL);
  }
  if (timeoutMs > 0)
    im.cv.wait_for(lock, std::chrono::milliseconds(timeoutMs), [&] { return !im.queue.empty() || !im.started; });
  std::vector<RunEvent> out(std::make_move_iterator(im.queue.begin()), std::make_move_iterator(im.queue.end()));
  im.queue.clear();
  for (const auto& e : out)
    if (e.kind == RunEvent::Kind::Report && e.report) im.report = e.report;
  return out;
}

void RunClient::cancel() {
  Impl& im = *impl_;
  pid_t pid;
  {
    std::lock_guard<std::mutex> lock(im.mutex);
    pid = im.pid;
    if (pid <= 0 || im.ended) return;
    im.cancelled = true;
  }
  ::kill(pid, SIGTERM);
  for (int i = 0; i < 40; ++i) {
    {
      std::lock_guard<std::mutex> lock(im.mutex);
      if (im.ended) return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::lock_guard<std::mutex> lock(im.mutex);
  if (!im.ended && im.pid > 0) ::kill(im.pid, SIGKILL);
}

bool RunClient::running() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->started && !impl_->report;
}

const std::optional<RunReport>& RunClient::report() const { return impl_->report; }

namespace {
template <typename Input>
RunReport runInputToCompletion(const Input& input, const RunOptions& options,
                               const std::function<void(const RunEvent&)>& onEvent) {
  RunClient client;
  auto ok = client.start(input, options);
  if (!ok) {
    RunReport r;
    r.error = RunError{"setup", -1, -1, "", ok.error().message};
    return r;
  }
  while (true) {
    for (auto& e : client.wait(200)) {
      if (e.kind == RunEvent::Kind::Report && e.report) return *e.report;
      if (onEvent) onEvent(e);
    }
  }
}

}  // namespace

RunReport runToCompletion(const Plan& plan, const RunOptions& options,
                          const std::function<void(const RunEvent&)>& onEvent) {
  return runInputToCompletion(plan, options, onEvent);
}

RunReport runToCompletion(const RankPrograms& programs, const RunOptions& options,
                          const std::function<void(const RunEvent&)>& onEvent) {
  return runInputToCompletion(programs, options, onEvent);
}

}  // namespace ss::app
