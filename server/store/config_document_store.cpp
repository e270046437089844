#include "store/config_document_store.h"

#include "store/events_store.h"
#include "store/rooms_store.h"
#include "store/rules_store.h"
#include "store/zones_store.h"

namespace wr::store {

model::ConfigDocument read_config_document(Database& database) {
    model::ConfigDocument document;
    database.read([&](Connection& connection) {
        for (model::Zone& zone : list_zones(connection, {0, -1})) {
            model::ZoneDocument& zone_document = document.zones.emplace_back();
            zone_document.room_settings = get_zone_room_settings(connection, zone.id);
            for (model::Room& room : list_rooms(connection, zone.id, {0, -1})) {
                model::RoomDocument& room_document = zone_document.rooms.emplace_back();
                room_document.events = all_events(connection, room.id);
                room_document.rules = list_rules(connection, room.id);
                room_document.room = std::move(room);
            }
            zone_document.zone = std::move(zone);
        }
    });
    return document;
}

} // namespace wr::store
