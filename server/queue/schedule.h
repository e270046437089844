#pragma once
// A room's settings over time, precomputed from its configuration and events: outside events,
// each event's prequeue, and each event's run. The edge builds one per room when a configuration
// snapshot is made, and `wr simulate` builds the same from a scenario, so events switch settings
// identically in both. Finding the settings in force is a few comparisons. Pure.
#include <optional>
#include <string>
#include <vector>

#include "model/event.h"
#include "model/room.h"
#include "queue/policy.h"

namespace wr::queue {

// The room's settings during one span of time.
struct Phase {
    util::TimePoint from{};
    util::TimePoint until{};
    Policy policy;
    std::string event_id;             // "" outside events
    bool prequeueing = false;
    std::optional<util::TimePoint> event_start;
    std::optional<util::TimePoint> event_end;
    bool shuffle_at_event_start = false;
    model::QueueingMethod queueing_method = model::QueueingMethod::fifo; // as configured (policy.method also)
    const std::string* custom_page_html = nullptr; // points into the room or event; empty means the default page
    model::TurnstileMode turnstile_mode = model::TurnstileMode::invisible;
    model::TurnstileAction turnstile_action = model::TurnstileAction::log;
};

struct Schedule {
    Phase base;                 // outside events
    std::vector<Phase> phases;  // event phases, in time order

    const Phase& at(util::TimePoint now) const;
};

// The schedule of a room with these settings and events (suspended events are ignored). Phases
// point into `settings` and `events` for their page: both must outlive the schedule.
Schedule build_schedule(const model::RoomSettings& settings, const std::vector<model::Event>& events);

// The shuffle key of an event: the first 8 bytes of its id, so every event reshuffles.
uint64_t event_key(std::string_view event_id);

} // namespace wr::queue
