#pragma once
// SQL for bypass rules; a room's rules are an ordered list.
#include <string_view>
#include <vector>

#include "model/rule.h"
#include "store/database.h"

namespace wr::store {

std::vector<model::Rule> list_rules(Connection& connection, std::string_view room_id);
// Replaces the room's whole list, in order.
void write_rules(Connection& connection, std::string_view room_id, const std::vector<model::Rule>& rules);

} // namespace wr::store
