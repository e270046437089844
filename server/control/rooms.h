#pragma once
// Waiting rooms as the control plane manages them: validated against their zone, unique by
// name in the zone and by (host, path) everywhere.
#include <string_view>

#include "model/json_codec.h"
#include "model/room.h"
#include "model/zone.h"
#include "store/database.h"

namespace wr::control {

// A room of this zone by id or by name; throws not_found.
model::Room resolve_room(store::Connection& connection, const model::Zone& zone, std::string_view id_or_name);

model::Room create_room(store::Connection& connection, util::TimePoint now, const model::Zone& zone,
                        const model::RoomSettings& settings);
// Returns `existing` untouched (same modified_on) when nothing changes.
model::Room update_room(store::Connection& connection, util::TimePoint now, const model::Zone& zone,
                        const model::Room& existing, const model::RoomSettings& settings);
void delete_room(store::Connection& connection, const model::Room& room);

model::NextEvent next_event_of(store::Connection& connection, std::string_view room_id, util::TimePoint now);
nlohmann::json room_to_json(store::Connection& connection, const model::Room& room, util::TimePoint now);

} // namespace wr::control
