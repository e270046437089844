// Merging minute records: sums add, maxima take the larger, and nothing wraps.
#include <doctest/doctest.h>

#include <limits>

#include "model/minute_record.h"

using wr::model::Histogram;
using wr::model::MinuteRecord;

TEST_CASE("model::MinuteRecord::merge saturates at the largest count instead of wrapping") {
    constexpr int64_t k_max = std::numeric_limits<int64_t>::max();
    MinuteRecord stored;
    stored.active_sum = k_max - 1;
    stored.requests[0] = k_max;
    stored.new_admitted = 7;
    stored.active_max = 3;
    MinuteRecord pushed;
    pushed.active_sum = k_max;
    pushed.requests[0] = k_max;
    pushed.new_admitted = 5;
    pushed.active_max = 9;
    stored.merge(pushed);
    CHECK(stored.active_sum == k_max);
    CHECK(stored.requests[0] == k_max);
    CHECK(stored.new_admitted == 12);
    CHECK(stored.active_max == 9);
}

TEST_CASE("model::Histogram merges and counts without wrapping") {
    constexpr uint64_t k_max = std::numeric_limits<uint64_t>::max();
    Histogram full;
    full.buckets()[3] = k_max - 1;
    full.buckets()[7] = k_max;
    Histogram more;
    more.buckets()[3] = 5;
    more.buckets()[7] = 1;
    full.merge(more);
    CHECK(full.buckets()[3] == k_max);
    CHECK(full.buckets()[7] == k_max);
    CHECK(full.count() == k_max);
    CHECK(full.percentile(0.5) == wr::model::bucket_upper_bound(3));
}
