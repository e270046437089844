#pragma once
// Estimated waits, as the reference defines them. Pure.
#include <cstdint>

#include "util/clock.h"

namespace wr::queue {

struct WaitEstimate {
    bool known = false;
    int64_t minutes = 0;      // FIFO estimate, or the median when random
    int64_t p25_minutes = 0;  // random only
    int64_t p50_minutes = 0;
    int64_t p75_minutes = 0;
};

// FIFO: the users ahead (half the own bucket included) over the recent admissions per minute.
WaitEstimate fifo_estimate(double users_ahead, double admitted_per_minute);

// Random: with P = admitted_per_minute / waiting the chance to get in within a minute, a user
// has probability p of being in after n = log(1 − p) / log(1 − P) minutes; the 25th, 50th
// and 75th percentiles, rounded up.
WaitEstimate random_estimate(int64_t waiting, double admitted_per_minute);

// What the infinite queue shows a bot `waited` after it joined: starting between 20 and 40
// minutes (by `seed`), falling a minute per minute at first like a real queue's, then ever
// slower, E(t) = E0·E0 / (E0 + t), so that it never reaches zero (at least 1, rounded up).
WaitEstimate infinite_queue_estimate(uint64_t seed, util::Milliseconds waited);

// n = log(1 − p) / log(1 − P), unrounded: the minutes after which a user is in with probability p.
double minutes_for_probability(double p, double chance_per_minute);

} // namespace wr::queue
