#pragma once
// The settings the admission algorithm applies at one instant: the room's configuration with
// the active event's overrides, prequeue and shuffle resolved.
#include <chrono>
#include <cstdint>
#include <optional>

#include "model/enums.h"
#include "util/clock.h"

namespace wr::queue {

inline constexpr auto k_queued_ticket_lifetime = std::chrono::minutes{5};
inline constexpr int k_refresh_interval_seconds = 20;
inline constexpr int k_refresh_jitter_seconds = 5;
inline constexpr int64_t k_queue_full_minutes = 24 * 60;

// Prequeued users get a random order at the event start.
struct Shuffle {
    uint64_t event_key = 0;            // mixes into each user's draw, so every event reshuffles
    util::TimePoint prequeue_start{};  // users who arrived in [prequeue_start, event_start) are shuffled
    util::TimePoint event_start{};
};

struct Policy {
    int64_t total_active_users = 200;
    int64_t new_users_per_minute = 200;
    std::chrono::minutes session_duration{5};
    bool disable_session_renewal = false;
    model::QueueingMethod method = model::QueueingMethod::fifo;
    bool queue_all = false;            // queue_all, or an event prequeueing: no one is let in
    std::optional<Shuffle> shuffle;    // set once an event with shuffle_at_event_start has started
    // The origin guard holds the room below its limits: the minute's new-user places are released
    // evenly over the minute instead of all at its start (queue/admission.cpp).
    bool paced = false;
};

// `policy` with its limits lowered to `total_active_users` and `new_users_per_minute` where they
// are positive and lower (the origin guard's effective limits; never raised), paced once either
// is lowered.
inline Policy held_to(const Policy& policy, int64_t total_active_users, int64_t new_users_per_minute) {
    Policy out = policy;
    if (total_active_users > 0 && total_active_users < out.total_active_users) {
        out.total_active_users = total_active_users;
        out.paced = true;
    }
    if (new_users_per_minute > 0 && new_users_per_minute < out.new_users_per_minute) {
        out.new_users_per_minute = new_users_per_minute;
        out.paced = true;
    }
    return out;
}

} // namespace wr::queue
