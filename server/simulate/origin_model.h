#pragma once
// The origin as `wr simulate` models it: a fixed number of workers, each serving one request at a
// time for a service time drawn around a mean, and one queue in front of them served in arrival
// order — so latency stays flat below capacity and grows without bound past it. The proxy gives
// up on a request after a timeout (an error); a request still queued then is dropped unserved,
// as an origin that notices the closed connection does. Requests must come in time order.
#include <cstdint>
#include <optional>
#include <vector>

#include "util/random.h"

namespace wr::simulate {

// The origin's capacity changing during the run: at this minute, this many workers.
struct WorkersChange {
    double at_minutes = 0;
    int workers = 1;
};

struct OriginSpec {
    int workers = 0;              // 0: no origin modelled
    double service_ms = 100;      // mean service time; each is uniform in [½, 1½] of it
    double timeout_ms = 10000;    // the proxy's wait for the first byte; past it, an error
    std::vector<WorkersChange> changes;
};

class OriginModel {
public:
    OriginModel(const OriginSpec& spec, uint64_t seed);

    struct Answer {
        bool answered = false;  // false: timed out (the error is counted at arrival + timeout)
        int64_t at_ms = 0;      // when the first byte came, or when the proxy gave up
        double ttfb_ms = 0;     // for answers
    };
    // A request arriving at `at_ms`: when and whether it is answered.
    Answer request(int64_t at_ms);
    // From `at_ms` on, this many workers (requests already being served finish).
    void set_workers(int workers, int64_t at_ms);
    int workers() const { return static_cast<int>(m_free_at.size()); }

private:
    OriginSpec m_spec;
    util::SeededRandom m_random;
    std::vector<int64_t> m_free_at; // a min-heap: when each worker is next free (µs)
};

// The most requests a second this origin serves with its p95 time to first byte within
// `target_ms`, under Poisson arrivals (found by bisection on simulated minutes).
double sustainable_per_second(const OriginSpec& spec, double target_ms, uint64_t seed = 1);

} // namespace wr::simulate
