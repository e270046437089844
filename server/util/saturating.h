#pragma once
// Additions of counts that stop at the type's largest value instead of wrapping (which, for a
// signed integer, is undefined behaviour): sums of figures that arrive from elsewhere.
#include <cstdint>
#include <limits>

namespace wr::util {

// a + b for counts (a, b ≥ 0), at most INT64_MAX.
inline int64_t saturating_add(int64_t a, int64_t b) {
    int64_t sum = 0;
    return __builtin_add_overflow(a, b, &sum) ? (b < 0 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max()) : sum;
}

inline uint64_t saturating_add(uint64_t a, uint64_t b) {
    uint64_t sum = 0;
    return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<uint64_t>::max() : sum;
}

} // namespace wr::util
