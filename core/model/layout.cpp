#include "core/model/layout.h"

#include <algorithm>
#include <charconv>
#include <limits>

namespace ss {

int64_t DimSlice::size() const {
  int64_t n = 0;
  for (const auto& p : parts) n += p.length;
  return n;
}

int64_t DimSlice::offset(int64_t dimSize) const {
  for (const auto& p : parts)
    if (p.length > 0) return p.start;
  return dimSize;
}

int64_t RankShard::numel() const {
  int64_t n = 1;
  for (auto s : localShape) {
    if (s <= 0) return 0;
    n = n > std::numeric_limits<int64_t>::max() / s ? std::numeric_limits<int64_t>::max() : n * s;  // saturate
  }
  return n;
}

std::vector<int64_t> chunkSizes(int64_t n, int64_t k) {
  std::vector<int64_t> out(static_cast<size_t>(k), 0);
  if (k <= 0) return out;
  int64_t chunk = n / k + (n % k != 0);  // ceil(n/k) without overflowing n + k - 1
  int64_t left = n;
  for (int64_t i = 0; i < k; ++i) {
    int64_t c = std::min(chunk, left);
    out[static_cast<size_t>(i)] = c;
    left -= c;
  }
  return out;
}

namespace {

// Piece j of torch.chunk(n, k) as [start, start + length), without building all k sizes: a rank's shard costs
// O(1) per Shard and O(sf) per StridedShard however large the mesh (building the sizes per rank made a
// 2^20-rank layout quadratic, and _S(0, 2^20) on 1024 ranks allocated 8 GiB per rank).
Interval chunkPiece(int64_t n, int64_t k, int64_t j) {
  const int64_t chunk = n / k + (n % k != 0);
  if (chunk == 0) return {n, 0};
  const int64_t start = j > n / chunk ? n : j * chunk;  // j * chunk <= n here: no overflow
  return {start, std::min(chunk, n - start)};
}

// Upper bound on the intervals one rank's slices hold: each StridedShard multiplies them by its split factor.
int64_t intervalsPerRank(const ShardingSpec& spec, int tensorRank) {
  int64_t parts = std::max(1, tensorRank);
  for (const auto& p : spec.placements) {
    if (p.kind != PlacementKind::StridedShard || p.splitFactor <= 1) continue;
    parts = parts > kMaxLayoutIntervals / p.splitFactor ? kMaxLayoutIntervals + 1 : parts * p.splitFactor;
  }
  return parts;
}

std::string tooManyIntervals(int64_t ranks, int64_t perRank) {
  return "the layout would hold up to " + std::to_string(ranks) + " rank(s) x " + std::to_string(perRank) +
         " interval(s); the limit is " + std::to_string(kMaxLayoutIntervals) +
         " (use fewer ranks or smaller split factors)";
}

// Takes the local positions [from, from+len) of a slice (positions count across its parts in order) and
// returns the global intervals they cover.
void takeRange(const DimSlice& in, int64_t from, int64_t len, DimSlice& out) {
  int64_t pos = 0;
  for (const auto& p : in.parts) {
    int64_t a = std::max(from, pos), b = std::min(from + len, pos + p.length);
    if (a < b) {
      int64_t gs = p.start + (a - pos);
      if (!out.parts.empty() && out.parts.back().start + out.parts.back().length == gs)
        out.parts.back().length += b - a;
      else
        out.parts.push_back({gs, b - a});
    }
    pos += p.length;
  }
}

}  // namespace

Result<RankShard> shardOnRank(const std::vector<int64_t>& globalShape, const DeviceMesh& mesh,
                              const ShardingSpec& spec, int64_t rank) {
  const int rankDims = static_cast<int>(globalShape.size());
  if (auto why = validateSpec(spec, mesh, rankDims); !why.empty()) return Error{why};
  if (rank < 0 || rank >= mesh.size())
    return Error{"rank " + std::to_string(rank) + " is not on the " + mesh.toString() + " mesh"};
  for (int d = 0; d < rankDims; ++d)
    if (globalShape[d] < 0) return Error{"tensor dim " + std::to_string(d) + " has negative size"};
  if (const int64_t parts = intervalsPerRank(spec, rankDims); parts > kMaxLayoutIntervals)
    return Error{tooManyIntervals(1, parts)};

  RankShard r;
  r.rank = rank;
  r.coord = mesh.coordOf(rank);
  r.slices.resize(rankDims);
  for (int d = 0; d < rankDims; ++d) r.slices[d].parts.push_back({0, globalShape[d]});
  for (int d = 0; d < rankDims; ++d) {
    for (int m : spec.meshDimsSharding(d)) {
      const Placement& p = spec.placements[m];
      const int64_t k = mesh.dimSize(m);
      const int64_t i = r.coord[m];
      const DimSlice cur = r.slices[d];
      const int64_t n = cur.size();
      DimSlice next;
      if (p.kind == PlacementKind::Shard) {
        const Interval piece = chunkPiece(n, k, i);
        takeRange(cur, piece.start, piece.length, next);
      } else {  // StridedShard: sf chunks, each cut into k; this coordinate keeps piece i of every one
        const int64_t sf = p.splitFactor;
        for (int64_t j = 0; j < sf; ++j) {
          const Interval first = chunkPiece(n, sf, j);
          const Interval piece = chunkPiece(first.length, k, i);
          takeRange(cur, first.start + piece.start, piece.length, next);
        }
      }
      r.slices[d] = std::move(next);
    }
  }
  r.localShape.resize(rankDims);
  r.offset.resize(rankDims);
  for (int d = 0; d < rankDims; ++d) {
    r.localShape[d] = r.slices[d].size();
    r.offset[d] = r.slices[d].offset(globalShape[d]);
    if (r.localShape[d] == 0) r.empty = true;
  }
  r.partial = spec.hasPartial();
  return r;
}

Result<std::vector<RankShard>> layoutAllRanks(const std::vector<int64_t>& globalShape, const DeviceMesh& mesh,
                                              const ShardingSpec& spec) {
  const int64_t perRank = intervalsPerRank(spec, static_cast<int>(globalShape.size()));
  if (perRank > kMaxLayoutIntervals / std::max<int64_t>(1, mesh.size())) return Error{tooManyIntervals(mesh.size(), perRank)};
  std::vector<RankShard> out;
  out.reserve(static_cast<size_t>(mesh.size()));
  for (int64_t r = 0; r < mesh.size(); ++r) {
    auto s = shardOnRank(globalShape, mesh, spec, r);
    if (!s) return s.error();
    out.push_back(std::move(*s));
  }
  return out;
}

Result<std::vector<int64_t>> localShape(const std::vector<int64_t>& globalShape, const DeviceMesh& mesh,
                                        const ShardingSpec& spec, int64_t rank) {
  auto s = shardOnRank(globalShape, mesh, spec, rank);
  if (!s) return s.error();
  return s->localShape;
}

std::string shapeToString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

Result<std::vector<int64_t>> parseShape(std::string_view s) {
  std::vector<int64_t> out;
  std::string_view t = s;
  int base = 1;  // columns count in `s`, 1-based: past a leading bracket
  if (!t.empty() && (t.front() == '[' || t.front() == '(')) {
    t = t.substr(1);
    base = 2;
  }
  if (!t.empty() && (t.back() == ']' || t.back() == ')')) t.remove_suffix(1);
  size_t i = 0;
  if (t.empty()) return out;  // a scalar
  while (i <= t.size()) {
    while (i < t.size() && t[i] == ' ') ++i;
    int64_t v = 0;
    auto [p, ec] = std::from_chars(t.data() + i, t.data() + t.size(), v);
    if (ec != std::errc() || p == t.data() + i || v < 0)
      return Error::at("expected a non-negative size", static_cast<int>(i) + base);
    out.push_back(v);
    i = static_cast<size_t>(p - t.data());
    while (i < t.size() && t[i] == ' ') ++i;
    if (i == t.size()) break;
    if (t[i] != ',' && t[i] != 'x') return Error::at(std::string("unexpected '") + t[i] + "' in the shape", static_cast<int>(i) + base);
    ++i;
  }
  if (out.size() > 64) return Error::at("a tensor has at most 64 dims", 1);
  return out;
}

}  // namespace ss
