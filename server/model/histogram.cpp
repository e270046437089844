// Log-scale histograms.
#include "model/histogram.h"

#include <algorithm>
#include <cmath>

#include "util/saturating.h"

namespace wr::model {
namespace {

// Upper bounds computed once: max(previous + 1, ceil(2^((i − 1) / 8))) for i ≥ 1.
std::array<int64_t, k_histogram_buckets> make_bounds() {
    std::array<int64_t, k_histogram_buckets> bounds{};
    for (size_t i = 1; i < k_histogram_buckets; ++i)
        bounds[i] = std::max<int64_t>(bounds[i - 1] + 1,
                                      static_cast<int64_t>(std::ceil(std::pow(2.0, (static_cast<double>(i) - 1) / 8.0))));
    return bounds;
}

const std::array<int64_t, k_histogram_buckets> k_bounds = make_bounds();

} // namespace

int64_t bucket_upper_bound(size_t bucket) { return k_bounds[std::min(bucket, k_histogram_buckets - 1)]; }

size_t bucket_of(int64_t value) {
    if (value <= 0) return 0;
    const auto it = std::lower_bound(k_bounds.begin() + 1, k_bounds.end(), value);
    return it == k_bounds.end() ? k_histogram_buckets - 1 : static_cast<size_t>(it - k_bounds.begin());
}

// Counts saturate rather than wrap: histograms merge what edges push.
void Histogram::add(int64_t value, uint64_t count) {
    uint64_t& bucket = m_buckets[bucket_of(value)];
    bucket = util::saturating_add(bucket, count);
}

void Histogram::merge(const Histogram& other) {
    for (size_t i = 0; i < k_histogram_buckets; ++i) m_buckets[i] = util::saturating_add(m_buckets[i], other.m_buckets[i]);
}

uint64_t Histogram::count() const {
    uint64_t total = 0;
    for (const uint64_t n : m_buckets) total = util::saturating_add(total, n);
    return total;
}

int64_t Histogram::percentile(double p) const {
    const uint64_t total = count();
    if (total == 0) return 0;
    // The smallest value with at least p of the values at or below it (nearest rank).
    const auto rank = static_cast<uint64_t>(std::max(1.0, std::ceil(std::clamp(p, 0.0, 1.0) * static_cast<double>(total))));
    uint64_t seen = 0;
    for (size_t i = 0; i < k_histogram_buckets; ++i) {
        seen = util::saturating_add(seen, m_buckets[i]);
        if (seen >= rank) return bucket_upper_bound(i);
    }
    return bucket_upper_bound(k_histogram_buckets - 1);
}

int64_t Histogram::max() const {
    for (size_t i = k_histogram_buckets; i-- > 0;)
        if (m_buckets[i] > 0) return bucket_upper_bound(i);
    return 0;
}

nlohmann::json Histogram::to_json() const {
    nlohmann::json out = nlohmann::json::object();
    for (size_t i = 0; i < k_histogram_buckets; ++i)
        if (m_buckets[i] > 0) out[std::to_string(i)] = m_buckets[i];
    return out;
}

Histogram Histogram::from_json(const nlohmann::json& json) {
    Histogram histogram;
    if (!json.is_object()) return histogram;
    for (const auto& [key, value] : json.items()) {
        const size_t bucket = std::stoul(key);
        if (bucket < k_histogram_buckets && value.is_number_unsigned())
            histogram.m_buckets[bucket] = util::saturating_add(histogram.m_buckets[bucket], value.get<uint64_t>());
    }
    return histogram;
}

} // namespace wr::model
