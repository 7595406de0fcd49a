// Redistributes on a rank: one ProcessGroupGloo per mesh dim (the rank's subgroup along it) and DTensor's
// per-mesh-dim transforms built on them, differentiable through a custom autograd function.
//
// Sections: Rendezvous, process groups, primitive steps (gather, chunk, all_to_all, all_reduce, divide, embed)
// with exact uneven shards (padding to the largest piece) and _StridedShard pieces, step planning, the autograd
// wrapper.
#include <torch/csrc/autograd/custom_function.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/version.h>
#ifdef SHARDSCOPE_CUDA
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <sstream>

#include "core/run/shape_record.h"
#include "core/model/layout.h"
#include "core/redistribute/redistribute.h"
#include "runner/torch_internal.h"

namespace ss::runner {

// ---- communicator ----

// LibTorch 1.13's process groups derive from ProcessGroup; 2.x's Gloo and NCCL are Backends.
#if TORCH_VERSION_MAJOR >= 2
using GroupBase = c10d::Backend;
#else
using GroupBase = c10d::ProcessGroup;
#endif
using GroupPtr = c10::intrusive_ptr<GroupBase>;

struct RankComm::Impl {
  std::vector<GroupPtr> groups;                                     // per mesh dim
  std::vector<std::vector<int64_t>> members;                        // per mesh dim, in coord order
  std::vector<std::string> keys;                                    // per mesh dim: rendezvous key prefix
  std::vector<int64_t> seq;                                         // per mesh dim: collectives so far
  RankRendezvous* rv = nullptr;
  std::chrono::milliseconds timeout{60000};
  c10::Device device = c10::kCPU;
  bool stageHost = false;  // CUDA tensors over Gloo: copy to host and back around each collective
  bool nccl = false;
};

namespace {
std::string joinRanks(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s.push_back(',');
    s.append(std::to_string(v[i]));
  }
  return s;
}

GroupPtr makeGroup(const c10::intrusive_ptr<c10d::Store>& store, const std::string& prefix, int rankInGroup,
                   int size, std::chrono::milliseconds timeout, bool nccl, const std::string& glooHost) {
#ifdef SHARDSCOPE_CUDA
  if (nccl) {
    auto opts = c10d::ProcessGroupNCCL::Options::create();
    opts->timeout = timeout;
    auto prefixed = c10::make_intrusive<c10d::PrefixStore>(prefix, store);
    return c10::make_intrusive<c10d::ProcessGroupNCCL>(prefixed, rankInGroup, size, opts);
  }
#else
  if (nccl) throw CollectiveError("NCCL requested in a build without CUDA");
#endif
  auto opts = c10d::ProcessGroupGloo::Options::create(timeout);
  if (glooHost.rfind("if:", 0) == 0)
    opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(glooHost.substr(3)));
  else if (glooHost.empty())
    opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  else
    opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(glooHost));
  opts->threads = 1;
  auto prefixed = c10::make_intrusive<c10d::PrefixStore>(prefix, store);
  return c10::make_intrusive<c10d::ProcessGroupGloo>(prefixed, rankInGroup, size, opts);
}
}  // namespace

RankComm::RankComm(const DeviceMesh& mesh, int64_t rank, c10::intrusive_ptr<c10d::Store> store, RankRendezvous& rv,
                   std::chrono::milliseconds timeout, c10::Device device, bool nccl, const std::string& glooHost)
    : mesh_(mesh), rank_(rank), impl_(std::make_unique<Impl>()) {
  impl_->rv = &rv;
  impl_->timeout = timeout;
  impl_->device = device;
  impl_->stageHost = device.is_cuda() && !nccl;
  impl_->nccl = nccl;
  for (int d = 0; d < mesh.ndim(); ++d) {
    auto members = mesh.groupAlong(rank, d);
    int me = static_cast<int>(std::find(members.begin(), members.end(), rank) - members.begin());
    std::string key = "md" + std::to_string(d) + "[" + joinRanks(members) + "]";
    impl_->members.push_back(members);
    impl_->keys.push_back(key);
    impl_->seq.push_back(0);
    impl_->groups.push_back(members.size() > 1
                                ? makeGroup(store, key + "/", me, static_cast<int>(members.size()), timeout, nccl, glooHost)
                                : GroupPtr());
  }
}

