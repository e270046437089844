#pragma once
// SQL for the batch numbers of the analytics streams edges push (migration 0005), which make a
// retried push count once.
#include <cstdint>
#include <string_view>

#include "store/database.h"
#include "util/clock.h"

namespace wr::store {

// The streams a node's batches are told apart by: one per run of its outbox, so a few at most
// (a stream ends when its edge's data directory starts afresh). A new stream beyond these makes
// the node's least recently pushed one forgotten, so no node can fill the table.
inline constexpr int k_max_streams_per_node = 4;

// True, and the batch recorded as merged, when `sequence` is above the last one merged for
// (node, stream); false for a batch merged before. Call in the transaction that merges it.
bool claim_batch(Connection& connection, std::string_view node, std::string_view stream, int64_t sequence, util::TimePoint now);

// Forgets streams that pushed nothing since `oldest`; returns how many went.
int64_t prune_analytics_streams(Connection& connection, util::TimePoint oldest);

} // namespace wr::store
