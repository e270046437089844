#pragma once
// The origin guards of the rooms a node decides for — the single node, or the control node of
// several. What each room's origin did comes in as the per-minute increments the node counts
// itself and those its edges push (answers by status class, failures by kind, times to first
// byte); once per control interval each room's increments since its last step become one
// OriginSample for its GuardController. One place decides per room, so a room has one set of
// effective limits however many nodes admit to it. Pure: time and the rooms' loads come in as
// arguments; thread-safe, as increments arrive from the collector and from the admin API.
//
// Each node reports on its own clock (an edge pushes every 2 s, whenever its timer fires), so a
// control step may hold one, two or three of an edge's reports: counted as they came, an edge's
// share of the origin's throughput would read half or one and a half times what it is — and the
// controller learns the origin's capacity from its throughput. So each node's counts are read as
// a rate over the time its reports cover (from the report before the first of the step to the
// last), and the sample holds that rate over the step's interval.
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/minute_record.h"
#include "origin/guard.h"

namespace wr::origin {

// The guard's view of a room, for its status and the console.
struct GuardView {
    GuardState state = GuardState::off;
    Limits effective;
    double p95_ttfb_ms = -1; // < 0: no answer measured yet
    double error_rate = -1;  // < 0: nothing measured yet
    std::string reason;
    bool holding() const { return state == GuardState::throttling || state == GuardState::recovering; }
};

class GuardBoard {
public:
    struct RoomInput {
        std::string room_id;
        model::OriginGuardSettings settings;
        Limits configured; // the limits in force without the guard (an event's, when one runs)
        RoomLoad load;
    };
    struct RoomDecision {
        std::string room_id;
        GuardDecision decision;
        OriginSample sample; // what the controller was given
    };

    // What the room's origin did at `node` since that node's last report, received at `at`.
    void add(const std::string& room_id, const std::string& node, const model::MinuteRecord& increment, util::TimePoint at);
    // `node` reported at `at` (after the add() calls of that report, if any): its next report's
    // counts cover the time from here, whether or not this one had anything of a room's origin.
    // Without it a room's first answers after a quiet spell would be spread over the whole spell,
    // which the steps meanwhile already counted as quiet.
    void heard(const std::string& node, util::TimePoint at);
    // One control step for each room given (rooms not given are forgotten): its sample is what
    // was added since its last step.
    std::vector<RoomDecision> step(const std::vector<RoomInput>& rooms, util::TimePoint now);
    // The room's last decision, if it has had one.
    std::optional<GuardDecision> last(const std::string& room_id) const;

private:
    // One node's reports of a room since the room's last step.
    struct NodeFeed {
        uint64_t answers = 0;
        uint64_t errors = 0;
        bool pending = false;                     // something reported since the last step
        std::optional<util::TimePoint> since;     // when the report before this step's first came
        std::optional<util::TimePoint> heard_at;  // when its last report came
    };
    struct Room {
        GuardController controller;
        std::unordered_map<std::string, NodeFeed> nodes;
        model::Histogram ttfb; // every node's, since the last step
        std::optional<util::TimePoint> last_step;
    };

    mutable std::mutex m_mutex;
    std::unordered_map<std::string, Room> m_rooms;
    std::unordered_map<std::string, util::TimePoint> m_node_heard; // each node's last report
};

// The sample the controller reads from what was added over `interval`.
OriginSample sample_of(uint64_t answers, uint64_t errors, const model::Histogram& ttfb, util::Milliseconds interval);

} // namespace wr::origin