RankComm::~RankComm() = default;

namespace {

at::Tensor padTo(const at::Tensor& t, const std::vector<int64_t>& shape) {
  if (t.sizes().vec() == shape) return t.contiguous();
  at::Tensor out = at::zeros(shape, t.options());
  at::Tensor view = out;
  for (int64_t d = 0; d < t.dim(); ++d) view = view.narrow(d, 0, t.size(d));
  view.copy_(t);
  return out;
}

// torch.chunk piece `idx` of `n` over `k`: (offset, size).
std::pair<int64_t, int64_t> chunkPiece(int64_t n, int64_t k, int64_t idx) {
  auto sizes = chunkSizes(n, k);
  int64_t off = 0;
  for (int64_t i = 0; i < idx; ++i) off += sizes[i];
  return {std::min(off, n), sizes[idx]};
}

// The pieces (offset, size) of a dim of extent `n` that coordinate `idx` of a mesh dim of size `k` holds under a
// split with split factor `sf`: sf == 1 is Shard's one torch.chunk piece; sf > 1 is _StridedShard's piece idx of
// each of the sf chunks (DTensor 2.14's _StridedShard._split_tensor, core/model/layout.h).
std::vector<std::pair<int64_t, int64_t>> splitPieces(int64_t n, int64_t k, int64_t sf, int64_t idx) {
  if (sf <= 1) return {chunkPiece(n, k, idx)};
  std::vector<std::pair<int64_t, int64_t>> out;
  for (int64_t j = 0; j < sf; ++j) {
    auto [start, len] = chunkPiece(n, sf, j);
    auto [off, size] = chunkPiece(len, k, idx);
    out.push_back({start + off, size});
  }
  return out;
}

// The pieces of `t` along `d`, concatenated (a copy).
at::Tensor takePieces(const at::Tensor& t, int64_t d, const std::vector<std::pair<int64_t, int64_t>>& pieces) {
  if (pieces.size() == 1) return t.narrow(d, pieces[0].first, pieces[0].second).clone();
  std::vector<at::Tensor> parts;
  for (const auto& [off, size] : pieces) parts.push_back(t.narrow(d, off, size));
  return at::cat(parts, d);
}

// One transform on one mesh dim. Forward records the sizes its adjoint needs (a call is used once forward and
// at most once backward).
struct Step {
  enum Kind { Gather, Chunk, AllToAll, AllReduce, Divide, Embed } kind = Gather;
  int meshDim = 0;
  int srcDim = 0, dstDim = 0;   // tensor dims (Gather/Chunk: srcDim; AllToAll: srcDim -> dstDim; ...->S: dstDim)
  bool toShard = false;         // AllReduce or Gather, then a local chunk along dstDim (Partial -> Shard; a
                                // _StridedShard to or from a Shard goes through Replicate on the same mesh dim)
  int64_t srcSplit = 1;         // Gather: split factor of the _StridedShard gathered (1: a Shard)
  int64_t dstSplit = 1;         // Chunk (along srcDim) and toShard (along dstDim): split factor of the target
  ReduceOp op = ReduceOp::Sum;
  std::vector<int64_t> savedSizes;  // Gather: every peer's size along srcDim (then, with toShard, the size
                                    // before the chunk); Chunk: the size before;
                                    // Embed: this rank's offset and size along srcDim
};

c10d::ReduceOp toC10d(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return c10d::ReduceOp::SUM;
    case ReduceOp::Avg: return c10d::ReduceOp::SUM;  // divided afterwards (Gloo has no AVG)
    case ReduceOp::Product: return c10d::ReduceOp::PRODUCT;
    case ReduceOp::Max: return c10d::ReduceOp::MAX;
    case ReduceOp::Min: return c10d::ReduceOp::MIN;
  }
  return c10d::ReduceOp::SUM;
}

}  // namespace

