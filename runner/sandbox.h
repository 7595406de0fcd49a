#pragma once
// What the `shardscope-runner` child holds while it runs someone's plan (plain POSIX, no Torch). Defence in
// depth behind core's op allow-list (core/op_safety.h): even an op that slipped through finds nothing to use.
//
// Contract of enterSandbox (call first thing in main, before any thread starts):
// - closes every descriptor above 2 (inherited ones: the runner needs only stdin, stdout and stderr);
// - RLIMIT_CORE = 0 (no core files), RLIMIT_FSIZE = 0 (no file can be written or grown; SIGXFSZ is ignored so
//   such a write fails with EFBIG instead of killing the run). Exception: when stdout or stderr is itself a
//   regular file (a user redirected the runner's output), RLIMIT_FSIZE is 1 GiB so that output still works;
// - RLIMIT_NOFILE = `maxOpenFiles` (Gloo's loopback pairs need a few per rank pair), never above the hard limit;
// - makes a private working folder (mkdtemp under $TMPDIR or /tmp, mode 0700) and enters it; leaveSandbox() (or
//   SIGTERM/SIGINT) removes it.
// limitAddressSpace caps RLIMIT_AS so that an allocation the plan's shapes did not announce fails as an error of
// its node (c10's "can't allocate memory") instead of taking the machine's memory.
#include <cstdint>
#include <string>

namespace ss::runner {

struct SandboxInfo {
  std::string workDir;   // the private folder (the process's cwd)
  int closedFds = 0;     // inherited descriptors closed
  bool fileWritesBlocked = false;  // RLIMIT_FSIZE is 0
};

SandboxInfo enterSandbox(int64_t maxOpenFiles);
void leaveSandbox();
void limitAddressSpace(int64_t bytes);  // <= 0: unchanged

// Descriptors for `ranks` rank threads on a mesh: Gloo pairs per subgroup, epoll/event fds, pipes, slack.
int64_t openFilesFor(int64_t ranks);

// Peak resident memory of this process (VmHWM), 0 when unknown.
int64_t peakRssBytes();

// `--sandbox-report`: the state a test checks (open descriptors, cwd, limits) as one JSON object.
std::string sandboxReportJson();

}  // namespace ss::runner
