// Creates, updates and deletes waiting rooms with their cross-record rules.
#include "control/rooms.h"

#include "control/error.h"
#include "control/zones.h"
#include "model/schedule.h"
#include "model/validate.h"
#include "store/events_store.h"
#include "store/rooms_store.h"
#include "util/secure.h"

namespace wr::control {
namespace {

void check_room(store::Connection& connection, const model::Zone& zone, const model::RoomSettings& settings,
                std::string_view own_id) {
    if (auto errors = model::validate_room(settings, zone.settings.name); !errors.empty())
        throw Error::invalid(std::move(errors));
    check_room_hosts(connection, zone, settings);
    if (const auto other = store::find_room_by_name(connection, zone.id, settings.name); other && other->id != own_id)
        throw Error::conflict("name", "a waiting room named " + settings.name + " already exists in " + zone.settings.name);
    const auto check_route = [&](const std::string& field, const model::Route& route) {
        if (const auto owner = store::find_route_owner(connection, route.host, route.path, own_id))
            throw Error::conflict(field, route.host + route.path + " is already the route of waiting room " +
                                             owner->room_name + " (" + owner->room_id + ")");
    };
    check_route("host", model::Route{settings.host, settings.path});
    for (size_t i = 0; i < settings.additional_routes.size(); ++i)
        check_route("additional_routes[" + std::to_string(i) + "]", settings.additional_routes[i]);
}

} // namespace

model::Room resolve_room(store::Connection& connection, const model::Zone& zone, std::string_view id_or_name) {
    std::optional<model::Room> room;
    if (util::is_id(id_or_name)) room = store::find_room(connection, id_or_name);
    if (!room || room->zone_id != zone.id) room = store::find_room_by_name(connection, zone.id, id_or_name);
    if (!room) throw Error::not_found("waiting_room", std::string(id_or_name));
    return *room;
}

model::Room create_room(store::Connection& connection, util::TimePoint now, const model::Zone& zone,
                        const model::RoomSettings& settings) {
    check_room(connection, zone, settings, "");
    model::Room room{util::new_id(), zone.id, settings, now, now};
    store::insert_room(connection, room);
    return room;
}

model::Room update_room(store::Connection& connection, util::TimePoint now, const model::Zone& zone,
                        const model::Room& existing, const model::RoomSettings& settings) {
    if (settings == existing.settings) return existing;
    check_room(connection, zone, settings, existing.id);
    model::Room room = existing;
    room.settings = settings;
    room.modified_on = now;
    store::update_room(connection, room);
    return room;
}

void delete_room(store::Connection& connection, const model::Room& room) { store::delete_room(connection, room.id); }

model::NextEvent next_event_of(store::Connection& connection, std::string_view room_id, util::TimePoint now) {
    const auto events = store::all_events(connection, room_id);
    const model::Event* next = model::next_event(events, now);
    if (!next) return {};
    model::NextEvent result;
    result.start_time = next->settings.event_start_time.text;
    if (next->settings.prequeue_start_time) result.prequeue_start_time = next->settings.prequeue_start_time->text;
    return result;
}

nlohmann::json room_to_json(store::Connection& connection, const model::Room& room, util::TimePoint now) {
    return model::to_json(room, next_event_of(connection, room.id, now));
}

} // namespace wr::control
