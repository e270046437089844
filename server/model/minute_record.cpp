// Names of outcomes, and merging minute records.
#include "model/minute_record.h"

#include <algorithm>

namespace wr::model {

const char* outcome_name(Outcome outcome) {
    switch (outcome) {
    case Outcome::admitted: return "admitted";
    case Outcome::queued: return "queued";
    case Outcome::rejected: return "rejected";
    case Outcome::bypassed: return "bypassed";
    case Outcome::passthrough: return "passthrough";
    }
    return "unknown";
}

void MinuteRecord::merge(const MinuteRecord& other) {
    active_max = std::max(active_max, other.active_max);
    active_sum += other.active_sum;
    active_samples += other.active_samples;
    queued_max = std::max(queued_max, other.queued_max);
    new_admitted += other.new_admitted;
    for (size_t i = 0; i < k_outcomes; ++i) requests[i] += other.requests[i];
    revoked += other.revoked;
    turnstile_challenges += other.turnstile_challenges;
    turnstile_successes += other.turnstile_successes;
    turnstile_failures += other.turnstile_failures;
    turnstile_unsolved += other.turnstile_unsolved;
    infinite_refreshes += other.infinite_refreshes;
    total_active_users_limit = std::max(total_active_users_limit, other.total_active_users_limit);
    new_users_per_minute_limit = std::max(new_users_per_minute_limit, other.new_users_per_minute_limit);
    estimated_wait.merge(other.estimated_wait);
    observed_wait.merge(other.observed_wait);
    origin_time.merge(other.origin_time);
}

} // namespace wr::model
