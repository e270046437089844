#pragma once
// What a node keeps of the origin side from one configuration to the next: for each zone, its
// origin's connection cap (the slots of connections open now survive a configuration change) and
// its measurements since start — answers by status class, failures by kind, time to first byte —
// for /metrics; for each room, the limits the origin guard lets it admit by. Edge threads record
// and read with relaxed atomics: no lock and no allocation per request.
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "analytics/histogram.h"
#include "analytics/origin_metrics.h"
#include "model/minute_record.h"
#include "origin/connection_cap.h"
#include "origin/failure_notes.h"
#include "queue/policy.h"
#include "util/clock.h"

namespace wr::origin {

// An origin's answers and failures since start.
class OriginStats {
public:
    struct Counts {
        std::array<uint64_t, model::k_status_classes> answers{};
        std::array<uint64_t, model::k_origin_error_kinds> errors{};
        model::Histogram ttfb; // milliseconds
    };

    void record_answer(int status, util::Milliseconds ttfb);
    void record_error(model::OriginErrorKind kind);
    Counts counts() const;

private:
    std::array<std::atomic<uint64_t>, model::k_status_classes> m_answers{};
    std::array<std::atomic<uint64_t>, model::k_origin_error_kinds> m_errors{};
    analytics::AtomicHistogram m_ttfb;
};

struct ZoneOrigin {
    std::string zone_name; // for /metrics (set with the cap)
    std::shared_ptr<ConnectionCap> cap = std::make_shared<ConnectionCap>();
    std::chrono::milliseconds queue_timeout{10000}; // set with the cap, from the zone's settings
    OriginStats stats;
};

// The origin guard's word on one room, as the Gate reads it: the effective limits (0: the
// configured ones apply) and the guard's state, set by whoever runs the room's controller (this
// node, or the control node through the edge's analytics exchange).
struct RoomGuard {
    std::atomic<int64_t> total_active_users{0};
    std::atomic<int64_t> new_users_per_minute{0};
    std::atomic<int> state{0}; // origin::GuardState, as an int

    void set(int64_t total, int64_t per_minute, int guard_state) {
        total_active_users.store(total, std::memory_order_relaxed);
        new_users_per_minute.store(per_minute, std::memory_order_relaxed);
        state.store(guard_state, std::memory_order_relaxed);
    }
    void clear() { set(0, 0, 0); }
};

// `policy`'s limits lowered to the guard's (never raised), and paced while the guard holds it back.
queue::Policy guarded(const queue::Policy& policy, const RoomGuard* guard);

class Registry {
public:
    // The zone's origin state (created at first use), its cap set to the zone's settings.
    std::shared_ptr<ZoneOrigin> zone(const std::string& zone_id, const std::string& zone_name, int64_t max_connections,
                                     int queue_timeout_seconds);
    std::vector<std::pair<std::string, std::shared_ptr<ZoneOrigin>>> zones() const;
    // The room's guard (created at first use, with the configured limits in force).
    std::shared_ptr<RoomGuard> room(const std::string& room_id);
    // Every zone's figures, as /metrics shows them.
    std::vector<analytics::OriginMetrics> metrics() const;
    // Logs the origins' failures since the last call (origin/failure_notes.h: the first at once,
    // then a count a minute). Called every couple of seconds off the request path.
    void log_failures(util::TimePoint now);

private:
    mutable std::mutex m_mutex;
    std::unordered_map<std::string, std::shared_ptr<ZoneOrigin>> m_zones;
    std::unordered_map<std::string, std::shared_ptr<RoomGuard>> m_rooms;
    std::mutex m_notes_mutex;
    FailureNotes m_notes;
};

} // namespace wr::origin
