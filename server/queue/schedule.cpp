// Turns a room's settings and events into phases.
#include "queue/schedule.h"

#include <algorithm>

#include "model/schedule.h"

namespace wr::queue {
namespace {

Policy policy_of(const model::RoomSettings& settings) {
    Policy policy;
    policy.total_active_users = settings.total_active_users;
    policy.new_users_per_minute = settings.new_users_per_minute;
    policy.session_duration = std::chrono::minutes{settings.session_duration};
    policy.disable_session_renewal = settings.disable_session_renewal;
    policy.method = settings.queueing_method;
    policy.queue_all = settings.queue_all;
    return policy;
}

Phase phase_for(const model::RoomSettings& settings, const model::Event* event) {
    const model::RoomSettings effective = model::effective_settings(settings, event ? &event->settings : nullptr);
    Phase phase;
    phase.policy = policy_of(effective);
    phase.queueing_method = effective.queueing_method;
    phase.turnstile_mode = effective.turnstile_mode;
    phase.turnstile_action = effective.turnstile_action;
    phase.custom_page_html = event && event->settings.custom_page_html ? &*event->settings.custom_page_html
                                                                       : &settings.custom_page_html;
    if (event) {
        phase.event_id = event->id;
        phase.event_start = event->settings.event_start_time.time;
        phase.event_end = event->settings.event_end_time.time;
        phase.shuffle_at_event_start = event->settings.shuffle_at_event_start;
    }
    return phase;
}

} // namespace

uint64_t event_key(std::string_view id) {
    uint64_t key = 0;
    for (size_t i = 0; i < id.size() && i < 16; ++i) {
        const char c = id[i];
        key = key * 16 + static_cast<uint64_t>(c >= 'a' ? c - 'a' + 10 : c - '0');
    }
    return key;
}

const Phase& Schedule::at(util::TimePoint now) const {
    for (const Phase& phase : phases)
        if (phase.from <= now && now < phase.until) return phase;
    return base;
}

Schedule build_schedule(const model::RoomSettings& settings, const std::vector<model::Event>& all_events) {
    Schedule schedule;
    schedule.base = phase_for(settings, nullptr);
    std::vector<const model::Event*> events;
    for (const model::Event& event : all_events)
        if (!event.settings.suspended) events.push_back(&event);
    std::sort(events.begin(), events.end(), [](const model::Event* a, const model::Event* b) {
        return a->settings.occupied_from() < b->settings.occupied_from();
    });
    for (const model::Event* event : events) {
        const model::EventSettings& s = event->settings;
        if (s.prequeue_start_time && s.prequeue_start_time->time < s.event_start_time.time) {
            // Prequeue: everyone waits for the start, whatever the method.
            Phase prequeue = phase_for(settings, event);
            prequeue.from = s.prequeue_start_time->time;
            prequeue.until = s.event_start_time.time;
            prequeue.prequeueing = true;
            prequeue.policy.queue_all = true;
            schedule.phases.push_back(std::move(prequeue));
        }
        Phase running = phase_for(settings, event);
        running.from = s.event_start_time.time;
        running.until = s.event_end_time.time;
        if (s.shuffle_at_event_start && s.prequeue_start_time)
            running.policy.shuffle = Shuffle{event_key(event->id), s.prequeue_start_time->time, s.event_start_time.time};
        schedule.phases.push_back(std::move(running));
    }
    return schedule;
}

} // namespace wr::queue
