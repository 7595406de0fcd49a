// The runner child's bounds (runner/sandbox.h).
#include "runner/sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

namespace ss::runner {
namespace {

char gWorkDir[4096] = {0};  // static storage: read by the signal handler

void onTerminate(int sig) {
  if (gWorkDir[0]) ::rmdir(gWorkDir);  // async-signal-safe; the folder is empty (nothing can be written)
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

bool isRegularFile(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<int> openFds() {
  std::vector<int> fds;
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return fds;
  const int self = ::dirfd(d);
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    int fd = std::atoi(e->d_name);
    if (fd != self) fds.push_back(fd);
  }
  ::closedir(d);
  return fds;
}

void setLimit(int resource, rlim_t value) {
  struct rlimit rl {};
  if (::getrlimit(resource, &rl) != 0) return;
  if (rl.rlim_max != RLIM_INFINITY && value > rl.rlim_max) value = rl.rlim_max;
  rl.rlim_cur = value;
  if (resource == RLIMIT_CORE || resource == RLIMIT_FSIZE) rl.rlim_max = value;  // for good
  ::setrlimit(resource, &rl);
}

}  // namespace

SandboxInfo enterSandbox(int64_t maxOpenFiles) {
  SandboxInfo info;
  for (int fd : openFds())
    if (fd > 2 && ::close(fd) == 0) ++info.closedFds;
  setLimit(RLIMIT_CORE, 0);
  ::signal(SIGXFSZ, SIG_IGN);
  const bool outputIsFile = isRegularFile(1) || isRegularFile(2);
  setLimit(RLIMIT_FSIZE, outputIsFile ? rlim_t{1} << 30 : 0);
  info.fileWritesBlocked = !outputIsFile;
  if (maxOpenFiles > 0) setLimit(RLIMIT_NOFILE, static_cast<rlim_t>(maxOpenFiles));

  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/shardscope-run-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back(0);
  if (::mkdtemp(buf.data()) && ::chdir(buf.data()) == 0) {
    info.workDir = buf.data();
    std::strncpy(gWorkDir, buf.data(), sizeof gWorkDir - 1);
    ::signal(SIGTERM, onTerminate);
    ::signal(SIGINT, onTerminate);
  }
  return info;
}

void leaveSandbox() {
  if (!gWorkDir[0]) return;
  std::string dir = gWorkDir;
  gWorkDir[0] = 0;
  if (::chdir("/") != 0) return;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

void limitAddressSpace(int64_t bytes) {
  if (bytes > 0) setLimit(RLIMIT_AS, static_cast<rlim_t>(bytes));
}

int64_t openFilesFor(int64_t ranks) {
  // Each rank pairs with at most every other rank once per mesh dim (2 dims typical): a socket each, plus the
  // Gloo device loop's epoll and eventfds, the HashStore, and LibTorch's own.
  return 256 + 4 * ranks * ranks;
}

int64_t peakRssBytes() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmHWM:") {
      int64_t kb = 0;
      in >> kb;
      return kb * 1024;
    }
    std::string rest;
    std::getline(in, rest);
  }
  return 0;
}

std::string sandboxReportJson() {
  nlohmann::json j;
  j["fds"] = openFds();
  char cwd[4096] = {0};
  j["cwd"] = ::getcwd(cwd, sizeof cwd) ? cwd : "";
  auto lim = [](int r) {
    struct rlimit rl {};
    ::getrlimit(r, &rl);
    return rl.rlim_cur == RLIM_INFINITY ? nlohmann::json(-1) : nlohmann::json(static_cast<int64_t>(rl.rlim_cur));
  };
  j["rlimit_fsize"] = lim(RLIMIT_FSIZE);
  j["rlimit_core"] = lim(RLIMIT_CORE);
  j["rlimit_nofile"] = lim(RLIMIT_NOFILE);
  j["rlimit_as"] = lim(RLIMIT_AS);
  return j.dump();
}

}  // namespace ss::runner
