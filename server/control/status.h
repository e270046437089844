#pragma once
// The status of a room as the API reports it. Configuration decides suspended, prequeueing and
// queue_all; live counts come from a model::LiveStatus source (the edge's counters), when there is one.
#include <cstdint>
#include <string>
#include <vector>

#include "model/event.h"
#include "model/live_status.h"
#include "model/room.h"

namespace wr::control {

struct RoomStatus {
    std::string status = "not_queueing"; // queueing, not_queueing, event_prequeueing, suspended
    std::string event_id;                // "" when no event is active
    int64_t estimated_queued_users = 0;
    int64_t estimated_total_active_users = 0;
    int64_t max_estimated_time_minutes = 0;
};

RoomStatus room_status(const model::Room& room, const std::vector<model::Event>& events, const model::LiveFigures& live,
                       util::TimePoint now);

} // namespace wr::control
