#pragma once
// Counters shared by several nodes through a store (Redis). Each room is a RoomReplica behind
// its own mutex, held only for the arithmetic of one request; the request path never touches
// the store. A background thread syncs every active room each interval (and just after each
// minute starts, when the per-minute limit frees), in one round trip for all of them. Rooms
// with no local requests for a while stop syncing: idle rooms cost the store nothing.
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <unordered_map>

#include "state/counters.h"
#include "state/room_replica.h"
#include "state/shared_store.h"

namespace wr::state {

struct SharedCountersOptions {
    std::string node_name = "wr";
    util::Milliseconds sync_interval{250};
    FailureMode failure_mode = FailureMode::local_share;
    // A room stops syncing this long after this node's last request to it (once its changes
    // are pushed); its next request finds it cold and syncs it at once.
    util::Milliseconds idle_after{std::chrono::minutes{5}};
    bool start_thread = true; // tests drive sync_once() themselves
};

class SharedCounters final : public Counters {
public:
    SharedCounters(SharedCountersOptions options, std::unique_ptr<SharedStore> store, const util::Clock& clock);
    ~SharedCounters() override; // stops the thread after a last push

    queue::Outcome check_in(const std::string& room_id, const queue::Policy& policy, const std::optional<queue::Ticket>& ticket,
                            util::TimePoint now, util::Random& random, queue::Arrival arrival) override;
    bool try_join(const std::string& room_id, const queue::ClientAddress& client, int64_t limit, util::TimePoint now) override;
    bool revoke(const std::string& room_id, const queue::Policy& policy, const queue::Ticket& ticket, util::TimePoint now) override;
    // A room this node serves: its view, at once. A room it does not: the store's global counts,
    // fetched by the sync thread (waiting up to an interval and a second; the admin API and the
    // analytics collector call this, never a request).
    queue::RoomFigures figures(const std::string& room_id, const queue::Policy& policy, util::TimePoint now) override;
    void forget(const std::string& room_id) override;
    Health health() const override;

    // One round trip now, on the calling thread (the thread runs the same).
    void sync_once();

private:
    struct Room {
        explicit Room(const ReplicaSettings& settings) : replica(settings) {}
        std::mutex mutex;
        RoomReplica replica;
        util::TimePoint watched_until{}; // figures() asked for it lately
        std::string failing;             // why the store failed this room alone ("" while it does not)
        bool earlier_release = false;    // nodes of an earlier release sync it in their own format
    };
    std::shared_ptr<Room> room(const std::string& room_id);
    void run();
    void wake();
    void note_room(const std::string& room_id, Room& room, const RoomReply& reply);
    void note_success(util::TimePoint now, double seconds, size_t rooms);
    void note_failure(util::TimePoint now, const std::string& why);

    SharedCountersOptions m_options;
    std::unique_ptr<SharedStore> m_store;
    const util::Clock& m_clock;
    std::string m_node_id;
    StoreTiming m_timing;
    ReplicaSettings m_replica_settings;

    std::shared_mutex m_rooms_mutex;
    std::unordered_map<std::string, std::shared_ptr<Room>> m_rooms;

    std::mutex m_sync_mutex; // one round trip at a time (the thread, or a test)
    mutable std::mutex m_health_mutex;
    Health m_health;
    std::atomic<bool> m_connected{true};

    std::mutex m_wake_mutex;
    std::condition_variable m_wake_signal;
    bool m_wake = false;
    bool m_stop = false;
    std::condition_variable m_synced_signal; // a round trip ended (figures() waits for it)
    uint64_t m_rounds = 0;
    std::thread m_thread;
};

} // namespace wr::state
