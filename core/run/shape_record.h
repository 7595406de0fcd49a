#pragma once
// The shape exchange's wire record: every rank tells its group its local shape before a collective, as a fixed-size
// record [ndim, size_0, ..., size_{ndim-1}, 0...] of kShapeRecordRank + 1 int64 values (Gloo cannot gather zero
// elements, so scalars still send a record). A record comes from another process (another host under
// --distributed): it is data, and `readShapeRecord` checks it before anything indexes with it.
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/result.h"

namespace ss {

inline constexpr int64_t kShapeRecordRank = 16;

// The record for `shape` (at most kShapeRecordRank dims: the caller refuses more).
inline std::vector<int64_t> writeShapeRecord(const std::vector<int64_t>& shape) {
  std::vector<int64_t> rec(kShapeRecordRank + 1, 0);
  rec[0] = static_cast<int64_t>(shape.size());
  for (size_t k = 0; k < shape.size() && k < static_cast<size_t>(kShapeRecordRank); ++k) rec[k + 1] = shape[k];
  return rec;
}

// The shape a peer's record holds, or why it cannot be one: a wrong length, a dim count outside
// [0, kShapeRecordRank], a negative size.
inline Result<std::vector<int64_t>> readShapeRecord(const int64_t* rec, int64_t n) {
  if (n != kShapeRecordRank + 1)
    return Error{"a record of " + std::to_string(n) + " values (expected " + std::to_string(kShapeRecordRank + 1) + ")"};
  const int64_t dims = rec[0];
  if (dims < 0 || dims > kShapeRecordRank)
    return Error{"a dim count of " + std::to_string(dims) + " (at most " + std::to_string(kShapeRecordRank) + ")"};
  for (int64_t k = 1; k <= dims; ++k)
    if (rec[k] < 0) return Error{"a negative size " + std::to_string(rec[k])};
  return std::vector<int64_t>(rec + 1, rec + 1 + dims);
}

}  // namespace ss
