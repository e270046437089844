// The simulator's event loop: each user is a browser that arrives, checks in whenever its page
// would refresh, browses once admitted, and maybe gives up while waiting.
#include "simulate/simulation.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <queue>
#include <set>

#include "origin/guard.h"
#include "queue/admission.h"
#include "queue/schedule.h"
#include "simulate/origin_model.h"
#include "simulate/simulated_state.h"
#include "util/time_format.h"

namespace wr::simulate {
namespace {

using util::Milliseconds;
using util::TimePoint;

// Virtual time starts at a fixed instant, so reports are identical run to run.
const TimePoint k_epoch{std::chrono::sys_days{std::chrono::year{2026} / 1 / 1}};

TimePoint at_minutes(double minutes) { return k_epoch + Milliseconds{static_cast<int64_t>(std::llround(minutes * 60000))}; }
double seconds_since_epoch(TimePoint time) { return static_cast<double>((time - k_epoch).count()) / 1000.0; }

model::Timestamp timestamp(TimePoint time) { return {util::format_iso8601(time), time}; }

// The room's configuration and its schedule, built as the edge builds it, so events switch
// settings exactly as they do in serving. The schedule points into the settings and events.
struct SimulatedRoom {
    model::RoomSettings settings;
    std::vector<model::Event> events;
    queue::Schedule schedule;
};

void build_room(const Scenario& scenario, SimulatedRoom& room) {
    room.settings.total_active_users = scenario.total_active_users;
    room.settings.new_users_per_minute = scenario.new_users_per_minute;
    room.settings.session_duration = scenario.session_duration;
    room.settings.disable_session_renewal = scenario.disable_session_renewal;
    room.settings.queueing_method = scenario.method;
    for (size_t i = 0; i < scenario.events.size(); ++i) {
        const EventSpec& spec = scenario.events[i];
        model::Event event;
        event.id = "00000000000000020000000000000" + std::to_string(100 + i);
        event.settings.name = spec.name;
        event.settings.event_start_time = timestamp(at_minutes(spec.start_minutes));
        event.settings.event_end_time = timestamp(at_minutes(spec.end_minutes));
        if (spec.prequeue_start_minutes) event.settings.prequeue_start_time = timestamp(at_minutes(*spec.prequeue_start_minutes));
        event.settings.shuffle_at_event_start = spec.shuffle_at_event_start;
        event.settings.queueing_method = spec.method;
        event.settings.total_active_users = spec.total_active_users;
        event.settings.new_users_per_minute = spec.new_users_per_minute;
        room.events.push_back(std::move(event));
    }
    room.schedule = queue::build_schedule(room.settings, room.events);
}

queue::Policy policy_at(const SimulatedRoom& room, const Scenario& scenario, TimePoint now) {
    const queue::Phase& phase = room.schedule.at(now);
    queue::Policy policy = phase.policy;
    // Method changes apply to the room's own setting, not inside an event that sets its own.
    bool event_sets_method = false;
    for (const model::Event& event : room.events)
        if (event.id == phase.event_id) event_sets_method = event.settings.queueing_method.has_value();
    if (!event_sets_method)
        for (const MethodChange& change : scenario.method_changes)
            if (now >= at_minutes(change.at_minutes)) policy.method = change.method;
    return policy;
}

enum class State { arriving, waiting, browsing, done };

struct User {
    State state = State::arriving;
    std::optional<queue::Ticket> ticket;
    TimePoint last_visit{};
    TimePoint browse_until{};
    std::vector<std::pair<int64_t, double>> shown; // (ms, minutes) of each wait shown while waiting
    std::optional<int64_t> left_ms;                // gave up or was rejected
};

// One session as its browser sees it: let in at `start`, its cookie valid until `end`.
struct Session {
    int64_t start_ms = 0;
    int64_t end_ms = 0;
};

// Check-ins are grouped by how long the user still had to wait (minutes).
const std::vector<std::pair<double, double>> k_remaining_ranges = {{0, 1}, {1, 2}, {2, 5}, {5, 10}, {10, 20}, {20, 30}, {30, 60}, {60, 1e9}};

double median(std::vector<double> values) {
    if (values.empty()) return 0;
    const size_t middle = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle), values.end());
    const double upper = values[middle];
    if (values.size() % 2 == 1) return upper;
    return (upper + *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle))) / 2;
}

struct Visit {
    int64_t at_ms;
    size_t user;
    bool operator>(const Visit& other) const { return at_ms != other.at_ms ? at_ms > other.at_ms : user > other.user; }
};

