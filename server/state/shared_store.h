#pragma once
// The store that nodes sharing rooms reconcile through, as one exchange per sync: a node sends
// every active room's unacknowledged changes and gets back, per room, the count changes it has
// not read, the revocations it has not seen, its grant and its share. Redis implements it with a
// Lua script (redis_store.*, reconcile.lua); MemoryStore is the same logic in C++ for `wr
// simulate` and the unit tests. Changes travel in numbered batches, and the store applies a batch
// number once per node run, so a push whose answer was lost can be sent again without counting
// anyone twice. Beside the counts the store keeps, per node run, the last batch applied and the
// node's part of the admission counts (contribution.h), written in the same atomic step: a
// replica that took over after a failover has the two that match its counts, and a node that
// finds the store behind what it acknowledged sends exactly what is missing.
//
// Count changes rest in the store as records it never reads (count_log.h). Each push's changes
// go to the room's raw log; one node, the room's merger, gets the raw log and sends back at its
// next sync what it got summed into one digest; every node reads the digests it has not read —
// one a sync however many nodes wrote — and adds them to its copy of the counts. So another
// node's change reaches a node within three sync intervals, its own at once. Now and then the
// merger is asked for a snapshot, its copy of the counts as of the digests it read: a node new to
// the room reads the snapshot and the digests after it.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "queue/ledger.h"
#include "state/change_set.h"
#include "state/shares.h"

