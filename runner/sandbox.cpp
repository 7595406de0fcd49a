// The runner child's containment (runner/sandbox.h).
#include "runner/sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <linux/netlink.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

namespace ss::runner {
namespace {

// ---- descriptors, limits, the private folder ----

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
  if (resource == RLIMIT_CORE || resource == RLIMIT_FSIZE || resource == RLIMIT_AS) rl.rlim_max = value;  // for good
  ::setrlimit(resource, &rl);
}

std::string errnoText(int e) { return std::strerror(e); }

char gWorkDir[4096] = {0};

// ---- the supervisor ----

volatile pid_t gChild = 0;

void forwardSignal(int sig) {
  if (gChild > 0) ::kill(gChild, sig);
}

// The parent after the fork: waits, cleans up, ends as the child ended. Never returns.
[[noreturn]] void supervise(pid_t child, const std::string& workDir) {
  gChild = child;
  struct sigaction sa {};
  sa.sa_handler = forwardSignal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(sig, &sa, nullptr);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  std::error_code ec;
  std::filesystem::remove_all(workDir, ec);
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    ::signal(sig, SIG_DFL);
    ::raise(sig);
  }
  std::_Exit(WIFEXITED(status) ? WEXITSTATUS(status) : 3);
}

// ---- layer: network ----

bool writeFile(const char* path, const std::string& text) {
  int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

bool loopbackUp(std::string& why) {
  int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return why = "socket: " + errnoText(errno), false;
  struct ifreq ifr {};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  bool ok = ::ioctl(s, SIOCGIFFLAGS, &ifr) == 0;
  if (ok) {
    ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
    ok = ::ioctl(s, SIOCSIFFLAGS, &ifr) == 0;
  }
  if (!ok) why = "bringing loopback up: " + errnoText(errno);
  ::close(s);
  return ok;
}

SandboxLayer isolateNetwork() {
  SandboxLayer l{"network", false, ""};
  const int before = ::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  bool unshared = uid == 0 && ::unshare(CLONE_NEWNET) == 0;
  bool userNs = false;
  if (!unshared) {
    // Without CAP_SYS_ADMIN: a user namespace of its own first (the same uid and gid mapped, so files in the
    // private folder are still created as the user's).
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0) {
      unshared = userNs = true;
      writeFile("/proc/self/setgroups", "deny");
      writeFile("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1");
      writeFile("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1");
    } else {
      l.detail = "unshare(CLONE_NEWNET): " + errnoText(errno) + " (user namespaces may be off on this kernel)";
    }
  }
  if (unshared) {
    std::string why;
    if (loopbackUp(why)) {
      l.active = true;
      l.detail = std::string("own network namespace, loopback only") + (userNs ? " (in a user namespace)" : "");
    } else {
      // Without loopback Gloo cannot pair the rank threads: go back to the host's namespace (a user namespace
      // cannot be left, but it grants nothing outside itself).
      if (before >= 0) (void)::setns(before, CLONE_NEWNET);
      l.detail = why;
    }
  }
  if (before >= 0) ::close(before);
  return l;
}

// ---- layer: filesystem (Landlock) ----

#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

constexpr uint64_t kReadAccess = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
constexpr uint64_t kFileAccess = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |
                                 LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE;

uint64_t handledFor(int abi) {
  uint64_t all = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;  // ABI 1: bits 0..12
  if (abi >= 2) all |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) all |= LANDLOCK_ACCESS_FS_TRUNCATE;
  return all;  // ioctl on devices (ABI 5) stays unhandled: GPU drivers need it, and no path is reached through it
}

bool isBeneath(const std::string& path, const std::string& dir) {
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/');
}

// System folders a LibTorch process reads (libraries, devices, its own /proc entry, CPU topology).
const char* const kReadableDirs[] = {"/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/opt", "/sys"};
// Files of /etc name resolution and the dynamic loader read (not /etc itself: /etc/shadow is root-readable).
const char* const kReadableFiles[] = {"/etc/hosts", "/etc/nsswitch.conf", "/etc/gai.conf", "/etc/host.conf",
                                      "/etc/resolv.conf", "/etc/localtime", "/etc/ld.so.cache", "/etc/ld.so.conf",
                                      "/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/dev/zero", "/dev/urandom",
                                      "/dev/random"};

