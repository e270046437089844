#pragma once
// SQL for per-minute analytics.
#include <map>
#include <string_view>
#include <vector>

#include "model/minute_record.h"
#include "store/database.h"

namespace wr::store {

// Adds the records to what is stored for their room and minute (one row per minute).
void merge_analytics(Connection& connection, std::string_view room_id, const std::map<int64_t, model::MinuteRecord>& records);
// The room's minutes in [from, until), in order.
std::vector<model::MinuteRecord> load_analytics(Connection& connection, std::string_view room_id, int64_t from_minute,
                                                    int64_t until_minute);
// Deletes minutes before `oldest_minute`; returns how many rows went.
int64_t prune_analytics(Connection& connection, int64_t oldest_minute);

} // namespace wr::store
