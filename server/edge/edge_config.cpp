// Indexes a configuration snapshot for routing, builds each room's schedule and parses its rules.
#include "edge/edge_config.h"

#include <algorithm>

#include "edge/cookie.h"
#include "expr/parser.h"
#include "model/validate.h"
#include "origin/registry.h"
#include "util/log.h"

namespace wr::edge {

const Phase& RoomConfig::phase_at(util::TimePoint now) const { return schedule.at(now); }

void build_phases(RoomConfig& room) { room.schedule = queue::build_schedule(room.settings, room.events); }

const ZoneConfig* EdgeConfig::find_zone(std::string_view host) const {
    if (const auto it = m_zones_by_host.find(host); it != m_zones_by_host.end()) return it->second;
    while (true) {
        const size_t dot = host.find('.');
        if (dot == std::string_view::npos) return nullptr;
        host.remove_prefix(dot + 1);
        if (const auto it = m_zones_by_wildcard.find(host); it != m_zones_by_wildcard.end()) return it->second;
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
    m_zones_by_host.clear();
    m_zones_by_wildcard.clear();
    m_routes_by_host.clear();
    m_rooms_by_id.clear();
    for (const auto& zone : zones) {
        m_zones_by_host[zone->name] = zone.get();
        for (const std::string& host : zone->hosts) {
            if (host.starts_with("*.")) m_zones_by_wildcard[host.substr(2)] = zone.get();
            else m_zones_by_host[host] = zone.get();
        }
    }
    for (const auto& room : rooms) {
        m_rooms_by_id[room->id] = room.get();
        m_zones_by_host[model::lowercase(room->settings.host)] = room->zone;
        m_routes_by_host[model::lowercase(room->settings.host)].push_back({room->settings.path, room.get()});
        for (const model::Route& route : room->settings.additional_routes) {
            m_zones_by_host[model::lowercase(route.host)] = room->zone;
            m_routes_by_host[model::lowercase(route.host)].push_back({route.path, room.get()});
        }
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

std::shared_ptr<const EdgeConfig> build_edge_config(const model::ConfigDocument& document, analytics::Registry* registry,
                                                    origin::Registry* origins) {
    auto config = std::make_shared<EdgeConfig>();
    for (const model::ZoneDocument& zone : document.zones) {
        auto entry = std::make_unique<ZoneConfig>();
        entry->id = zone.zone.id;
        entry->name = zone.zone.settings.name;
        entry->hosts = zone.zone.settings.hosts;
        // Validation keeps origins parseable; a hand-edited database falls back to nothing.
        entry->origin = model::parse_origin_url(zone.zone.settings.origin).value_or(model::OriginUrl{});
        entry->search_engine_crawler_bypass = zone.room_settings.search_engine_crawler_bypass;
        const model::ZoneSettings& settings = zone.zone.settings;
        entry->upstream = origins ? origins->zone(entry->id, entry->name, settings.max_origin_connections,
                                                  settings.origin_queue_timeout_seconds)
                                  : origin::Registry().zone(entry->id, entry->name, settings.max_origin_connections,
                                                               settings.origin_queue_timeout_seconds);
        const ZoneConfig* zone_config = entry.get();
        config->zones.push_back(std::move(entry));
        for (const model::RoomDocument& room : zone.rooms) {
            auto room_config = std::make_unique<RoomConfig>();
            room_config->id = room.room.id;
            room_config->zone = zone_config;
            room_config->settings = room.room.settings;
            room_config->events = room.events;
            room_config->rules = room.rules;
            room_config->cookie_name = cookie_name(room_config->settings.cookie_suffix);
            room_config->stats = registry ? registry->room(room.room.id) : std::make_shared<analytics::RoomStats>();
            if (origins) room_config->guard = origins->room(room.room.id);
            build_phases(*room_config);
            compile_rules(*room_config);
            config->rooms.push_back(std::move(room_config));
        }
    }
    config->index();
    return config;
}

} // namespace wr::edge
