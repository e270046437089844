// Log-scale histograms: exact for small values, mergeable exactly, percentiles by nearest rank.
#include <doctest/doctest.h>

#include "analytics/histogram.h"

using wr::analytics::Histogram;

TEST_CASE("analytics: histogram buckets are exact up to 44 and log-scale above") {
    for (int64_t v = 0; v <= 44; ++v) {
        CAPTURE(v);
        CHECK(wr::analytics::bucket_upper_bound(wr::analytics::bucket_of(v)) == v);
    }
    int64_t previous = -1;
    for (size_t i = 0; i < wr::analytics::k_histogram_buckets; ++i) {
        const int64_t bound = wr::analytics::bucket_upper_bound(i);
        CHECK(bound > previous);
        if (i > 45) CHECK(static_cast<double>(bound) <= static_cast<double>(previous) * 1.1 + 1);
        CHECK(wr::analytics::bucket_of(bound) == i);
        previous = bound;
    }
    CHECK(wr::analytics::bucket_of(-5) == 0);
    CHECK(wr::analytics::bucket_of(INT64_MAX) == wr::analytics::k_histogram_buckets - 1);
}

TEST_CASE("analytics: percentiles are exact on values at bucket bounds") {
    Histogram histogram;
    for (int64_t v = 1; v <= 10; ++v) histogram.add(v); // 1..10
    CHECK(histogram.count() == 10);
    CHECK(histogram.percentile(0.5) == 5);
    CHECK(histogram.percentile(0.9) == 9);
    CHECK(histogram.percentile(1.0) == 10);
    CHECK(histogram.percentile(0.0) == 1);
    CHECK(histogram.max() == 10);
    const int64_t large = wr::analytics::bucket_upper_bound(120);
    histogram.add(large, 90);
    CHECK(histogram.percentile(0.5) == large);
    CHECK(histogram.percentile(0.1) == 10);
    CHECK(Histogram{}.percentile(0.5) == 0);
}

TEST_CASE("analytics: merging histograms is the histogram of the union") {
    Histogram a, b, both;
    for (int64_t v : {3, 7, 7, 600, 1200}) {
        a.add(v);
        both.add(v);
    }
    for (int64_t v : {0, 7, 90000}) {
        b.add(v);
        both.add(v);
    }
    Histogram merged = a;
    merged.merge(b);
    CHECK(merged == both);
    CHECK(Histogram::from_json(merged.to_json()) == merged);
    CHECK(merged.to_json() == nlohmann::json::parse(R"({"0":1,"3":1,"7":3,)" + std::string("\"") +
                                                    std::to_string(wr::analytics::bucket_of(600)) + "\":1,\"" +
                                                    std::to_string(wr::analytics::bucket_of(1200)) + "\":1,\"" +
                                                    std::to_string(wr::analytics::bucket_of(90000)) + "\":1}"));
}

TEST_CASE("analytics: an atomic histogram drains what was counted, once") {
    wr::analytics::AtomicHistogram atomic;
    atomic.add(5);
    atomic.add(5);
    atomic.add(1000);
    Histogram peeked;
    atomic.peek_into(peeked);
    CHECK(peeked.count() == 3);
    Histogram drained;
    atomic.drain_into(drained);
    CHECK(drained == peeked);
    Histogram again;
    atomic.drain_into(again);
    CHECK(again.empty());
}
