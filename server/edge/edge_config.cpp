// Indexes a configuration snapshot for routing, turns a room's events into phases and parses its rules.
#include "edge/edge_config.h"

#include <algorithm>

#include "expr/parser.h"
#include "model/schedule.h"
#include "model/validate.h"
#include "util/log.h"

namespace wr::edge {
namespace {

queue::Policy policy_of(const model::RoomSettings& settings) {
    queue::Policy policy;
    policy.total_active_users = settings.total_active_users;
    policy.new_users_per_minute = settings.new_users_per_minute;
    policy.session_duration = std::chrono::minutes{settings.session_duration};
    policy.disable_session_renewal = settings.disable_session_renewal;
    policy.method = settings.queueing_method;
    policy.queue_all = settings.queue_all;
    return policy;
}

// Event keys for shuffling: the first 8 bytes of the event id.
uint64_t event_key(std::string_view id) {
    uint64_t key = 0;
    for (size_t i = 0; i < id.size() && i < 16; ++i) {
        const char c = id[i];
        key = key * 16 + static_cast<uint64_t>(c >= 'a' ? c - 'a' + 10 : c - '0');
    }
    return key;
}

Phase phase_for(const RoomConfig& room, const model::Event* event) {
    const model::RoomSettings effective = model::effective_settings(room.settings, event ? &event->settings : nullptr);
    Phase phase;
    phase.policy = policy_of(effective);
    phase.queueing_method = effective.queueing_method;
    phase.turnstile_mode = effective.turnstile_mode;
    phase.turnstile_action = effective.turnstile_action;
    phase.custom_page_html = event && event->settings.custom_page_html ? &*event->settings.custom_page_html
                                                                       : &room.settings.custom_page_html;
    if (event) {
        phase.event_id = event->id;
        phase.event_start = event->settings.event_start_time.time;
        phase.event_end = event->settings.event_end_time.time;
        phase.shuffle_at_event_start = event->settings.shuffle_at_event_start;
    }
    return phase;
}

} // namespace

const Phase& RoomConfig::phase_at(util::TimePoint now) const {
    for (const Phase& phase : phases)
        if (phase.from <= now && now < phase.until) return phase;
    return base;
}

void build_phases(RoomConfig& room) {
    room.base = phase_for(room, nullptr);
    room.phases.clear();
    std::vector<const model::Event*> events;
    for (const model::Event& event : room.events)
        if (!event.settings.suspended) events.push_back(&event);
    std::sort(events.begin(), events.end(), [](const model::Event* a, const model::Event* b) {
        return a->settings.occupied_from() < b->settings.occupied_from();
    });
    for (const model::Event* event : events) {
        const model::EventSettings& s = event->settings;
        if (s.prequeue_start_time && s.prequeue_start_time->time < s.event_start_time.time) {
            // Prequeue: everyone waits for the start, whatever the method.
            Phase prequeue = phase_for(room, event);
            prequeue.from = s.prequeue_start_time->time;
            prequeue.until = s.event_start_time.time;
            prequeue.prequeueing = true;
            prequeue.policy.queue_all = true;
            room.phases.push_back(std::move(prequeue));
        }
        Phase running = phase_for(room, event);
        running.from = s.event_start_time.time;
        running.until = s.event_end_time.time;
        if (s.shuffle_at_event_start && s.prequeue_start_time)
            running.policy.shuffle = queue::Shuffle{event_key(event->id), s.prequeue_start_time->time, s.event_start_time.time};
        room.phases.push_back(std::move(running));
    }
}

const ZoneConfig* EdgeConfig::find_zone(std::string_view host) const {
    while (true) {
        if (const auto it = m_zones_by_name.find(host); it != m_zones_by_name.end()) return it->second;
        const size_t dot = host.find('.');
        if (dot == std::string_view::npos) return nullptr;
        host.remove_prefix(dot + 1);
    }
}

const RoomConfig* EdgeConfig::find_room(std::string_view host, std::string_view path) const {
    const auto it = m_routes_by_host.find(host);
    if (it == m_routes_by_host.end()) return nullptr;
    // Routes are sorted longest first: the first prefix that matches is the most specific.
    for (const RouteEntry& route : it->second)
        if (path.starts_with(route.path)) return route.room;
    return nullptr;
}

const RoomConfig* EdgeConfig::find_room_by_id(std::string_view id) const {
    const auto it = m_rooms_by_id.find(id);
    return it == m_rooms_by_id.end() ? nullptr : it->second;
}

void EdgeConfig::index() {
    m_zones_by_name.clear();
    m_routes_by_host.clear();
    m_rooms_by_id.clear();
    for (const auto& zone : zones) m_zones_by_name[zone->name] = zone.get();
    for (const auto& room : rooms) {
        m_rooms_by_id[room->id] = room.get();
        m_routes_by_host[model::lowercase(room->settings.host)].push_back({room->settings.path, room.get()});
        for (const model::Route& route : room->settings.additional_routes)
            m_routes_by_host[model::lowercase(route.host)].push_back({route.path, room.get()});
    }
    for (auto& [host, routes] : m_routes_by_host)
        std::sort(routes.begin(), routes.end(), [](const RouteEntry& a, const RouteEntry& b) {
            return a.path.size() != b.path.size() ? a.path.size() > b.path.size() : a.path < b.path;
        });
}

void compile_rules(RoomConfig& room) {
    room.bypass_rules.clear();
    for (const model::Rule& rule : room.rules) {
        if (!rule.settings.enabled || rule.settings.action != model::k_bypass_action) continue;
        expr::ParseResult parsed = expr::parse(rule.settings.expression);
        if (parsed.root)
            room.bypass_rules.push_back(std::move(parsed.root));
        else
            util::log_warn("edge", "room " + room.id + ": skipping rule " + rule.id + ": " + parsed.error->text());
    }
}

} // namespace wr::edge
