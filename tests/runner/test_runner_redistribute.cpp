// RankComm::redistribute on real Gloo groups (one thread per rank): every plan core gives, executed, leaves each
// rank exactly the piece core's layout says the target spec gives it, and its backward is the adjoint. Covers
// the planners the runner can meet: DTensor's greedy one, its graph search (shard orders, a small and a large
// tensor, which take different steps), the greedy fallback for a _StridedShard that is no shard order, and the
// Shard -> Partial(sum) embed.
#include <catch2/catch.hpp>

#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include <thread>

#include "core/model/layout.h"
#include "core/model/placement_parse.h"
#include "core/redistribute/redistribute.h"
#include "runner/divergence_measure.h"
#include "runner/rendezvous.h"
#include "runner/torch_internal.h"

using namespace ss;
using namespace ss::runner;

namespace {

ShardingSpec parse(const std::string& s) {
  auto r = parseSpec(s);
  INFO(s);
  REQUIRE(r.ok());
  return *r;
}

struct Outcome {
  std::vector<at::Tensor> out;   // per rank: the redistributed local tensor
  std::vector<at::Tensor> grad;  // per rank: the gradient of the sum of every rank's output sum
  std::string error;
};

// Runs from -> to on every rank of `mesh` (threads), starting from each rank's piece of `whole` under `from`.
Outcome run(const DeviceMesh& mesh, const at::Tensor& whole, const ShardingSpec& from, const ShardingSpec& to) {
  const int64_t n = mesh.size();
  auto store = c10::make_intrusive<c10d::HashStore>();
  Rendezvous rv;
  Outcome o;
  o.out.resize(n);
  o.grad.resize(n);
  std::vector<std::string> errors(n);
  std::vector<std::thread> threads;
  for (int64_t r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      try {
        // 60 s per collective: with three builds loading 2 cores one case once waited past 20 s (0.9 s alone).
        RankComm comm(mesh, r, store, rv, std::chrono::milliseconds(60000));
        auto shard = shardOnRank(whole.sizes().vec(), mesh, from, r);
        if (!shard.ok()) throw std::runtime_error(shard.error().message);
        at::Tensor local = sliceToShard(whole, *shard).clone().requires_grad_(true);
        at::Tensor out = comm.redistribute(local, whole.sizes().vec(), from, to, "test");
        out.sum().backward();
        o.out[r] = out.detach();
        o.grad[r] = local.grad().defined() ? local.grad() : at::zeros_like(local);
      } catch (const std::exception& e) {
        errors[r] = conciseMessage(e);
        rv.abort(errors[r]);
      }
    });
  for (auto& t : threads) t.join();
  for (const auto& e : errors)
    if (!e.empty() && o.error.empty()) o.error = e;
  return o;
}

// Every rank holds its piece of `whole` under `to`; the gradients, added up per global element over the ranks
// holding it under `from`, equal how many ranks hold that element under `to` (the adjoint of a data movement).
void requireExact(const DeviceMesh& mesh, const std::vector<int64_t>& shape, const std::string& fromText,
                  const std::string& toText) {
  INFO(shapeToString(shape) << " on " << mesh.toString() << ": " << fromText << " -> " << toText);
  const ShardingSpec from = parse(fromText), to = parse(toText);
  const at::Tensor whole = at::arange(TensorMeta{shape, DType::F32, true}.numel(), at::kFloat).reshape(shape);
  const Outcome o = run(mesh, whole, from, to);
  REQUIRE(o.error.empty());
  at::Tensor gradSum = at::zeros_like(whole), count = at::zeros_like(whole);
  for (int64_t r = 0; r < mesh.size(); ++r) {
    INFO("rank " << r);
    auto want = shardOnRank(shape, mesh, to, r);
    REQUIRE(want.ok());
    const at::Tensor expected = sliceToShard(whole, *want);
    REQUIRE(o.out[r].sizes() == expected.sizes());
    CHECK(at::equal(o.out[r], expected));
    // Scatter this rank's gradient and its output multiplicity back to global positions.
    auto src = shardOnRank(shape, mesh, from, r);
    REQUIRE(src.ok());
    at::Tensor index = sliceToShard(at::arange(whole.numel(), at::kLong).reshape(shape), *src).reshape(-1);
    gradSum.view(-1).index_add_(0, index, o.grad[r].reshape(-1));
    at::Tensor held = sliceToShard(at::arange(whole.numel(), at::kLong).reshape(shape), *want).reshape(-1);
    count.view(-1).index_add_(0, held, at::ones({held.numel()}, at::kFloat));
  }
  CHECK(at::equal(gradSum, count));
}

}  // namespace

