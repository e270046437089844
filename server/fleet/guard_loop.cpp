// Steps every guarded room's controller at the analytics rounds and publishes the effective limits.
#include "fleet/guard_loop.h"

#include <cmath>

#include "util/log.h"

namespace wr::fleet {

GuardLoop::GuardLoop(const edge::ConfigSource& config, const model::LiveStatus& live, origin::Registry& origins, const util::Clock& clock,
                     ChangeHandler on_change, std::chrono::milliseconds interval)
    : m_config(config), m_live(live), m_origins(origins), m_clock(clock), m_on_change(std::move(on_change)), m_interval(interval) {}

void GuardLoop::round(util::TimePoint drained_at) {
    {
        const std::lock_guard step_lock(m_step_mutex);
        if (!m_last_step) {
            // The first round anchors the first sample: it covers what is drained from here on.
            m_last_step = drained_at;
            return;
        }
        if (drained_at - *m_last_step < m_interval * 3 / 4) return;
    }
    try {
        step_at(drained_at);
    } catch (const std::exception& error) {
        util::log_error("guard", std::string("a control step failed: ") + error.what());
    }
}

void GuardLoop::step() { step_at(m_clock.now()); }

void GuardLoop::step_at(util::TimePoint now) {
    const std::lock_guard step_lock(m_step_mutex); // one step at a time (the collector's round, or a test)
    m_last_step = now;
    const auto previous = [this] {
        const std::lock_guard lock(m_mutex);
        return m_views;
    }();
    const edge::Snapshot snapshot = m_config.snapshot();
    if (!snapshot.config) return;
    std::vector<origin::GuardBoard::RoomInput> inputs;
    for (const auto& room : snapshot.config->rooms) {
        const queue::Policy& policy = room->phase_at(now).policy;
        const model::LiveFigures live = m_live.figures(room->id, now);
        inputs.push_back({room->id, room->settings.origin_guard, origin::Limits{policy.total_active_users, policy.new_users_per_minute},
                          origin::RoomLoad{live.active_users, live.admitted_last_minute, live.queued_users, live.browsing_users}});
    }
    const std::vector<origin::GuardBoard::RoomDecision> decisions = m_board.step(inputs, now);
    std::unordered_map<std::string, origin::GuardView> views;
    for (const auto& [room_id, decision, sample] : decisions) {
        if (decision.state == origin::GuardState::throttling || decision.state == origin::GuardState::recovering)
            m_origins.room(room_id)->set(decision.effective.total_active_users, decision.effective.new_users_per_minute,
                                         static_cast<int>(decision.state));
        else
            m_origins.room(room_id)->clear();
        const bool measured = decision.readings.p95_ttfb_ms >= 0 || decision.readings.requests_per_second > 0;
        views[room_id] = origin::GuardView{decision.state, decision.effective, decision.readings.p95_ttfb_ms,
                                           measured ? decision.readings.error_rate : -1.0, decision.reason};
        // News is a change from what the room had: a room's first decision is news only when it
        // holds the room down (a room starting off or content with its configured limits is not).
        const bool known = previous.contains(room_id);
        if (known ? decision.changed : views[room_id].holding()) {
            const edge::RoomConfig* room = snapshot.config->find_room_by_id(room_id);
            util::log_info("guard", "room " + (room ? room->settings.name : room_id) + ": " + std::string(origin::to_string(decision.state)) +
                                        " — " + decision.reason);
            if (m_on_change) m_on_change(room_id, known ? previous.at(room_id).state : origin::GuardState::content, decision);
        }
    }
    const std::lock_guard lock(m_mutex);
    m_views = std::move(views);
}

std::optional<origin::GuardView> GuardLoop::view(const std::string& room_id) const {
    const std::lock_guard lock(m_mutex);
    const auto found = m_views.find(room_id);
    if (found == m_views.end()) return std::nullopt;
    return found->second;
}

nlohmann::json GuardLoop::json() const {
    nlohmann::json out = nlohmann::json::object();
    const std::lock_guard lock(m_mutex);
    for (const auto& [room_id, view] : m_views)
        if (view.holding())
            out[room_id] = {{"total_active_users", view.effective.total_active_users},
                            {"new_users_per_minute", view.effective.new_users_per_minute},
                            {"state", origin::to_string(view.state)}};
    return out;
}

std::optional<model::NotificationKind> guard_announcement(origin::GuardState before, origin::GuardState after) {
    const auto holding = [](origin::GuardState state) {
        return state == origin::GuardState::throttling || state == origin::GuardState::recovering;
    };
    if (holding(before) == holding(after)) return std::nullopt;
    return holding(after) ? model::NotificationKind::origin_guard_throttling : model::NotificationKind::origin_guard_recovered;
}

nlohmann::json guard_announcement_figures(const origin::GuardDecision& decision) {
    nlohmann::json figures = {{"effective_total_active_users", decision.effective.total_active_users},
                              {"effective_new_users_per_minute", decision.effective.new_users_per_minute},
                              {"reason", decision.reason},
                              {"origin_error_rate", decision.readings.error_rate}};
    if (decision.readings.p95_ttfb_ms >= 0) figures["origin_p95_ttfb_ms"] = std::round(decision.readings.p95_ttfb_ms);
    return figures;
}

void apply_published_guard(const nlohmann::json& published, const edge::ConfigSource& config, origin::Registry& origins) {
    const edge::Snapshot snapshot = config.snapshot();
    if (!snapshot.config) return;
    for (const auto& room : snapshot.config->rooms) {
        const auto found = published.is_object() ? published.find(room->id) : published.end();
        if (found == published.end() || !found->is_object()) {
            origins.room(room->id)->clear();
            continue;
        }
        const auto limit = [&](const char* name) {
            const auto value = found->find(name);
            return value != found->end() && value->is_number_integer() ? std::max<int64_t>(0, value->get<int64_t>()) : 0;
        };
        const std::string state = found->value("state", "");
        origins.room(room->id)->set(limit("total_active_users"), limit("new_users_per_minute"),
                                    static_cast<int>(state == "recovering" ? origin::GuardState::recovering : origin::GuardState::throttling));
    }
}

} // namespace wr::fleet
