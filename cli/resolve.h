#pragma once
// Finds resources by id or by name, as users address them on the command line.
#include <nlohmann/json.hpp>
#include <string>

#include "api_client.h"

namespace wr::cli {

// "/client/v4/zones/<zone id>" for a zone given by id or name.
std::string zone_path(const ApiClient& client, const std::string& zone);

// A room by id or name. The zone (id or name) may be empty; it is needed only when several
// zones have rooms of that name.
struct RoomRef {
    std::string zone_id;
    std::string zone_name;
    nlohmann::json room;

    std::string path() const; // "/client/v4/zones/<zone>/waiting_rooms/<room>"
};
RoomRef find_room(const ApiClient& client, const std::string& room, const std::string& zone);

// An event of a room by id or name: its path.
std::string event_path(const ApiClient& client, const RoomRef& room, const std::string& event);

// A rule of a room by id, by 1-based position ("2"), or by description: its id.
std::string rule_id(const ApiClient& client, const RoomRef& room, const std::string& rule);

} // namespace wr::cli