// Executes the primitives on this rank from the tensors' actual local shapes (as a real system with dynamic
// shapes does), so a plan whose local shapes disagree with its specs diverges or fails as it would for real.
struct StepRunner {
  RankComm::Impl& impl;
  const DeviceMesh& mesh;
  int64_t rank;
  std::string where;

  int64_t groupSize(int d) const { return static_cast<int64_t>(impl.members[d].size()); }
  // Tensors handed to the process group: host copies when CUDA tensors go over Gloo, the rank's device for NCCL.
  // Gloo has no bfloat16: such tensors travel as float32 (exact for gathers and all_to_all; sums in fp32).
  at::Tensor commIn(const at::Tensor& t) const {
    at::Tensor x = impl.stageHost ? t.cpu() : (t.device() == impl.device ? t : t.to(impl.device));
    if (x.scalar_type() == at::kBFloat16 && !impl.nccl) x = x.to(at::kFloat);
    return x;
  }
  at::Tensor commOut(const at::Tensor& t, at::ScalarType type) const {
    return t.to(impl.device, type);
  }
  int64_t myIndex(int d) const {
    const auto& m = impl.members[d];
    return std::find(m.begin(), m.end(), rank) - m.begin();
  }

  void enter(int d, const char* what) {
    std::string key = impl.keys[d] + "#" + std::to_string(impl.seq[d]++);
    impl.rv->arrive(key, impl.members[d], impl.timeout,
                    std::string(what) + " on mesh dim " + std::to_string(d) + " (" + where + ")");
  }
  void wait(const c10::intrusive_ptr<c10d::Work>& w, const char* what) {
    try {
      w->wait(impl.timeout);
    } catch (const std::exception& e) {
      throw CollectiveError(std::string(what) + " failed (" + where + "): " + conciseMessage(e));
    }
  }

  // Every peer's local shape (a tiny all_gather first, so uneven and unexpected shapes are handled). Fixed-size
  // records [ndim, sizes...]: Gloo cannot gather zero elements (scalars have no sizes).
  std::vector<std::vector<int64_t>> peerShapes(const at::Tensor& t, int d) {
    if (t.dim() > kShapeRecordRank) throw CollectiveError("tensors above 16 dims are not supported (" + where + ")");
    enter(d, "shape exchange");
    std::vector<at::Tensor> in{commIn(at::tensor(writeShapeRecord(t.sizes().vec()), at::kLong))};
    std::vector<std::vector<at::Tensor>> out(1);
    for (int64_t k = 0; k < groupSize(d); ++k) out[0].push_back(at::empty({kShapeRecordRank + 1}, in[0].options()));
    wait(impl.groups[d]->allgather(out, in), "shape exchange");
    // Each peer's record is checked before use (core/run/shape_record.h), so a record that lies cannot make this
    // read past its values.
    std::vector<std::vector<int64_t>> shapes;
    for (size_t peer = 0; peer < out[0].size(); ++peer) {
      at::Tensor h = out[0][peer].cpu().to(at::kLong).contiguous();
      auto shape = readShapeRecord(h.data_ptr<int64_t>(), h.numel());
      if (!shape)
        throw CollectiveError("shape exchange: peer " + std::to_string(peer) + " sent " + shape.error().message + " (" +
                              where + ")");
      shapes.push_back(std::move(*shape));
    }
    return shapes;
  }

