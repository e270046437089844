// Turns successive observations of rooms and nodes into the notifications they call for.
#include "notify/detector.h"

namespace wr::notify {
namespace {

using model::NotificationKind;

Detected about_room(NotificationKind kind, const RoomObservation& room) {
    Detected detected;
    detected.kind = kind;
    detected.room_id = room.room_id;
    detected.room_name = room.room_name;
    detected.zone_id = room.zone_id;
    detected.zone_name = room.zone_name;
    detected.figures = room.figures;
    return detected;
}

} // namespace

bool Detector::Signal::update(bool value, util::TimePoint now, std::chrono::milliseconds settle) {
    if (value == announced) {
        pending = false;
        return false;
    }
    if (!pending) {
        pending = true;
        pending_since = now;
    }
    if (now - pending_since < settle) return false;
    announced = value;
    pending = false;
    return true;
}

std::vector<Detected> Detector::observe(const Observation& observation) {
    std::vector<Detected> out;
    const util::TimePoint now = observation.now;

    std::map<std::string, RoomMemory> rooms;
    for (const RoomObservation& room : observation.rooms) {
        const auto known = m_rooms.find(room.room_id);
        const bool first = known == m_rooms.end();
        RoomMemory memory = first ? RoomMemory{} : std::move(known->second);
        if (first) {
            memory.queueing.announced = room.queueing;
            memory.event_id = room.event_id;
            memory.event_name = room.event_name;
        }

        if (memory.queueing.update(room.queueing, now, m_settings.settle))
            out.push_back(about_room(room.queueing ? NotificationKind::queueing_started : NotificationKind::queueing_stopped, room));

        std::map<int64_t, Signal> above;
        for (const int64_t threshold : m_settings.wait_thresholds_minutes) {
            const bool is_above = room.max_wait_minutes > threshold;
            auto it = memory.above.find(threshold);
            Signal signal;
            if (it == memory.above.end()) signal.announced = is_above; // a threshold seen for the first time
            else signal = it->second;
            if (signal.update(is_above, now, m_settings.settle)) {
                Detected detected = about_room(is_above ? NotificationKind::wait_above_threshold : NotificationKind::wait_below_threshold, room);
                detected.threshold_minutes = threshold;
                out.push_back(std::move(detected));
            }
            above.emplace(threshold, signal);
        }
        memory.above = std::move(above);

        // Events follow the configuration, which does not flap: announced at once.
        if (room.event_id != memory.event_id) {
            if (!memory.event_id.empty()) {
                Detected ended = about_room(NotificationKind::event_ended, room);
                ended.figures["event"] = {{"id", memory.event_id}, {"name", memory.event_name}};
                out.push_back(std::move(ended));
            }
            if (!room.event_id.empty()) {
                Detected started = about_room(NotificationKind::event_started, room);
                started.figures["event"] = {{"id", room.event_id}, {"name", room.event_name}};
                out.push_back(std::move(started));
            }
            memory.event_id = room.event_id;
            memory.event_name = room.event_name;
        }
        rooms.emplace(room.room_id, std::move(memory));
    }
    m_rooms = std::move(rooms); // rooms no longer observed (deleted) are forgotten

    std::map<std::string, NodeMemory> nodes;
    for (const NodeObservation& node : observation.nodes) {
        const auto known = m_nodes.find(node.node);
        const bool first = known == m_nodes.end();
        NodeMemory memory = first ? NodeMemory{} : known->second;
        if (first) {
            memory.lost.announced = !node.state_connected;
            memory.reporting = node.reporting;
        }
        const auto about_node = [&](NotificationKind kind) {
            Detected detected;
            detected.kind = kind;
            detected.node = node.node;
            detected.figures = {{"state_connected", node.state_connected}, {"reporting", node.reporting}};
            out.push_back(std::move(detected));
        };
        // A node that stopped reporting is late already (its reports are overdue): no settling.
        if (node.reporting != memory.reporting) {
            about_node(node.reporting ? NotificationKind::node_reporting_again : NotificationKind::node_stopped_reporting);
            memory.reporting = node.reporting;
        }
        // What a silent node last said about its shared state is old news: judged while it reports.
        if (node.reporting && memory.lost.update(!node.state_connected, now, m_settings.settle))
            about_node(node.state_connected ? NotificationKind::node_state_restored : NotificationKind::node_state_lost);
        nodes.emplace(node.node, memory);
    }
    m_nodes = std::move(nodes);
    return out;
}

} // namespace wr::notify
