// Per-room samples of the origin for the guards, and their steps.
#include "origin/guard_board.h"

#include <algorithm>
#include <unordered_set>

namespace wr::origin {

OriginSample sample_of(uint64_t answers, uint64_t errors, const model::Histogram& ttfb, util::Milliseconds interval) {
    OriginSample sample;
    sample.interval = interval;
    sample.answers = answers;
    sample.errors = errors;
    sample.p95_ttfb_ms = ttfb.empty() ? -1.0 : static_cast<double>(ttfb.percentile(0.95));
    return sample;
}

void GuardBoard::add(const std::string& room_id, const model::MinuteRecord& increment) {
    uint64_t answers = 0;
    for (const int64_t count : increment.origin_answers) answers += static_cast<uint64_t>(std::max<int64_t>(0, count));
    // Errors: 5xx answers and requests that got no answer at all.
    uint64_t errors = static_cast<uint64_t>(std::max<int64_t>(0, increment.origin_answers[4]));
    for (const int64_t count : increment.origin_errors) errors += static_cast<uint64_t>(std::max<int64_t>(0, count));
    if (answers == 0 && errors == 0 && increment.origin_time.empty()) return;
    const std::lock_guard lock(m_mutex);
    Pending& pending = m_rooms[room_id].pending;
    pending.answers += answers;
    pending.errors += errors;
    pending.ttfb.merge(increment.origin_time);
}

std::vector<GuardBoard::RoomDecision> GuardBoard::step(const std::vector<RoomInput>& rooms, util::TimePoint now) {
    std::vector<RoomDecision> decisions;
    const std::lock_guard lock(m_mutex);
    std::unordered_set<std::string> present;
    for (const RoomInput& input : rooms) {
        present.insert(input.room_id);
        Room& room = m_rooms[input.room_id];
        // At least a millisecond: a clock that stood still must not make a rate of a zero span.
        const util::Milliseconds interval = room.last_step ? std::max(util::Milliseconds{1}, std::chrono::duration_cast<util::Milliseconds>(
                                                                                                  now - *room.last_step))
                                                           : k_guard_interval;
        room.last_step = now;
        const OriginSample sample = sample_of(room.pending.answers, room.pending.errors, room.pending.ttfb, interval);
        room.pending = Pending{};
        decisions.push_back({input.room_id, room.controller.update(input.settings, input.configured, sample, input.load, now)});
    }
    std::erase_if(m_rooms, [&present](const auto& entry) { return !present.contains(entry.first); });
    return decisions;
}

std::optional<GuardDecision> GuardBoard::last(const std::string& room_id) const {
    const std::lock_guard lock(m_mutex);
    const auto found = m_rooms.find(room_id);
    if (found == m_rooms.end() || !found->second.last_step) return std::nullopt;
    return found->second.controller.last();
}

} // namespace wr::origin
