// In-process counters: one ledger per room.
#include "state/memory_counters.h"

namespace wr::state {

std::shared_ptr<MemoryCounters::Room> MemoryCounters::room(const std::string& room_id) {
    {
        std::shared_lock lock(m_rooms_mutex);
        if (const auto it = m_rooms.find(room_id); it != m_rooms.end()) return it->second;
    }
    std::unique_lock lock(m_rooms_mutex);
    auto& slot = m_rooms[room_id];
    if (!slot) slot = std::make_shared<Room>();
    return slot;
}

queue::Outcome MemoryCounters::check_in(const std::string& room_id, const queue::Policy& policy,
                                        const std::optional<queue::Ticket>& ticket, util::TimePoint now, util::Random& random,
                                        queue::Arrival arrival) {
    const std::shared_ptr<Room> state = room(room_id);
    std::lock_guard lock(state->mutex);
    return queue::check_in(state->ledger, policy, ticket, now, random, arrival);
}

bool MemoryCounters::try_join(const std::string& room_id, const queue::ClientAddress& client, int64_t limit,
                              util::TimePoint now) {
    if (limit <= 0) return true;
    const std::shared_ptr<Room> state = room(room_id);
    std::lock_guard lock(state->mutex);
    return state->joins.try_join(client, limit, now);
}

bool MemoryCounters::revoke(const std::string& room_id, const queue::Policy& policy, const queue::Ticket& ticket,
                            util::TimePoint now) {
    const std::shared_ptr<Room> state = room(room_id);
    std::lock_guard lock(state->mutex);
    return queue::revoke(state->ledger, policy, ticket, now);
}

queue::RoomFigures MemoryCounters::figures(const std::string& room_id, const queue::Policy& policy, util::TimePoint now) {
    const std::shared_ptr<Room> state = room(room_id);
    std::lock_guard lock(state->mutex);
    state->ledger.prune(now);
    return queue::room_figures(state->ledger, policy, now);
}

void MemoryCounters::forget(const std::string& room_id) {
    std::unique_lock lock(m_rooms_mutex);
    m_rooms.erase(room_id);
}

} // namespace wr::state
