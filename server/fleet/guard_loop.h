#pragma once
// The origin guard at work on the node that decides for a room — a single node, or the control
// node of several: about every k_guard_interval it takes each room's configured limits (the
// event's while one runs), its load (the live figures) and what its origin did (the GuardBoard's
// increments: this node's own and its edges'), steps the room's controller, and publishes the
// effective limits — to this node's edge through origin::Registry, and to edge nodes in the
// answer to their analytics push (json()). Each change of limits or state is logged in one line
// and handed to `on_change` (notifications).
//
// It steps at the end of an analytics round (round()), never on a timer of its own: this node's
// counts reach the board in the collector's drains, every 2 s, so a step between them took two
// drains' counts one time and three the next, and read the origin's throughput 20 % low and high
// in turn — and the controller learns capacity from the lower readings. Stepping at a drain,
// each sample covers exactly the time between two drains.
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "edge/config_source.h"
#include "model/live_status.h"
#include "model/notification.h"
#include "origin/guard_board.h"
#include "origin/registry.h"
#include "util/clock.h"

namespace wr::fleet {

class GuardLoop {
public:
    // A room's decision changed its state or limits; `before` is the state it had.
    using ChangeHandler =
        std::function<void(const std::string& room_id, origin::GuardState before, const origin::GuardDecision& decision)>;

    GuardLoop(const edge::ConfigSource& config, const model::LiveStatus& live, origin::Registry& origins, const util::Clock& clock,
              ChangeHandler on_change = {}, std::chrono::milliseconds interval = origin::k_guard_interval);

    // The collector drained every room's counts at `drained_at` (and handed them to add()): a
    // step is taken once three quarters of the interval have passed since the last (with rounds
    // every 2 s and the 5 s interval, every other round).
    void round(util::TimePoint drained_at);
    // One control step now (tests run it on their fake clock; their interval never comes).
    void step();

    // What the room's origin did at `node` since that node's last report (the collector's drain
    // for this node, an edge's push), received now.
    void add(const std::string& room_id, const std::string& node, const model::MinuteRecord& increment) {
        m_board.add(room_id, node, increment, m_clock.now());
    }
    // `node` reported now (after its add() calls, if it had any): see GuardBoard::heard.
    void heard(const std::string& node) { m_board.heard(node, m_clock.now()); }
    // The room's guard now; std::nullopt while the room has not been stepped.
    std::optional<origin::GuardView> view(const std::string& room_id) const;
    // The room's last decision whole, readings included; std::nullopt before its first step.
    std::optional<origin::GuardDecision> decision(const std::string& room_id) const { return m_board.last(room_id); }
    // The effective limits of every room the guard holds below its configured ones, for edge
    // nodes: {"<room id>": {"total_active_users": N, "new_users_per_minute": N, "state": "throttling"}}.
    nlohmann::json json() const;

private:
    void step_at(util::TimePoint now);

    const edge::ConfigSource& m_config;
    const model::LiveStatus& m_live;
    origin::Registry& m_origins;
    const util::Clock& m_clock;
    ChangeHandler m_on_change;
    std::chrono::milliseconds m_interval;
    origin::GuardBoard m_board;
    std::mutex m_step_mutex;
    mutable std::mutex m_mutex; // guards m_views
    std::unordered_map<std::string, origin::GuardView> m_views;
    std::optional<util::TimePoint> m_last_step; // under m_step_mutex
};

// What a change of the guard's state is worth announcing: holding a room down (throttling or
// recovering) after it did not, or letting it go; nothing for a change within either.
std::optional<model::NotificationKind> guard_announcement(origin::GuardState before, origin::GuardState after);
// The figures such an announcement carries.
nlohmann::json guard_announcement_figures(const origin::GuardDecision& decision);

// Applies the limits a control node published (GuardLoop::json()) to this edge node's rooms in
// `config`: rooms not named go back to their configured limits.
void apply_published_guard(const nlohmann::json& published, const edge::ConfigSource& config, origin::Registry& origins);

} // namespace wr::fleet