// The limits and early queueing judged from the browsers' side: each session lasts from the
// moment its browser was let in until its cookie's end, whatever the ledger counted.
void check_with_oracle(Report& report, const SimulatedRoom& room, const Scenario& scenario, const std::vector<Session>& sessions,
                       const std::vector<User>& users, const std::map<int64_t, int64_t>& admitted_by_minute) {
    Summary& summary = report.summary;
    // Concurrent valid cookies, at worst: a cookie is valid while its end lies ahead.
    std::vector<std::pair<int64_t, int>> changes; // (ms, +1 start / −1 end); ends sort first
    for (const Session& session : sessions) {
        changes.emplace_back(session.start_ms, 1);
        changes.emplace_back(session.end_ms, -1);
    }
    std::sort(changes.begin(), changes.end());
    int64_t concurrent = 0;
    for (const auto& [at_ms, change] : changes) {
        concurrent += change;
        if (change < 0) continue;
        const int64_t limit = policy_at(room, scenario, k_epoch + Milliseconds{at_ms}).total_active_users;
        summary.max_active = std::max(summary.max_active, concurrent);
        summary.overshoot_percent = std::max(summary.overshoot_percent, 100.0 * static_cast<double>(concurrent - limit) / static_cast<double>(limit));
    }
    // Per minute: sessions valid at some moment of it, and browsers waiting at its end.
    const auto minutes = static_cast<int64_t>(report.minutes.size());
    const int64_t first = minutes ? report.minutes.front().minute : 0;
    std::vector<int64_t> session_delta(static_cast<size_t>(minutes) + 1, 0), waiting_delta(static_cast<size_t>(minutes) + 1, 0);
    const auto add_span = [&](std::vector<int64_t>& delta, int64_t from, int64_t to) { // minutes [from, to)
        from = std::clamp<int64_t>(from - first, 0, minutes);
        to = std::clamp<int64_t>(to - first, 0, minutes);
        if (from >= to) return;
        ++delta[static_cast<size_t>(from)];
        --delta[static_cast<size_t>(to)];
    };
    for (const Session& session : sessions) add_span(session_delta, session.start_ms / 60000, (session.end_ms - 1) / 60000 + 1);
    for (size_t i = 0; i < users.size(); ++i) {
        const UserResult& result = report.users[i];
        const auto joined_ms = static_cast<int64_t>(std::llround(result.joined_seconds * 1000));
        // Waiting at the end of minute m when joined by then and neither in nor gone by then:
        // minutes [joined, until) counted in whole minutes.
        int64_t until_ms = INT64_MAX / 2;
        if (result.admitted_seconds) until_ms = static_cast<int64_t>(std::llround(*result.admitted_seconds * 1000));
        if (users[i].left_ms) until_ms = std::min(until_ms, *users[i].left_ms);
        add_span(waiting_delta, joined_ms / 60000, until_ms / 60000);
    }
    int64_t sessions_now = 0, waiting_now = 0;
    summary.early_queueing_minutes = 0;
    for (int64_t m = 0; m < minutes; ++m) {
        MinuteResult& minute = report.minutes[static_cast<size_t>(m)];
        sessions_now += session_delta[static_cast<size_t>(m)];
        waiting_now += waiting_delta[static_cast<size_t>(m)];
        minute.sessions = sessions_now;
        minute.waiting = waiting_now;
        const auto started = admitted_by_minute.find(minute.minute);
        minute.sessions_started = started == admitted_by_minute.end() ? 0 : started->second;
        const queue::Policy policy = policy_at(room, scenario, at_minutes(static_cast<double>(minute.minute + 1)) - Milliseconds{1});
        // Browsers waited through a minute that left room under both limits.
        if (minute.waiting > 0 && !policy.queue_all && minute.sessions < policy.total_active_users &&
            minute.sessions_started < policy.new_users_per_minute)
            ++summary.early_queueing_minutes;
        if (minute.waiting > 0 && !policy.queue_all && static_cast<double>(minute.sessions) < 0.98 * static_cast<double>(policy.total_active_users) &&
            static_cast<double>(minute.sessions_started) < 0.98 * static_cast<double>(policy.new_users_per_minute))
            ++summary.early_queueing_minutes_98;
        if (!policy.queue_all)
            summary.admitted_per_minute_overshoot_percent =
                std::max(summary.admitted_per_minute_overshoot_percent,
                         100.0 * static_cast<double>(minute.sessions_started - policy.new_users_per_minute) / static_cast<double>(policy.new_users_per_minute));
    }
    summary.early_queueing_share_98 = minutes ? static_cast<double>(summary.early_queueing_minutes_98) / static_cast<double>(minutes) : 0;
}

// The first wait shown against the wait had, and each wait shown against the wait still ahead.
void calibrate(Report& report, const std::vector<std::vector<double>>& remaining_errors, const std::vector<int64_t>& remaining_in_time) {
    Summary& summary = report.summary;
    std::vector<double> errors;
    int64_t in_time = 0, within_p25 = 0, within_p75 = 0;
    for (const UserResult& user : report.users) {
        if (!user.admitted_seconds || !user.first_estimate_minutes) continue;
        const double waited = (*user.admitted_seconds - *user.first_estimate_seconds) / 60.0;
        errors.push_back(waited - *user.first_estimate_minutes);
        if (waited <= *user.first_estimate_minutes) ++in_time;
        if (user.first_estimate_p25_minutes && waited <= *user.first_estimate_p25_minutes) ++within_p25;
        if (user.first_estimate_p75_minutes && waited <= *user.first_estimate_p75_minutes) ++within_p75;
    }
    summary.calibrated_users = static_cast<int64_t>(errors.size());
    const double count = std::max<double>(1, static_cast<double>(errors.size()));
    summary.first_estimate_in_time_share = static_cast<double>(in_time) / count;
    summary.first_estimate_median_error_minutes = median(errors);
    summary.first_estimate_p25_share = static_cast<double>(within_p25) / count;
    summary.first_estimate_p50_share = summary.first_estimate_in_time_share;
    summary.first_estimate_p75_share = static_cast<double>(within_p75) / count;
    std::vector<double> limits_errors;
    int64_t limits_in_time = 0;
    for (const UserResult& user : report.users) {
        if (!user.admitted_seconds || !user.first_limits_estimate_minutes) continue;
        const double waited = (*user.admitted_seconds - *user.first_limits_estimate_seconds) / 60.0;
        limits_errors.push_back(waited - *user.first_limits_estimate_minutes);
        if (waited <= *user.first_limits_estimate_minutes) ++limits_in_time;
    }
    summary.limits_estimate_users = static_cast<int64_t>(limits_errors.size());
    summary.limits_estimate_in_time_share =
        static_cast<double>(limits_in_time) / std::max<double>(1, static_cast<double>(limits_errors.size()));
    summary.limits_estimate_median_error_minutes = median(limits_errors);
    summary.error_by_remaining_wait.clear();
    for (size_t r = 0; r < k_remaining_ranges.size(); ++r) {
        if (remaining_errors[r].empty()) continue;
        summary.error_by_remaining_wait.push_back({k_remaining_ranges[r].first, k_remaining_ranges[r].second,
                                                   static_cast<int64_t>(remaining_errors[r].size()), median(remaining_errors[r]),
                                                   static_cast<double>(remaining_in_time[r]) / static_cast<double>(remaining_errors[r].size())});
    }
}

