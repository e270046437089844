#pragma once
// SQL for events.
#include <optional>
#include <string_view>
#include <vector>

#include "model/event.h"
#include "store/database.h"
#include "store/sql.h"

namespace wr::store {

std::optional<model::Event> find_event(Connection& connection, std::string_view room_id, std::string_view id);
// Ordered by start time.
std::vector<model::Event> list_events(Connection& connection, std::string_view room_id, PageWindow window);
std::vector<model::Event> all_events(Connection& connection, std::string_view room_id);
int64_t count_events(Connection& connection, std::string_view room_id);
void insert_event(Connection& connection, const model::Event& event);
void update_event(Connection& connection, const model::Event& event);
void delete_event(Connection& connection, std::string_view id);

} // namespace wr::store
