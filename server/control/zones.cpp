// Creates, updates and deletes zones with their cross-record rules.
#include "control/zones.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "control/error.h"
#include "model/host_owner.h"
#include "model/validate.h"
#include "store/rooms_store.h"
#include "store/zones_store.h"
#include "util/ascii_case.h"
#include "util/secure.h"

namespace wr::control {
namespace {

using ZoneNames = std::set<std::string, std::less<>>;

// Every zone's name, with the zone `own_id` (if stored) under `own_name`.
ZoneNames zone_names(const std::vector<model::Zone>& zones, std::string_view own_id, const std::string& own_name) {
    ZoneNames names{own_name};
    for (const model::Zone& zone : zones)
        if (zone.id != own_id) names.insert(zone.settings.name);
    return names;
}

std::optional<std::string> owner_of(std::string_view host, const ZoneNames& names) {
    const std::string lower = util::lowercase(host);
    const auto owner = model::owning_zone_name(lower, [&](std::string_view name) { return names.contains(name); });
    return owner ? std::optional<std::string>(*owner) : std::nullopt;
}

// A zone's listed host, as the domain it claims: "*.a.example.com" claims a.example.com and below.
std::string_view listed_name(std::string_view host) { return host.starts_with("*.") ? host.substr(2) : host; }

// The hosts a zone serves besides its name, each with what serves it (for messages).
std::vector<std::pair<std::string, std::string>> claims_of(store::Connection& connection, const model::Zone& zone) {
    std::vector<std::pair<std::string, std::string>> claims;
    for (const std::string& host : zone.settings.hosts) claims.emplace_back(std::string(listed_name(host)), "its hosts list " + host);
    for (const model::Room& room : store::list_rooms(connection, zone.id, {0, -1})) {
        claims.emplace_back(room.settings.host, "waiting room " + room.settings.name);
        for (const model::Route& route : room.settings.additional_routes)
            claims.emplace_back(route.host, "a route of waiting room " + room.settings.name);
    }
    return claims;
}

void check_zone(store::Connection& connection, const model::ZoneSettings& settings, std::string_view own_id) {
    if (auto errors = model::validate_zone(settings); !errors.empty()) throw Error::invalid(std::move(errors));
    if (const auto other = store::find_zone_by_name(connection, settings.name); other && other->id != own_id)
        throw Error::conflict("name", "a zone named " + settings.name + " already exists");

    // A host belongs to the zone whose domain holds it most closely: the zone may list only its
    // own, and may not come between another zone and the hosts that one serves.
    const std::vector<model::Zone> zones = store::list_zones(connection, {0, -1});
    const ZoneNames names = zone_names(zones, own_id, settings.name);
    model::FieldErrors errors;
    for (size_t i = 0; i < settings.hosts.size(); ++i) {
        const auto owner = owner_of(listed_name(settings.hosts[i]), names);
        if (owner && *owner != settings.name)
            errors.push_back({"hosts[" + std::to_string(i) + "]", settings.hosts[i] + " belongs to the zone " + *owner});
    }
    for (const model::Zone& other : zones) {
        if (other.id == own_id || !model::host_in_zone(settings.name, other.settings.name)) continue;
        for (const auto& [host, what] : claims_of(connection, other))
            if (owner_of(host, names) == settings.name)
                errors.push_back({"name", "the zone " + other.settings.name + " serves " + host + " (" + what + "), which would belong to " +
                                              settings.name + "; remove it there first"});
    }
    if (!errors.empty()) throw Error(ErrorCode::conflict, 400, std::move(errors));
}

} // namespace

void check_room_hosts(store::Connection& connection, const model::Zone& zone, const model::RoomSettings& settings) {
    const ZoneNames names = zone_names(store::list_zones(connection, {0, -1}), zone.id, zone.settings.name);
    model::FieldErrors errors;
    const auto check = [&](const std::string& field, const std::string& host) {
        const auto owner = owner_of(host, names);
        if (owner && *owner != zone.settings.name)
            errors.push_back({field, host + " belongs to the zone " + *owner + "; only that zone's waiting rooms may route it"});
    };
    check("host", settings.host);
    for (size_t i = 0; i < settings.additional_routes.size(); ++i)
        check("additional_routes[" + std::to_string(i) + "].host", settings.additional_routes[i].host);
    if (!errors.empty()) throw Error(ErrorCode::conflict, 400, std::move(errors));
}

model::Zone resolve_zone(store::Connection& connection, std::string_view id_or_name) {
    auto zone = util::is_id(id_or_name) ? store::find_zone(connection, id_or_name) : std::nullopt;
    if (!zone) zone = store::find_zone_by_name(connection, id_or_name);
    if (!zone) throw Error::not_found("zone", std::string(id_or_name));
    return *zone;
}

model::Zone create_zone(store::Connection& connection, util::TimePoint now, const model::ZoneSettings& settings) {
    check_zone(connection, settings, "");
    model::Zone zone{util::new_id(), settings, now, now};
    store::insert_zone(connection, zone);
    return zone;
}

model::Zone update_zone(store::Connection& connection, util::TimePoint now, const model::Zone& existing,
                        const model::ZoneSettings& settings) {
    if (settings == existing.settings) return existing;
    check_zone(connection, settings, existing.id);
    if (settings.name != existing.settings.name) {
        // Every room host must stay inside the zone's domain, and stay the zone's own.
        const ZoneNames names = zone_names(store::list_zones(connection, {0, -1}), existing.id, settings.name);
        for (const model::Room& room : store::list_rooms(connection, existing.id, {0, -1})) {
            if (!model::host_in_zone(room.settings.host, settings.name))
                throw Error::invalid("name", "the waiting room " + room.settings.name + " has host " + room.settings.host +
                                                 ", which would lie outside " + settings.name);
            for (const model::Route& route : room.settings.additional_routes)
                if (!model::host_in_zone(route.host, settings.name))
                    throw Error::invalid("name", "the waiting room " + room.settings.name + " has a route on " +
                                                     route.host + ", which would lie outside " + settings.name);
            model::Zone renamed = existing;
            renamed.settings.name = settings.name;
            try {
                check_room_hosts(connection, renamed, room.settings);
            } catch (const Error& error) {
                throw Error::conflict("name", "the waiting room " + room.settings.name + " would be on a host of another zone: " +
                                                  error.errors().front().text());
            }
        }
    }
    model::Zone zone = existing;
    zone.settings = settings;
    zone.modified_on = now;
    store::update_zone(connection, zone);
    return zone;
}

void delete_zone(store::Connection& connection, const model::Zone& zone) {
    const auto rooms = store::list_rooms(connection, zone.id, {0, -1});
    if (!rooms.empty()) {
        std::string names;
        for (const model::Room& room : rooms) names += (names.empty() ? "" : ", ") + room.settings.name;
        throw Error::invalid("zone", "the zone still has waiting rooms (" + names + "); delete them first");
    }
    store::delete_zone(connection, zone.id);
}

bool update_zone_room_settings(store::Connection& connection, util::TimePoint now, const model::Zone& zone,
                               const model::ZoneRoomSettings& settings) {
    if (store::get_zone_room_settings(connection, zone.id) == settings) return false;
    store::put_zone_room_settings(connection, zone.id, settings, now);
    return true;
}

} // namespace wr::control
