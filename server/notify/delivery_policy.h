#pragma once
// How a delivery is signed and when a failed one is tried again. Pure.
//
// Signature: the receiver gets `Wr-Webhook-Timestamp: <Unix seconds>` and
// `Wr-Webhook-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<body>" under the secret>`; it
// recomputes the HMAC, compares in constant time, and refuses timestamps far from its clock
// (a replayed delivery). The timestamp is that of the attempt, so every retry is signed afresh.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "util/clock.h"

namespace wr::notify {

inline constexpr std::string_view k_signature_header = "Wr-Webhook-Signature";
inline constexpr std::string_view k_timestamp_header = "Wr-Webhook-Timestamp";
inline constexpr std::string_view k_id_header = "Wr-Webhook-Id";
inline constexpr std::string_view k_kind_header = "Wr-Webhook-Kind";

// "v1=<64 hex>".
std::string signature(std::string_view secret, int64_t timestamp_seconds, std::string_view body);

struct RetryPolicy {
    std::chrono::milliseconds first_delay{10000};   // after the first failure; doubled after each further one
    std::chrono::milliseconds longest_delay{3600000};
    std::chrono::milliseconds give_up_after{24LL * 3600 * 1000}; // from the notification's creation
};

// After `attempts` failed attempts (at least one), the time of the next, or nullopt once the next
// would fall past the give-up time (the delivery has failed for good).
std::optional<util::TimePoint> next_attempt(const RetryPolicy& policy, util::TimePoint created, int64_t attempts, util::TimePoint now);

} // namespace wr::notify
