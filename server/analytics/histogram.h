#pragma once
// Histograms as the edge fills them: the buckets of model::Histogram, counted by many threads
// with relaxed atomic increments and emptied by one.
#include <array>
#include <atomic>
#include <cstdint>

#include "model/histogram.h"

namespace wr::analytics {

using model::bucket_of;
using model::bucket_upper_bound;
using model::Histogram;
using model::k_histogram_buckets;

class AtomicHistogram {
public:
    void add(int64_t value) { m_buckets[bucket_of(value)].fetch_add(1, std::memory_order_relaxed); }
    // Moves everything counted so far into `into`, leaving this empty.
    void drain_into(Histogram& into);
    // Adds a copy of the counts to `into` without emptying.
    void peek_into(Histogram& into) const;

private:
    std::array<std::atomic<uint64_t>, k_histogram_buckets> m_buckets{};
};

} // namespace wr::analytics
