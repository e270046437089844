#pragma once
// Events as the control plane manages them: unique names, no overlaps, at most five upcoming.
#include <string_view>

#include "model/event.h"
#include "model/room.h"
#include "store/database.h"

namespace wr::control {

// An event of this room by id or by name; throws not_found.
model::Event resolve_event(store::Connection& connection, const model::Room& room, std::string_view id_or_name);

model::Event create_event(store::Connection& connection, util::TimePoint now, const model::Room& room,
                          const model::EventSettings& settings);
// Returns `existing` untouched when nothing changes.
model::Event update_event(store::Connection& connection, util::TimePoint now, const model::Room& room,
                          const model::Event& existing, const model::EventSettings& settings);
void delete_event(store::Connection& connection, const model::Event& event);

} // namespace wr::control