// What the origin did for requests whose answer (or timeout) fell in one span of time.
struct OriginTally {
    int64_t answers = 0;
    int64_t errors = 0;
    std::vector<float> ttfb_ms;
};

OriginTally take(std::map<int64_t, OriginTally>& tallies, int64_t key) {
    const auto it = tallies.find(key);
    if (it == tallies.end()) return {};
    OriginTally tally = std::move(it->second);
    tallies.erase(it);
    return tally;
}

double p95_of(std::vector<float> values) {
    if (values.empty()) return -1;
    const size_t rank = std::min(values.size() - 1, values.size() * 95 / 100);
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank), values.end());
    return values[rank];
}

// The origin's budgets over the run (simulation.h, OriginSummary).
void summarize_origin(Report& report, double last_lowered_seconds) {
    const Scenario& scenario = report.scenario;
    OriginSummary& origin = report.summary.origin;
    origin.modelled = true;
    origin.guarded = scenario.origin_guard.enabled;
    origin.target_ttfb_ms = scenario.origin_guard.target_ttfb_ms;
    const double target = origin.target_ttfb_ms;
    const double max_error_rate = scenario.origin_guard.max_error_rate;
    origin.sustainable_per_second = sustainable_per_second(scenario.origin, target, scenario.seed);
    for (const MinuteResult& minute : report.minutes) {
        origin.answers += minute.origin_answers;
        origin.errors += minute.origin_errors;
        origin.max_p95_ttfb_ms = std::max(origin.max_p95_ttfb_ms, minute.origin_p95_ttfb_ms);
        if (minute.waiting > 0) origin.crowd_thinned_minutes = static_cast<double>(minute.minute + 1);
    }
    origin.requests = origin.answers + origin.errors;
    // Judged: whole minutes from 60 s after the first interval over target until the crowd thinned.
    std::vector<double> p95s;
    int64_t judged_answers = 0, judged_errors = 0;
    if (origin.first_over_target_seconds >= 0)
        for (const MinuteResult& minute : report.minutes) {
            if (static_cast<double>(minute.minute) * 60 < origin.first_over_target_seconds + 60) continue;
            if (static_cast<double>(minute.minute + 1) > origin.crowd_thinned_minutes) continue;
            ++origin.judged_minutes;
            const int64_t requests = minute.origin_answers + minute.origin_errors;
            const double error_rate = requests ? static_cast<double>(minute.origin_errors) / static_cast<double>(requests) : 0;
            if (minute.origin_p95_ttfb_ms <= 1.5 * target && error_rate <= max_error_rate) ++origin.good_minutes;
            p95s.push_back(std::max(0.0, minute.origin_p95_ttfb_ms));
            judged_answers += minute.origin_answers;
            judged_errors += minute.origin_errors;
        }
    origin.good_share = origin.judged_minutes ? static_cast<double>(origin.good_minutes) / static_cast<double>(origin.judged_minutes) : 1;
    origin.judged_p95_ttfb_ms = median(p95s);
    origin.judged_error_rate = judged_answers + judged_errors ? static_cast<double>(judged_errors) / static_cast<double>(judged_answers + judged_errors) : 0;
    if (origin.judged_minutes && origin.sustainable_per_second > 0)
        origin.throughput_share = static_cast<double>(judged_answers) / (60.0 * static_cast<double>(origin.judged_minutes)) / origin.sustainable_per_second;
    if (origin.guarded) {
        origin.limits_restored_minutes = last_lowered_seconds < 0 ? 0 : (last_lowered_seconds + std::chrono::duration<double>(origin::k_guard_interval).count()) / 60;
        if (origin.crowd_thinned_minutes >= 0) origin.recovery_minutes = std::max(0.0, origin.limits_restored_minutes - origin.crowd_thinned_minutes);
    }
}

} // namespace

double kendall_tau(const std::vector<double>& x, const std::vector<double>& y, size_t max_items) {
    const size_t n = std::min(x.size(), y.size());
    std::vector<size_t> picked;
    const size_t step = n > max_items ? (n + max_items - 1) / max_items : 1;
    for (size_t i = 0; i < n; i += step) picked.push_back(i);
    int64_t concordant = 0, discordant = 0, ties_x = 0, ties_y = 0;
    for (size_t a = 0; a < picked.size(); ++a)
        for (size_t b = a + 1; b < picked.size(); ++b) {
            const double dx = x[picked[b]] - x[picked[a]];
            const double dy = y[picked[b]] - y[picked[a]];
            if (dx == 0 && dy == 0) continue;
            if (dx == 0) ++ties_x;
            else if (dy == 0) ++ties_y;
            else if ((dx > 0) == (dy > 0)) ++concordant;
            else ++discordant;
        }
    const double n0 = static_cast<double>(concordant + discordant);
    const double denominator = std::sqrt((n0 + static_cast<double>(ties_x)) * (n0 + static_cast<double>(ties_y)));
    return denominator == 0 ? 0 : static_cast<double>(concordant - discordant) / denominator;
}

