// Zones' origin state and rooms' guards across configurations, and their counts.
#include "origin/registry.h"

#include <algorithm>

#include "util/log.h"

namespace wr::origin {

void OriginStats::record_answer(int status, util::Milliseconds ttfb) {
    m_answers[static_cast<size_t>(std::clamp(status / 100 - 1, 0, 4))].fetch_add(1, std::memory_order_relaxed);
    m_ttfb.add(ttfb.count());
}

void OriginStats::record_error(model::OriginErrorKind kind) {
    m_errors[static_cast<size_t>(kind)].fetch_add(1, std::memory_order_relaxed);
}

OriginStats::Counts OriginStats::counts() const {
    Counts counts;
    for (size_t i = 0; i < counts.answers.size(); ++i) counts.answers[i] = m_answers[i].load(std::memory_order_relaxed);
    for (size_t i = 0; i < counts.errors.size(); ++i) counts.errors[i] = m_errors[i].load(std::memory_order_relaxed);
    m_ttfb.peek_into(counts.ttfb);
    return counts;
}

std::shared_ptr<ZoneOrigin> Registry::zone(const std::string& zone_id, const std::string& zone_name, int64_t max_connections,
                                              int queue_timeout_seconds) {
    std::shared_ptr<ZoneOrigin> zone;
    {
        const std::lock_guard lock(m_mutex);
        auto& entry = m_zones[zone_id];
        if (!entry) entry = std::make_shared<ZoneOrigin>();
        entry->zone_name = zone_name;
        zone = entry;
    }
    zone->cap->set_limit(max_connections);
    zone->queue_timeout = std::chrono::seconds{std::max(1, queue_timeout_seconds)};
    return zone;
}

std::vector<std::pair<std::string, std::shared_ptr<ZoneOrigin>>> Registry::zones() const {
    const std::lock_guard lock(m_mutex);
    std::vector<std::pair<std::string, std::shared_ptr<ZoneOrigin>>> zones(m_zones.begin(), m_zones.end());
    std::sort(zones.begin(), zones.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return zones;
}

std::shared_ptr<RoomGuard> Registry::room(const std::string& room_id) {
    const std::lock_guard lock(m_mutex);
    auto& entry = m_rooms[room_id];
    if (!entry) entry = std::make_shared<RoomGuard>();
    return entry;
}

queue::Policy guarded(const queue::Policy& policy, const RoomGuard* guard) {
    if (!guard) return policy;
    return queue::held_to(policy, guard->total_active_users.load(std::memory_order_relaxed),
                          guard->new_users_per_minute.load(std::memory_order_relaxed));
}

std::vector<analytics::OriginMetrics> Registry::metrics() const {
    std::vector<analytics::OriginMetrics> out;
    for (const auto& [id, zone] : zones()) {
        analytics::OriginMetrics metrics;
        {
            const std::lock_guard lock(m_mutex);
            metrics.zone = zone->zone_name;
        }
        const ConnectionCap::Figures cap = zone->cap->figures();
        metrics.connection_limit = cap.limit;
        metrics.connections_open = cap.open;
        metrics.connections_idle = cap.idle;
        metrics.requests_waiting = cap.waiting;
        metrics.most_connections_open = cap.most_open;
        metrics.requests_waited = cap.waited;
        metrics.queue_timeouts = cap.timed_out;
        const OriginStats::Counts counts = zone->stats.counts();
        metrics.answers = counts.answers;
        metrics.errors = counts.errors;
        metrics.ttfb_ms = counts.ttfb;
        out.push_back(std::move(metrics));
    }
    return out;
}

void Registry::log_failures(util::TimePoint now) {
    const std::lock_guard notes_lock(m_notes_mutex);
    for (const auto& [id, zone] : zones()) {
        std::string name;
        {
            const std::lock_guard lock(m_mutex);
            name = zone->zone_name;
        }
        const OriginStats::Counts counts = zone->stats.counts();
        for (const std::string& line : m_notes.update(name, counts.errors, now)) util::log_warn("origin", line);
    }
}

} // namespace wr::origin
