// ReuseAllocator: see runner/reuse_allocator.h for the contract and the reason.
//
// Memory is page ranges of anonymous mappings, tracked as segments that each lie inside one mapping (VMA), since
// mremap works within one. A freed block's segments stay resident in the kept list. A request is cut from the
// smallest kept segment that holds it (no system call), or, when none is large enough, assembled: the largest
// kept segment grows with mremap and the others, largest first, move into its tail (mremap moves page tables: no
// copy, no fault); only the part beyond every kept byte faults in fresh. Requests take kept pages before any new
// ones, so in use + kept stays at the peak of in use; the eviction in countInUse covers frees on other threads
// between a miss and its mapping.
#include "runner/reuse_allocator.h"

#include <sys/mman.h>
#include <unistd.h>

#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <list>
#include <mutex>
#include <unordered_map>
#include <vector>
#include <cstdio>
#include <cstdlib>

namespace ss::runner {
namespace {

// A page range inside one mapping (VMA): what mremap can grow or move in one call.
struct Segment {
  char* data;
  size_t bytes;
};

// A tensor's memory: contiguous pages, made of one or more segments (an assembled block has several).
struct Block {
  char* data;
  size_t bytes;
  std::vector<size_t> segments;  // lengths, in address order; they sum to `bytes`
};

void* mapFresh(size_t bytes) {
  return ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

class ReuseAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t n) const override {
    if (n < kReuseMinBytes) return c10::GetDefaultCPUAllocator()->allocate(n);
    Block* b = const_cast<ReuseAllocator*>(this)->take(roundToPages(n));
    return {b->data, b->data, &ReuseAllocator::give, c10::Device(c10::kCPU)};
  }
  // The context is the data pointer itself (give() finds the block by it), so raw_allocate works as with c10's
  // default allocator.
  c10::DeleterFnPtr raw_deleter() const override { return &ReuseAllocator::give; }

  void release() {
    std::vector<Segment> dropped;
    {
      std::lock_guard<std::mutex> lock(m_);
      dropped.assign(kept_.begin(), kept_.end());
      kept_.clear();
      stats_.keptBytes = 0;
      stats_.peakBytes = stats_.inUseBytes;
    }
    for (const Segment& s : dropped) ::munmap(s.data, s.bytes);
  }

  ReuseStats stats() const {
    std::lock_guard<std::mutex> lock(m_);
    return stats_;
  }

  static ReuseAllocator& instance() {
    static ReuseAllocator* a = new ReuseAllocator();  // never destroyed: blocks may be freed during exit
    return *a;
  }

 private:
  static size_t roundToPages(size_t n) {
    static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    return (n + page - 1) / page * page;
  }

  Block* take(size_t bytes) {
    std::vector<Segment> evicted;
    {
      std::lock_guard<std::mutex> lock(m_);
      Block* out = cut(bytes, evicted);
      if (!out) out = assemble(bytes);
      if (out) {
        live_.emplace(out->data, out);
        countInUse(bytes, evicted);
        if (evicted.empty()) return out;
        unmapAll(evicted);
        return out;
      }
    }
    // Nothing is kept (or a move failed and its ranges went back): a fresh mapping. A failure may be RLIMIT_AS,
    // which kept pages count against: they are given back before the one retry.
    void* p = mapFresh(bytes);
    if (p == MAP_FAILED) {
      release();
      p = mapFresh(bytes);
    }
    if (p == MAP_FAILED) {
      const int err = errno;
      TORCH_CHECK(false, "can't allocate memory: you tried to allocate ", bytes, " bytes. Error code ", err, " (",
                  std::strerror(err), ")");
    }
    auto* out = new Block{static_cast<char*>(p), bytes, {bytes}};
    {
      std::lock_guard<std::mutex> lock(m_);
      ++stats_.mapped;
      live_.emplace(out->data, out);
      countInUse(bytes, evicted);  // blocks freed meanwhile on other threads may now exceed the peak
    }
    unmapAll(evicted);
    return out;
  }

  // Under m_: `bytes` more in use; the oldest kept segments go (into `evicted`) while in use + kept > peak.
  void countInUse(size_t bytes, std::vector<Segment>& evicted) {
    stats_.inUseBytes += static_cast<int64_t>(bytes);
    stats_.peakBytes = std::max(stats_.peakBytes, stats_.inUseBytes);
    while (!kept_.empty() && stats_.inUseBytes + stats_.keptBytes > stats_.peakBytes) {
      evicted.push_back(kept_.back());
      stats_.keptBytes -= static_cast<int64_t>(kept_.back().bytes);
      kept_.pop_back();
    }
  }