Report run(const Scenario& scenario, const std::function<void(double)>& progress) {
    Report report;
    report.scenario = scenario;
    SimulatedRoom room;
    build_room(scenario, room);
    util::SeededRandom random(scenario.seed);
    // One ledger, or the room shared by several nodes.
    const std::unique_ptr<SimulatedState> state = make_simulated_state(
        {scenario.nodes, Milliseconds{std::llround(scenario.sync_interval_seconds * 1000)},
         Milliseconds{std::llround(scenario.sync_latency_seconds * 1000)}, scenario.node_shares, scenario.seed});
    const std::vector<double> arrivals = arrival_seconds(scenario);
    std::vector<User> users(arrivals.size());
    report.users.resize(arrivals.size());
    std::priority_queue<Visit, std::vector<Visit>, std::greater<>> visits;
    const std::optional<double> joining = joining_at_seconds(scenario);
    for (size_t i = 0; i < arrivals.size(); ++i) {
        UserResult& result = report.users[i];
        result.arrival_seconds = arrivals[i];
        result.joined_seconds = joining ? *joining + random.unit() : arrivals[i];
        const TimePoint joined = k_epoch + Milliseconds{static_cast<int64_t>(std::llround(result.joined_seconds * 1000))};
        result.joined_seconds = seconds_since_epoch(joined); // to the millisecond, as the clock runs
        if (joining) {
            // The experiment of "Waiting Room: Random Queueing and Custom Web/Mobile Apps": the arrival is spoofed into the ticket; the first request
            // comes now, on time, from a user already counted in their bucket.
            queue::Ticket ticket;
            ticket.session_id = random.next();
            ticket.arrived = k_epoch + Milliseconds{static_cast<int64_t>(arrivals[i] * 1000)};
            ticket.bucket = queue::minute_start(queue::minute_of(ticket.arrived));
            ticket.last_check_in = joined - std::chrono::seconds{ticket.refresh_interval_seconds};
            // Counted as waiting and as arrived; not as a check-in, which no one could have skipped.
            state->add_waiting(ticket.bucket, ticket.last_check_in);
            users[i].ticket = ticket;
            users[i].state = State::waiting;
            users[i].last_visit = joined;
        }
        visits.push({(joined - k_epoch).count(), i});
    }

    const auto refresh = Milliseconds{static_cast<int64_t>(scenario.refresh_seconds * 1000)};
    const auto browse = Milliseconds{static_cast<int64_t>(scenario.browse_minutes * 60000)};
    const TimePoint stop = at_minutes(scenario.max_minutes);
    std::map<int64_t, int64_t> admitted_by_minute;
    std::vector<Session> sessions;
    std::vector<std::optional<size_t>> session_of(users.size()); // the user's current session
    std::vector<std::vector<double>> remaining_errors(k_remaining_ranges.size());
    std::vector<int64_t> remaining_in_time(k_remaining_ranges.size(), 0);
    // reference:… scenarios start when everyone joins; the span before is only their written arrivals.
    int64_t current_minute = static_cast<int64_t>(joining_at_seconds(scenario).value_or(0) / 60);
    size_t done = 0;
    Summary& summary = report.summary;
    summary.users = static_cast<int64_t>(arrivals.size());
    summary.total_active_users = scenario.total_active_users;
    summary.new_users_per_minute = scenario.new_users_per_minute;

    // The origin, when modelled, and the guard in the loop: every control interval it gets what
    // the origin did and the room's counts, and its effective limits reach the nodes after the
    // time a fleet takes to publish them (an edge's push and a config pull, about 3 s).
    const bool modelled = scenario.origin.workers > 0;
    const bool guarded = modelled && scenario.origin_guard.enabled;
    std::optional<OriginModel> origin_model;
    if (modelled) origin_model.emplace(scenario.origin, scenario.seed);
    origin::GuardController guard;
    OriginSummary& origin_summary = summary.origin;
    const int64_t interval_ms = origin::k_guard_interval.count();
    const int64_t publish_delay_ms = scenario.nodes > 1 ? 3000 : 0;
    std::map<int64_t, OriginTally> by_interval, by_minute;
    std::deque<int64_t> admissions_ms;                           // the last minute's, for the guard
    std::optional<origin::Limits> applied;                       // what the nodes apply; none: the configured limits
    std::deque<std::pair<int64_t, origin::Limits>> publishing;   // decisions on their way to the nodes
    int64_t next_control_ms = interval_ms;
    size_t next_workers_change = 0;
    double last_lowered_seconds = -1;
    std::vector<WorkersChange> workers_changes = scenario.origin.changes;
    std::stable_sort(workers_changes.begin(), workers_changes.end(),
                     [](const WorkersChange& a, const WorkersChange& b) { return a.at_minutes < b.at_minutes; });
    const auto policy_now = [&](TimePoint now) {
        const queue::Policy policy = policy_at(room, scenario, now);
        return applied ? queue::held_to(policy, applied->total_active_users, applied->new_users_per_minute) : policy;
    };
    const auto record = [&](const OriginModel::Answer& answer) {
        OriginTally& interval = by_interval[answer.at_ms / interval_ms];
        OriginTally& minute = by_minute[answer.at_ms / 60000];
        if (answer.answered) {
            ++interval.answers;
            ++minute.answers;
            interval.ttfb_ms.push_back(static_cast<float>(answer.ttfb_ms));
            minute.ttfb_ms.push_back(static_cast<float>(answer.ttfb_ms));
        } else {
            ++interval.errors;
            ++minute.errors;
        }
    };
    // Every control interval that ended by `until_ms`: capacity changes, the first time over
    // target, and the guard's decision.
    const auto control_until = [&](int64_t until_ms) {
        if (!modelled) return;
        while (next_control_ms <= until_ms) {
            const int64_t at_ms = next_control_ms;
            next_control_ms += interval_ms;
            const TimePoint now = k_epoch + Milliseconds{at_ms};
            while (!publishing.empty() && publishing.front().first <= at_ms) {
                applied = publishing.front().second;
                publishing.pop_front();
            }
            const auto& changes = workers_changes;
            while (next_workers_change < changes.size() && at_minutes(changes[next_workers_change].at_minutes) <= now)
                origin_model->set_workers(changes[next_workers_change++].workers, at_ms);
            OriginTally tally = take(by_interval, at_ms / interval_ms - 1);
            const int64_t requests = tally.answers + tally.errors;
            const origin::OriginSample sample{Milliseconds{interval_ms}, static_cast<uint64_t>(tally.answers),
                                              static_cast<uint64_t>(tally.errors), p95_of(std::move(tally.ttfb_ms))};
            if (origin_summary.first_over_target_seconds < 0 && requests >= 40 &&
                (sample.p95_ttfb_ms > scenario.origin_guard.target_ttfb_ms ||
                 static_cast<double>(tally.errors) > scenario.origin_guard.max_error_rate * static_cast<double>(requests)))
                origin_summary.first_over_target_seconds = static_cast<double>(at_ms - interval_ms) / 1000;
            if (!guarded) continue;
            const queue::Policy configured_policy = policy_at(room, scenario, now);
            const queue::Ledger ledger = state->counts(now);
            while (!admissions_ms.empty() && admissions_ms.front() <= at_ms - 60000) admissions_ms.pop_front();
            const int64_t minute = queue::minute_of(now);
            const origin::RoomLoad load{ledger.active_users(now, configured_policy.session_duration), static_cast<int64_t>(admissions_ms.size()),
                                        ledger.waiting_users(now),
                                        ledger.active_counted_in_minute(minute) + ledger.active_counted_in_minute(minute - 1)};
            const origin::Limits configured{configured_policy.total_active_users, configured_policy.new_users_per_minute};
            const origin::GuardDecision& decision = guard.update(scenario.origin_guard, configured, sample, load, now);
            if (decision.changed) ++origin_summary.guard_changes;
            if (decision.effective != configured) last_lowered_seconds = static_cast<double>(at_ms) / 1000;
            origin_summary.lowest_effective_total = origin_summary.lowest_effective_total
                                                        ? std::min(origin_summary.lowest_effective_total, decision.effective.total_active_users)
                                                        : decision.effective.total_active_users;
            origin_summary.lowest_effective_rate = origin_summary.lowest_effective_rate
                                                       ? std::min(origin_summary.lowest_effective_rate, decision.effective.new_users_per_minute)
                                                       : decision.effective.new_users_per_minute;
            if (publish_delay_ms == 0) applied = decision.effective;
            else publishing.emplace_back(at_ms + publish_delay_ms, decision.effective);
        }
    };

    // The figures at the end of each minute, before the next one starts.
    const auto close_minutes_until = [&](int64_t minute) {
        while (current_minute < minute) {
            const TimePoint end = at_minutes(static_cast<double>(current_minute + 1)) - Milliseconds{1};
            const queue::Policy policy = policy_at(room, scenario, end);
            const queue::Ledger ledger = state->counts(end);
            MinuteResult result;
            result.minute = current_minute;
            result.active_users = ledger.active_users(end, policy.session_duration);
            result.queued_users = ledger.waiting_users(end);
            result.admitted = ledger.admitted_in_minute(end);
            result.total_active_users_limit = policy.total_active_users;
            result.new_users_per_minute_limit = policy.new_users_per_minute;
            result.effective_total_active_users = applied ? std::min(applied->total_active_users, policy.total_active_users) : policy.total_active_users;
            result.effective_new_users_per_minute =
                applied ? std::min(applied->new_users_per_minute, policy.new_users_per_minute) : policy.new_users_per_minute;
            if (modelled) {
                OriginTally tally = take(by_minute, current_minute);
                result.origin_answers = tally.answers;
                result.origin_errors = tally.errors;
                result.origin_p95_ttfb_ms = p95_of(std::move(tally.ttfb_ms));
                if (guarded) result.guard_state = std::string(origin::to_string(guard.last().state));
            }
            report.minutes.push_back(result);
            ++current_minute;
        }
    };

    while (!visits.empty() && done < users.size()) {
        const Visit visit = visits.top();
        visits.pop();
        const TimePoint now = k_epoch + Milliseconds{visit.at_ms};
        if (now >= stop) break;
        control_until(visit.at_ms);
        close_minutes_until(visit.at_ms / 60000);
        User& user = users[visit.user];
        UserResult& result = report.users[visit.user];

        // A waiting user may give up between two check-ins.
        if (user.state == State::waiting && scenario.abandon > 0) {
            const double waited_minutes = static_cast<double>((now - user.last_visit).count()) / 60000.0;
            if (random.chance(1 - std::pow(1 - scenario.abandon, waited_minutes))) {
                user.state = State::done;
                user.left_ms = visit.at_ms;
                result.abandoned = true;
                ++done;
                continue;
            }
        }
        if (user.state == State::browsing && now >= user.browse_until) {
            user.state = State::done; // stops making requests; the session runs out on its own
            ++done;
            continue;
        }

        const queue::Policy policy = policy_now(now);
        const queue::Outcome outcome = state->check_in(policy, user.ticket, now, random);
        ++summary.check_ins;
        user.ticket = outcome.ticket;
        user.last_visit = now;

        if (outcome.verdict == queue::Verdict::reject) {
            user.state = State::done;
            user.left_ms = visit.at_ms;
            result.rejected = true;
            ++done;
            continue;
        }
        if (outcome.verdict == queue::Verdict::admit) {
            // The browser's own view: a new session when it was let in, and its cookie's end.
            if (outcome.newly_admitted || !session_of[visit.user]) {
                session_of[visit.user] = sessions.size();
                sessions.push_back({visit.at_ms, visit.at_ms});
                ++admitted_by_minute[visit.at_ms / 60000];
            }
            if (outcome.newly_admitted) admissions_ms.push_back(visit.at_ms);
            sessions[*session_of[visit.user]].end_ms = (queue::ticket_expiry(outcome.ticket, policy) - k_epoch).count();
            if (outcome.newly_admitted && !result.admitted_seconds) {
                result.admitted_seconds = seconds_since_epoch(now);
                // How each wait shown compared with the wait still ahead at that check-in.
                for (const auto& [shown_ms, shown_minutes] : user.shown) {
                    const double remaining = static_cast<double>(visit.at_ms - shown_ms) / 60000.0;
                    for (size_t r = 0; r < k_remaining_ranges.size(); ++r)
                        if (remaining >= k_remaining_ranges[r].first && remaining < k_remaining_ranges[r].second) {
                            remaining_errors[r].push_back(remaining - shown_minutes);
                            if (remaining <= shown_minutes) ++remaining_in_time[r];
                        }
                }
            }
            user.shown.clear();
            if (user.state != State::browsing) {
                user.state = State::browsing;
                // With an origin, browsing times vary (½ to 1½ of --browse) as real visits do; a crowd
                // that all left after exactly the same time would come back in synchronised waves.
                user.browse_until = now + (modelled ? Milliseconds{static_cast<int64_t>(static_cast<double>(browse.count()) * (0.5 + random.unit()))}
                                                    : browse);
            }
            if (modelled) {
                // The page comes from the origin; the next click follows the answer by about a refresh.
                const OriginModel::Answer answer = origin_model->request(visit.at_ms);
                record(answer);
                visits.push({answer.at_ms + static_cast<int64_t>(static_cast<double>(refresh.count()) * (0.5 + random.unit())), visit.user});
            } else {
                visits.push({visit.at_ms + refresh.count(), visit.user});
            }
            continue;
        }
        // Queued: note the first estimate shown, and queueing while there was room.
        if (user.state == State::browsing) ++origin_summary.sent_back; // an admitted user sent back to the queue
        user.state = State::waiting;
        if (outcome.counted && outcome.estimate.known && outcome.estimate.from_limits) {
            // The room has not measured its admissions yet: a wait from its limits, judged apart.
            if (!result.first_limits_estimate_minutes) {
                result.first_limits_estimate_minutes = static_cast<double>(outcome.estimate.minutes);
                result.first_limits_estimate_seconds = seconds_since_epoch(now);
            }
        } else if (outcome.counted && outcome.estimate.known) {
            if (!result.first_estimate_minutes) {
                result.first_estimate_minutes = static_cast<double>(outcome.estimate.minutes);
                result.first_estimate_seconds = seconds_since_epoch(now);
                if (policy.method == model::QueueingMethod::random) {
                    result.first_estimate_p25_minutes = static_cast<double>(outcome.estimate.p25_minutes);
                    result.first_estimate_p75_minutes = static_cast<double>(outcome.estimate.p75_minutes);
                }
            }
            user.shown.emplace_back(visit.at_ms, static_cast<double>(outcome.estimate.minutes));
        }
        // The page refreshes when the next check-in counts; the browser's request takes a moment.
        const TimePoint due = outcome.ticket.last_check_in + std::chrono::seconds{outcome.ticket.refresh_interval_seconds};
        visits.push({(std::max(due, now) - k_epoch).count() + 50 + static_cast<int64_t>(random.below(200)), visit.user});
        if (progress && (summary.check_ins & 0x3fff) == 0) progress(static_cast<double>(done) / static_cast<double>(users.size()));
    }
    const int64_t last_ms = report.users.empty() ? 0 : static_cast<int64_t>(report.users.back().joined_seconds * 1000);
    int64_t end_minute = std::max<int64_t>(current_minute + 1, last_ms / 60000 + 1);
    if (modelled) {
        // Answers still on their way, and (with the guard) its return to the configured limits
        // once everyone has gone: up to ten more minutes.
        end_minute = std::max(end_minute, (next_control_ms + static_cast<int64_t>(scenario.origin.timeout_ms)) / 60000 + 1);
        control_until(end_minute * 60000);
        for (const int64_t last = end_minute + 10; guarded && guard.last().state != origin::GuardState::content && end_minute < last;)
            control_until(++end_minute * 60000);
    }
    close_minutes_until(end_minute);
    if (progress) progress(1.0);

    // Per-arrival-minute estimates against what happened.
    std::map<int64_t, std::pair<double, int64_t>> estimates, observed;
    std::vector<double> admitted_arrivals, admission_times, waited_arrivals, waited_admissions;
    double error_sum = 0, wait_sum = 0;
    int64_t error_count = 0;
    for (const UserResult& user : report.users) {
        const int64_t minute = static_cast<int64_t>(user.arrival_seconds / 60);
        if (user.abandoned) ++summary.abandoned;
        if (user.rejected) ++summary.rejected;
        if (!user.admitted_seconds) {
            if (!user.abandoned && !user.rejected) ++summary.never_admitted;
            continue;
        }
        ++summary.admitted;
        const double waited = (*user.admitted_seconds - user.joined_seconds) / 60.0;
        wait_sum += waited;
        admitted_arrivals.push_back(user.arrival_seconds);
        admission_times.push_back(*user.admitted_seconds);
        if (*user.admitted_seconds - user.joined_seconds > 1) {
            waited_arrivals.push_back(user.arrival_seconds);
            waited_admissions.push_back(*user.admitted_seconds);
        }
        auto& seen = observed[minute];
        seen.first += waited;
        ++seen.second;
        if (user.first_estimate_minutes) {
            error_sum += std::fabs(*user.first_estimate_minutes - waited);
            ++error_count;
            auto& shown = estimates[minute];
            shown.first += *user.first_estimate_minutes;
            ++shown.second;
        }
    }
    for (MinuteResult& minute : report.minutes) {
        if (const auto it = estimates.find(minute.minute); it != estimates.end()) minute.estimated_wait_minutes = it->second.first / static_cast<double>(it->second.second);
        if (const auto it = observed.find(minute.minute); it != observed.end()) minute.observed_wait_minutes = it->second.first / static_cast<double>(it->second.second);
        minute.arrivals = 0;
    }
    for (const UserResult& user : report.users) {
        const auto minute = static_cast<size_t>(user.arrival_seconds / 60);
        if (minute < report.minutes.size()) ++report.minutes[minute].arrivals;
    }
    for (const auto& [minute, count] : admitted_by_minute) summary.max_admitted_per_minute = std::max(summary.max_admitted_per_minute, count);
    check_with_oracle(report, room, scenario, sessions, users, admitted_by_minute);
    if (modelled) summarize_origin(report, last_lowered_seconds);
    calibrate(report, remaining_errors, remaining_in_time);
    summary.kendall_tau = kendall_tau(admitted_arrivals, admission_times);
    summary.kendall_tau_waiting = kendall_tau(waited_arrivals, waited_admissions);
    summary.wait_estimate_mae_minutes = error_count ? error_sum / static_cast<double>(error_count) : 0;
    summary.mean_wait_minutes = summary.admitted ? wait_sum / static_cast<double>(summary.admitted) : 0;
    summary.simulated_minutes = static_cast<double>(report.minutes.size());
    summary.nodes = scenario.nodes;
    summary.syncs = state->syncs();
    return report;
}

