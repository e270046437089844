#pragma once
// An event: a time window in which a room runs with different settings, optionally preceded
// by a prequeue in which everyone waits.
#include <cstdint>
#include <optional>
#include <string>

#include "model/enums.h"
#include "model/timestamp.h"

namespace wr::model {

inline constexpr size_t k_max_upcoming_events = 5;

// Everything a user sets on an event. Overrides left empty inherit the room's value.
struct EventSettings {
    std::string name;
    std::string description;
    Timestamp event_start_time;
    Timestamp event_end_time;
    std::optional<Timestamp> prequeue_start_time;
    bool shuffle_at_event_start = false;
    bool suspended = false;
    std::optional<int64_t> total_active_users;
    std::optional<int64_t> new_users_per_minute;
    std::optional<int> session_duration;
    std::optional<QueueingMethod> queueing_method;
    std::optional<bool> disable_session_renewal;
    std::optional<std::string> custom_page_html;
    std::optional<TurnstileMode> turnstile_mode;
    std::optional<TurnstileAction> turnstile_action;

    // The event occupies its room from the prequeue start (or the start) to the end.
    util::TimePoint occupied_from() const { return prequeue_start_time ? prequeue_start_time->time : event_start_time.time; }
    util::TimePoint occupied_until() const { return event_end_time.time; }

    bool operator==(const EventSettings&) const = default;
};

struct Event {
    std::string id;
    std::string room_id;
    EventSettings settings;
    util::TimePoint created_on{};
    util::TimePoint modified_on{};
};

} // namespace wr::model
