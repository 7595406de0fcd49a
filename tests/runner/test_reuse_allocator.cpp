// The runner's CPU allocator (runner/reuse_allocator.h): freed pages of big tensors serve later requests of any
// size without faulting again, and what it keeps never raises the footprint above the peak in use. Page faults
// are this thread's own (RUSAGE_THREAD), so the intra-op pool and other tests do not count.
// c10 first: its glog defines CHECK, which Catch's must replace (the other order makes CHECK a fatal glog check).
#include <c10/core/CPUAllocator.h>

#include <catch2/catch.hpp>

#include <sys/resource.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <random>
#include <thread>
#include <vector>

#include "runner/reuse_allocator.h"

using namespace ss::runner;

namespace {

constexpr size_t MiB = size_t{1} << 20;
constexpr size_t kPage = 4096;

int64_t threadFaults() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt;
}

c10::DataPtr allocate(size_t bytes) { return c10::GetCPUAllocator()->allocate(bytes); }

// Transparent huge pages on every anonymous mapping ("[always]"): fresh memory then faults in 2 MiB at a time,
// so only the upper bounds on faults (reused memory) are meaningful there.
bool hugePagesAlways() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return mode.find("[always]") != std::string::npos;
}

// Writes a pattern over every page and reads it back (a mapping assembled wrongly faults or reads other bytes).
bool fillAndCheck(const c10::DataPtr& p, size_t bytes, unsigned char seed) {
  auto* c = static_cast<unsigned char*>(p.get());
  for (size_t i = 0; i < bytes; i += kPage) c[i] = static_cast<unsigned char>(seed + i / kPage);
  std::memset(c + 1, seed, 16);
  for (size_t i = 0; i < bytes; i += kPage)
    if (c[i] != static_cast<unsigned char>(seed + i / kPage)) return false;
  return true;
}

// A clean start: the allocator installed, nothing kept from earlier tests, nothing of ours in use.
ReuseStats freshStart() {
  installReuseAllocator();
  releaseKeptMemory();
  ReuseStats s = reuseStats();
  REQUIRE(s.keptBytes == 0);
  return s;
}

}  // namespace

TEST_CASE("reuse allocator: a freed big block serves the next request without faulting its pages again",
          "[runner][memory]") {
  const ReuseStats s0 = freshStart();
  const size_t bytes = 64 * MiB;
  const int64_t pages = static_cast<int64_t>(bytes / kPage);
  int64_t f0 = threadFaults();
  {
    c10::DataPtr a = allocate(bytes);
    REQUIRE(fillAndCheck(a, bytes, 1));
  }
  const int64_t firstFaults = threadFaults() - f0;
  if (!hugePagesAlways()) CHECK(firstFaults >= pages * 9 / 10);  // fresh memory: every page faults in once
  CHECK(reuseStats().keptBytes == static_cast<int64_t>(bytes));

  f0 = threadFaults();
  {
    c10::DataPtr b = allocate(bytes);
    REQUIRE(fillAndCheck(b, bytes, 2));
  }
  CHECK(threadFaults() - f0 < pages / 20);  // the same pages, still resident
  // A smaller request is cut from the kept range; the rest stays kept.
  {
    c10::DataPtr c = allocate(16 * MiB);
    REQUIRE(fillAndCheck(c, 16 * MiB, 3));
    CHECK(reuseStats().keptBytes == static_cast<int64_t>(48 * MiB));
  }
  const ReuseStats s1 = reuseStats();
  CHECK(s1.mapped - s0.mapped == 1);
  CHECK(s1.reused - s0.reused == 2);
  // Small requests are not ours.
  { c10::DataPtr small = allocate(4096); }
  CHECK(reuseStats().mapped == s1.mapped);
  CHECK(reuseStats().reused == s1.reused);
  // raw_allocate / raw_deallocate (c10's pointer-only interface) work as with the default allocator.
  void* raw = c10::GetCPUAllocator()->raw_allocate(8 * MiB);
  REQUIRE(raw != nullptr);
  std::memset(raw, 9, 8 * MiB);
  const int64_t keptBefore = reuseStats().keptBytes;
  c10::GetCPUAllocator()->raw_deallocate(raw);
  CHECK(reuseStats().keptBytes == keptBefore + static_cast<int64_t>(8 * MiB));
  releaseKeptMemory();
  CHECK(reuseStats().keptBytes == 0);
}