// Folders of the files this process has mapped (its executable, LibTorch wherever it is installed) that are not
// below a readable system folder: a library loaded later from there (a CUDA LibTorch's lazily opened ones) loads.
std::set<std::string> mappedFolders() {
  std::set<std::string> out;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    const size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    std::string path = line.substr(slash);
    if (path.size() > 10 && path.compare(path.size() - 10, 10, " (deleted)") == 0) continue;
    path = path.substr(0, path.find_last_of('/'));
    bool covered = false;
    for (const char* d : kReadableDirs) covered = covered || isBeneath(path, d);
    if (!covered && !path.empty()) out.insert(path);
  }
  return out;
}

SandboxLayer restrictFilesystem(const std::string& workDir, bool gpu) {
  SandboxLayer l{"filesystem", false, ""};
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1) return l.detail = "this kernel has no Landlock (" + errnoText(errno) + ")", l;
  const uint64_t handled = handledFor(static_cast<int>(abi));
  struct landlock_ruleset_attr attr {};
  attr.handled_access_fs = handled;
  const int rs = static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
  if (rs < 0) return l.detail = "landlock_create_ruleset: " + errnoText(errno), l;
  auto allow = [&](const std::string& path, uint64_t access) {
    const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) return;  // absent on this machine
    struct stat st {};
    if (::fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) access &= kFileAccess;  // rules on files take file rights
    struct landlock_path_beneath_attr pb {};
    pb.allowed_access = access & handled;
    pb.parent_fd = fd;
    (void)::syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
    ::close(fd);
  };
  for (const char* d : kReadableDirs) allow(d, kReadAccess);
  for (const char* f : kReadableFiles) allow(f, kReadAccess);
  for (const std::string& d : mappedFolders()) allow(d, kReadAccess);
  allow("/proc/" + std::to_string(::getpid()), kReadAccess);  // /proc/self: its own status, maps, tasks
  allow("/dev/null", kFileAccess);
  allow(workDir, handled);
  if (gpu)
    if (DIR* dev = ::opendir("/dev")) {
      while (dirent* e = ::readdir(dev))
        if (std::strncmp(e->d_name, "nvidia", 6) == 0) allow(std::string("/dev/") + e->d_name, kFileAccess);
      ::closedir(dev);
    }
  const bool ok = ::syscall(SYS_landlock_restrict_self, rs, 0) == 0;
  const int err = errno;
  ::close(rs);
  if (!ok) return l.detail = "landlock_restrict_self: " + errnoText(err), l;
  l.active = true;
  l.detail = "Landlock ABI " + std::to_string(abi) + ": writes only in the private folder, reads only of system folders";
  return l;
}

// ---- layer: capabilities ----

SandboxLayer dropCapabilities() {
  SandboxLayer l{"capabilities", false, ""};
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  for (int cap = 0; cap <= 63; ++cap)
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL) break;  // past the kernel's last cap
  struct __user_cap_header_struct hdr {};
  hdr.version = _LINUX_CAPABILITY_VERSION_3;
  struct __user_cap_data_struct data[2] {};
  if (::syscall(SYS_capset, &hdr, data) != 0) return l.detail = "capset: " + errnoText(errno), l;
  l.active = true;
  l.detail = "no capabilities";
  return l;
}

// ---- layer: seccomp ----

