// Per-room, per-minute counters.
#include "analytics/room_stats.h"

#include <algorithm>

#include "analytics/prometheus.h"

namespace wr::analytics {
namespace {

int64_t minute_of(util::TimePoint time) { return std::chrono::floor<std::chrono::minutes>(time.time_since_epoch()).count(); }

} // namespace

RoomStats::Slot& RoomStats::slot(util::TimePoint now) {
    const int64_t minute = minute_of(now);
    Slot& slot = m_slots[static_cast<size_t>(minute & 3)];
    // The slot was drained long ago (drains run every few seconds); claim it for this minute.
    if (slot.minute.load(std::memory_order_relaxed) != minute) slot.minute.store(minute, std::memory_order_relaxed);
    return slot;
}

void RoomStats::count(util::TimePoint now, Counter counter) {
    slot(now).counters[counter].fetch_add(1, std::memory_order_relaxed);
    m_totals[counter].fetch_add(1, std::memory_order_relaxed);
}

void RoomStats::record_request(util::TimePoint now, Outcome outcome) { count(now, static_cast<Counter>(outcome)); }

void RoomStats::record_admission(util::TimePoint now, util::TimePoint arrived) {
    Slot& current = slot(now);
    current.counters[new_admitted].fetch_add(1, std::memory_order_relaxed);
    m_totals[new_admitted].fetch_add(1, std::memory_order_relaxed);
    current.observed_wait.add(std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::seconds>(now - arrived).count()));
}

void RoomStats::record_estimate(util::TimePoint now, int64_t minutes) { slot(now).estimated_wait.add(minutes); }

void RoomStats::record_origin_answer(util::TimePoint now, int status, util::Milliseconds ttfb) {
    slot(now).origin_time.add(ttfb.count());
    count(now, static_cast<Counter>(origin_1xx + std::clamp(status / 100 - 1, 0, 4)));
}

void RoomStats::record_origin_error(util::TimePoint now, model::OriginErrorKind kind) {
    count(now, static_cast<Counter>(origin_refused + static_cast<int>(kind)));
}

void RoomStats::record_revocation(util::TimePoint now) { count(now, revoked); }

void RoomStats::record_turnstile(util::TimePoint now, TurnstileOutcome outcome) {
    switch (outcome) {
    case TurnstileOutcome::challenge: count(now, challenges); break;
    case TurnstileOutcome::success: count(now, successes); break;
    case TurnstileOutcome::failure: count(now, failures); break;
    case TurnstileOutcome::unsolved: count(now, unsolved); break;
    }
}

void RoomStats::record_infinite_refresh(util::TimePoint now) { count(now, infinite); }

void RoomStats::drain(std::map<int64_t, MinuteRecord>& into) {
    for (Slot& slot : m_slots) {
        const int64_t minute = slot.minute.load(std::memory_order_relaxed);
        if (minute < 0) continue;
        MinuteRecord record;
        record.minute = minute;
        std::array<int64_t, k_counters> values{};
        bool any = false;
        for (size_t i = 0; i < k_counters; ++i) {
            values[i] = slot.counters[i].exchange(0, std::memory_order_relaxed);
            any = any || values[i] != 0;
        }
        for (size_t i = 0; i < k_outcomes; ++i) record.requests[i] = values[i];
        record.new_admitted = values[new_admitted];
        record.revoked = values[revoked];
        record.turnstile_challenges = values[challenges];
        record.turnstile_successes = values[successes];
        record.turnstile_failures = values[failures];
        record.turnstile_unsolved = values[unsolved];
        record.infinite_refreshes = values[infinite];
        for (size_t i = 0; i < model::k_status_classes; ++i) record.origin_answers[i] = values[origin_1xx + i];
        for (size_t i = 0; i < model::k_origin_error_kinds; ++i) record.origin_errors[i] = values[origin_refused + i];
        slot.estimated_wait.drain_into(record.estimated_wait);
        slot.observed_wait.drain_into(record.observed_wait);
        slot.origin_time.drain_into(record.origin_time);
        if (!any && record.estimated_wait.empty() && record.observed_wait.empty() && record.origin_time.empty()) continue;
        auto [it, inserted] = into.try_emplace(minute, record);
        if (!inserted) it->second.merge(record);
    }
}

Totals RoomStats::totals() const {
    Totals totals;
    for (size_t i = 0; i < k_outcomes; ++i) totals.requests[i] = m_totals[i].load(std::memory_order_relaxed);
    totals.new_admitted = m_totals[new_admitted].load(std::memory_order_relaxed);
    totals.revoked = m_totals[revoked].load(std::memory_order_relaxed);
    totals.turnstile_challenges = m_totals[challenges].load(std::memory_order_relaxed);
    totals.turnstile_successes = m_totals[successes].load(std::memory_order_relaxed);
    totals.turnstile_failures = m_totals[failures].load(std::memory_order_relaxed);
    totals.infinite_queue_refreshes = m_totals[infinite].load(std::memory_order_relaxed);
    for (size_t i = 0; i < model::k_status_classes; ++i) totals.origin_answers[i] = m_totals[origin_1xx + i].load(std::memory_order_relaxed);
    for (size_t i = 0; i < model::k_origin_error_kinds; ++i)
        totals.origin_errors[i] = m_totals[origin_refused + i].load(std::memory_order_relaxed);
    return totals;
}

void RoomStats::add_to_totals(const MinuteRecord& record) {
    const auto add = [this](Counter counter, int64_t value) {
        if (value > 0) m_totals[counter].fetch_add(static_cast<uint64_t>(value), std::memory_order_relaxed);
    };
    for (size_t i = 0; i < k_outcomes; ++i) add(static_cast<Counter>(i), record.requests[i]);
    add(new_admitted, record.new_admitted);
    add(revoked, record.revoked);
    add(challenges, record.turnstile_challenges);
    add(successes, record.turnstile_successes);
    add(failures, record.turnstile_failures);
    add(unsolved, record.turnstile_unsolved);
    add(infinite, record.infinite_refreshes);
    for (size_t i = 0; i < model::k_status_classes; ++i) add(static_cast<Counter>(origin_1xx + i), record.origin_answers[i]);
    for (size_t i = 0; i < model::k_origin_error_kinds; ++i) add(static_cast<Counter>(origin_refused + i), record.origin_errors[i]);
}

Registry::Registry() : m_decision_time(std::make_unique<LatencyHistogram>()) {}
Registry::~Registry() = default;

std::shared_ptr<RoomStats> Registry::room(const std::string& room_id) {
    std::lock_guard lock(m_mutex);
    auto& stats = m_rooms[room_id];
    if (!stats) stats = std::make_shared<RoomStats>();
    return stats;
}

std::vector<std::pair<std::string, std::shared_ptr<RoomStats>>> Registry::rooms() const {
    std::lock_guard lock(m_mutex);
    return {m_rooms.begin(), m_rooms.end()};
}

void Registry::forget(const std::string& room_id) {
    std::lock_guard lock(m_mutex);
    m_rooms.erase(room_id);
}

} // namespace wr::analytics
