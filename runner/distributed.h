#pragma once
// `shardscope run FILE --distributed`: ranks spread over processes (and hosts) that torchrun, a Slurm script or
// a person started with torch.distributed's env:// variables. Included by runner/*.cpp only (c10d types).
//
// Contract:
// - DistributedEnv::fromEnvironment reads MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK (LOCAL_RANK optional);
//   a missing or malformed one is an error that names it.
// - Cluster::join connects to the c10d TCPStore at MASTER_ADDR:MASTER_PORT (process RANK 0 serves it and waits
//   for all WORLD_SIZE processes; under torchrun, TORCHELASTIC_USE_AGENT_STORE=True, the agent serves it); a rendezvous that does not complete within the timeout is an error naming
//   how many processes were expected. Process p runs mesh ranks [p * n, (p + 1) * n), n = mesh size /
//   WORLD_SIZE (a mesh size that WORLD_SIZE does not divide is an error). Gloo connects the ranks of all
//   processes through the same store.
// - Every process beats a heartbeat in the store; a process whose heartbeat stops (killed, crashed) makes every
//   other process's collectives stop with "process P (ranks a-b) stopped responding" within a few seconds, and a
//   lost store (process 0 gone) ends the others with an error naming MASTER_ADDR:MASTER_PORT. Never a hang.
// - After the sharded run every process publishes its ranks' results; process 0 combines them into the report
//   and publishes it; every process returns that same report (so each exits with the verdict's code).
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/model/result.h"
#include "core/run/run_report.h"
#include "runner/divergence.h"
#include "runner/torch_internal.h"

namespace ss::runner {

struct DistributedEnv {
  std::string masterAddr;
  int masterPort = 0;
  int worldSize = 1;
  int rank = 0;
  int localRank = 0;
  static Result<DistributedEnv> fromEnvironment();
};

// The contiguous block of mesh ranks process `process` of `processes` runs: [first, end).
struct RankBlock {
  int64_t first = 0;
  int64_t end = 0;
};
Result<RankBlock> rankBlock(int64_t meshSize, int processes, int process);

// What one rank's thread found, as it travels between processes.
struct RankResult {
  std::optional<RunError> error;
  std::vector<double> losses;    // per batch
  std::vector<BlockMeasure> measures;
  std::vector<BlockMeasure> outputMeasures;  // per batch, its blocks of the compared outputs (run_data.h measureOutputs)
};
std::string encodeRankResult(const RankResult& r);
std::optional<RankResult> decodeRankResult(const std::string& text);

// The cross-process RankRendezvous: arrivals are counters in the store, failures and aborts are keys there.
class StoreRendezvous : public RankRendezvous {
 public:
  explicit StoreRendezvous(c10::intrusive_ptr<c10d::Store> store) : store_(std::move(store)) {}
  void arrive(const std::string& key, const std::vector<int64_t>& members, std::chrono::milliseconds timeout,
              const std::string& what) override;
  void fail(int64_t rank) override;
  void abort(const std::string& reason) override;  // this process's ranks stop; other processes too
  bool aborted() const override { return aborted_.load(); }
  void abortLocally(const std::string& reason);     // only this process (its peer died, its store is gone)
  std::string reason() const;

 private:
  bool memberFailed(const std::vector<int64_t>& members);
  c10::intrusive_ptr<c10d::Store> store_;
  mutable std::mutex mutex_;
  std::atomic<bool> aborted_{false};
  std::string reason_;
  std::vector<int64_t> localFailed_;
};

class Cluster {
 public:
  static Result<std::unique_ptr<Cluster>> join(const DistributedEnv& env, int64_t meshSize,
                                               std::chrono::milliseconds timeout);
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  int process() const { return env_.rank; }
  int processes() const { return env_.worldSize; }
  const RankBlock& block() const { return block_; }
  c10::intrusive_ptr<c10d::Store> store() const { return store_; }
  // A connection of its own to the same store, for one rank's Gloo groups: c10d's TCPStore client serialises
  // its operations, and Gloo's connect waits on keys inside them, so rank threads sharing one client (and the
  // heartbeat) would wait for each other forever.
  c10::intrusive_ptr<c10d::Store> newClient() const;
  StoreRendezvous& rendezvous() { return *rv_; }
  const std::string& glooHost() const { return glooHost_; }
  std::string where() const;  // "MASTER_ADDR:MASTER_PORT"

  // Publishes this process's results (one per rank of its block, in order). Process 0 then waits for every
  // process's and returns all mesh ranks' results; the others return theirs. An error when a process is gone.
  Result<std::vector<RankResult>> gatherResults(const std::vector<RankResult>& mine);
  // Process 0 publishes `report` (and stops any process still running); the others publish an early error if
  // they have one and no results went out, then wait for process 0's report and return it.
  RunReport shareReport(const RunReport& report);
  // Non-empty once the heartbeat saw a process stop or lost the store.
  std::string lostPeer() const;

 private:
  Cluster() = default;
  void heartbeat();
  // Waits until every key (any: one of them) exists; an error when a process is gone or the store is lost.
  Result<bool> waitFor(const std::vector<std::string>& keys, bool any = false);
  DistributedEnv env_;
  RankBlock block_;
  std::string glooHost_ = "127.0.0.1";
  c10::intrusive_ptr<c10d::Store> store_;
  std::unique_ptr<StoreRendezvous> rv_;
  std::chrono::milliseconds deadAfter_{10000};
  std::chrono::milliseconds timeout_{60000};
  bool agentStore_ = false;   // torchrun's agent serves the store (TORCHELASTIC_USE_AGENT_STORE=True)
  std::string prefix_;        // every key lives under it (one per torchrun restart attempt)
  std::thread beat_;
  std::atomic<bool> stopBeat_{false};
  mutable std::mutex mutex_;
  std::string lost_;
  bool published_ = false;
};

}  // namespace ss::runner
