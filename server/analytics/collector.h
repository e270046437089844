#pragma once
// Moves analytics from the edge to the store: every couple of seconds it samples each room's
// live figures (active and queued users, the limits in force), drains the per-minute counters,
// and writes everything in one transaction; once an hour it drops minutes older than 30 days
// (and audit log entries older than their retention). All of it off the request path.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "analytics/room_stats.h"
#include "store/database.h"
#include "util/clock.h"

namespace wr::analytics {

inline constexpr auto k_retention = std::chrono::days{30};
inline constexpr auto k_audit_retention = std::chrono::days{90}; // the default of --audit-retention-days

// What a room looks like right now; provided by the edge.
struct RoomSample {
    std::string room_id;
    int64_t active_users = 0;
    int64_t queued_users = 0;
    int64_t total_active_users_limit = 0;
    int64_t new_users_per_minute_limit = 0;
    int64_t max_estimated_minutes = 0; // the longest wait shown now (status); 0 when unknown
    // The origin guard's limits while it holds the room below the configured ones; 0 otherwise.
    int64_t effective_total_active_users = 0;
    int64_t effective_new_users_per_minute = 0;
    // What the origin guard reads of the room's load (model::LiveFigures); browsing_users < 0
    // when the node did not say (an edge of an older version).
    int64_t admitted_last_minute = 0;
    int64_t browsing_users = -1;

    // The limits configured (the phase's) and, where the origin guard holds the room below them,
    // the limits in force as the effective ones (else those stay 0): analytics keeps both.
    void set_limits(int64_t configured_total, int64_t configured_per_minute, int64_t total_in_force, int64_t per_minute_in_force);
};

class Sampler {
public:
    virtual ~Sampler() = default;
    virtual std::vector<RoomSample> sample(util::TimePoint now) = 0;
};

class Collector {
public:
    Collector(store::Database& database, Registry& registry, Sampler& sampler, const util::Clock& clock,
              std::chrono::milliseconds interval = std::chrono::milliseconds{2000},
              std::chrono::hours audit_retention = k_audit_retention);
    ~Collector();

    void start();
    void stop();
    // One round now (tests; and on stop, so nothing counted is lost).
    void collect();
    // Called in each round with what every room counted since the last (the origin guard reads
    // its origin's answers from it). Set before start().
    using DrainListener = std::function<void(const std::string& room_id, const MinuteRecord& increment)>;
    void on_drained(DrainListener listener) { m_on_drained = std::move(listener); }
    // Called at the end of each round (the origin's failures are logged from here, off the
    // request path). Set before start().
    void on_round(std::function<void(util::TimePoint drained_at)> listener) { m_on_round = std::move(listener); }

private:
    void run();

    store::Database& m_database;
    Registry& m_registry;
    Sampler& m_sampler;
    const util::Clock& m_clock;
    std::chrono::milliseconds m_interval;
    std::chrono::hours m_audit_retention;
    DrainListener m_on_drained;
    std::function<void(util::TimePoint)> m_on_round;
    std::mutex m_collect_mutex;
    int64_t m_last_prune_hour = -1;
    std::thread m_thread;
    std::mutex m_stop_mutex;
    std::condition_variable m_stop_signal;
    bool m_stopping = false;
};

} // namespace wr::analytics
