#pragma once
// SQL for the edge token each node name belongs to (migration 0006).
#include <string_view>

#include "store/database.h"
#include "util/clock.h"

namespace wr::store {

// True when `node` belongs to the token `token_id` — recorded now if it belonged to no token
// yet; false when another token has it. Call in a write transaction.
bool claim_edge_node(Connection& connection, std::string_view node, std::string_view token_id, util::TimePoint now);

} // namespace wr::store
