#pragma once
// Plays a scenario through the real admission code (queue::check_in, the room's phases as the
// edge builds them) on virtual time, with a seeded random source: no HTTP, no sleeping. An hour
// of a 10,000-user surge takes about a second.
#include <functional>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "simulate/scenario.h"

namespace wr::simulate {

struct UserResult {
    double arrival_seconds = 0;  // the place in line (for reference:… scenarios, the one written into the ticket)
    double joined_seconds = 0;   // the first request; waits count from here
    std::optional<double> admitted_seconds;
    std::optional<double> first_estimate_minutes; // the first wait shown from measured admissions, when known
    std::optional<double> first_estimate_seconds; // when it was shown: the wait it promises runs from here
    std::optional<double> first_estimate_p25_minutes; // random: the quartiles of that first range
    std::optional<double> first_estimate_p75_minutes;
    // The first wait shown from the room's limits (its first minutes, before it has measured its
    // admissions; pages mark it as such), and when. Kept apart from the calibration above.
    std::optional<double> first_limits_estimate_minutes;
    std::optional<double> first_limits_estimate_seconds;
    bool abandoned = false;
    bool rejected = false;
};

struct MinuteResult {
    int64_t minute = 0;
    int64_t active_users = 0;      // at the end of the minute
    int64_t queued_users = 0;
    int64_t admitted = 0;          // let in during the minute
    int64_t total_active_users_limit = 0;
    int64_t new_users_per_minute_limit = 0;
    double estimated_wait_minutes = 0; // the average first estimate of those who arrived this minute
    double observed_wait_minutes = 0;  // the average wait those who arrived this minute had
    int64_t arrivals = 0;
    // The oracle: the same minute seen from the browsers, each knowing when its own cookie
    // admits it, independent of the ledger's counts above.
    int64_t sessions = 0;          // sessions whose cookie was valid at some moment of the minute
    int64_t sessions_started = 0;  // browsers first let in during the minute
    int64_t waiting = 0;           // browsers waiting at the end of the minute
    // The origin (when modelled): what it did for the requests whose answer (or timeout) fell in
    // the minute, and the effective limits the origin guard set, at the end of the minute.
    int64_t origin_answers = 0;
    int64_t origin_errors = 0;     // timeouts
    double origin_p95_ttfb_ms = -1;
    int64_t effective_total_active_users = 0;
    int64_t effective_new_users_per_minute = 0;
    std::string guard_state;
};

// The origin and its guard over the run (when the origin is modelled). The budgets: from 60 s
// after the origin first went over target until the crowd thinned, the share of minutes with
// p95 ≤ 1.5 × target and errors ≤ max_error_rate, and the throughput against what the origin
// sustains at its target; the minutes from the crowd thinning to the configured limits.
struct OriginSummary {
    bool modelled = false;
    bool guarded = false;
    int target_ttfb_ms = 0;
    double sustainable_per_second = 0;   // what the origin serves within target (Poisson arrivals)
    int64_t requests = 0;
    int64_t answers = 0;
    int64_t errors = 0;                  // timeouts
    double max_p95_ttfb_ms = 0;          // of any minute
    double first_over_target_seconds = -1; // the first control interval over target; < 0: never
    int64_t judged_minutes = 0;
    int64_t good_minutes = 0;
    double good_share = 0;
    double judged_p95_ttfb_ms = 0;       // the median minute's p95 over the judged minutes
    double judged_error_rate = 0;
    double throughput_share = 0;         // answers a second in the judged minutes ÷ sustainable
    int64_t sent_back = 0;               // check-ins of admitted, browsing users that were queued
    double crowd_thinned_minutes = -1;   // the end of the last minute anyone waited; < 0: no one did
    double limits_restored_minutes = -1; // from then on the effective limits were the configured ones
    double recovery_minutes = -1;        // the one after the other; < 0: not restored in the run
    int64_t guard_changes = 0;           // decisions that changed the effective limits or the state
    int64_t lowest_effective_total = 0;
    int64_t lowest_effective_rate = 0;
};

// How the wait shown at check-ins compared with the wait still ahead, for check-ins with
// `remaining` minutes left in [from, to).
struct RemainingWaitError {
    double from_minutes = 0;
    double to_minutes = 0;
    int64_t check_ins = 0;
    double median_error_minutes = 0; // had − shown: positive when the estimate was short
    double in_time_share = 0;        // in within the wait shown
};

struct Summary {
    int64_t users = 0;
    int64_t admitted = 0;
    int64_t abandoned = 0;
    int64_t rejected = 0;
    int64_t never_admitted = 0;         // still waiting when the simulation stopped
    int64_t max_active = 0;             // the oracle's: concurrent valid session cookies, at worst
    int64_t total_active_users = 0;     // the room's limit (events may differ)
    double overshoot_percent = 0;       // how far active users went above the limit in force, at worst
    int64_t max_admitted_per_minute = 0;
    int64_t new_users_per_minute = 0;
    double admitted_per_minute_overshoot_percent = 0;
    int64_t early_queueing_minutes = 0; // minutes that ended with browsers waiting although neither limit was reached (oracle)
    int64_t early_queueing_minutes_98 = 0; // … with the room under 98 % of both limits
    double early_queueing_share_98 = 0;    // those minutes ÷ every minute simulated
    double kendall_tau = 0;             // arrival order against admission order, of those admitted
    double kendall_tau_waiting = 0;     // the same, of those who had to wait (not let in at once)
    double wait_estimate_mae_minutes = 0;
    // Calibration of the first wait shown, over those admitted after waiting: the share in within
    // it, and the median of (had − shown), the wait had counted from the moment it was shown. Random also: the shares in within the first range's
    // 25th, 50th and 75th percentile (a calibrated range gives 25 %, 50 %, 75 %).
    int64_t calibrated_users = 0;
    double first_estimate_in_time_share = 0;
    double first_estimate_median_error_minutes = 0;
    double first_estimate_p25_share = 0;
    double first_estimate_p50_share = 0;
    double first_estimate_p75_share = 0;
    std::vector<RemainingWaitError> error_by_remaining_wait;
    // The same for the first wait worked out from the room's limits, over those shown one.
    int64_t limits_estimate_users = 0;
    double limits_estimate_in_time_share = 0;
    double limits_estimate_median_error_minutes = 0;
    double mean_wait_minutes = 0;
    double simulated_minutes = 0;
    int64_t check_ins = 0;
    int nodes = 1;       // edge nodes sharing the room
    int64_t syncs = 0;   // their round trips to the store
    OriginSummary origin;
};

struct Report {
    Scenario scenario;
    std::vector<UserResult> users;
    std::vector<MinuteResult> minutes;
    Summary summary;
};

// progress(fraction of users done) is called now and then, for a progress bar.
Report run(const Scenario& scenario, const std::function<void(double)>& progress = {});

// Kendall's tau-b of two equally long sequences (ties counted as neither concordant nor
// discordant). Exact for up to `max_items`, else on an even sample of that many.
double kendall_tau(const std::vector<double>& x, const std::vector<double>& y, size_t max_items = 20000);

nlohmann::json report_to_json(const Report& report, bool include_users = true);
nlohmann::json summary_to_json(const Summary& summary);
nlohmann::json origin_summary_to_json(const OriginSummary& origin);
// A run with several nodes beside the same scenario on one node: overshoot, early queueing and
// order, each as {"nodes": …, "single_node": …}.
nlohmann::json nodes_comparison(const Scenario& scenario, const Summary& nodes, const Summary& single_node);

} // namespace wr::simulate
