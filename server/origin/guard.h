#pragma once
// The origin guard: one controller per room that lowers the room's *effective* admission limits
// below the configured ones while its origin is over its latency target or its error rate, and
// raises them back while the origin is healthy. It never goes below a floor and never ends a
// session: an effective total under the active users only stops admissions until enough
// sessions end. Pure: the measurements, the room's counts and the time come in as arguments, so
// the edge, the control node and `wr simulate` run the same code (docs/design.md, "The origin
// guard", explains the control law and why it is stable).
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "model/room.h"
#include "util/clock.h"

namespace wr::origin {

// How often the guard expects a sample. Any interval from about a second to 15 s works: every
// rule scales with sample.interval, and short samples are pooled until they hold enough answers.
inline constexpr util::Milliseconds k_guard_interval{5000};

struct Limits {
    int64_t total_active_users = 0;
    int64_t new_users_per_minute = 0;
    bool operator==(const Limits&) const = default;
};

// What the origin did for one room over one control interval (the edge fills it from its
// measurements, merged across nodes; `wr simulate` from its model of the origin).
struct OriginSample {
    util::Milliseconds interval{};  // how long it covers
    uint64_t answers = 0;           // proxied requests that got an answer (any status)
    uint64_t errors = 0;            // 5xx answers + failed connections (refused, reset, timeout, invalid answer, TLS)
    double p95_ttfb_ms = -1;        // p95 time to first byte of the answers; < 0 when none
};

// What the room is doing now (from the admission counters).
struct RoomLoad {
    int64_t active_users = 0;
    int64_t admitted_last_minute = 0;  // admissions in the last 60 s (or the last whole minute)
    int64_t queued_users = 0;
    // Users whose last request fell in about the last minute — those still browsing, whom the
    // origin serves (the ledger's current and previous minute of last requests); < 0 when not
    // known, and the guard falls back on the highest demand per active user it has seen.
    int64_t browsing_users = -1;
};

enum class GuardState {
    off,        // the room's origin_guard is disabled: the configured limits apply
    content,    // on, and the configured limits apply: the origin is healthy with room to spare
    throttling, // below the configured limits: the origin is over target, or at the capacity it showed
    recovering, // below the configured limits but rising back: the origin is healthy and the crowd has thinned
};
std::string_view to_string(GuardState state);

// What the guard read from its samples, smoothed: for the room status, /metrics and the simulator.
struct GuardReadings {
    double p95_ttfb_ms = -1;          // smoothed p95 time to first byte; < 0 before any answer
    double error_rate = 0;            // errors ÷ (answers + errors), smoothed
    double pressure = 0;              // max(p95 ÷ target, error rate ÷ max_error_rate): over 1 is over target
    double requests_per_second = 0;   // the room's demand on the origin (answers + errors), smoothed
    double capacity_per_second = 0;   // the guard's estimate of what the origin serves within target; 0: not known yet
};

struct GuardDecision {
    Limits effective;          // never above `configured`, never below the floor; == configured while off or content
    GuardState state = GuardState::off;
    std::string reason;        // one line for humans: "origin p95 1,240 ms over the 500 ms target: admitting 120 a minute of 500"
    bool changed = false;      // effective limits or state differ from the previous decision (one log line per change)
    GuardReadings readings;
};

// The lowest the guard goes: new users per minute, min_new_users_per_minute or, when that is 0,
// a tenth of the configured rate; total active users, a tenth of the configured total but at
// least the new-users floor. Both at least 1 and never above the configured limits.
Limits guard_floor(const model::OriginGuardSettings& settings, const Limits& configured);

// One per room. Call update() once per control interval with what the origin did over it.
class GuardController {
public:
    GuardDecision update(const model::OriginGuardSettings& settings, const Limits& configured, const OriginSample& sample,
                         const RoomLoad& load, util::TimePoint now);
    const GuardDecision& last() const { return m_last; }

private:
    // Samples too small to judge are pooled until they hold enough requests.
    struct Pool {
        double seconds = 0;
        uint64_t answers = 0;
        uint64_t errors = 0;
        uint64_t timed_answers = 0; // answers of samples that carried a p95
        double p95_weighted = 0;    // Σ p95 × answers: the pooled p95 is their answer-weighted mean
    };
    // What became of the pool after a sample.
    struct Judgement {
        bool judged = false; // enough requests: the readings moved
        bool quiet = false;  // half a minute without enough requests: the pressure fades
        bool over = false;   // the window itself was over target (not only the smoothed reading)
        double seconds = 0;  // how long the judged window was
    };

    void reset();
    Judgement judge(const model::OriginGuardSettings& settings, const OriginSample& sample);
    void step(const Judgement& judgement, const Limits& configured, const Limits& floor, const RoomLoad& load, util::TimePoint now);
    std::string explain(const model::OriginGuardSettings& settings, const Limits& configured, const Limits& floor,
                        const GuardDecision& decision) const;

    Pool m_pool;
    bool m_measured = false;          // the smoothed readings hold something
    bool m_last_quiet = false;        // the last window judged was quiet: the readings are not fresh
    GuardReadings m_readings;
    double m_latency_ratio = 0;       // smoothed p95 ÷ target
    double m_error_ratio = 0;         // smoothed error rate ÷ max_error_rate
    double m_served_per_second = 0;   // answers a second in the last judged window
    std::optional<double> m_capacity; // requests a second the origin serves within target (learned)
    std::optional<util::TimePoint> m_capacity_measured_at; // when the origin last showed its limit
    bool m_over_episode = false;                  // the origin is in a spell over target
    std::optional<double> m_episode_capacity;     // the capacity the last spell found
    double m_probe_pause_seconds = 300;           // how long after a spell before probing above it
    std::deque<std::pair<util::TimePoint, int64_t>> m_browsing_history; // the last minute's browsing users
    double m_departures_per_minute = 0;           // browsing users who stop, a minute
    double m_demand_per_user = 0;     // requests a second per active user: the highest ratio seen lately
    double m_demand_per_browser = 0;  // requests a second per browsing user: the highest ratio of the last few minutes
    bool m_content = true;            // the configured limits apply
    bool m_relaxing = false;          // returning to the configured limits
    double m_total = 0;               // the effective limits before they are rounded and published
    double m_rate = 0;
    std::optional<util::TimePoint> m_published_at; // when the effective limits last moved
    std::optional<util::TimePoint> m_risen_at;     // when the total last stepped up
    GuardDecision m_last;
};

} // namespace wr::origin