TEST_CASE("redistribute runs: DTensor's greedy plans, uneven", "[runner][redistribute]") {
  const DeviceMesh m2x2({2, 2});
  requireExact(m2x2, {7, 5}, "S(0)S(0)", "RS(0)");
  requireExact(m2x2, {7, 5}, "S(0)S(1)", "S(1)S(0)");
  requireExact(m2x2, {5, 3}, "RS(1)", "S(0)R");
}

TEST_CASE("redistribute runs: shard orders through DTensor's graph search, small and large", "[runner][redistribute]") {
  const DeviceMesh m2x2({2, 2});
  // [8, 8] gathers and chunks; [512, 512] moves the split with one all_to_all (docs/cost-model.md).
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{8, 8}, std::vector<int64_t>{512, 512}}) {
    const TensorMeta meta{shape, DType::F32, true};
    const auto plan = planRedistribute(meta, m2x2, parse("S(0)[1]S(0)[0]"), parse("S(1)S(0)"));
    REQUIRE(plan.possible);
    CHECK(plan.steps.size() == (shape[0] == 8 ? 2u : 1u));
    requireExact(m2x2, shape, "S(0)[1]S(0)[0]", "S(1)S(0)");
  }
  requireExact(m2x2, {7, 5}, "S(1)[1]S(1)[0]", "S(0)S(1)");
  requireExact(DeviceMesh({2, 2, 2}), {8, 6, 4}, "S(0)[2]S(0)[1]S(0)[0]", "S(1)RS(0)");
  requireExact(DeviceMesh({2, 3}), {12, 6}, "_S(0, 3)S(0)", "RS(1)");  // decoded: S(0)[1]S(0)[0]
}

TEST_CASE("redistribute runs: a _StridedShard that is no shard order", "[runner][redistribute]") {
  // A view's _S(0, 4) on a 1-D mesh, to and from Shard and Replicate, uneven.
  const DeviceMesh m4({4});
  requireExact(m4, {12, 6}, "_S(0, 4)", "S(0)");
  requireExact(m4, {10, 3}, "_S(0, 4)", "R");
  requireExact(m4, {10, 3}, "R", "_S(0, 4)");
  requireExact(m4, {12, 6}, "S(1)", "_S(0, 3)");
  // Its tensor dim's innermost split on a 2-D mesh.
  requireExact(DeviceMesh({2, 2}), {9, 4}, "S(0)_S(0, 3)", "RR");
}

TEST_CASE("redistribute runs: Shard -> Partial(sum) writes the shard into zeros", "[runner][redistribute]") {
  const DeviceMesh m4({4});
  const at::Tensor whole = at::arange(35, at::kFloat).reshape({7, 5});
  const Outcome o = run(m4, whole, parse("S(0)"), parse("P(sum)"));
  REQUIRE(o.error.empty());
  at::Tensor sum = at::zeros_like(whole);
  for (const auto& t : o.out) {
    REQUIRE(t.sizes() == whole.sizes());
    sum += t;
  }
  CHECK(at::equal(sum, whole));
  for (const auto& g : o.grad) CHECK(at::equal(g, at::ones_like(g)));  // each element once per rank's sum
}