nlohmann::json nodes_comparison(const Scenario& scenario, const Summary& nodes, const Summary& single_node) {
    const auto rounded = [](double value) { return std::round(value * 1000) / 1000; };
    const auto both = [](auto a, auto b) { return nlohmann::json{{"nodes", a}, {"single_node", b}}; };
    nlohmann::json shares = nlohmann::json::array();
    for (const double share : scenario.node_shares) shares.push_back(share);
    return {{"nodes", scenario.nodes},
            {"sync_interval_ms", std::llround(scenario.sync_interval_seconds * 1000)},
            {"sync_latency_ms", std::llround(scenario.sync_latency_seconds * 1000)},
            {"node_shares", shares},
            {"syncs", nodes.syncs},
            {"active_overshoot_percent", both(rounded(std::max(0.0, nodes.overshoot_percent)), rounded(std::max(0.0, single_node.overshoot_percent)))},
            {"admitted_per_minute_overshoot_percent", both(rounded(std::max(0.0, nodes.admitted_per_minute_overshoot_percent)),
                                                           rounded(std::max(0.0, single_node.admitted_per_minute_overshoot_percent)))},
            {"max_active_users", both(nodes.max_active, single_node.max_active)},
            {"max_admitted_per_minute", both(nodes.max_admitted_per_minute, single_node.max_admitted_per_minute)},
            {"early_queueing_minutes", both(nodes.early_queueing_minutes, single_node.early_queueing_minutes)},
            {"early_queueing_minutes_98", both(nodes.early_queueing_minutes_98, single_node.early_queueing_minutes_98)},
            {"early_queueing_share_98", both(rounded(nodes.early_queueing_share_98), rounded(single_node.early_queueing_share_98))},
            {"kendall_tau", both(rounded(nodes.kendall_tau), rounded(single_node.kendall_tau))},
            {"mean_wait_minutes", both(rounded(nodes.mean_wait_minutes), rounded(single_node.mean_wait_minutes))}};
}

