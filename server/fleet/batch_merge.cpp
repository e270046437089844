// Claims and merges pushed analytics batches.
#include "fleet/batch_merge.h"

#include "analytics/collector.h"
#include "store/analytics_store.h"
#include "store/analytics_streams_store.h"
#include "store/rooms_store.h"
#include "util/log.h"

namespace wr::fleet {

RoomMinutes merge_batch(store::Database& database, std::string_view node, const AnalyticsBatch& batch, util::TimePoint now) {
    const int64_t current = std::chrono::duration_cast<std::chrono::minutes>(now.time_since_epoch()).count();
    const int64_t oldest = current - std::chrono::duration_cast<std::chrono::minutes>(analytics::k_retention).count();
    const int64_t newest = current + k_minutes_ahead_kept;
    size_t out_of_range = 0;
    RoomMinutes result = database.record([&](store::Connection& connection) {
        RoomMinutes merged;
        if (!store::claim_batch(connection, node, batch.stream, batch.sequence, now)) return merged;
        for (const auto& [room_id, minutes] : batch.records) {
            if (minutes.empty() || !store::find_room(connection, room_id)) continue;
            // Late minutes (an edge that was cut off) merge into what is stored like any other,
            // as long as analytics still keep them.
            std::map<int64_t, model::MinuteRecord> kept;
            for (const auto& [minute, record] : minutes) {
                if (minute >= oldest && minute <= newest) kept.emplace(minute, record);
                else ++out_of_range;
            }
            if (kept.empty()) continue;
            store::merge_analytics(connection, room_id, kept);
            merged[room_id] = std::move(kept);
        }
        return merged;
    });
    if (out_of_range > 0)
        util::log_warn("analytics", "node " + std::string(node) + " pushed " + std::to_string(out_of_range) +
                                        " minute(s) more than " + std::to_string(k_minutes_ahead_kept) +
                                        " minutes ahead of this node's clock or older than 30 days; they are not stored (is its clock right?)");
    return result;
}

} // namespace wr::fleet
