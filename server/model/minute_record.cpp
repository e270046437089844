// Names of outcomes, and merging minute records.
#include "model/minute_record.h"

#include <algorithm>

#include "util/saturating.h"

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

const char* origin_error_name(OriginErrorKind kind) {
    switch (kind) {
    case OriginErrorKind::refused: return "refused";
    case OriginErrorKind::reset: return "reset";
    case OriginErrorKind::timeout: return "timeout";
    case OriginErrorKind::invalid: return "invalid";
    case OriginErrorKind::tls: return "tls";
    }
    return "unknown";
}

namespace {

// The lower of two limits, where 0 means "none set".
int64_t lower_set(int64_t a, int64_t b) {
    if (a == 0) return b;
    if (b == 0) return a;
    return std::min(a, b);
}

} // namespace

void MinuteRecord::merge(const MinuteRecord& other) {
    // Sums saturate: records arrive from edges, and a sum past 2^63 - 1 must not wrap.
    const auto add = [](int64_t& into, int64_t more) { into = util::saturating_add(into, more); };
    active_max = std::max(active_max, other.active_max);
    add(active_sum, other.active_sum);
    add(active_samples, other.active_samples);
    queued_max = std::max(queued_max, other.queued_max);
    add(new_admitted, other.new_admitted);
    for (size_t i = 0; i < k_outcomes; ++i) add(requests[i], other.requests[i]);
    add(revoked, other.revoked);
    add(turnstile_challenges, other.turnstile_challenges);
    add(turnstile_successes, other.turnstile_successes);
    add(turnstile_failures, other.turnstile_failures);
    add(turnstile_unsolved, other.turnstile_unsolved);
    add(infinite_refreshes, other.infinite_refreshes);
    total_active_users_limit = std::max(total_active_users_limit, other.total_active_users_limit);
    new_users_per_minute_limit = std::max(new_users_per_minute_limit, other.new_users_per_minute_limit);
    estimated_wait.merge(other.estimated_wait);
    observed_wait.merge(other.observed_wait);
    origin_time.merge(other.origin_time);
    for (size_t i = 0; i < k_status_classes; ++i) add(origin_answers[i], other.origin_answers[i]);
    for (size_t i = 0; i < k_origin_error_kinds; ++i) add(origin_errors[i], other.origin_errors[i]);
    effective_total_active_users = lower_set(effective_total_active_users, other.effective_total_active_users);
    effective_new_users_per_minute = lower_set(effective_new_users_per_minute, other.effective_new_users_per_minute);
}

} // namespace wr::model