  static void unmapAll(const std::vector<Segment>& segments) {
    for (const Segment& s : segments) ::munmap(s.data, s.bytes);  // outside m_: a big munmap takes milliseconds
  }

  // Under m_: keeps a segment, unless it is too small to be worth a mapping of its own (bounds the number of
  // segments, and so of mappings, to the footprint over kReuseMinBytes).
  void keep(Segment s, std::vector<Segment>& unmap) {
    if (s.bytes < kReuseMinBytes) {
      unmap.push_back(s);
      return;
    }
    kept_.push_front(s);
    stats_.keptBytes += static_cast<int64_t>(s.bytes);
  }

  // Under m_: the head of the smallest kept segment that holds `bytes` (the rest stays kept), or null.
  Block* cut(size_t bytes, std::vector<Segment>& unmap) {
    auto best = kept_.end();
    for (auto it = kept_.begin(); it != kept_.end(); ++it)
      if (it->bytes >= bytes && (best == kept_.end() || it->bytes < best->bytes)) best = it;
    if (best == kept_.end()) return nullptr;
    const Segment s = *best;
    kept_.erase(best);
    stats_.keptBytes -= static_cast<int64_t>(s.bytes);
    if (s.bytes > bytes) keep({s.data + bytes, s.bytes - bytes}, unmap);
    ++stats_.reused;
    return new Block{s.data, bytes, {bytes}};
  }

  // Under m_: every kept segment is smaller than `bytes`. The largest grows to `bytes` and the others, largest
  // first, move into its tail; a tail no kept page covers faults in as new memory. Null when nothing is kept or
  // a move fails (then the ranges involved are unmapped).
  Block* assemble(size_t bytes) {
    if (kept_.empty()) return nullptr;
    kept_.sort([](const Segment& a, const Segment& b) { return a.bytes > b.bytes; });
    const Segment head = kept_.front();
    kept_.pop_front();
    stats_.keptBytes -= static_cast<int64_t>(head.bytes);
    void* p = ::mremap(head.data, head.bytes, bytes, MREMAP_MAYMOVE);
    if (p == MAP_FAILED) {
      ::munmap(head.data, head.bytes);
      return nullptr;
    }
    auto* out = new Block{static_cast<char*>(p), bytes, {head.bytes}};
    size_t filled = head.bytes;
    while (filled < bytes && !kept_.empty()) {
      Segment& from = kept_.front();
      const size_t len = std::min(from.bytes, bytes - filled);
      char* src = from.data + (from.bytes - len);  // the segment's tail: what stays keeps its address
      if (::mremap(src, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, out->data + filled) == MAP_FAILED) {
        ::munmap(out->data, bytes);
        delete out;
        return nullptr;
      }
      out->segments.push_back(len);
      filled += len;
      from.bytes -= len;
      stats_.keptBytes -= static_cast<int64_t>(len);
      if (from.bytes == 0) kept_.pop_front();
    }
    if (filled < bytes) out->segments.push_back(bytes - filled);  // the grown mapping's own (fresh) tail
    ++stats_.assembled;
    return out;
  }

  static void give(void* data) {
    ReuseAllocator& a = instance();
    std::vector<Segment> unmap;
    Block* b = nullptr;
    {
      std::lock_guard<std::mutex> lock(a.m_);
      auto it = a.live_.find(data);
      if (it == a.live_.end()) return;  // not ours (cannot happen: only our DataPtrs carry this deleter)
      b = it->second;
      a.live_.erase(it);
      a.stats_.inUseBytes -= static_cast<int64_t>(b->bytes);
      char* at = b->data;
      for (size_t len : b->segments) {
        a.keep({at, len}, unmap);
        at += len;
      }
    }
    unmapAll(unmap);
    delete b;
  }

  mutable std::mutex m_;
  std::list<Segment> kept_;  // resident page ranges no longer in use, most recently freed first
  std::unordered_map<void*, Block*> live_;  // blocks in use, by their data pointer
  ReuseStats stats_;
};

}  // namespace

void installReuseAllocator() {
  static std::once_flag once;
  std::call_once(once, [] { c10::SetCPUAllocator(&ReuseAllocator::instance(), /*priority=*/1); });
}

void releaseKeptMemory() { ReuseAllocator::instance().release(); }

ReuseStats reuseStats() { return ReuseAllocator::instance().stats(); }

}  // namespace ss::runner
