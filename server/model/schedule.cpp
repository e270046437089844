// Resolves a room's schedule of events into the settings in force at one instant.
#include "model/schedule.h"

namespace wr::model {

const Event* active_event(const std::vector<Event>& events, util::TimePoint now) {
    for (const Event& event : events)
        if (!event.settings.suspended && event.settings.occupied_from() <= now && now < event.settings.occupied_until())
            return &event;
    return nullptr;
}

const Event* next_event(const std::vector<Event>& events, util::TimePoint now) {
    const Event* best = nullptr;
    for (const Event& event : events) {
        if (event.settings.suspended || event.settings.occupied_until() <= now) continue;
        if (!best || event.settings.event_start_time.time < best->settings.event_start_time.time) best = &event;
    }
    return best;
}

bool is_prequeueing(const EventSettings& event, util::TimePoint now) {
    return event.prequeue_start_time && event.prequeue_start_time->time <= now && now < event.event_start_time.time;
}

RoomSettings effective_settings(const RoomSettings& room, const EventSettings* event) {
    RoomSettings settings = room;
    if (!event) return settings;
    if (event->total_active_users) settings.total_active_users = *event->total_active_users;
    if (event->new_users_per_minute) settings.new_users_per_minute = *event->new_users_per_minute;
    if (event->session_duration) settings.session_duration = *event->session_duration;
    if (event->queueing_method) settings.queueing_method = *event->queueing_method;
    if (event->disable_session_renewal) settings.disable_session_renewal = *event->disable_session_renewal;
    if (event->custom_page_html) settings.custom_page_html = *event->custom_page_html;
    if (event->turnstile_mode) settings.turnstile_mode = *event->turnstile_mode;
    if (event->turnstile_action) settings.turnstile_action = *event->turnstile_action;
    return settings;
}

} // namespace wr::model
