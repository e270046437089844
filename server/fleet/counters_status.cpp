// Reads a room's figures from the counters under the policy in force now.
#include "fleet/counters_status.h"

#include "origin/registry.h"

namespace wr::fleet {

model::LiveFigures CountersStatus::figures(const std::string& room_id, util::TimePoint now) const {
    const edge::Snapshot snapshot = m_config.snapshot();
    const edge::RoomConfig* room = snapshot.config ? snapshot.config->find_room_by_id(room_id) : nullptr;
    if (!room) return {};
    // The limits in force: the phase's, lowered while the origin guard holds the room back.
    const queue::Policy policy = origin::guarded(room->phase_at(now).policy, room->guard.get());
    const queue::RoomFigures figures = m_counters.figures(room_id, policy, now);
    return model::LiveFigures{figures.queued_users,     figures.active_users,        figures.max_estimated_minutes,
                              policy.total_active_users, policy.new_users_per_minute, figures.admitted_last_minute,
                              figures.browsing_users};
}

std::vector<analytics::RoomSample> CountersStatus::sample(util::TimePoint now) {
    const edge::Snapshot snapshot = m_config.snapshot();
    std::vector<analytics::RoomSample> samples;
    if (!snapshot.config) return samples;
    for (const auto& room : snapshot.config->rooms) {
        const model::LiveFigures live = figures(room->id, now);
        analytics::RoomSample& sample =
            samples.emplace_back(analytics::RoomSample{room->id, live.active_users, live.queued_users, 0, 0, live.max_estimated_minutes});
        const queue::Policy& configured = room->phase_at(now).policy;
        sample.set_limits(configured.total_active_users, configured.new_users_per_minute, live.total_active_users_limit,
                          live.new_users_per_minute_limit);
    }
    return samples;
}

} // namespace wr::fleet
