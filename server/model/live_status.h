#pragma once
// What is live in a room, as the node that admits its visitors sees it: the edge fills these,
// and the control plane (status, analytics) and the fleet (an edge's report, a control node's
// merge) read them. Plain data and one interface, so that each side looks down at it.
#include <cstdint>
#include <string>
#include <vector>

#include "util/clock.h"

namespace wr::model {

// Live figures of one room; implemented by the edge.
struct LiveFigures {
    int64_t queued_users = 0;
    int64_t active_users = 0;
    int64_t max_estimated_minutes = 0;
    int64_t total_active_users_limit = 0;   // the limits in force now (an event may override them)
    int64_t new_users_per_minute_limit = 0;
    int64_t admitted_last_minute = 0;       // admissions over the last 60 s
    int64_t browsing_users = 0;             // admitted users whose last request fell in this minute or the one before
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

} // namespace wr::model