  // `sameShapes`: the caller guarantees every member sends the same shape (no shape exchange first).
  at::Tensor allReduce(const at::Tensor& t, int d, ReduceOp op, bool sameShapes = false) {
    if (!sameShapes)
      for (const auto& s : peerShapes(t, d))
        if (s != t.sizes().vec())
          throw CollectiveError("all_reduce over local shapes " + shapeToString(t.sizes().vec()) + " and " +
                                shapeToString(s) + " (" + where + ")");
    enter(d, "all_reduce");
    // Nobody else holds this tensor (the executor handed over a dead value: no other handle, view or autograd
    // use): reduce in its own memory; otherwise into a copy.
    const bool sole = t.use_count() == 1 && t.storage().use_count() == 1 && !t.requires_grad() && t.is_contiguous();
    std::vector<at::Tensor> v{commIn(sole ? t : t.contiguous().clone())};
    const at::ScalarType type = t.scalar_type();
    c10d::AllreduceOptions o;
    o.reduceOp = toC10d(op);
    wait(impl.groups[d]->allreduce(v, o), "all_reduce");
    if (op == ReduceOp::Avg) v[0].div_(static_cast<double>(groupSize(d)));
    return commOut(v[0], type);
  }

  // All peers' pieces along td, in place: peer order for a Shard; for a _StridedShard (sf > 1) piece j of every
  // peer in turn, for each of the sf chunks (each peer's local tensor is its pieces in chunk order).
  at::Tensor gather(const at::Tensor& t, int d, int td, std::vector<int64_t>* sizesOut, int64_t sf = 1) {
    auto shapes = peerShapes(t, d);
    std::vector<int64_t> padded = t.sizes().vec(), sizes;
    for (const auto& s : shapes) {
      if (s.size() != padded.size())
        throw CollectiveError("all_gather over tensors of different ranks (" + where + ")");
      for (size_t k = 0; k < s.size(); ++k) padded[k] = std::max(padded[k], s[k]);
      sizes.push_back(s[td]);
    }
    enter(d, "all_gather");
    std::vector<at::Tensor> in{commIn(padTo(t, padded))};
    std::vector<std::vector<at::Tensor>> out(1);
    for (size_t k = 0; k < shapes.size(); ++k) out[0].push_back(at::empty(padded, in[0].options()));
    wait(impl.groups[d]->allgather(out, in), "all_gather");
    std::vector<at::Tensor> parts;
    for (size_t k = 0; k < shapes.size(); ++k) {
      at::Tensor p = commOut(out[0][k], t.scalar_type());
      for (size_t dim = 0; dim < shapes[k].size(); ++dim) p = p.narrow(dim, 0, shapes[k][dim]);
      parts.push_back(p);
    }
    if (sizesOut) *sizesOut = sizes;
    if (sf <= 1) return at::cat(parts, td);
    int64_t total = 0;
    for (int64_t n : sizes) total += n;
    const int64_t k = static_cast<int64_t>(parts.size());
    std::vector<std::vector<std::pair<int64_t, int64_t>>> pieces(parts.size());
    for (int64_t q = 0; q < k; ++q) {
      pieces[q] = splitPieces(total, k, sf, q);
      int64_t held = 0;
      for (const auto& piece : pieces[q]) held += piece.second;
      if (held != sizes[q])
        throw CollectiveError("_StridedShard gather: rank " + std::to_string(q) + " of the group holds " +
                              std::to_string(sizes[q]) + " along dim " + std::to_string(td) + ", its pieces " +
                              std::to_string(held) + " (" + where + ")");
    }
    std::vector<at::Tensor> ordered;
    std::vector<int64_t> at(parts.size(), 0);  // where the next piece starts in each peer's local tensor
    for (int64_t j = 0; j < sf; ++j)
      for (int64_t q = 0; q < k; ++q) {
        const int64_t size = pieces[q][j].second;
        ordered.push_back(parts[q].narrow(td, at[q], size));
        at[q] += size;
      }
    return at::cat(ordered, td);
  }

