// Samples, drains and stores analytics in the background.
#include "analytics/collector.h"

#include "store/analytics_store.h"
#include "store/analytics_streams_store.h"
#include "store/audit_store.h"
#include "util/log.h"

namespace wr::analytics {

void RoomSample::set_limits(int64_t configured_total, int64_t configured_per_minute, int64_t total_in_force,
                            int64_t per_minute_in_force) {
    total_active_users_limit = configured_total;
    new_users_per_minute_limit = configured_per_minute;
    const bool lowered = total_in_force < configured_total || per_minute_in_force < configured_per_minute;
    effective_total_active_users = lowered ? total_in_force : 0;
    effective_new_users_per_minute = lowered ? per_minute_in_force : 0;
}

Collector::Collector(store::Database& database, Registry& registry, Sampler& sampler, const util::Clock& clock,
                     std::chrono::milliseconds interval, std::chrono::hours audit_retention)
    : m_database(database), m_registry(registry), m_sampler(sampler), m_clock(clock), m_interval(interval),
      m_audit_retention(audit_retention) {}

Collector::~Collector() { stop(); }

void Collector::start() { m_thread = std::thread([this] { run(); }); }

void Collector::stop() {
    {
        std::lock_guard lock(m_stop_mutex);
        if (m_stopping) return;
        m_stopping = true;
    }
    m_stop_signal.notify_all();
    if (m_thread.joinable()) m_thread.join();
    try {
        collect();
    } catch (const std::exception& error) {
        util::log_error("analytics", std::string("the last write failed: ") + error.what());
    }
}

void Collector::run() {
    std::unique_lock lock(m_stop_mutex);
    while (!m_stop_signal.wait_for(lock, m_interval, [this] { return m_stopping; })) {
        lock.unlock();
        try {
            collect();
        } catch (const std::exception& error) {
            // The counts stay in memory and go out with the next round.
            util::log_error("analytics", std::string("writing analytics failed: ") + error.what());
        }
        lock.lock();
    }
}

void Collector::collect() {
    std::lock_guard lock(m_collect_mutex);
    const util::TimePoint now = m_clock.now();
    const int64_t minute = std::chrono::floor<std::chrono::minutes>(now.time_since_epoch()).count();
    std::map<std::string, std::map<int64_t, MinuteRecord>> pending;
    for (const RoomSample& sample : m_sampler.sample(now)) {
        MinuteRecord& record = pending[sample.room_id][minute];
        record.minute = minute;
        record.active_max = sample.active_users;
        record.active_sum = sample.active_users;
        record.active_samples = 1;
        record.queued_max = sample.queued_users;
        record.total_active_users_limit = sample.total_active_users_limit;
        record.new_users_per_minute_limit = sample.new_users_per_minute_limit;
        record.effective_total_active_users = sample.effective_total_active_users;
        record.effective_new_users_per_minute = sample.effective_new_users_per_minute;
    }
    for (const auto& [room_id, stats] : m_registry.rooms()) {
        std::map<int64_t, MinuteRecord> drained;
        stats->drain(drained);
        if (m_on_drained)
            for (const auto& [minute, increment] : drained) m_on_drained(room_id, increment);
        for (const auto& [minute, increment] : drained)
            if (auto [it, inserted] = pending[room_id].try_emplace(minute, increment); !inserted) it->second.merge(increment);
    }

    const int64_t hour = minute / 60;
    const bool prune = hour != m_last_prune_hour;
    m_database.record([&](store::Connection& connection) {
        SQLite::Statement exists(connection, "SELECT 1 FROM waiting_rooms WHERE id = ?");
        for (const auto& [room_id, records] : pending) {
            if (records.empty()) continue;
            exists.reset();
            exists.bind(1, room_id);
            if (!exists.executeStep()) {
                m_registry.forget(room_id); // the room was deleted
                continue;
            }
            store::merge_analytics(connection, room_id, records);
        }
        if (prune) {
            store::prune_analytics(connection, minute - std::chrono::duration_cast<std::chrono::minutes>(k_retention).count());
            store::prune_analytics_streams(connection, now - k_retention);
            store::prune_audit_log(connection, now - m_audit_retention);
        }
    });
    if (prune) m_last_prune_hour = hour;
    if (m_on_round) m_on_round(now);
}

} // namespace wr::analytics
