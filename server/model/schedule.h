#pragma once
// Which event governs a room at a given time, and what the room's settings are then.
#include <optional>
#include <vector>

#include "model/event.h"
#include "model/room.h"

namespace wr::model {

// The non-suspended event whose window [prequeue start or start, end) contains `now`.
const Event* active_event(const std::vector<Event>& events, util::TimePoint now);

// The earliest non-suspended event that has not ended (it may already be running).
const Event* next_event(const std::vector<Event>& events, util::TimePoint now);

// True from the prequeue start until the event start.
bool is_prequeueing(const EventSettings& event, util::TimePoint now);

// The room's settings with the event's overrides applied.
RoomSettings effective_settings(const RoomSettings& room, const EventSettings* event);

} // namespace wr::model