SandboxLayer installSeccomp() {
  SandboxLayer l{"seccomp", false, ""};
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) return l.detail = "seccomp_init failed", l;
  const uint32_t deny = SCMP_ACT_ERRNO(EPERM);
  int rc = 0;
  auto rule = [&](uint32_t action, const char* name, unsigned count = 0, scmp_arg_cmp cmp = {}) {
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) return;  // not a syscall on this architecture
    const int r = count ? seccomp_rule_add(ctx, action, nr, 1, cmp) : seccomp_rule_add(ctx, action, nr, 0);
    if (r != 0 && rc == 0) rc = r;
  };
  for (const char* name :
       {"execve", "execveat", "fork", "vfork", "ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
        "pidfd_open", "pidfd_getfd", "pidfd_send_signal", "process_madvise", "mount", "umount2", "pivot_root",
        "chroot", "unshare", "setns", "mount_setattr", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount",
        "fspick", "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
        "swapon", "swapoff", "acct", "quotactl", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
        "sethostname", "setdomainname", "iopl", "ioperm", "keyctl", "add_key", "request_key", "bpf",
        "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
        "open_by_handle_at", "name_to_handle_at", "fanotify_init", "lookup_dcookie", "personality", "truncate",
        "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat", "utime", "utimes",
        "utimensat", "futimesat", "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr",
        "fremovexattr", "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setfsuid",
        "setfsgid", "setgroups", "capset", "mknod", "mknodat", "link", "linkat", "symlink", "symlinkat",
        "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self", "seccomp"})
    rule(deny, name);
  // New processes: only threads (glibc's pthread_create uses clone with CLONE_THREAD; clone3's flags sit behind a
  // pointer the filter cannot read, so it answers ENOSYS and glibc falls back to clone).
  rule(deny, "clone", 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
  rule(SCMP_ACT_ERRNO(ENOSYS), "clone3");
  // Signals only to itself.
  const pid_t self = ::getpid();
  rule(deny, "kill", 1, SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(self)));
  rule(deny, "tgkill", 1, SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(self)));
  rule(deny, "tkill");
  rule(deny, "rt_sigqueueinfo", 1, SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(self)));
  rule(deny, "rt_tgsigqueueinfo", 1, SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(self)));
  // Sockets: IPv4 and IPv6 (Gloo), and netlink's route protocol only (getifaddrs, which Gloo calls to find its
  // interface: read-only without capabilities); no unix sockets to other programs' servers, no other netlink
  // protocol (audit, uevents, ...), no raw packets.
  rule(deny, "socket", 1, SCMP_A0(SCMP_CMP_LE, AF_UNIX));
  for (int family = AF_UNIX + 2; family < AF_NETLINK; ++family)
    if (family != AF_INET6) rule(deny, "socket", 1, SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(family)));
  rule(deny, "socket", 1, SCMP_A0(SCMP_CMP_GT, AF_NETLINK));
  {
    const int nr = seccomp_syscall_resolve_name("socket");
    const int r = seccomp_rule_add(ctx, deny, nr, 2, SCMP_A0(SCMP_CMP_EQ, AF_NETLINK),
                                   SCMP_A2(SCMP_CMP_NE, NETLINK_ROUTE));
    if (r != 0 && rc == 0) rc = r;
  }
  if (rc == 0) rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
  if (rc == 0) rc = seccomp_load(ctx);
  seccomp_release(ctx);
  if (rc != 0) return l.detail = "seccomp: " + errnoText(-rc), l;
  l.active = true;
  l.detail = "no exec, no new processes, no signals to others, no mounts or namespaces, no sockets but TCP/UDP";
  return l;
}

}  // namespace

bool SandboxInfo::complete() const {
  if (layers.empty()) return false;
  for (const SandboxLayer& l : layers)
    if (!l.active) return false;
  return true;
}

std::string SandboxInfo::missing() const {
  std::string out;
  for (const SandboxLayer& l : layers)
    if (!l.active) out += (out.empty() ? "" : "; ") + l.name + " (" + l.detail + ")";
  return out;
}

