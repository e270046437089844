// Claims and merges pushed analytics batches.
#include "fleet/batch_merge.h"

#include "store/analytics_store.h"
#include "store/analytics_streams_store.h"
#include "store/rooms_store.h"

namespace wr::fleet {

RoomMinutes merge_batch(store::Database& database, std::string_view node, const AnalyticsBatch& batch, util::TimePoint now) {
    return database.record([&](store::Connection& connection) {
        RoomMinutes merged;
        if (!store::claim_batch(connection, node, batch.stream, batch.sequence, now)) return merged;
        for (const auto& [room_id, minutes] : batch.records) {
            if (minutes.empty() || !store::find_room(connection, room_id)) continue;
            // Late minutes (an edge that was cut off) merge into what is stored like any other.
            store::merge_analytics(connection, room_id, minutes);
            merged[room_id] = minutes;
        }
        return merged;
    });
}

} // namespace wr::fleet
