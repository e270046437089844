#pragma once
// How a room is named in the shared store: its keys, all under the room id as hash tag (so that
// one Redis Cluster slot holds them), and the fields of the counts the store keeps as numbers —
// `a<minute>` active users and `m<minute>` admissions, what grants are measured against. All
// counts travel as records (count_log.h). reconcile.lua writes the same names; nodes, the script
// and its C++ twin only meet through them. Pure.
#include <cstdint>
#include <string>
#include <string_view>

#include "queue/ledger.h"

namespace wr::state {

// "wr:{ROOM}:": the keys of this state format are counts, members, revoked and joined:<minute>.
// (The format before used state, nodes, chg, rev and joins:<minute>; the script looks at that
// release's nodes to tell when edges of it still sync a room.)
std::string room_key_prefix(std::string_view room_id);

// Whether a change is an admission count (active users or admissions), and its field.
bool is_admission_count(const queue::LedgerChange& change);
std::string admission_field(const queue::LedgerChange& change);

// An admission count of a minute before this is one no ledger keeps (ChangeSet::prune's rule):
// the store drops it.
inline constexpr int64_t k_admission_minutes_kept = queue::k_active_retention_minutes;

// The logs (reconcile.lua holds the same numbers): the merger is asked for a snapshot once
// k_snapshot_digests digests came after the last (ten seconds of them at the default interval: a
// small hash, and a short read for a node new to the room), and again if it sent none within
// k_snapshot_retry_ms; it gets at most k_raw_per_read raw records a sync.
inline constexpr int64_t k_snapshot_digests = 40;
inline constexpr int64_t k_snapshot_retry_ms = 2000;
inline constexpr int64_t k_raw_per_read = 2000;

} // namespace wr::state
