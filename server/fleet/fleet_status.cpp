// Combines the nodes' reports into one room.
#include "fleet/fleet_status.h"

#include <algorithm>
#include <map>
#include <set>

#include "util/time_format.h"

namespace wr::fleet {
namespace {

std::string failure_words(const std::string& mode) {
    if (mode == "local-share") return "admitting from local share";
    if (mode == "open") return "admitting everyone";
    if (mode == "closed") return "admitting no one new";
    return mode.empty() ? "" : "failure mode " + mode;
}

model::NodeStatus status_of(const NodeView& view) {
    model::NodeStatus status;
    status.node = view.node;
    status.role = view.role;
    status.last_report = view.taken;
    status.state_backend = view.health.backend;
    status.state_connected = view.health.connected;
    status.state_failure_mode = view.health.failure_mode;
    status.state_since = view.health.since;
    status.state_detail = view.health.detail;
    if (view.room) {
        status.active_users = view.room->active_users;
        status.queued_users = view.room->queued_users;
    }
    if (!view.fresh) {
        status.condition = "stale";
        status.message = view.node + ": no report since " + util::format_iso8601(view.taken) + "; its users are not counted";
    } else if (!view.health.connected) {
        status.condition = "degraded";
        status.message = "state: " + view.health.backend + " unreachable on " + view.node + " since " +
                         util::format_iso8601(view.health.since);
        if (const std::string words = failure_words(view.health.failure_mode); !words.empty()) status.message += ", " + words;
        if (!view.health.detail.empty()) status.message += " (" + view.health.detail + ")";
    }
    return status;
}

} // namespace

// Browsing users add up like active users, but one node that does not know its own (< 0) makes
// the sum unknown: the origin guard then falls back on what it learned per active user.
void add_browsing(int64_t& sum, int64_t more) { sum = sum < 0 || more < 0 ? -1 : sum + more; }

Combined combine(const std::vector<NodeView>& views) {
    Combined combined;
    const NodeView* latest_shared = nullptr;
    for (const NodeView& view : views) {
        combined.nodes.push_back(status_of(view));
        if (!view.fresh || !view.room) continue;
        const analytics::RoomSample& room = *view.room;
        combined.figures.total_active_users_limit = std::max(combined.figures.total_active_users_limit, room.total_active_users_limit);
        combined.figures.new_users_per_minute_limit = std::max(combined.figures.new_users_per_minute_limit, room.new_users_per_minute_limit);
        combined.figures.max_estimated_minutes = std::max(combined.figures.max_estimated_minutes, room.max_estimated_minutes);
        if (view.health.backend == "memory") {
            // Its own slice of the room: nobody else counts these users.
            combined.figures.active_users += room.active_users;
            combined.figures.queued_users += room.queued_users;
            combined.figures.admitted_last_minute += room.admitted_last_minute;
            add_browsing(combined.figures.browsing_users, room.browsing_users);
        } else if (!latest_shared || view.taken > latest_shared->taken) {
            latest_shared = &view;
        }
    }
    if (latest_shared) {
        // Every node on the shared store sees the whole room: count it once.
        combined.figures.active_users += latest_shared->room->active_users;
        combined.figures.queued_users += latest_shared->room->queued_users;
        combined.figures.admitted_last_minute += latest_shared->room->admitted_last_minute;
        add_browsing(combined.figures.browsing_users, latest_shared->room->browsing_users);
    }
    return combined;
}

FleetStatus::FleetStatus(std::optional<LocalNode> local) : m_local(std::move(local)) {}

void FleetStatus::record(NodeReport report, util::TimePoint received) {
    std::lock_guard lock(m_mutex);
    std::erase_if(m_reports, [&](const auto& entry) { return received - entry.second.at > k_report_listed_for; });
    Received entry{std::move(report), received, {}};
    for (size_t i = 0; i < entry.report.rooms.size(); ++i) entry.rooms[entry.report.rooms[i].room_id] = i;
    std::string node = entry.report.node;
    m_reports[node] = std::move(entry);
}

std::vector<NodeView> FleetStatus::views(const std::string& room_id, util::TimePoint now) const {
    std::vector<NodeView> views;
    if (m_local) {
        NodeView& view = views.emplace_back();
        view.node = m_local->node;
        view.role = m_local->role;
        if (m_local->counters) view.health = m_local->counters->health();
        view.taken = now;
        if (m_local->live) {
            const model::LiveFigures live = m_local->live->figures(room_id, now);
            analytics::RoomSample room{room_id, live.active_users, live.queued_users, live.total_active_users_limit,
                                       live.new_users_per_minute_limit, live.max_estimated_minutes};
            room.admitted_last_minute = live.admitted_last_minute;
            room.browsing_users = live.browsing_users;
            view.room = room;
        }
    }
    std::lock_guard lock(m_mutex);
    for (const auto& [node, received] : m_reports) {
        if (now - received.at > k_report_listed_for) continue;
        if (m_local && node == m_local->node) continue; // this process speaks for itself
        NodeView& view = views.emplace_back();
        view.node = node;
        view.role = received.report.role;
        view.health = received.report.health;
        view.taken = received.at;
        view.fresh = now - received.at <= k_report_fresh_for;
        if (const auto it = received.rooms.find(room_id); it != received.rooms.end()) view.room = received.report.rooms[it->second];
    }
    return views;
}

model::LiveFigures FleetStatus::figures(const std::string& room_id, util::TimePoint now) const {
    return combine(views(room_id, now)).figures;
}

std::vector<model::NodeStatus> FleetStatus::nodes(const std::string& room_id, util::TimePoint now) const {
    return combine(views(room_id, now)).nodes;
}

std::vector<analytics::RoomSample> FleetStatus::sample(util::TimePoint now) {
    // Every room some node has figures for; this node's own sample knows the configured limits and
    // the origin guard's (the figures combined carry only the limits in force).
    std::set<std::string> room_ids;
    std::map<std::string, analytics::RoomSample> local;
    if (m_local && m_local->sampler)
        for (analytics::RoomSample& room : m_local->sampler->sample(now)) {
            room_ids.insert(room.room_id);
            local.emplace(room.room_id, std::move(room));
        }
    {
        std::lock_guard lock(m_mutex);
        for (const auto& [node, received] : m_reports)
            if (now - received.at <= k_report_fresh_for)
                for (const analytics::RoomSample& room : received.report.rooms) room_ids.insert(room.room_id);
    }
    std::vector<analytics::RoomSample> samples;
    for (const std::string& room_id : room_ids) {
        const model::LiveFigures figures = this->figures(room_id, now);
        analytics::RoomSample& sample = samples.emplace_back(analytics::RoomSample{
            room_id, figures.active_users, figures.queued_users, figures.total_active_users_limit,
            figures.new_users_per_minute_limit, figures.max_estimated_minutes});
        if (const auto it = local.find(room_id); it != local.end())
            sample.set_limits(it->second.total_active_users_limit, it->second.new_users_per_minute_limit,
                              figures.total_active_users_limit, figures.new_users_per_minute_limit);
    }
    return samples;
}

} // namespace wr::fleet
