#pragma once
// Mergeable summaries of non-negative integers (durations in a unit the caller picks): fixed
// buckets, one per integer up to 45, then log-scale (eight per doubling, each about 9 % wider
// than the one before) up to about 3·10^8. Minutes add up into quarter-hours and hours exactly —
// merging two histograms is adding their counts — and any percentile is exact for small values
// and known to within a bucket for large ones.
#include <array>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace wr::model {

inline constexpr size_t k_histogram_buckets = 230;

// Bucket 0 holds 0; bucket i > 0 holds values above bucket i − 1's bound up to and including its
// own, max(previous + 1, ceil(2^((i − 1) / 8))); the last bucket also holds everything larger.
int64_t bucket_upper_bound(size_t bucket);
size_t bucket_of(int64_t value);

class Histogram {
public:
    void add(int64_t value, uint64_t count = 1);
    void merge(const Histogram& other);

    uint64_t count() const;
    bool empty() const { return count() == 0; }
    // The upper bound of the bucket that holds the p-th value (p in [0, 1]); 0 when empty.
    int64_t percentile(double p) const;
    int64_t max() const;

    // Sparse: {"bucket": count, …}, for storage.
    nlohmann::json to_json() const;
    static Histogram from_json(const nlohmann::json& json);

    const std::array<uint64_t, k_histogram_buckets>& buckets() const { return m_buckets; }
    std::array<uint64_t, k_histogram_buckets>& buckets() { return m_buckets; }
    bool operator==(const Histogram&) const = default;

private:
    std::array<uint64_t, k_histogram_buckets> m_buckets{};
};

} // namespace wr::model
