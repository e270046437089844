#pragma once
// What happened in one waiting room during one minute, as analytics store, merge and serve it.
// Records merge exactly (sums add, maxima take the larger, histograms add), so minutes roll up
// into hours, and records from several edge nodes into one. Pure data.
#include <array>
#include <cstdint>

#include "model/histogram.h"

namespace wr::model {

// Request outcomes, as the API names them.
enum class Outcome { admitted, queued, rejected, bypassed, passthrough };
inline constexpr size_t k_outcomes = 5;
const char* outcome_name(Outcome outcome);

// How a proxied request to the origin failed to get an answer: the connection was refused (or
// the origin could not be reached or resolved), closed or reset before the answer was whole, not
// answered in time, answered with bytes that are not HTTP, or its TLS handshake failed.
enum class OriginErrorKind { refused, reset, timeout, invalid, tls };
inline constexpr size_t k_origin_error_kinds = 5;
const char* origin_error_name(OriginErrorKind kind);
// Origin answers are counted by status class: 1xx … 5xx.
inline constexpr size_t k_status_classes = 5;

// One room during one minute — or, rolled up, during several.
struct MinuteRecord {
    int64_t minute = 0; // minutes since the epoch (the first, for a roll-up)
    int64_t active_max = 0;
    int64_t active_sum = 0;      // sampled every few seconds: average = sum / samples
    int64_t active_samples = 0;
    int64_t queued_max = 0;
    int64_t new_admitted = 0;
    std::array<int64_t, k_outcomes> requests{};
    int64_t revoked = 0;
    int64_t turnstile_challenges = 0;
    int64_t turnstile_successes = 0;
    int64_t turnstile_failures = 0;
    int64_t turnstile_unsolved = 0;
    int64_t infinite_refreshes = 0;
    int64_t total_active_users_limit = 0; // the limits in force (the largest, for a roll-up)
    int64_t new_users_per_minute_limit = 0;
    Histogram estimated_wait; // wait shown to queued visitors, minutes
    Histogram observed_wait;  // arrival to admission, seconds
    Histogram origin_time;    // the origin's time to first byte (its answer's head), milliseconds
    std::array<int64_t, k_status_classes> origin_answers{};    // answers by status class, [0] = 1xx
    std::array<int64_t, k_origin_error_kinds> origin_errors{}; // failures by OriginErrorKind
    // The limits the origin guard let the room admit by (the lowest during the minute; 0 when it
    // never acted, so the configured limits applied).
    int64_t effective_total_active_users = 0;
    int64_t effective_new_users_per_minute = 0;

    // Adds another minute's (or part-minute's) counts: sums add, maxima take the larger,
    // histograms merge.
    void merge(const MinuteRecord& other);
    bool operator==(const MinuteRecord&) const = default;
};

} // namespace wr::model
