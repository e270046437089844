// Indexes a configuration snapshot for routing, builds each room's schedule and parses its rules.
#include "edge/edge_config.h"

#include <algorithm>

#include "edge/cookie.h"
#include "expr/parser.h"
#include "model/host_owner.h"
#include "model/validate.h"
#include "origin/registry.h"
#include "util/ascii_case.h"
#include "util/log.h"

namespace wr::edge {

const Phase& RoomConfig::phase_at(util::TimePoint now) const { return schedule.at(now); }

void build_phases(RoomConfig& room) { room.schedule = queue::build_schedule(room.settings, room.events); }

const ZoneConfig* EdgeConfig::find_zone(std::string_view host) const {
    if (const auto it = m_zones_by_host.find(host); it != m_zones_by_host.end()) return it->second;
    // Up the parent domains: the first wildcard met serves the host; the first zone name met
    // owns it (it is the zone whose domain holds the host most closely), and then nothing less
    // specific may serve it. index() kept only wildcards of the zones that own them.
    while (true) {
        const size_t dot = host.find('.');
        if (dot == std::string_view::npos) return nullptr;
        host.remove_prefix(dot + 1);
        if (const auto it = m_zones_by_wildcard.find(host); it != m_zones_by_wildcard.end()) return it->second;
        if (m_zones_by_name.contains(host)) return nullptr;
    }
}

const ZoneConfig* EdgeConfig::owner_of(std::string_view host) const {
    const auto name = model::owning_zone_name(host, [this](std::string_view n) { return m_zones_by_name.contains(n); });
    return name ? m_zones_by_name.find(*name)->second : nullptr;
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
    m_zones_by_host.clear();
    m_zones_by_wildcard.clear();
    m_routes_by_host.clear();
    m_rooms_by_id.clear();
    for (const auto& zone : zones) m_zones_by_name[zone->name] = zone.get();
    // A host is served only by the zone it belongs to (model/host_owner.h). The API refuses any
    // other claim; one a database kept from before is skipped here, so it cannot take the
    // traffic of the zone that owns the host.
    const auto claim = [this](std::string_view host, const ZoneConfig* zone) {
        if (owner_of(host) == zone) return true;
        util::log_warn("edge", "zone " + zone->name + ": ignoring " + std::string(host) + ", which belongs to another zone");
        return false;
    };
    for (const auto& zone : zones) {
        m_zones_by_host[zone->name] = zone.get();
        for (const std::string& host : zone->hosts) {
            const bool wildcard = host.starts_with("*.");
            const std::string name = wildcard ? host.substr(2) : host;
            if (!claim(name, zone.get())) continue;
            if (wildcard) m_zones_by_wildcard[name] = zone.get();
            else m_zones_by_host[name] = zone.get();
        }
    }
    const auto route = [&](const std::string& host, const std::string& path, const RoomConfig* room) {
        const std::string lower = util::lowercase(host);
        if (!claim(lower, room->zone)) return;
        m_zones_by_host[lower] = room->zone;
        m_routes_by_host[lower].push_back({path, room});
    };
    for (const auto& room : rooms) {
        m_rooms_by_id[room->id] = room.get();
        route(room->settings.host, room->settings.path, room.get());
        for (const model::Route& additional : room->settings.additional_routes) route(additional.host, additional.path, room.get());
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
