#pragma once
// Torch-side internals of the runner, shared by runner/exec_graph.cpp, runner/collectives.cpp and
// runner/run_plan.cpp only (nothing outside runner/ includes this: LibTorch headers cost seconds per TU).
//
// Contract: a rank executes the plan's graph on its local tensors (`values[n][k]` = output k of node n);
// the reference run is the same executor with rank -1 and no communicator. Errors at a node are thrown as
// NodeError (node index + one-line message); a stop requested by another rank is thrown as RunStopped.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <ATen/ATen.h>

#include "core/model/plan.h"
#include "core/redistribute/replica.h"
#include "runner/rendezvous.h"

namespace c10d {
class Store;
}

namespace ss::runner {

struct NodeError : std::runtime_error {
  int node;
  NodeError(int n, const std::string& what) : std::runtime_error(what), node(n) {}
};
// First line of an exception's message without ATen's backtrace.
std::string conciseMessage(const std::exception& e);

// One rank's communicator: a ProcessGroupGloo per mesh dim (its subgroup along that dim), plus the
// redistribute steps built on them. Not copyable; lives on its rank's thread.
class RankComm {
 public:
  // `device`: where this rank's tensors live. `nccl`: use ProcessGroupNCCL (CUDA builds, a GPU per rank);
  // otherwise Gloo, staging CUDA tensors through host memory when ranks share GPUs. `glooHost`: the address
  // Gloo binds to ("127.0.0.1" for one host; "if:NAME" an interface; "" the host name's interface).
  RankComm(const DeviceMesh& mesh, int64_t rank, c10::intrusive_ptr<c10d::Store> store, RankRendezvous& rv,
           std::chrono::milliseconds timeout, c10::Device device = c10::kCPU, bool nccl = false,
           const std::string& glooHost = "127.0.0.1");
  ~RankComm();
  RankComm(const RankComm&) = delete;
  RankComm& operator=(const RankComm&) = delete;

  // Turns `local` (this rank's piece of a tensor of global shape `global` laid out as `from`) into its piece
  // under `to`, one mesh dim at a time, as DTensor does. Differentiable: the backward applies the adjoint
  // collectives (all_gather <-> reduce-scatter, all_to_all <-> reverse all_to_all, chunk <-> zero-pad).
  // `local` is taken by value: a caller that hands over its last handle (std::move) lets an all_reduce work in the
  // tensor's own memory instead of a copy (only when no other handle, view or autograd use of it exists).
  at::Tensor redistribute(at::Tensor local, const std::vector<int64_t>& global, const ShardingSpec& from,
                          const ShardingSpec& to, const std::string& where);

  // Reduces a tensor over this rank's group along one mesh dim with `op` (avg: sum / group size); every member
  // gets the result. Every member must pass the same shape (no shape exchange). Used by localisation to combine
  // Partial values; not differentiable.
  at::Tensor reduceAlong(const at::Tensor& t, int meshDim, ReduceOp op, const std::string& where);

  int64_t rank() const { return rank_; }
  const DeviceMesh& mesh() const { return mesh_; }

  struct Impl;

 private:
  DeviceMesh mesh_;
  int64_t rank_;
  std::unique_ptr<Impl> impl_;
};

// Values handed between the rank threads of one process under replica deduplication (core/redistribute/replica.h): the rank
// that computes a value publishes it for the ranks of its class, which take it and use it read-only. Keyed by
// (batch, node, input: -1 the node's outputs, k its input k after the redistribute, leader rank). An entry lives
// until its last taker has it. A failure where the value is computed is published in its place, so that the
// takers report the same node and message as without deduplication. Thread-safe.
class ReplicaExchange {
 public:
  // `timeout`: a value not there after this long fails the taker (as a collective waiting too long does).
  explicit ReplicaExchange(std::chrono::milliseconds timeout) : timeout_(timeout) {}
  void publish(int batch, int node, int input, int64_t leader, std::vector<at::Tensor> value, int takers);
  void publishError(int batch, int node, int input, int64_t leader, const std::string& message, int takers);
  // Blocks until the value is there; throws NodeError (the leader's failure) or RunStopped (abort, `stop`).
  std::vector<at::Tensor> take(int batch, int node, int input, int64_t leader, const std::atomic<bool>* stop);
  void abort();  // a rank stops early: takers waiting, now or later, stop too

 private:
  struct Entry {
    std::vector<at::Tensor> value;
    std::string error;
    bool failed = false;
    int takers = 0;
  };
  using Key = std::tuple<int, int, int, int64_t>;
  std::mutex m_;
  std::condition_variable cv_;
  std::map<Key, Entry> entries_;
  bool aborted_ = false;
  std::chrono::milliseconds timeout_;
};

struct ExecEnv {
  const Plan* plan = nullptr;
  int64_t rank = -1;                 // -1: reference run on whole tensors
  RankComm* comm = nullptr;          // sharded run only
  at::ScalarType floatType = at::kFloat;  // floating tensors run in this type; Undefined = as planned
  c10::Device device = c10::kCPU;    // device arguments (and absent ones on factories) become this
  const std::atomic<bool>* stop = nullptr;
  std::function<void(int done, int total)> progress;
  // Drop each node's value after its last reader (peak memory: live values only, not the whole graph). Off for
  // shape inference, which reads every node afterwards. `keep`: nodes whose values must survive (the loss).
  bool releaseDead = false;
  std::vector<int> keep;
  // Run a same-type aten::_to_copy as the identity (only valid when the graph has no in-place op).
  bool aliasSameTypeCopies = false;
  // Nodes whose autograd history is needed (ancestors of the loss); the others (a joint graph's explicit
  // backward) run without recording, so they save no tensors. Empty: record everything.
  std::vector<bool> recordGrad;
  // Called with each placeholder's and call node's outputs right after they are set (localisation); may run
  // collectives, so every rank gets the same calls. Exceptions become the node's error.
  std::function<void(int node, const std::vector<at::Tensor>& outputs)> afterNode;
  // Replica deduplication (sharded run, ranks of one process): this rank computes the nodes and runs the edges
  // `replicas` gives it and takes the other values from `exchange`. Null: it computes everything.
  const ReplicaPlan* replicas = nullptr;
  ReplicaExchange* exchange = nullptr;
  int batch = 0;
  // Rank programs (runner/rank_programs.h): each rank runs its own graph as written, so shape arguments are never
  // rewritten to a spec's local shape; and a call `callOverride` answers (AutoSP's all-to-all, size arithmetic)
  // runs there instead of the dispatcher (after the allow-list check). nullopt: the dispatcher runs it.
  bool asWritten = false;
  std::function<std::optional<std::vector<at::Tensor>>(int node, const std::vector<at::Tensor>& inputs)> callOverride;
};

using Values = std::vector<std::vector<at::Tensor>>;

// Runs every call node in order; the output node's value is its tensor inputs after their redistributes.
// Placeholders must already be in `values`. Throws NodeError / RunStopped.
void runGraph(const ExecEnv& env, Values& values);

// Per node, whether it writes one of its arguments in place, from its op's schema (`Tensor(a!)`); ops without a
// schema here by core's name rule (core/redistribute/replica.h writesInPlace).
std::vector<bool> inPlaceWriters(const Plan& plan);

// The compute type for a planned dtype under `floatType` (floating types map to it; others stay).
at::ScalarType computeType(DType planned, at::ScalarType floatType);

}  // namespace ss::runner
