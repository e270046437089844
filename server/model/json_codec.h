#pragma once
// The API's JSON shape of every resource: reading request bodies into settings (type errors
// become FieldErrors) and writing records out with every field and its concrete value.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "model/event.h"
#include "model/json_fields.h"
#include "model/room.h"
#include "model/rule.h"
#include "model/token.h"
#include "model/zone.h"

namespace wr::model {

// Each reader applies the body onto `settings`: a default-constructed struct for create and
// replace, the stored one for patch. A body that is not an object is one error.
FieldErrors read_zone_settings(const nlohmann::json& body, BodyMode mode, ZoneSettings& settings);
FieldErrors read_room_settings(const nlohmann::json& body, BodyMode mode, RoomSettings& settings);
FieldErrors read_event_settings(const nlohmann::json& body, BodyMode mode, EventSettings& settings);
FieldErrors read_rule_settings(const nlohmann::json& body, BodyMode mode, RuleSettings& settings);
FieldErrors read_zone_room_settings(const nlohmann::json& body, BodyMode mode, ZoneRoomSettings& settings);

// The next event of a room, shown on the room as read-only fields.
struct NextEvent {
    std::optional<std::string> prequeue_start_time;
    std::optional<std::string> start_time;
};

nlohmann::json to_json(const Zone& zone);
nlohmann::json to_json(const Room& room, const NextEvent& next_event);
nlohmann::json to_json(const Event& event);
nlohmann::json to_json(const Rule& rule);
nlohmann::json to_json(const ZoneRoomSettings& settings);
nlohmann::json to_json(const Token& token); // never includes the hash

// Settings alone, without ids and timestamps: the shape of `wr export`.
nlohmann::json settings_to_json(const ZoneSettings& settings);
nlohmann::json settings_to_json(const RoomSettings& settings);
nlohmann::json settings_to_json(const EventSettings& settings);
nlohmann::json settings_to_json(const RuleSettings& settings);

// An event with every override replaced by the room's value (the "details" endpoint).
nlohmann::json event_details_to_json(const Event& event, const RoomSettings& room);

} // namespace wr::model
