#pragma once
// Finds the moments worth announcing in successive observations of the rooms and nodes: a room
// starts or stops queueing, its longest estimated wait crosses a threshold, an event starts or
// ends, a node loses or regains the shared state, stops or resumes reporting. Pure: the same
// sequence of observations (each carrying its own time) gives the same notifications, so every
// rule is tested on virtual time.
//
// A new state of a room or node is announced once it has lasted `settle` (a room near its limit
// can flip between queueing and not many times a minute; nobody wants a message for each flip).
// The first observation of a room or node only sets what is known: wr restarting does not
// announce what was already so.
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "model/notification.h"
#include "util/clock.h"

namespace wr::notify {

struct RoomObservation {
    std::string room_id, room_name, zone_id, zone_name;
    bool queueing = false;            // status queueing or event_prequeueing
    int64_t max_wait_minutes = 0;     // the longest estimated wait shown now
    std::string event_id, event_name; // the active event, "" when none
    nlohmann::json figures = nlohmann::json::object(); // what a notification about the room carries
};

struct NodeObservation {
    std::string node;
    bool state_connected = true; // it reaches the shared state
    bool reporting = true;       // its reports arrive (not stale)
};

struct Observation {
    util::TimePoint now{};
    std::vector<RoomObservation> rooms;
    std::vector<NodeObservation> nodes;
};

struct DetectorSettings {
    std::chrono::milliseconds settle{30000};
    std::set<int64_t> wait_thresholds_minutes; // from the destinations that want wait kinds
};

// A notification without its id (given when it is stored).
struct Detected {
    model::NotificationKind kind = model::NotificationKind::test;
    std::string room_id, room_name, zone_id, zone_name;
    std::string node;
    int64_t threshold_minutes = 0;
    nlohmann::json figures = nlohmann::json::object();
};

class Detector {
public:
    explicit Detector(DetectorSettings settings = {}) : m_settings(std::move(settings)) {}

    // The thresholds in use change with the destinations; a new one starts from what is observed.
    void set_wait_thresholds(std::set<int64_t> thresholds) { m_settings.wait_thresholds_minutes = std::move(thresholds); }

    std::vector<Detected> observe(const Observation& observation);

private:
    // A yes/no state announced only after it held for `settle`.
    struct Signal {
        bool announced = false;
        bool pending = false;
        util::TimePoint pending_since{};
        // True when `value` is to be announced now.
        bool update(bool value, util::TimePoint now, std::chrono::milliseconds settle);
    };
    struct RoomMemory {
        Signal queueing;
        std::map<int64_t, Signal> above; // threshold → wait above it
        std::string event_id, event_name;
    };
    struct NodeMemory {
        Signal lost;
        bool reporting = true;
    };

    DetectorSettings m_settings;
    std::map<std::string, RoomMemory> m_rooms;
    std::map<std::string, NodeMemory> m_nodes;
};

} // namespace wr::notify