nlohmann::json origin_summary_to_json(const OriginSummary& o) {
    const auto rounded = [](double value) { return std::round(value * 1000) / 1000; };
    return {{"guard", o.guarded},
            {"target_ttfb_ms", o.target_ttfb_ms},
            {"sustainable_per_second", rounded(o.sustainable_per_second)},
            {"requests", o.requests},
            {"answers", o.answers},
            {"timeouts", o.errors},
            {"max_p95_ttfb_ms", rounded(o.max_p95_ttfb_ms)},
            {"first_over_target_seconds", o.first_over_target_seconds < 0 ? nlohmann::json(nullptr) : nlohmann::json(o.first_over_target_seconds)},
            {"judged_minutes", o.judged_minutes},
            {"good_minutes", o.good_minutes},
            {"good_share", rounded(o.good_share)},
            {"judged_median_p95_ttfb_ms", rounded(o.judged_p95_ttfb_ms)},
            {"judged_error_rate", rounded(o.judged_error_rate)},
            {"throughput_share", rounded(o.throughput_share)},
            {"sent_back", o.sent_back},
            {"crowd_thinned_minute", o.crowd_thinned_minutes < 0 ? nlohmann::json(nullptr) : nlohmann::json(rounded(o.crowd_thinned_minutes))},
            {"limits_restored_minute", o.limits_restored_minutes < 0 ? nlohmann::json(nullptr) : nlohmann::json(rounded(o.limits_restored_minutes))},
            {"recovery_minutes", o.recovery_minutes < 0 ? nlohmann::json(nullptr) : nlohmann::json(rounded(o.recovery_minutes))},
            {"guard_changes", o.guard_changes},
            {"lowest_effective_total_active_users", o.lowest_effective_total},
            {"lowest_effective_new_users_per_minute", o.lowest_effective_rate}};
}

