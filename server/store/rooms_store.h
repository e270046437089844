#pragma once
// SQL for waiting rooms and their routes.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/room.h"
#include "store/database.h"
#include "store/sql.h"

namespace wr::store {

std::optional<model::Room> find_room(Connection& connection, std::string_view id);
std::optional<model::Room> find_room_by_name(Connection& connection, std::string_view zone_id, std::string_view name);
// zone_id empty: rooms of every zone.
std::vector<model::Room> list_rooms(Connection& connection, std::string_view zone_id, PageWindow window);
int64_t count_rooms(Connection& connection, std::string_view zone_id);
void insert_room(Connection& connection, const model::Room& room);
void update_room(Connection& connection, const model::Room& room);
void delete_room(Connection& connection, std::string_view id);

// The room (other than except_room_id) that already uses this host and path, if any.
struct RouteOwner {
    std::string room_id;
    std::string room_name;
};
std::optional<RouteOwner> find_route_owner(Connection& connection, std::string_view host, std::string_view path,
                                           std::string_view except_room_id);

} // namespace wr::store
