// Computes FIFO and random wait estimates from counts and the admission rate.
#include "queue/wait_estimate.h"

#include <algorithm>
#include <cmath>

namespace wr::queue {
namespace {

// Rounded up: a user shown "2 minutes" should rarely wait longer; 3.0000000001 (floating-point
// noise of 1 / (2 / 6)) stays 3. Bounded so that absurd inputs cannot overflow.
int64_t whole_minutes(double minutes) { return static_cast<int64_t>(std::ceil(std::clamp(minutes, 0.0, 1.0e9) - 1e-9)); }

} // namespace

WaitEstimate fifo_estimate(double users_ahead, double admitted_per_minute) {
    WaitEstimate estimate;
    if (admitted_per_minute <= 0) return estimate;
    estimate.known = true;
    estimate.minutes = std::max<int64_t>(1, whole_minutes(users_ahead / admitted_per_minute));
    return estimate;
}

WaitEstimate infinite_queue_estimate(uint64_t seed, util::Milliseconds waited) {
    const double start = 20.0 + static_cast<double>(seed % 21);
    const double minutes = std::max(0.0, static_cast<double>(waited.count()) / 60000.0);
    WaitEstimate estimate;
    estimate.known = true;
    estimate.minutes = std::max<int64_t>(1, whole_minutes(start * start / (start + minutes)));
    return estimate;
}

double minutes_for_probability(double p, double chance_per_minute) {
    if (chance_per_minute >= 1) return 0;
    return std::log(1 - p) / std::log(1 - chance_per_minute);
}

WaitEstimate random_estimate(int64_t waiting, double admitted_per_minute) {
    WaitEstimate estimate;
    if (admitted_per_minute <= 0) return estimate;
    estimate.known = true;
    const double chance = admitted_per_minute / static_cast<double>(std::max<int64_t>(1, waiting));
    estimate.p25_minutes = std::max<int64_t>(1, whole_minutes(minutes_for_probability(0.25, chance)));
    estimate.p50_minutes = std::max<int64_t>(1, whole_minutes(minutes_for_probability(0.50, chance)));
    estimate.p75_minutes = std::max<int64_t>(1, whole_minutes(minutes_for_probability(0.75, chance)));
    estimate.minutes = estimate.p50_minutes;
    return estimate;
}

} // namespace wr::queue
