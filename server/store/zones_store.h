#pragma once
// SQL for zones and their waiting-room settings.
#include <optional>
#include <string_view>
#include <vector>

#include "model/zone.h"
#include "store/database.h"
#include "store/sql.h"

namespace wr::store {

std::optional<model::Zone> find_zone(Connection& connection, std::string_view id);
std::optional<model::Zone> find_zone_by_name(Connection& connection, std::string_view name);
std::vector<model::Zone> list_zones(Connection& connection, PageWindow window);
int64_t count_zones(Connection& connection);
void insert_zone(Connection& connection, const model::Zone& zone);
void update_zone(Connection& connection, const model::Zone& zone);
void delete_zone(Connection& connection, std::string_view id);

model::ZoneRoomSettings get_zone_room_settings(Connection& connection, std::string_view zone_id);
void put_zone_room_settings(Connection& connection, std::string_view zone_id, const model::ZoneRoomSettings& settings,
                            util::TimePoint now);

} // namespace wr::store
