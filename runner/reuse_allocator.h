#pragma once
// The runner's CPU allocator for tensors (plain declarations: no Torch here; runner/reuse_allocator.cpp installs
// it into c10). Why: glibc serves every block of 1 MiB and more (runner/main.cpp's mmap threshold) with its own
// mapping and unmaps it at free, so each big tensor of each batch and rank faulted its pages in anew: seed 1 at
// real size faulted 3.6 million pages (14.5 GB, 7.5 s of kernel time in a 14 s run) for a peak of 1.8 GB.
//
// Contract:
// - Requests of at least kReuseMinBytes get whole pages of anonymous memory; smaller ones go to c10's default
//   allocator. Freed pages stay resident ("kept") and serve later requests of any size: cut from a kept range
//   that holds the request, or assembled from several (mremap moves page tables: no copy, no fault). Only the
//   part of a request beyond every kept byte faults fresh pages in.
// - Kept pages never raise the footprint: bytes in use + bytes kept <= the peak of the bytes in use since the
//   last releaseKeptMemory() (the oldest kept pages are unmapped when another thread's free would pass it). So
//   the process's high-water mark stays what it would be without reuse, within page rounding.
// - A failed mapping (RLIMIT_AS) gives every kept page back and tries once more, then throws c10's error
//   ("can't allocate memory: ..."), which the executor reports at its node.
// - Thread-safe (one mutex); blocks may be freed on any thread. Memory contents are not cleared (as malloc's).
#include <cstddef>
#include <cstdint>

namespace ss::runner {

constexpr size_t kReuseMinBytes = size_t{1} << 20;

// Makes it c10's CPU allocator for the rest of the process (tensors made before keep their own deleter). Once
// per process; later calls do nothing.
void installReuseAllocator();

// Unmaps every kept page and starts a new peak (the end of a run: a process that runs several plans holds
// nothing of the last one).
void releaseKeptMemory();

struct ReuseStats {
  int64_t reused = 0;     // requests cut from one kept range
  int64_t assembled = 0;  // requests assembled from kept ranges (and a fresh tail when they were short)
  int64_t mapped = 0;     // requests with nothing kept: a fresh mapping
  int64_t inUseBytes = 0, keptBytes = 0, peakBytes = 0;
};
ReuseStats reuseStats();

}  // namespace ss::runner
