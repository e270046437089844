#pragma once
// What happens in each room, counted per minute. Edge threads record with relaxed atomic
// increments (no locks, no I/O, no allocation); a collector thread drains the counts every
// couple of seconds into MinuteRecords and writes them to the store.
#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "analytics/histogram.h"
#include "analytics/origin_metrics.h"
#include "analytics/state_metrics.h"
#include "model/minute_record.h"
#include "util/clock.h"
#include "util/line_writer.h"

namespace wr::analytics {

using model::k_outcomes;
using model::MinuteRecord;
using model::Outcome;
using model::outcome_name;

enum class TurnstileOutcome { challenge, success, failure, unsolved };

// Cumulative counts since start, for Prometheus.
struct Totals {
    std::array<uint64_t, k_outcomes> requests{};
    uint64_t new_admitted = 0;
    uint64_t revoked = 0;
    uint64_t turnstile_challenges = 0;
    uint64_t turnstile_successes = 0;
    uint64_t turnstile_failures = 0;
    uint64_t infinite_queue_refreshes = 0;
    std::array<uint64_t, model::k_status_classes> origin_answers{};
    std::array<uint64_t, model::k_origin_error_kinds> origin_errors{};
};

class RoomStats {
public:
    void record_request(util::TimePoint now, Outcome outcome);
    // A visitor let in now, who arrived at `arrived`.
    void record_admission(util::TimePoint now, util::TimePoint arrived);
    void record_estimate(util::TimePoint now, int64_t minutes);
    // The origin answered a proxied request with `status`, its head after `ttfb`.
    void record_origin_answer(util::TimePoint now, int status, util::Milliseconds ttfb);
    void record_origin_error(util::TimePoint now, model::OriginErrorKind kind);
    void record_revocation(util::TimePoint now);
    void record_turnstile(util::TimePoint now, TurnstileOutcome outcome);
    void record_infinite_refresh(util::TimePoint now);

    // Moves what has been counted into `into`, one record per minute.
    void drain(std::map<int64_t, MinuteRecord>& into);
    Totals totals() const;
    // Adds what another node counted (an edge's push, on its control node) to the totals, so
    // /metrics there counts the whole room; the minutes themselves go to the store directly.
    void add_to_totals(const MinuteRecord& record);

private:
    enum Counter { admitted, queued, rejected, bypassed, passthrough, new_admitted, revoked, challenges, successes,
                   failures, unsolved, infinite, origin_1xx, origin_2xx, origin_3xx, origin_4xx, origin_5xx, origin_refused,
                   origin_reset, origin_timeout, origin_invalid, origin_tls, k_counters };
    struct Slot {
        std::atomic<int64_t> minute{-1};
        std::array<std::atomic<int64_t>, k_counters> counters{};
        AtomicHistogram estimated_wait;
        AtomicHistogram observed_wait;
        AtomicHistogram origin_time;
    };
    // Four minutes in a ring: the current one is written, the others wait to be drained.
    Slot& slot(util::TimePoint now);
    void count(util::TimePoint now, Counter counter);

    std::array<Slot, 4> m_slots;
    std::array<std::atomic<uint64_t>, k_counters> m_totals{};
};

class LatencyHistogram;

// The edge's own counts, beside the rooms' (for /metrics): tunnels after an Upgrade.
struct EdgeCounters {
    // Requests read, by the protocol they came in (each on its own cache line: every edge thread adds).
    alignas(64) std::atomic<uint64_t> http1_requests{0};
    alignas(64) std::atomic<uint64_t> h2_requests{0};
    alignas(64) std::atomic<uint64_t> h2c_requests{0};       // HTTP/2 on the plain edge (--edge-h2c)
    alignas(64) std::atomic<uint64_t> h2_connections{0};     // HTTP/2 connections opened (ALPN h2, and h2c)
    std::atomic<uint64_t> h2_calm_goaways{0};                 // closed with GOAWAY(ENHANCE_YOUR_CALM): resets or floods
    std::atomic<int64_t> open_tunnels{0};
    std::atomic<uint64_t> tunnels_opened{0};
    util::LineWriterCounters access_log; // lines written, and dropped when the disk could not keep up
};

// The stats of every room, found by id; shared by the edge (which records) and the collector.
class Registry {
public:
    // How long the edge takes to decide requests, all rooms together (for /metrics).
    LatencyHistogram& decision_time() { return *m_decision_time; }
    EdgeCounters& edge() { return m_edge; }

    Registry();
    ~Registry();

    std::shared_ptr<RoomStats> room(const std::string& room_id);
    std::vector<std::pair<std::string, std::shared_ptr<RoomStats>>> rooms() const;
    void forget(const std::string& room_id);

    // Where /metrics reads the zones' origins (set once by the composition root).
    void set_origin_source(std::function<std::vector<OriginMetrics>()> source) { m_origin_source = std::move(source); }
    std::vector<OriginMetrics> origin_metrics() const { return m_origin_source ? m_origin_source() : std::vector<OriginMetrics>{}; }

    // Where /metrics reads the shared state's health (set once by the composition root).
    void set_state_source(std::function<StateMetrics()> source) { m_state_source = std::move(source); }
    std::optional<StateMetrics> state_metrics() const {
        if (!m_state_source) return std::nullopt;
        return m_state_source();
    }

private:
    std::function<StateMetrics()> m_state_source;
    std::function<std::vector<OriginMetrics>()> m_origin_source;
    mutable std::mutex m_mutex;
    std::unordered_map<std::string, std::shared_ptr<RoomStats>> m_rooms;
    std::unique_ptr<LatencyHistogram> m_decision_time;
    EdgeCounters m_edge;
};

} // namespace wr::analytics
