#pragma once
// The whole configuration an edge serves, as plain model values: every zone with its zone-wide
// room settings, and every room with its events and rules. It is what a configuration owner (the
// local store, or a control node) hands to the edge, which compiles it into its own snapshot.
#include <vector>

#include "model/event.h"
#include "model/room.h"
#include "model/rule.h"
#include "model/zone.h"

namespace wr::model {

struct RoomDocument {
    Room room;
    std::vector<Event> events;
    std::vector<Rule> rules;
};

struct ZoneDocument {
    Zone zone;
    ZoneRoomSettings room_settings;
    std::vector<RoomDocument> rooms;
};

struct ConfigDocument {
    std::vector<ZoneDocument> zones;
};

} // namespace wr::model
