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

// What a rank calls in front of every collective (RankComm): arrive() returns when every member of the group has
// arrived, throws RunStopped when a member failed or the run was aborted, CollectiveError on timeout.
// Rendezvous (below) serves rank threads of one process; StoreRendezvous (runner/distributed.h) serves ranks
// spread over processes, through the c10d store they share.
class RankRendezvous {
 public:
  virtual ~RankRendezvous() = default;
  virtual void arrive(const std::string& key, const std::vector<int64_t>& members, std::chrono::milliseconds timeout,
                      const std::string& what) = 0;
  virtual void fail(int64_t rank) = 0;
  virtual void abort(const std::string& reason) = 0;
  virtual bool aborted() const = 0;
};

// In-process rendezvous in front of every Gloo collective: all members of a group arrive before any enters
// Gloo, so a rank waiting on a group with a failed member stops at once (as it would hang for real) instead of
// hanging in Gloo, while groups of healthy ranks go on; a member that never arrives produces a timeout that
// names the collective and how many arrived. abort() (cancel) stops every group.
class Rendezvous : public RankRendezvous {
 public:
  void arrive(const std::string& key, const std::vector<int64_t>& members, std::chrono::milliseconds timeout,
              const std::string& what) override;
  void fail(int64_t rank) override;
  void abort(const std::string& reason) override;
  bool aborted() const override { return aborted_.load(); }

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
