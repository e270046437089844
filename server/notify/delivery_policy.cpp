// Signatures of deliveries and the back-off between attempts.
#include "notify/delivery_policy.h"

#include <algorithm>

#include "util/secure.h"

namespace wr::notify {

std::string signature(std::string_view secret, int64_t timestamp_seconds, std::string_view body) {
    std::string message = std::to_string(timestamp_seconds);
    message += '.';
    message += body;
    return "v1=" + util::hmac_sha256_hex(secret, message);
}

std::optional<util::TimePoint> next_attempt(const RetryPolicy& policy, util::TimePoint created, int64_t attempts, util::TimePoint now) {
    // first, 2×first, 4×first, … up to the longest delay; the shift is bounded so it cannot overflow.
    const int64_t doublings = std::clamp<int64_t>(attempts - 1, 0, 40);
    const int64_t first = std::max<int64_t>(1, policy.first_delay.count());
    const int64_t delay = first > (policy.longest_delay.count() >> doublings) ? policy.longest_delay.count() : first << doublings;
    const util::TimePoint next = now + std::chrono::milliseconds{std::min(delay, policy.longest_delay.count())};
    if (next > created + policy.give_up_after) return std::nullopt;
    return next;
}

} // namespace wr::notify