nlohmann::json summary_to_json(const Summary& s) {
    const auto rounded = [](double value) { return std::round(value * 1000) / 1000; };
    nlohmann::json by_remaining = nlohmann::json::array();
    for (const RemainingWaitError& range : s.error_by_remaining_wait) {
        nlohmann::json row = {{"from_minutes", range.from_minutes},
                              {"check_ins", range.check_ins},
                              {"median_error_minutes", rounded(range.median_error_minutes)},
                              {"in_time_share", rounded(range.in_time_share)}};
        row["to_minutes"] = range.to_minutes >= 1e9 ? nlohmann::json(nullptr) : nlohmann::json(range.to_minutes);
        by_remaining.push_back(std::move(row));
    }
    nlohmann::json calibration = {{"users", s.calibrated_users},
                                  {"first_estimate_in_time_share", rounded(s.first_estimate_in_time_share)},
                                  {"first_estimate_median_error_minutes", rounded(s.first_estimate_median_error_minutes)},
                                  {"by_remaining_wait", std::move(by_remaining)}};
    if (s.first_estimate_p25_share > 0 || s.first_estimate_p75_share > 0) {
        calibration["first_estimate_p25_share"] = rounded(s.first_estimate_p25_share);
        calibration["first_estimate_p50_share"] = rounded(s.first_estimate_p50_share);
        calibration["first_estimate_p75_share"] = rounded(s.first_estimate_p75_share);
    }
    calibration["from_limits"] = {{"users", s.limits_estimate_users},
                                  {"first_estimate_in_time_share", rounded(s.limits_estimate_in_time_share)},
                                  {"first_estimate_median_error_minutes", rounded(s.limits_estimate_median_error_minutes)}};

    nlohmann::json out = {{"users", s.users},
            {"wait_estimate_calibration", std::move(calibration)},
            {"admitted", s.admitted},
            {"abandoned", s.abandoned},
            {"rejected", s.rejected},
            {"never_admitted", s.never_admitted},
            {"max_active_users", s.max_active},
            {"total_active_users", s.total_active_users},
            {"active_overshoot_percent", rounded(std::max(0.0, s.overshoot_percent))},
            {"max_admitted_per_minute", s.max_admitted_per_minute},
            {"new_users_per_minute", s.new_users_per_minute},
            {"admitted_per_minute_overshoot_percent", rounded(std::max(0.0, s.admitted_per_minute_overshoot_percent))},
            {"early_queueing_minutes", s.early_queueing_minutes},
            {"early_queueing_minutes_98", s.early_queueing_minutes_98},
            {"early_queueing_share_98", rounded(s.early_queueing_share_98)},
            {"kendall_tau", rounded(s.kendall_tau)},
            {"kendall_tau_waiting", rounded(s.kendall_tau_waiting)},
            {"wait_estimate_mae_minutes", rounded(s.wait_estimate_mae_minutes)},
            {"mean_wait_minutes", rounded(s.mean_wait_minutes)},
            {"simulated_minutes", s.simulated_minutes},
            {"check_ins", s.check_ins}};
    if (s.origin.modelled) out["origin"] = origin_summary_to_json(s.origin);
    return out;
}

