// Derives a room's status from its configuration, its events and the live counts.
#include "control/status.h"

#include "model/schedule.h"

namespace wr::control {

RoomStatus room_status(const model::Room& room, const std::vector<model::Event>& events, const model::LiveFigures& live,
                       util::TimePoint now) {
    RoomStatus status;
    status.estimated_queued_users = live.queued_users;
    status.estimated_total_active_users = live.active_users;
    status.max_estimated_time_minutes = live.max_estimated_minutes;
    const model::Event* event = model::active_event(events, now);
    if (event) status.event_id = event->id;
    if (room.settings.suspended) {
        status.status = "suspended";
    } else if (event && model::is_prequeueing(event->settings, now)) {
        status.status = "event_prequeueing";
    } else {
        const model::RoomSettings settings = model::effective_settings(room.settings, event ? &event->settings : nullptr);
        const bool queues_everyone = settings.queue_all || settings.queueing_method == model::QueueingMethod::reject;
        status.status = queues_everyone || live.queued_users > 0 ? "queueing" : "not_queueing";
    }
    return status;
}

} // namespace wr::control