TEST_CASE("reuse allocator: a request larger than every kept range is assembled from them, again and again",
          "[runner][memory]") {
  const ReuseStats s0 = freshStart();
  {
    c10::DataPtr a = allocate(24 * MiB), b = allocate(40 * MiB);
    REQUIRE(fillAndCheck(a, 24 * MiB, 4));
    REQUIRE(fillAndCheck(b, 40 * MiB, 5));
  }
  CHECK(reuseStats().keptBytes == static_cast<int64_t>(64 * MiB));
  int64_t f0 = threadFaults();
  {
    c10::DataPtr c = allocate(64 * MiB);  // 40 grown, 24 moved into its tail
    REQUIRE(fillAndCheck(c, 64 * MiB, 6));
  }
  CHECK(threadFaults() - f0 < static_cast<int64_t>(64 * MiB / kPage / 20));
  // 80 MiB from the two segments the 64 MiB block was made of, and a fresh 16 MiB tail: only that tail faults.
  f0 = threadFaults();
  {
    c10::DataPtr d = allocate(80 * MiB);
    REQUIRE(fillAndCheck(d, 80 * MiB, 7));
  }
  const int64_t tailPages = static_cast<int64_t>(16 * MiB / kPage);
  if (!hugePagesAlways()) CHECK(threadFaults() - f0 >= tailPages * 9 / 10);
  CHECK(threadFaults() - f0 < tailPages + tailPages / 4);
  // Once more from three segments (each inside its own mapping): nothing faults.
  f0 = threadFaults();
  {
    c10::DataPtr e = allocate(80 * MiB);
    REQUIRE(fillAndCheck(e, 80 * MiB, 8));
  }
  CHECK(threadFaults() - f0 < static_cast<int64_t>(80 * MiB / kPage / 20));
  const ReuseStats s1 = reuseStats();
  CHECK(s1.assembled - s0.assembled == 3);
  CHECK(s1.mapped - s0.mapped == 2);
  CHECK(s1.peakBytes - s0.inUseBytes == static_cast<int64_t>(80 * MiB));
  CHECK(s1.keptBytes == static_cast<int64_t>(80 * MiB));
  releaseKeptMemory();
}

TEST_CASE("reuse allocator: in use + kept never passes the peak in use, with threads allocating and freeing",
          "[runner][memory]") {
  freshStart();
  std::atomic<bool> broken{false};
  auto worker = [&](unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<size_t> size(1 * MiB, 20 * MiB);
    std::vector<c10::DataPtr> live;
    for (int step = 0; step < 300; ++step) {
      if (live.size() < 6 && (live.empty() || rng() % 2)) {
        const size_t n = size(rng);
        live.push_back(allocate(n));
        if (!fillAndCheck(live.back(), n, static_cast<unsigned char>(step))) broken = true;
      } else {
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(rng() % live.size()));
      }
      const ReuseStats s = reuseStats();
      if (s.inUseBytes + s.keptBytes > s.peakBytes) broken = true;
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t) threads.emplace_back(worker, 17 + t);
  for (auto& t : threads) t.join();
  CHECK_FALSE(broken.load());
  const ReuseStats s = reuseStats();
  CHECK(s.inUseBytes == 0);
  CHECK(s.keptBytes <= s.peakBytes);
  CHECK(s.reused + s.assembled > s.mapped);  // most requests were served from kept pages
  releaseKeptMemory();
  CHECK(reuseStats().keptBytes == 0);
}