nlohmann::json report_to_json(const Report& report, bool include_users) {
    const Scenario& sc = report.scenario;
    nlohmann::json scenario = {{"users", sc.users},
                               {"arrival", sc.arrival},
                               {"browse_minutes", sc.browse_minutes},
                               {"refresh_seconds", sc.refresh_seconds},
                               {"abandon", sc.abandon},
                               {"method", std::string(model::to_string(sc.method))},
                               {"total_active_users", sc.total_active_users},
                               {"new_users_per_minute", sc.new_users_per_minute},
                               {"session_duration", sc.session_duration},
                               {"seed", sc.seed},
                               {"events", sc.events.size()}};
    if (sc.origin.workers > 0) {
        scenario["origin"] = {{"workers", sc.origin.workers}, {"service_ms", sc.origin.service_ms}, {"timeout_ms", sc.origin.timeout_ms}};
        nlohmann::json changes = nlohmann::json::array();
        for (const WorkersChange& change : sc.origin.changes) changes.push_back({{"at_minutes", change.at_minutes}, {"workers", change.workers}});
        if (!changes.empty()) scenario["origin"]["changes"] = std::move(changes);
        scenario["origin_guard"] = {{"enabled", sc.origin_guard.enabled},
                                    {"target_ttfb_ms", sc.origin_guard.target_ttfb_ms},
                                    {"max_error_rate", sc.origin_guard.max_error_rate},
                                    {"min_new_users_per_minute", sc.origin_guard.min_new_users_per_minute}};
    }
    nlohmann::json minutes = nlohmann::json::array();
    for (const MinuteResult& m : report.minutes) {
        minutes.push_back({{"minute", m.minute},
                           {"active_users", m.active_users},
                           {"queued_users", m.queued_users},
                           {"admitted", m.admitted},
                           {"arrivals", m.arrivals},
                           {"estimated_wait_minutes", std::round(m.estimated_wait_minutes * 100) / 100},
                           {"observed_wait_minutes", std::round(m.observed_wait_minutes * 100) / 100},
                           {"total_active_users_limit", m.total_active_users_limit},
                           {"new_users_per_minute_limit", m.new_users_per_minute_limit},
                           {"sessions", m.sessions},
                           {"sessions_started", m.sessions_started},
                           {"waiting", m.waiting}});
        if (sc.origin.workers == 0) continue;
        nlohmann::json& minute = minutes.back();
        const int64_t requests = m.origin_answers + m.origin_errors;
        minute["origin_answers"] = m.origin_answers;
        minute["origin_timeouts"] = m.origin_errors;
        minute["origin_per_second"] = std::round(static_cast<double>(m.origin_answers) / 60 * 10) / 10;
        minute["origin_p95_ttfb_ms"] = m.origin_p95_ttfb_ms < 0 ? nlohmann::json(nullptr) : nlohmann::json(std::round(m.origin_p95_ttfb_ms));
        minute["origin_error_rate"] = requests ? std::round(static_cast<double>(m.origin_errors) / static_cast<double>(requests) * 10000) / 10000 : 0.0;
        minute["effective_total_active_users"] = m.effective_total_active_users;
        minute["effective_new_users_per_minute"] = m.effective_new_users_per_minute;
        if (!m.guard_state.empty()) minute["guard_state"] = m.guard_state;
    }
    nlohmann::json out = {{"scenario", scenario}, {"summary", summary_to_json(report.summary)}, {"minutes", minutes}};
    if (include_users) {
        nlohmann::json users = nlohmann::json::array();
        for (const UserResult& u : report.users) {
            nlohmann::json user = {{"arrival_seconds", std::round(u.arrival_seconds * 1000) / 1000}};
            user["admitted_seconds"] = u.admitted_seconds ? nlohmann::json(std::round(*u.admitted_seconds * 1000) / 1000) : nlohmann::json(nullptr);
            if (u.joined_seconds != u.arrival_seconds) user["joined_seconds"] = std::round(u.joined_seconds * 1000) / 1000;
            user["wait_seconds"] = u.admitted_seconds ? nlohmann::json(std::round((*u.admitted_seconds - u.joined_seconds) * 1000) / 1000)
                                                      : nlohmann::json(nullptr);
            user["first_estimate_minutes"] = u.first_estimate_minutes ? nlohmann::json(*u.first_estimate_minutes) : nlohmann::json(nullptr);
            if (u.abandoned) user["abandoned"] = true;
            if (u.rejected) user["rejected"] = true;
            users.push_back(std::move(user));
        }
        out["users"] = std::move(users);
    }
    return out;
}

} // namespace wr::simulate