SandboxInfo enterSandbox(const SandboxPolicy& policy) {
  SandboxInfo info;
  for (int fd : openFds())
    if (fd > 2 && ::close(fd) == 0) ++info.closedFds;
  setLimit(RLIMIT_CORE, 0);
  ::signal(SIGXFSZ, SIG_IGN);
  const bool outputIsFile = isRegularFile(1) || isRegularFile(2);
  setLimit(RLIMIT_FSIZE, outputIsFile ? rlim_t{1} << 30 : 0);
  info.fileWritesBlocked = !outputIsFile;
  if (policy.maxOpenFiles > 0) setLimit(RLIMIT_NOFILE, static_cast<rlim_t>(policy.maxOpenFiles));

  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/shardscope-run-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back(0);
  if (::mkdtemp(buf.data())) {
    info.workDir = buf.data();
    std::strncpy(gWorkDir, buf.data(), sizeof gWorkDir - 1);
  }

  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child > 0) supervise(child, info.workDir);
  if (child < 0) {
    info.layers.push_back({"supervisor", false, "fork: " + errnoText(errno)});
  } else {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (::getppid() != parent) std::_Exit(3);  // the supervisor is already gone
  }
  if (!info.workDir.empty() && ::chdir(info.workDir.c_str()) != 0) info.workDir.clear();

  if (policy.isolateNetwork) info.layers.push_back(isolateNetwork());
  else info.layers.push_back({"network", false, "a distributed run talks to other processes over the host's network"});
  SandboxLayer nnp{"no-new-privs", ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, ""};
  nnp.detail = nnp.active ? "setuid and file capabilities gain nothing" : "prctl: " + errnoText(errno);
  info.layers.push_back(nnp);
  if (info.workDir.empty()) info.layers.push_back({"filesystem", false, "no private folder could be made"});
  else info.layers.push_back(restrictFilesystem(info.workDir, policy.gpuDevices));
  info.layers.push_back(dropCapabilities());
  info.layers.push_back(installSeccomp());
  return info;
}

void leaveSandbox() {
  if (!gWorkDir[0]) return;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(gWorkDir, ec)) std::filesystem::remove_all(e.path(), ec);
}

void limitAddressSpace(int64_t bytes) {
  if (bytes > 0) setLimit(RLIMIT_AS, static_cast<rlim_t>(bytes));
}

int64_t openFilesFor(int64_t ranks) {
  // Each rank pairs with at most every other rank once per mesh dim (2 dims typical): a socket each, plus the
  // Gloo device loop's epoll and eventfds, the HashStore, and LibTorch's own.
  return 256 + 4 * ranks * ranks;
}

namespace {
// A "VmXxx:   123 kB" line of /proc/self/status in bytes, 0 when absent.
int64_t statusBytes(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == field) {
      int64_t kb = 0;
      in >> kb;
      return kb * 1024;
    }
    std::string rest;
    std::getline(in, rest);
  }
  return 0;
}
}  // namespace

int64_t peakRssBytes() { return statusBytes("VmHWM:"); }
int64_t mappedBytes() { return statusBytes("VmSize:"); }

