#pragma once
// Zones as the control plane manages them: validated, unique by name, deleted only when empty.
#include <string_view>

#include "model/room.h"
#include "model/zone.h"
#include "store/database.h"

namespace wr::control {

// A zone by id or by name (paths may use either); throws not_found.
model::Zone resolve_zone(store::Connection& connection, std::string_view id_or_name);

model::Zone create_zone(store::Connection& connection, util::TimePoint now, const model::ZoneSettings& settings);
// Returns `existing` untouched (same modified_on) when nothing changes.
model::Zone update_zone(store::Connection& connection, util::TimePoint now, const model::Zone& existing,
                        const model::ZoneSettings& settings);
// Refused with the room names while the zone still has rooms.
void delete_zone(store::Connection& connection, const model::Zone& zone);

// Refuses (400, naming the zone) a room's host or route that belongs to another zone: one whose
// domain holds it more closely than `zone`'s (model/host_owner.h).
void check_room_hosts(store::Connection& connection, const model::Zone& zone, const model::RoomSettings& settings);

// Returns whether anything changed.
bool update_zone_room_settings(store::Connection& connection, util::TimePoint now, const model::Zone& zone,
                               const model::ZoneRoomSettings& settings);

} // namespace wr::control