  // DTensor's local chunk: this rank's torch.chunk piece along td (its strided pieces when sf > 1).
  at::Tensor chunk(const at::Tensor& t, int d, int td, int64_t sf = 1) {
    return takePieces(t, td, splitPieces(t.size(td), groupSize(d), sf, myIndex(d)));
  }

  // S(src) -> S(dst) on mesh dim d: each rank cuts its tensor along dst into group-size pieces (torch.chunk),
  // sends piece q to peer q, and concatenates what it receives along src in peer order.
  at::Tensor allToAll(const at::Tensor& t, int d, int src, int dst) {
    auto shapes = peerShapes(t, d);
    int64_t k = groupSize(d), me = myIndex(d);
    std::vector<int64_t> padded = t.sizes().vec();
    for (const auto& s : shapes) {
      if (s.size() != padded.size()) throw CollectiveError("all_to_all over tensors of different ranks (" + where + ")");
      for (size_t x = 0; x < s.size(); ++x) padded[x] = std::max(padded[x], s[x]);
    }
    padded[dst] = chunkSizes(padded[dst], k)[0];
    std::vector<at::Tensor> send;
    for (int64_t q = 0; q < k; ++q) {
      auto [off, size] = chunkPiece(t.size(dst), k, q);
      send.push_back(padTo(t.narrow(dst, off, size), padded));
    }
    at::Tensor in = commIn(at::stack(send).contiguous());
    at::Tensor out = at::empty_like(in);
    std::vector<int64_t> counts;  // empty = equal splits
    enter(d, "all_to_all");
    wait(impl.groups[d]->alltoall_base(out, in, counts, counts), "all_to_all");
    out = commOut(out, t.scalar_type());
    std::vector<at::Tensor> parts;
    for (int64_t q = 0; q < k; ++q) {
      at::Tensor p = out[q];
      for (size_t x = 0; x < shapes[q].size(); ++x) {
        int64_t size = static_cast<int>(x) == dst ? chunkPiece(shapes[q][x], k, me).second : shapes[q][x];
        p = p.narrow(x, 0, size);
      }
      parts.push_back(p);
    }
    return at::cat(parts, src);
  }

  at::Tensor forward(Step& s, const at::Tensor& t) {
    if (groupSize(s.meshDim) == 1) return t;  // a mesh dim of size 1: every transform is the identity
    switch (s.kind) {
      case Step::Gather: {
        at::Tensor r = gather(t, s.meshDim, s.srcDim, &s.savedSizes, s.srcSplit);
        if (!s.toShard) return r;
        s.savedSizes.push_back(r.size(s.dstDim));  // after every peer's size: the size before the chunk
        return chunk(r, s.meshDim, s.dstDim, s.dstSplit);
      }
      case Step::Chunk:
        s.savedSizes = {t.size(s.srcDim)};
        return chunk(t, s.meshDim, s.srcDim, s.dstSplit);
      case Step::AllToAll: return allToAll(t, s.meshDim, s.srcDim, s.dstDim);
      case Step::AllReduce: {
        at::Tensor r = allReduce(t, s.meshDim, s.op);
        // Partial -> Shard is an all_reduce then a local chunk (Gloo has no reduce_scatter).
        if (s.toShard) {
          s.savedSizes = {r.size(s.dstDim)};
          return chunk(r, s.meshDim, s.dstDim, s.dstSplit);
        }
        return r;
      }
      case Step::Divide:
        return s.op == ReduceOp::Sum ? t / static_cast<double>(groupSize(s.meshDim)) : t.clone();
      case Step::Embed: return embed(t, s.meshDim, s.srcDim, &s.savedSizes);
    }
    return t;
  }

