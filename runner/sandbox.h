#pragma once
// What contains the `shardscope-runner` child while it runs someone's plan (plain POSIX and Linux, no Torch).
// Defence in depth behind core's op allow-list (core/ops/op_safety.h) and the runner's op contracts
// (runner/op_contracts.h): even a kernel bug a plan found finds nothing to use. docs/runner.md "Safety" states the
// threat model and what each layer stops.
//
// Contract of enterSandbox (call first thing after the plan is read, before any thread starts):
// - closes every descriptor above 2 (the runner needs only stdin, stdout and stderr);
// - RLIMIT_CORE = 0, RLIMIT_FSIZE = 0 (SIGXFSZ ignored: a write fails with EFBIG); when stdout or stderr is itself
//   a regular file (a user redirected the runner's output), RLIMIT_FSIZE is 1 GiB so that output still works;
//   RLIMIT_NOFILE = policy.maxOpenFiles, never above the hard limit;
// - makes a private working folder (mkdtemp under $TMPDIR or /tmp, mode 0700);
// - forks: the parent becomes a supervisor that does nothing but wait for the child, forward SIGTERM / SIGINT /
//   SIGHUP to it, remove the private folder, and end as the child ended (same exit code, or the same signal).
//   The child (the caller, returning from enterSandbox) dies with its supervisor (PR_SET_PDEATHSIG);
// - in the child, in this order, each layer recorded in SandboxInfo::layers with what it does or why it is not
//   there:
//   * "network": a network namespace of its own with only loopback up (user namespace too when not root), so
//     Gloo between rank threads works and nothing else is reachable; skipped for distributed runs, whose ranks
//     talk across processes and hosts;
//   * "no-new-privs": PR_SET_NO_NEW_PRIVS (no setuid binary, no file capability gains anything);
//   * "filesystem": Landlock: writes (create, write, truncate, remove, rename, link) only beneath the private
//     folder and to /dev/null (and /dev/nvidia* for GPU runs); reads only of the system's library, device and
//     proc folders, a few files of /etc, and the folders of the libraries this process mapped;
//   * "capabilities": every capability dropped (bounding, ambient, effective, permitted, inheritable);
//   * "seccomp": a filter that refuses (EPERM) program execution, new processes (clone without CLONE_THREAD,
//     fork, vfork; clone3 answers ENOSYS so glibc falls back to clone), signals to other processes, ptrace and
//     process_vm_*, mount and namespace calls, kernel modules, keyrings, bpf, perf, io_uring, userfaultfd,
//     handles to other files (open_by_handle_at), file mode, owner, time and xattr changes, path truncate, and
//     sockets other than AF_INET / AF_INET6 and netlink's route protocol (getifaddrs, which Gloo calls).
// - `complete()` is true when every layer the policy asks for is active; `run --require-sandbox` refuses a run
//   (exit 2) otherwise.
// limitAddressSpace caps RLIMIT_AS so that an allocation the plan's shapes did not announce fails as an error of
// its node (c10's "can't allocate memory") instead of taking the machine's memory.
#include <cstdint>
#include <string>
#include <vector>

#include "core/run/run_report.h"

namespace ss::runner {

struct SandboxPolicy {
  int64_t maxOpenFiles = 256;
  bool isolateNetwork = true;  // false for distributed runs
  bool gpuDevices = false;     // CUDA runs: /dev/nvidia* readable and writable
};

struct SandboxInfo {
  std::string workDir;   // the private folder (the process's cwd)
  int closedFds = 0;     // inherited descriptors closed
  bool fileWritesBlocked = false;  // RLIMIT_FSIZE is 0
  std::vector<SandboxLayer> layers;
  bool complete() const;           // every layer active (a layer the policy skips counts as missing)
  std::string missing() const;     // "network (why); seccomp (why)", empty when complete
};

SandboxInfo enterSandbox(const SandboxPolicy& policy);
void leaveSandbox();  // empties the private folder (the supervisor removes the folder itself)
void limitAddressSpace(int64_t bytes);  // <= 0: unchanged

// Descriptors for `ranks` rank threads on a mesh: Gloo pairs per subgroup, epoll/event fds, pipes, slack.
int64_t openFilesFor(int64_t ranks);

// Peak resident memory of this process (VmHWM), and what it has mapped now (VmSize); 0 when unknown.
int64_t peakRssBytes();
int64_t mappedBytes();

// `--sandbox-report`: the state a test checks (open descriptors, cwd, limits, layers) and what the sandbox
// refuses when tried for real (`probes`: each attempt and its errno name, "ok" when it was allowed), as one JSON
// object. `canary` (may be empty) is a file outside the private folder the probes try to change.
std::string sandboxReportJson(const SandboxInfo& info, const std::string& canary);

}  // namespace ss::runner