namespace {

// Each probe returns "ok" when the call succeeded (the sandbox let it through) or the errno's name.
std::string outcome(bool ok) {
  if (ok) return "ok";
  switch (errno) {
    case EPERM: return "EPERM";
    case EACCES: return "EACCES";
    case ENOSYS: return "ENOSYS";
    case ENETUNREACH: return "ENETUNREACH";
    case EXDEV: return "EXDEV";
    case ENOENT: return "ENOENT";
    case EROFS: return "EROFS";
    case EFBIG: return "EFBIG";
    default: return std::string("errno ") + std::to_string(errno);
  }
}

nlohmann::json probes(const std::string& canary) {
  nlohmann::json p;
  const char* home = std::getenv("HOME");
  {
    int fd = ::open("shardscope-probe", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    p["create_in_private_folder"] = outcome(fd >= 0);
    if (fd >= 0) ::close(fd);
  }
  std::string outside = std::string(home && *home ? home : "/root") + "/shardscope-sandbox-probe";
  {
    int fd = ::open(outside.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    p["create_in_home"] = outcome(fd >= 0);
    if (fd >= 0) ::close(fd), ::unlink(outside.c_str());
  }
  {
    int fd = ::open("/tmp/shardscope-sandbox-probe", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    p["create_in_tmp"] = outcome(fd >= 0);
    if (fd >= 0) ::close(fd), ::unlink("/tmp/shardscope-sandbox-probe");
  }
  if (!canary.empty()) {
    int fd = ::open(canary.c_str(), O_RDONLY | O_CLOEXEC);
    p["canary_read"] = outcome(fd >= 0);
    if (fd >= 0) ::close(fd);
    fd = ::open(canary.c_str(), O_WRONLY | O_CLOEXEC);
    p["canary_write"] = outcome(fd >= 0);
    if (fd >= 0) ::close(fd);
    p["canary_truncate"] = outcome(::truncate(canary.c_str(), 0) == 0);
    p["canary_unlink"] = outcome(::unlink(canary.c_str()) == 0);
    p["canary_rename"] = outcome(::rename(canary.c_str(), (canary + ".moved").c_str()) == 0);
    p["canary_chmod"] = outcome(::chmod(canary.c_str(), 0777) == 0);
    p["canary_link_into_private_folder"] = outcome(::link(canary.c_str(), "canary-link") == 0);
  }
  {
    int fd = ::open("/etc/shadow", O_RDONLY | O_CLOEXEC);
    p["read_etc_shadow"] = outcome(fd >= 0);
    if (fd >= 0) ::close(fd);
  }
  {
    char* const argv[] = {const_cast<char*>("/bin/true"), nullptr};
    p["execve"] = outcome(::execv("/bin/true", argv) == 0);
  }
  {
    pid_t pid = ::fork();
    if (pid == 0) std::_Exit(0);
    if (pid > 0) ::waitpid(pid, nullptr, 0);
    p["fork"] = outcome(pid >= 0);
  }
  p["kill_parent"] = outcome(::kill(::getppid(), 0) == 0);
  p["kill_init"] = outcome(::kill(1, 0) == 0);
  p["ptrace_parent"] = outcome(::syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, ::getppid(), 0, 0) == 0);
  p["unix_socket"] = outcome([] {
    int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s >= 0) ::close(s);
    return s >= 0;
  }());
  p["netlink_uevent_socket"] = outcome([] {
    int s = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
    if (s >= 0) ::close(s);
    return s >= 0;
  }());
  {
    // An address outside loopback (TEST-NET-1, never routed): no route in a namespace of its own.
    int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_in a {};
    a.sin_family = AF_INET;
    a.sin_port = htons(9);
    a.sin_addr.s_addr = htonl(0xC0000201);  // 192.0.2.1
    bool ok = s >= 0 && (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 || errno == EINPROGRESS);
    p["connect_outside"] = outcome(ok);
    if (s >= 0) ::close(s);
  }
  {
    // Loopback works (Gloo pairs rank threads over it).
    int srv = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a {};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    bool ok = srv >= 0 && ::bind(srv, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::listen(srv, 1) == 0 &&
              ::getsockname(srv, reinterpret_cast<sockaddr*>(&a), &len) == 0;
    int c = ok ? ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0) : -1;
    ok = ok && c >= 0 && ::connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    p["loopback"] = outcome(ok);
    if (c >= 0) ::close(c);
    if (srv >= 0) ::close(srv);
  }
  p["mount"] = outcome(::syscall(SYS_mount, "none", "/mnt", "tmpfs", 0, nullptr) == 0);
  p["unshare"] = outcome(::unshare(CLONE_NEWNS) == 0);
  return p;
}

}  // namespace

std::string sandboxReportJson(const SandboxInfo& info, const std::string& canary) {
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
  nlohmann::json layers = nlohmann::json::object();
  for (const SandboxLayer& l : info.layers) layers[l.name] = {{"active", l.active}, {"detail", l.detail}};
  j["layers"] = layers;
  j["complete"] = info.complete();
  j["probes"] = probes(canary);
  return j.dump();
}

}  // namespace ss::runner
