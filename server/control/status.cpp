// Derives a room's status from its configuration, its events and the live counts.
#include "control/status.h"

#include <algorithm>

#include "model/schedule.h"

namespace wr::control {

RoomStatus room_status(const model::Room& room, const std::vector<model::Event>& events, const model::LiveFigures& live,
                       const std::optional<origin::GuardView>& guard, util::TimePoint now) {
    RoomStatus status;
    status.estimated_queued_users = live.queued_users;
    status.estimated_total_active_users = live.active_users;
    status.max_estimated_time_minutes = live.max_estimated_minutes;
    const model::Event* event = model::active_event(events, now);
    if (event) status.event_id = event->id;
    const model::RoomSettings in_force = model::effective_settings(room.settings, event ? &event->settings : nullptr);
    status.effective_total_active_users = in_force.total_active_users;
    status.effective_new_users_per_minute = in_force.new_users_per_minute;
    if (guard && guard->holding()) {
        status.effective_total_active_users = std::min(status.effective_total_active_users, guard->effective.total_active_users);
        status.effective_new_users_per_minute = std::min(status.effective_new_users_per_minute, guard->effective.new_users_per_minute);
    }
    status.origin_guard = guard;
    if (room.settings.suspended) {
        status.status = "suspended";
    } else if (event && model::is_prequeueing(event->settings, now)) {
        status.status = "event_prequeueing";
    } else {
        const bool queues_everyone = in_force.queue_all || in_force.queueing_method == model::QueueingMethod::reject;
        status.status = queues_everyone || live.queued_users > 0 ? "queueing" : "not_queueing";
    }
    return status;
}

} // namespace wr::control