  // S(td) -> P(sum) (DTensor's Shard._to_partial_tensor): this rank's shard written into zeros of the unsharded
  // size along td, at its place among the peers' shards (their actual sizes, from a shape exchange).
  at::Tensor embed(const at::Tensor& t, int d, int td, std::vector<int64_t>* saved) {
    const auto shapes = peerShapes(t, d);
    const int64_t me = myIndex(d);
    int64_t total = 0, off = 0;
    for (size_t q = 0; q < shapes.size(); ++q) {
      if (shapes[q].size() != static_cast<size_t>(t.dim()))
        throw CollectiveError("shard -> partial over tensors of different ranks (" + where + ")");
      if (static_cast<int64_t>(q) < me) off += shapes[q][td];
      total += shapes[q][td];
    }
    std::vector<int64_t> shape = t.sizes().vec();
    shape[td] = total;
    at::Tensor out = at::zeros(shape, t.options());
    if (t.size(td) > 0) out.narrow(td, off, t.size(td)).copy_(t);
    *saved = {off, t.size(td)};
    return out;
  }

  // Zero tensor of the size before a chunk, with this rank's piece (its strided pieces when sf > 1) written in.
  at::Tensor unchunk(const at::Tensor& g, int d, int td, int64_t before, int64_t sf = 1) {
    std::vector<int64_t> shape = g.sizes().vec();
    shape[td] = before;
    at::Tensor out = at::zeros(shape, g.options());
    int64_t from = 0;
    for (const auto& [off, size] : splitPieces(before, groupSize(d), sf, myIndex(d))) {
      if (size > 0) out.narrow(td, off, size).copy_(g.narrow(td, from, size));
      from += size;
    }
    return out;
  }

  // Adjoint for the objective "sum of every rank's loss".
  at::Tensor backward(const Step& s, const at::Tensor& g) {
    if (groupSize(s.meshDim) == 1) return g;
    switch (s.kind) {
      case Step::Gather: {
        const int64_t k = groupSize(s.meshDim), me = myIndex(s.meshDim);
        const at::Tensor full = s.toShard ? unchunk(g, s.meshDim, s.dstDim, s.savedSizes.at(k), s.dstSplit) : g;
        at::Tensor sum = allReduce(full, s.meshDim, ReduceOp::Sum);
        if (s.srcSplit > 1) {
          int64_t total = 0;
          for (int64_t q = 0; q < k; ++q) total += s.savedSizes.at(q);
          return takePieces(sum, s.srcDim, splitPieces(total, k, s.srcSplit, me));
        }
        int64_t off = 0;
        for (int64_t q = 0; q < me; ++q) off += s.savedSizes.at(q);
        return sum.narrow(s.srcDim, off, s.savedSizes.at(me)).clone();
      }
      case Step::Chunk: return unchunk(g, s.meshDim, s.srcDim, s.savedSizes.at(0), s.dstSplit);
      case Step::AllToAll: return allToAll(g, s.meshDim, s.dstDim, s.srcDim);
      case Step::AllReduce: {
        at::Tensor full = s.toShard ? unchunk(g, s.meshDim, s.dstDim, s.savedSizes.at(0), s.dstSplit) : g;
        return allReduce(full, s.meshDim, ReduceOp::Sum);
      }
      case Step::Divide:
        return s.op == ReduceOp::Sum ? g / static_cast<double>(groupSize(s.meshDim)) : g.clone();
      case Step::Embed: return g.narrow(s.srcDim, s.savedSizes.at(0), s.savedSizes.at(1)).clone();
    }
    return g;
  }
};

