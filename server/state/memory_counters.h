#pragma once
// Counters for one process: a ledger per room, each behind its own mutex, held only for the
// decision itself (never across I/O).
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "state/counters.h"

namespace wr::state {

class MemoryCounters final : public Counters {
public:
    queue::Outcome check_in(const std::string& room_id, const queue::Policy& policy, const std::optional<queue::Ticket>& ticket,
                            util::TimePoint now, util::Random& random, queue::Arrival arrival) override;
    bool try_join(const std::string& room_id, const queue::ClientAddress& client, int64_t limit, util::TimePoint now) override;
    bool revoke(const std::string& room_id, const queue::Policy& policy, const queue::Ticket& ticket, util::TimePoint now) override;
    queue::RoomFigures figures(const std::string& room_id, const queue::Policy& policy, util::TimePoint now) override;
    void forget(const std::string& room_id) override;

private:
    struct Room {
        std::mutex mutex;
        queue::Ledger ledger;
        queue::JoinLimiter joins;
    };
    // Shared, so that forget() cannot free a room another thread is deciding in.
    std::shared_ptr<Room> room(const std::string& room_id);

    std::shared_mutex m_rooms_mutex;
    std::unordered_map<std::string, std::shared_ptr<Room>> m_rooms;
};

} // namespace wr::state
