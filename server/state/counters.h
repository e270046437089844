#pragma once
// The live admission state of every room, behind one interface: the in-memory implementation
// serves one process; a shared one (Redis) serves several edge nodes. Callers pass everything
// a decision needs and get the outcome; they never touch the counts directly, so nothing above
// this interface assumes a single process.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "util/clock.h"

#include "queue/admission.h"
#include "queue/join_limiter.h"

namespace wr::state {

// Round-trip times of syncs with a shared store, in fixed buckets (upper bounds in seconds).
struct SyncTimes {
    static constexpr std::array<double, 11> k_bounds_seconds = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                                0.05,   0.1,   0.25,   0.5,   1.0};
    std::array<uint64_t, k_bounds_seconds.size() + 1> counts{}; // the last is above every bound
    double sum_seconds = 0;
    uint64_t count = 0;
    void observe(double seconds) {
        size_t bucket = 0;
        while (bucket < k_bounds_seconds.size() && seconds > k_bounds_seconds[bucket]) ++bucket;
        ++counts[bucket];
        sum_seconds += seconds;
        ++count;
    }
};

// How the counters reach the store they share with other nodes, for /metrics, the status
// endpoint and the log. The in-memory counters share nothing and are always healthy.
struct Health {
    std::string backend = "memory"; // memory, redis, redis-sentinel, redis-cluster
    bool connected = true;          // false while a shared store cannot be reached
    std::string failure_mode;       // local-share, open or closed: what admission does meanwhile
    util::TimePoint since{};        // when the current outage began
    std::string detail;             // the last error, in words
    // Shared stores only.
    std::string store;              // where: "redis 127.0.0.1:6379/0" (never a password)
    std::string node_id;            // this node run's name in the store: <node-name>-<random>
    int64_t sync_interval_ms = 0;
    uint64_t syncs = 0;             // round trips that succeeded
    uint64_t sync_failures = 0;     // round trips that failed
    uint64_t room_sync_failures = 0; // room-syncs that failed: with their round trip, or alone (a
                                     // damaged key, a Cluster master away while the others answer)
    uint64_t outages = 0;           // times the store became unreachable
    int64_t rooms_synced = 0;       // rooms in the last round trip
    int64_t rooms_degraded = 0;     // rooms admitting under the failure mode now
    uint64_t batches_recovered = 0; // acknowledged changes a failover lost, sent again
    uint64_t batches_lost = 0;      // … too old to send again
    SyncTimes sync_times;
    std::optional<util::TimePoint> last_sync; // the last round trip that succeeded
};

class Counters {
public:
    virtual ~Counters() = default;

    // Decides one request (queue::check_in) and records it, atomically for the room.
    virtual queue::Outcome check_in(const std::string& room_id, const queue::Policy& policy,
                                    const std::optional<queue::Ticket>& ticket, util::TimePoint now,
                                    util::Random& random, queue::Arrival arrival = queue::Arrival::join) = 0;
    // Counts a new-queue join from `client` against the room's per-address limit for this
    // minute; false (and not counted) when the address is over it. `limit` ≤ 0: always true.
    virtual bool try_join(const std::string& room_id, const queue::ClientAddress& client, int64_t limit,
                          util::TimePoint now) = 0;
    // Ends an admitted session now (queue::revoke).
    virtual bool revoke(const std::string& room_id, const queue::Policy& policy, const queue::Ticket& ticket,
                        util::TimePoint now) = 0;
    virtual queue::RoomFigures figures(const std::string& room_id, const queue::Policy& policy, util::TimePoint now) = 0;
    // Drops the state of rooms that no longer exist.
    virtual void forget(const std::string& room_id) = 0;
    virtual Health health() const { return {}; }
};

} // namespace wr::state
