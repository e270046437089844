// Creates, updates and deletes zones with their cross-record rules.
#include "control/zones.h"

#include "control/error.h"
#include "model/validate.h"
#include "store/rooms_store.h"
#include "store/zones_store.h"
#include "util/secure.h"

namespace wr::control {
namespace {

void check_zone(store::Connection& connection, const model::ZoneSettings& settings, std::string_view own_id) {
    if (auto errors = model::validate_zone(settings); !errors.empty()) throw Error::invalid(std::move(errors));
    if (const auto other = store::find_zone_by_name(connection, settings.name); other && other->id != own_id)
        throw Error::conflict("name", "a zone named " + settings.name + " already exists");
}

} // namespace

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
        // Every room host must stay inside the zone's domain.
        for (const model::Room& room : store::list_rooms(connection, existing.id, {0, -1})) {
            if (!model::host_in_zone(room.settings.host, settings.name))
                throw Error::invalid("name", "the waiting room " + room.settings.name + " has host " + room.settings.host +
                                                 ", which would lie outside " + settings.name);
            for (const model::Route& route : room.settings.additional_routes)
                if (!model::host_in_zone(route.host, settings.name))
                    throw Error::invalid("name", "the waiting room " + room.settings.name + " has a route on " +
                                                     route.host + ", which would lie outside " + settings.name);
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
