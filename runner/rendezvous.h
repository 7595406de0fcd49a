#pragma once
// In-process rendezvous of the rank threads (plain C++: no Torch), and the exceptions that stop a rank.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace ss::runner {

struct RunStopped : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct CollectiveError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// In-process rendezvous in front of every Gloo collective: all members of a group arrive before any enters
// Gloo, so a rank waiting on a group with a failed member stops at once (as it would hang for real) instead of
// hanging in Gloo, while groups of healthy ranks go on; a member that never arrives produces a timeout that
// names the collective and how many arrived. abort() (cancel) stops every group.
class Rendezvous {
 public:
  void arrive(const std::string& key, const std::vector<int64_t>& members, std::chrono::milliseconds timeout,
              const std::string& what);
  void fail(int64_t rank);
  void abort(const std::string& reason);
  bool aborted() const { return aborted_.load(); }

 private:
  bool memberFailed(const std::vector<int64_t>& members) const;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::string, int> arrived_;
  std::vector<int64_t> failed_;
  std::atomic<bool> aborted_{false};
  std::string reason_;
};

}  // namespace ss::runner