namespace {

// The steps core's planner gives (core/redistribute/redistribute.h: DTensor's greedy order, nested shards undone innermost
// first), so the run performs exactly the collectives `check`, the cost model and the views show.
std::vector<Step> planSteps(const std::vector<int64_t>& global, const DeviceMesh& mesh, const ShardingSpec& from,
                            const ShardingSpec& to, const std::string& where) {
  TensorMeta meta;
  meta.shape = global;
  RedistributePlan plan = planRedistribute(meta, mesh, from, to);
  if (!plan.possible)
    throw CollectiveError("cannot redistribute " + from.toMeshString() + " -> " + to.toMeshString() + ": " +
                          plan.whyNot + " (" + where + ")");
  std::vector<Step> steps;
  for (const auto& ps : plan.steps) {
    Step s;
    s.meshDim = ps.meshDim;
    // A transform ending in a Shard or _StridedShard after a collective (all_gather or all_reduce first) chunks.
    const bool thenChunk = ps.to.isShard();
    switch (ps.kind) {
      case CollectiveKind::AllGather:
        s.kind = Step::Gather; s.srcDim = ps.from.dim; s.srcSplit = ps.fromSplit;
        s.toShard = thenChunk; s.dstDim = ps.to.dim; s.dstSplit = ps.toSplit;
        break;
      case CollectiveKind::AllToAll: s.kind = Step::AllToAll; s.srcDim = ps.from.dim; s.dstDim = ps.to.dim; break;
      case CollectiveKind::AllReduce:
        s.kind = Step::AllReduce; s.op = ps.from.reduce;
        s.toShard = thenChunk; s.dstDim = ps.to.dim; s.dstSplit = ps.toSplit;
        break;
      case CollectiveKind::ReduceScatter:
        s.kind = Step::AllReduce; s.op = ps.from.reduce; s.toShard = true; s.dstDim = ps.to.dim;
        s.dstSplit = ps.toSplit;
        break;
      case CollectiveKind::LocalChunk: s.kind = Step::Chunk; s.srcDim = ps.to.dim; s.dstSplit = ps.toSplit; break;
      case CollectiveKind::LocalDivide: s.kind = Step::Divide; s.op = ps.to.reduce; break;
      case CollectiveKind::LocalEmbed: s.kind = Step::Embed; s.srcDim = ps.from.dim; break;
      case CollectiveKind::None: continue;
    }
    steps.push_back(s);
  }
  return steps;
}

// One redistribute call: its rank's step runner and steps. Owned by the autograd node whose backward may run
// it (a capsule in the node's saved data), so it lives exactly as long as the graph that can use it; the
// communicator it works through outlives every graph of its rank.
struct RedistCall : torch::CustomClassHolder {
  StepRunner runner;
  std::vector<Step> steps;
  RedistCall(StepRunner r, std::vector<Step> s) : runner(std::move(r)), steps(std::move(s)) {}
  at::Tensor forward(at::Tensor t) {
    for (auto& s : steps) t = runner.forward(s, t);
    return t;
  }
};

// Autograd: forward applies the steps, backward their adjoints in reverse order.
struct RedistributeFn : public torch::autograd::Function<RedistributeFn> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, at::Tensor x, c10::intrusive_ptr<RedistCall> call) {
    ctx->saved_data["call"] = c10::IValue::make_capsule(call);
    return call->forward(std::move(x));
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    auto call = c10::static_intrusive_pointer_cast<RedistCall>(ctx->saved_data["call"].toCapsule());
    at::Tensor g = grads[0];
    for (auto it = call->steps.rbegin(); it != call->steps.rend(); ++it) g = call->runner.backward(*it, g);
    return {g, at::Tensor()};
  }
};

}  // namespace

at::Tensor RankComm::redistribute(at::Tensor local, const std::vector<int64_t>& global,
                                  const ShardingSpec& from, const ShardingSpec& to, const std::string& where) {
  if (from == to) return local;
  auto call = c10::make_intrusive<RedistCall>(StepRunner{*impl_, mesh_, rank_, where},
                                             planSteps(global, mesh_, from, to, where));
  if (local.requires_grad()) return RedistributeFn::apply(local, call);
  return call->forward(std::move(local));
}

at::Tensor RankComm::reduceAlong(const at::Tensor& t, int meshDim, ReduceOp op, const std::string& where) {
  if (meshDim < 0 || meshDim >= mesh_.ndim() || mesh_.dimSize(meshDim) == 1) return t;
  StepRunner runner{*impl_, mesh_, rank_, where};
  return runner.allReduce(t, meshDim, op, true);
}

}  // namespace ss::runner
