// The simulated origin: workers behind one FIFO queue, on virtual time.
#include "simulate/origin_model.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace wr::simulate {

OriginModel::OriginModel(const OriginSpec& spec, uint64_t seed) : m_spec(spec), m_random(seed ^ 0x0419197ULL) {
    m_free_at.assign(static_cast<size_t>(std::max(1, spec.workers)), 0);
}

OriginModel::Answer OriginModel::request(int64_t at_ms) {
    // Microseconds inside, so short service times queue as they should.
    const int64_t at = at_ms * 1000;
    const auto timeout = static_cast<int64_t>(m_spec.timeout_ms * 1000);
    std::pop_heap(m_free_at.begin(), m_free_at.end(), std::greater<>());
    const int64_t start = std::max(at, m_free_at.back());
    if (start - at >= timeout) {
        // Still queued when the proxy gave up: dropped unserved, the worker stays as it was.
        std::push_heap(m_free_at.begin(), m_free_at.end(), std::greater<>());
        return {false, at_ms + static_cast<int64_t>(m_spec.timeout_ms), 0};
    }
    const auto service = static_cast<int64_t>(m_spec.service_ms * (0.5 + m_random.unit()) * 1000);
    const int64_t done = start + std::max<int64_t>(1, service);
    m_free_at.back() = done;
    std::push_heap(m_free_at.begin(), m_free_at.end(), std::greater<>());
    if (done - at > timeout) return {false, at_ms + static_cast<int64_t>(m_spec.timeout_ms), 0}; // served, but too late
    return {true, (done + 999) / 1000, static_cast<double>(done - at) / 1000.0};
}

void OriginModel::set_workers(int workers, int64_t at_ms) {
    workers = std::max(1, workers);
    const auto wanted = static_cast<size_t>(workers);
    if (wanted > m_free_at.size()) {
        m_free_at.resize(wanted, at_ms * 1000);
    } else {
        // The workers that free up first stay; the others finish what they hold and go.
        std::sort(m_free_at.begin(), m_free_at.end());
        m_free_at.resize(wanted);
    }
    std::make_heap(m_free_at.begin(), m_free_at.end(), std::greater<>());
}

namespace {

// The p95 time to first byte (timeouts counted as the timeout) of Poisson arrivals at `per_second`
// over five simulated minutes, the first left out as the queue settles.
double p95_at(const OriginSpec& spec, double per_second, uint64_t seed) {
    OriginSpec steady = spec;
    steady.changes.clear();
    OriginModel origin(steady, seed);
    util::SeededRandom random(seed);
    std::vector<double> times;
    double at = 0;
    constexpr double k_seconds = 300, k_settle = 60;
    while (at < k_seconds) {
        at += -std::log(1 - random.unit()) / per_second;
        const OriginModel::Answer answer = origin.request(static_cast<int64_t>(at * 1000));
        if (at >= k_settle) times.push_back(answer.answered ? answer.ttfb_ms : spec.timeout_ms);
    }
    if (times.empty()) return 0;
    const size_t rank = times.size() * 95 / 100;
    std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(rank), times.end());
    return times[rank];
}

} // namespace

double sustainable_per_second(const OriginSpec& spec, double target_ms, uint64_t seed) {
    const double most = std::max(1, spec.workers) / (spec.service_ms / 1000.0);
    double low = 0, high = most;
    for (int i = 0; i < 14; ++i) {
        const double middle = (low + high) / 2;
        if (p95_at(spec, middle, seed) <= target_ms) low = middle;
        else high = middle;
    }
    return low;
}

} // namespace wr::simulate
