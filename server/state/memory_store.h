#pragma once
// The shared store in this process: reconcile.lua's logic in C++, step for step, for
// `wr simulate --nodes` and the unit tests, which run nodes against it on virtual time. Its
// clock plays Redis's own (TIME): grants and liveness are measured on it. Each failover or loss
// the tests play makes it another server, as a promoted replica or a restarted Redis is.
#include <deque>
#include <map>
#include <mutex>
#include <string>

#include "state/shared_store.h"
#include "util/clock.h"

namespace wr::state {

class MemoryStore final : public SharedStore {
public:
    explicit MemoryStore(const util::Clock& clock) : m_clock(clock) {}

    std::vector<RoomReply> exchange(const std::string& node_id, const std::vector<RoomPush>& pushes, const StoreTiming& timing) override;
    std::string describe() const override { return "in-process store"; }
    std::string backend() const override { return "memory"; }

    // What a restart without persistence does: every room's state is gone.
    void lose_everything();
    // Rooms whose keys have not expired.
    size_t room_count() const;
    // The whole state as a replica holds it at one moment, and a failover to that replica: it
    // had copied everything up to the snapshot and nothing after.
    class Snapshot;
    Snapshot snapshot_for_test() const;
    void restore_for_test(const Snapshot& snapshot);

private:
    // A node run as the store knows it: its last batch, its part of the counts, what it holds.
    struct NodeEntry {
        uint64_t sequence = 0;
        int64_t seen_ms = 0;
        int64_t weight = 0;        // demand over the share window, thousandths
        int64_t held_total = 0;
        int64_t held_minute = 0;
        int64_t held_of_minute = 0;
        bool counted = false;      // in the room's sums (until it expires and a scan takes it out)
        int64_t last_record = -1;  // its last record in the raw log
        std::string contribution;
    };
    // The sums of the node entries in force.
    struct Sums {
        int64_t weight = 0;
        int64_t live = 0;
        int64_t held_total = 0;
        int64_t held_minute = 0;
        int64_t minute = 0; // the minute held_minute holds against
        void add(const NodeEntry& entry, int sign);
    };
    struct RoomState {
        int64_t epoch = 0;
        std::string server;         // the server that last wrote the room
        int64_t generation = 0;
        int64_t failover_ms = 0;    // when the room's state was found to come from elsewhere
        int64_t failover_seen_ms = 0; // the last sync the state it came with had seen
        int64_t pending = 0;        // nodes live before that, not heard from since
        int64_t pruned_minute = 0;
        int64_t scanned_ms = 0;
        int64_t revocation_base = 0;
        int64_t revocations_pushed = 0;
        // The raw log from raw_base on (digested up to `digested`), the digests from digest_base
        // on, the snapshot as of snapshot_at digests, and the merger.
        std::deque<std::string> raw;
        int64_t raw_base = 0;
        int64_t digested = 0;
        std::deque<std::string> digests;
        int64_t digest_base = 0;
        std::string snapshot;
        int64_t snapshot_at = 0;
        int64_t snapshot_asked_ms = 0;
        std::string merger;
        int64_t merger_seen_ms = 0;
        std::map<int64_t, int64_t> seeds;
        Sums sums;
        std::map<std::string, int64_t> admission_counts; // a<minute>, m<minute>
        std::map<std::string, NodeEntry> nodes;
        std::deque<std::pair<uint64_t, int64_t>> revoked;
        std::map<int64_t, std::map<queue::ClientAddress, int64_t>> joins; // minute → address → joins
        int64_t expires_ms = 0;
    };
    RoomReply exchange_one(const std::string& node_id, const RoomPush& push, const StoreTiming& timing, int64_t store_ms);

public:
    class Snapshot {
        friend class MemoryStore;
        std::map<std::string, RoomState> m_rooms;
    };

private:
    const util::Clock& m_clock;
    mutable std::mutex m_mutex;
    std::map<std::string, RoomState> m_rooms;
    uint64_t m_epochs = 0;
    int64_t m_last_generation = 0; // the last generation given any room
    uint64_t m_server = 1; // which server this is: a new one after each failover or loss
};

} // namespace wr::state
