// ReplicaExchange (runner/torch_internal.h): a map of published values under one mutex, takers wait on a
// condition variable (woken every 100 ms to look at the stop flag).
#include <chrono>

#include "runner/torch_internal.h"

namespace ss::runner {

void ReplicaExchange::publish(int batch, int node, int input, int64_t leader, std::vector<at::Tensor> value,
                              int takers) {
  if (takers <= 0) return;
  {
    std::lock_guard<std::mutex> lock(m_);
    Entry& e = entries_[Key{batch, node, input, leader}];
    e.value = std::move(value);
    e.takers = takers;
  }
  cv_.notify_all();
}

void ReplicaExchange::publishError(int batch, int node, int input, int64_t leader, const std::string& message,
                                   int takers) {
  if (takers <= 0) return;
  {
    std::lock_guard<std::mutex> lock(m_);
    Entry& e = entries_[Key{batch, node, input, leader}];
    e.failed = true;
    e.error = message;
    e.takers = takers;
  }
  cv_.notify_all();
}

std::vector<at::Tensor> ReplicaExchange::take(int batch, int node, int input, int64_t leader,
                                              const std::atomic<bool>* stop) {
  std::unique_lock<std::mutex> lock(m_);
  const Key key{batch, node, input, leader};
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  while (true) {
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      Entry& e = it->second;
      if (e.failed) {
        std::string msg = e.error;
        if (--e.takers <= 0) entries_.erase(it);
        throw NodeError(node, msg);
      }
      std::vector<at::Tensor> v = --e.takers <= 0 ? std::move(e.value) : e.value;
      if (e.takers <= 0) entries_.erase(it);
      return v;
    }
    if (aborted_ || (stop && stop->load())) throw RunStopped("stopped");
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("the value rank " + std::to_string(leader) + " computes for this rank" +
                               (input >= 0 ? " (input " + std::to_string(input) + ")" : std::string()) +
                               " did not come within the collective timeout");
    cv_.wait_for(lock, std::chrono::milliseconds(100));
  }
}

void ReplicaExchange::abort() {
  {
    std::lock_guard<std::mutex> lock(m_);
    aborted_ = true;
  }
  cv_.notify_all();
}

}  // namespace ss::runner
