// Per-room samples of the origin for the guards, and their steps.
#include "origin/guard_board.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace wr::origin {
namespace {

// A node's counts are stretched to the step's interval by at most this factor: a node
// heard after a long silence (a network hiccup) stands for a few steps, not for a flood.
constexpr double k_max_scale = 4;
// A node not heard from for this long is forgotten (it left, or the room went quiet there).
constexpr auto k_forget_node = std::chrono::minutes{10};

} // namespace

OriginSample sample_of(uint64_t answers, uint64_t errors, const model::Histogram& ttfb, util::Milliseconds interval) {
    OriginSample sample;
    sample.interval = interval;
    sample.answers = answers;
    sample.errors = errors;
    sample.p95_ttfb_ms = ttfb.empty() ? -1.0 : static_cast<double>(ttfb.percentile(0.95));
    return sample;
}

void GuardBoard::add(const std::string& room_id, const std::string& node, const model::MinuteRecord& increment, util::TimePoint at) {
    uint64_t answers = 0;
    for (const int64_t count : increment.origin_answers) answers += static_cast<uint64_t>(std::max<int64_t>(0, count));
    // Errors: 5xx answers and requests that got no answer at all.
    uint64_t errors = static_cast<uint64_t>(std::max<int64_t>(0, increment.origin_answers[4]));
    for (const int64_t count : increment.origin_errors) errors += static_cast<uint64_t>(std::max<int64_t>(0, count));
    if (answers == 0 && errors == 0 && increment.origin_time.empty()) return;
    const std::lock_guard lock(m_mutex);
    Room& room = m_rooms[room_id];
    NodeFeed& feed = room.nodes[node];
    if (!feed.pending) {
        feed.pending = true;
        // The counts cover the time since the node's last report, with or without this room in
        // it: the steps since its last report of this room counted the quiet time already. A
        // node not heard from at all meanwhile (cut off) has its counts spread over its silence.
        feed.since = feed.heard_at;
        if (const auto last = m_node_heard.find(node); last != m_node_heard.end() && (!feed.since || last->second > *feed.since))
            feed.since = std::min(last->second, at);
    }
    feed.answers += answers;
    feed.errors += errors;
    feed.heard_at = std::max(at, feed.heard_at.value_or(at));
    room.ttfb.merge(increment.origin_time);
}

void GuardBoard::heard(const std::string& node, util::TimePoint at) {
    const std::lock_guard lock(m_mutex);
    util::TimePoint& last = m_node_heard[node];
    last = std::max(last, at);
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
        // Each node's counts as a rate over the time its reports cover, held over the interval.
        double answers = 0;
        double errors = 0;
        for (auto& [node, feed] : room.nodes) {
            if (!feed.pending) continue;
            double scale = 1;
            if (feed.since && feed.heard_at && *feed.heard_at > *feed.since) {
                const double covered = std::chrono::duration<double>(*feed.heard_at - *feed.since).count();
                scale = std::min(std::chrono::duration<double>(interval).count() / covered, k_max_scale);
            }
            answers += static_cast<double>(feed.answers) * scale;
            errors += static_cast<double>(feed.errors) * scale;
            feed.answers = feed.errors = 0;
            feed.pending = false;
        }
        std::erase_if(room.nodes, [now](const auto& entry) { return !entry.second.heard_at || now - *entry.second.heard_at > k_forget_node; });
        const OriginSample sample = sample_of(static_cast<uint64_t>(std::llround(answers)), static_cast<uint64_t>(std::llround(errors)),
                                              room.ttfb, interval);
        room.ttfb = model::Histogram{};
        decisions.push_back({input.room_id, room.controller.update(input.settings, input.configured, sample, input.load, now), sample});
    }
    std::erase_if(m_rooms, [&present](const auto& entry) { return !present.contains(entry.first); });
    std::erase_if(m_node_heard, [now](const auto& entry) { return now - entry.second > k_forget_node; });
    return decisions;
}

std::optional<GuardDecision> GuardBoard::last(const std::string& room_id) const {
    const std::lock_guard lock(m_mutex);
    const auto found = m_rooms.find(room_id);
    if (found == m_rooms.end() || !found->second.last_step) return std::nullopt;
    return found->second.controller.last();
}

} // namespace wr::origin
