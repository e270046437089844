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
    struct NodeEntry {
        double weight = 0;
        int64_t seen_ms = 0;
        Grant grant;
        int64_t expires_ms = 0;
    };
    struct RoomState {
        std::string epoch;
        std::map<int64_t, int64_t> active;
        std::map<std::pair<int64_t, int64_t>, int64_t> waiting; // (bucket ms, check-in slot)
        std::map<int64_t, int64_t> admitted;
        std::map<int64_t, int64_t> arrived;    // check-in slot → new users in the queue
        std::map<int64_t, int64_t> checked_in; // check-in slot → check-ins of waiting users
        std::map<int64_t, int64_t> browsed;    // check-in slot → milliseconds between admitted users' requests
        std::map<int64_t, int64_t> seeds;
        std::deque<std::pair<uint64_t, int64_t>> revoked;
        int64_t revocation_base = 0;
        std::map<std::string, NodeEntry> nodes;
        std::map<std::string, std::pair<uint64_t, int64_t>> sequences; // node → (last batch, seen)
        std::map<std::string, std::string> contributions;                // node → its part of the admission counts
        std::string server;         // the server that last wrote the room
        int64_t failover_ms = 0;    // when the room's state was found to come from elsewhere
        int64_t failover_seen_ms = 0; // the last sync the state it came with had seen
        std::map<int64_t, std::map<queue::ClientAddress, int64_t>> joins; // minute → address → joins
        int64_t expires_ms = 0;
    };
public:
    class Snapshot {
        friend class MemoryStore;
        std::map<std::string, RoomState> m_rooms;
    };

private:
    RoomReply exchange_one(const std::string& node_id, const RoomPush& push, const StoreTiming& timing, int64_t store_ms);

    const util::Clock& m_clock;
    mutable std::mutex m_mutex;
    std::map<std::string, RoomState> m_rooms;
    uint64_t m_epochs = 0;
    uint64_t m_server = 1; // which server this is: a new one after each failover or loss
};

} // namespace wr::state
