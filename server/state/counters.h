#pragma once
// The live admission state of every room, behind one interface: the in-memory implementation
// serves one process; a shared one (Redis) serves several edge nodes. Callers pass everything
// a decision needs and get the outcome; they never touch the counts directly, so nothing above
// this interface assumes a single process.
#include <optional>
#include <string>

#include "util/clock.h"

#include "queue/admission.h"
#include "queue/join_limiter.h"

namespace wr::state {

// How the counters reach the store they share with other nodes, for /metrics, the status
// endpoint and the log. The in-memory counters share nothing and are always healthy.
struct Health {
    std::string backend = "memory"; // memory, redis, redis-sentinel
    bool connected = true;          // false while a shared store cannot be reached
    std::string failure_mode;       // local-share, open or closed: what admission does meanwhile
    util::TimePoint since{};        // when the current outage began
    std::string detail;             // the last error, in words
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
