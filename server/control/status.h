#pragma once
// The status of a room as the API reports it. Configuration decides suspended, prequeueing and
// queue_all; live counts come from a model::LiveStatus source (the edge's counters), when there is one.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/event.h"
#include "model/live_status.h"
#include "model/room.h"
#include "origin/guard_board.h"

namespace wr::control {

struct RoomStatus {
    std::string status = "not_queueing"; // queueing, not_queueing, event_prequeueing, suspended
    std::string event_id;                // "" when no event is active
    int64_t estimated_queued_users = 0;
    int64_t estimated_total_active_users = 0;
    int64_t max_estimated_time_minutes = 0;
    // wr's own: the limits in force — the room's or its event's, lowered while the origin guard
    // holds the room down — and the guard's word (nullopt where no guard has run for the room).
    int64_t effective_total_active_users = 0;
    int64_t effective_new_users_per_minute = 0;
    std::optional<origin::GuardView> origin_guard;
};

RoomStatus room_status(const model::Room& room, const std::vector<model::Event>& events, const model::LiveFigures& live,
                       const std::optional<origin::GuardView>& guard, util::TimePoint now);

} // namespace wr::control
