#pragma once
// What a queued visitor is told: the facts behind the queue page's template variables and the
// JSON response's cfWaitingRoom object. Built by the edge (or a preview) and rendered here.
#include <cstdint>
#include <optional>
#include <string>

#include "model/enums.h"
#include "util/clock.h"

namespace wr::page {

struct QueueView {
    util::TimePoint now{};
    bool wait_time_known = false;
    bool wait_time_from_limits = false;     // worked out from the room's limits: it has not measured its admissions yet
    int64_t wait_time_minutes = 0;          // FIFO estimate, or the median when random
    int64_t wait_time_p25_minutes = 0;      // random queueing only
    int64_t wait_time_p50_minutes = 0;
    int64_t wait_time_p75_minutes = 0;
    bool queue_is_full = false;
    bool queue_all = false;
    util::TimePoint last_updated{};
    int refresh_interval_seconds = 20;
    model::QueueingMethod queueing_method = model::QueueingMethod::fifo;
    bool event_active = false;
    bool event_prequeueing = false;
    std::optional<util::TimePoint> event_start;
    std::optional<util::TimePoint> event_end;
    bool shuffle_at_event_start = false;
    std::string turnstile_html;
    bool infinite_queue = false;
    std::string language = "en-US";
};

} // namespace wr::page
