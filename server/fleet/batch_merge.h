#pragma once
// On the control node: an edge's analytics batch into the store, exactly once. The batch's
// number is claimed and its minutes merged in one transaction, so a retry of a batch whose
// answer was lost, or a crash between the two, can never count it twice or lose it.
#include <string_view>

#include "fleet/report_wire.h"
#include "store/database.h"
#include "util/clock.h"

namespace wr::fleet {

// How far ahead of the control node's clock an edge's minute may be (clocks drift a little).
inline constexpr int64_t k_minutes_ahead_kept = 10;

// Merges the batch unless it was merged before; returns what was merged (nothing for a repeat).
// Minutes of rooms that no longer exist are dropped, and so are minutes more than
// k_minutes_ahead_kept ahead of `now` or older than analytics keep (analytics::k_retention):
// an edge whose clock is wrong would otherwise write minutes no query or pruning ever reaches.
// The batch still counts as merged, so the edge does not send it again forever.
RoomMinutes merge_batch(store::Database& database, std::string_view node, const AnalyticsBatch& batch, util::TimePoint now);

} // namespace wr::fleet
