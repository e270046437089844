#pragma once
// On the control node: an edge's analytics batch into the store, exactly once. The batch's
// number is claimed and its minutes merged in one transaction, so a retry of a batch whose
// answer was lost, or a crash between the two, can never count it twice or lose it.
#include <string_view>

#include "fleet/report_wire.h"
#include "store/database.h"
#include "util/clock.h"

namespace wr::fleet {

// Merges the batch unless it was merged before; returns what was merged (nothing for a repeat).
// Minutes of rooms that no longer exist are dropped.
RoomMinutes merge_batch(store::Database& database, std::string_view node, const AnalyticsBatch& batch, util::TimePoint now);

} // namespace wr::fleet
