#pragma once
// Saturating arithmetic for sizes, byte counts and memory estimates of non-negative numbers: a described tensor
// of 2^62 elements times its dtype, or the sum over ranks of such tensors, is INT64_MAX, never a wrapped (small or
// negative) number that would let an oversized plan pass a bound.
#include <cstdint>
#include <limits>

namespace ss {

inline constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// a * b for a, b >= 0 (a negative operand gives 0), INT64_MAX when the product does not fit.
constexpr int64_t satMul(int64_t a, int64_t b) {
  if (a <= 0 || b <= 0) return 0;
  return a > kInt64Max / b ? kInt64Max : a * b;
}
// a + b for a, b >= 0, INT64_MAX when the sum does not fit.
constexpr int64_t satAdd(int64_t a, int64_t b) { return a > kInt64Max - b ? kInt64Max : a + b; }

}  // namespace ss
