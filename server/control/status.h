#pragma once
// The status of a room as the API reports it. Configuration decides suspended, prequeueing and
// queue_all; live counts come from a LiveStatus source (the edge's counters), when there is one.
#include <cstdint>
#include <string>
#include <vector>

#include "model/event.h"
#include "model/room.h"

namespace wr::control {

struct RoomStatus {
    std::string status = "not_queueing"; // queueing, not_queueing, event_prequeueing, suspended
    std::string event_id;                // "" when no event is active
    int64_t estimated_queued_users = 0;
    int64_t estimated_total_active_users = 0;
    int64_t max_estimated_time_minutes = 0;
};

// Live figures of one room; implemented by the edge.
struct LiveFigures {
    int64_t queued_users = 0;
    int64_t active_users = 0;
    int64_t max_estimated_minutes = 0;
    int64_t total_active_users_limit = 0;   // the limits in force now (an event may override them)
    int64_t new_users_per_minute_limit = 0;
};

// One node's part in a room's status (wr's own addition to the status object): whether its
// figures are counted, and what its admission state is doing.
struct NodeStatus {
    std::string node;
    std::string role;                 // all, edge, control
    std::string condition = "ok";     // ok, degraded (its shared state is unreachable), stale (no report lately)
    std::string message;              // what an operator should read; "" when ok
    util::TimePoint last_report{};    // when its figures were taken
    std::string state_backend = "memory";
    bool state_connected = true;
    std::string state_failure_mode;
    util::TimePoint state_since{};    // when the outage began, if it is not connected
    std::string state_detail;
    int64_t active_users = 0;         // its own figures for the room
    int64_t queued_users = 0;
};

class LiveStatus {
public:
    virtual ~LiveStatus() = default;
    virtual LiveFigures figures(const std::string& room_id, util::TimePoint now) const = 0;
    // The nodes behind the figures; empty when the source does not know them.
    virtual std::vector<NodeStatus> nodes(const std::string& room_id, util::TimePoint now) const {
        (void)room_id;
        (void)now;
        return {};
    }
};

RoomStatus room_status(const model::Room& room, const std::vector<model::Event>& events, const LiveFigures& live,
                       util::TimePoint now);

} // namespace wr::control