namespace wr::state {

struct PushedBatch {
    uint64_t sequence = 0;
    std::vector<queue::LedgerChange> changes;
    std::vector<JoinChange> joins;
};

struct RoomPush {
    std::string room_id;
    // Only read the counts: no changes, no grant, the node not counted among the room's nodes
    // (for the figures of a room this node does not serve).
    bool read_only = false;
    int64_t epoch = 0;              // the store's epoch this node last saw (0 at first)
    bool want_seeds = false;        // the node has not the store's release seed of this minute yet
    int64_t now_ms = 0;             // the node's clock: minutes are the node's minutes
    int64_t total_active_users = 0; // the limits in force, for the grant
    int64_t new_users_per_minute = 0;
    int64_t session_minutes = 0;
    // Requests that wanted a slot, in thousandths per second: right now (for the node's need) and
    // over the share window (for its share); integers, so that the store and its twin compute
    // the same.
    int64_t demand_rate_milli = 0;
    int64_t share_weight_milli = 0;
    int64_t revocation_cursor = 0;  // revocations already seen
    // What the node may still admit while this push is on its way (its allowance when it sent
    // it): the store keeps that much reserved too, since the answer's grant takes over only when
    // it arrives.
    int64_t in_flight_allowance = 0;
    // The last batch the store acknowledged to this node run: a store that has applied fewer
    // lost some after acknowledging them (a failover to a replica that lagged).
    uint64_t acknowledged_sequence = 0;
    // The digests this node has read, and the generation of the state it read them from: the
    // store answers the digests since (all of them, from the snapshot on, when the generation is
    // not the store's any more).
    int64_t version = 0;
    int64_t generation = 0;
    // The node's copy of the counts as of `version`, when the store asked for one (the counts
    // only; nullopt: none sent).
    std::optional<std::vector<queue::LedgerChange>> snapshot;
    // The merger's digest: the raw records from `digest_from` to `digest_to` (not included),
    // summed (digest_to == digest_from: none).
    int64_t digest_from = 0;
    int64_t digest_to = 0;
    std::vector<queue::LedgerChange> digest;
    // This node run's part of the admission counts once the batches are in (encode_contribution),
    // for the store to keep with them; "" when there are no batches.
    std::string contribution;
    std::vector<PushedBatch> batches;
};

struct RoomReply {
    enum class Status {
        ok,
        epoch_changed, // the store lost the room's state (restart, expiry): nothing applied; push everything again
        lost,          // the store has fewer of this node run's batches than it acknowledged: nothing applied;
                       // stored_sequence_before and stored_contribution say what it has
        failed,        // this room alone failed (a damaged key): `error` says why; some of the push may have been applied
    };
    Status status = Status::ok;
    int64_t epoch = 0;
    uint64_t stored_sequence_before = 0; // the last batch of this node run applied before this push
    std::string stored_contribution;     // lost: the store's copy of this node run's contribution
    std::string error;                   // failed: what the store said
    int64_t version = 0;                 // the digests' end, once this push is in
    int64_t generation = 0;
    // The count changes of the digests since the version the push read, in order, to add to the
    // node's copy of the counts; or, when `whole`, every count there is (a new generation, or a
    // node new to the room or behind the digests kept): the copy starts from nothing.
    bool whole = false;
    std::vector<queue::LedgerChange> changes;
    // The raw log is digested up to here: this node's changes in records before it are in the
    // digests. Its last record in the raw log (-1: none yet) holds every batch acknowledged.
    int64_t digested = 0;
    int64_t own_last_record = -1;
    // For the room's merger: the raw records from `digested` on, summed, and how many there were
    // (the next digest is of those).
    bool merger = false;
    int64_t raw_records = 0;
    std::vector<queue::LedgerChange> raw;
    std::vector<std::pair<int64_t, int64_t>> seeds; // (minute, seed) of this minute and the last, as far as pushed
    bool snapshot_wanted = false;  // the node's next push carries its copy of the counts
    bool earlier_release = false;  // nodes of an earlier release, which keep the room in another format, synced it lately
    std::vector<std::pair<uint64_t, int64_t>> revocations; // (session id, until ms) past the cursor
    int64_t revocation_cursor = 0;
    std::vector<std::pair<queue::ClientAddress, int64_t>> joins; // this minute's joins of the addresses pushed
    Grant grant;
    double share = 0;
    int64_t live_nodes = 0;
};

// The store could not be reached or answered nonsense. `maybe_applied`: some of the push may
// have reached it (the connection broke after sending), so those batches must be sent again as
// they were.
class StoreUnavailable : public std::runtime_error {
public:
    StoreUnavailable(const std::string& what, bool maybe_applied) : std::runtime_error(what), m_maybe_applied(maybe_applied) {}
    bool maybe_applied() const { return m_maybe_applied; }

private:
    bool m_maybe_applied;
};

// Timing parameters both sides must agree on.
struct StoreTiming {
    int64_t grant_validity_ms = 1000;
    int64_t node_liveness_ms = 1000;
};

// After a room's state came from elsewhere — another server took over (a failover, a restart
// from disk) or it was lost — the store grants nothing until the counts are whole again: for
// a node liveness at least, and while a node that was live before has not synced since, for
// up to this many node livenesses (a node that died with the master is not waited for longer).
inline constexpr int64_t k_recount_livenesses = 10;

class SharedStore {
public:
    virtual ~SharedStore() = default;
    // One round trip: a reply per push, in order. Throws StoreUnavailable when the store as a
    // whole failed; a room the store failed alone (its keys damaged) gets Status::failed, and the
    // others their answers.
    virtual std::vector<RoomReply> exchange(const std::string& node_id, const std::vector<RoomPush>& pushes,
                                            const StoreTiming& timing) = 0;
    // "redis 127.0.0.1:6379/0", "redis-sentinel mymaster via 127.0.0.1:26379 (master 127.0.0.1:6380)",
    // "redis-cluster via 127.0.0.1:7000 (3 masters)"
    virtual std::string describe() const = 0;
    virtual std::string backend() const = 0; // redis, redis-sentinel, redis-cluster, memory
};

// How long a room's keys live after its last push: longer than any session a ledger keeps.
inline constexpr int64_t k_room_ttl_seconds = (queue::k_active_retention_minutes + 4) * 60;

} // namespace wr::state
