// Rendezvous: see runner/rendezvous.h.
#include "runner/rendezvous.h"

#include <algorithm>
#include <sstream>

namespace ss::runner {

void Rendezvous::arrive(const std::string& key, const std::vector<int64_t>& members,
                        std::chrono::milliseconds timeout, const std::string& what) {
  std::unique_lock<std::mutex> lock(mutex_);
  int& count = arrived_[key];
  ++count;
  cv_.notify_all();
  int size = static_cast<int>(members.size());
  cv_.wait_for(lock, timeout, [&] { return aborted_.load() || memberFailed(members) || arrived_[key] >= size; });
  // Everyone arrived: go on together, whatever happened since (the others are already in the collective).
  if (arrived_[key] >= size) return;
  if (aborted_.load()) throw RunStopped("stopped: " + reason_);
  if (memberFailed(members)) throw RunStopped("stopped: a rank of this group failed");
  {
    std::ostringstream os;
    os << "timed out after " << timeout.count() / 1000.0 << " s waiting for " << what << ": " << arrived_[key]
       << " of " << size << " ranks arrived";
    throw CollectiveError(os.str());
  }
}

bool Rendezvous::memberFailed(const std::vector<int64_t>& members) const {
  for (int64_t f : failed_)
    if (std::find(members.begin(), members.end(), f) != members.end()) return true;
  return false;
}

void Rendezvous::fail(int64_t rank) {
  std::lock_guard<std::mutex> lock(mutex_);
  failed_.push_back(rank);
  cv_.notify_all();
}

void Rendezvous::abort(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!aborted_.load()) reason_ = reason;
  aborted_ = true;
  cv_.notify_all();
}

}  // namespace ss::runner
