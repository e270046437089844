// Atomic histograms, drained into plain ones.
#include "analytics/histogram.h"

namespace wr::analytics {

void AtomicHistogram::drain_into(Histogram& into) {
    for (size_t i = 0; i < k_histogram_buckets; ++i) into.buckets()[i] += m_buckets[i].exchange(0, std::memory_order_relaxed);
}

void AtomicHistogram::peek_into(Histogram& into) const {
    for (size_t i = 0; i < k_histogram_buckets; ++i) into.buckets()[i] += m_buckets[i].load(std::memory_order_relaxed);
}

} // namespace wr::analytics
