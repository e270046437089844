// The origin guard's control law (docs/design.md, "The origin guard"). In short: the guard learns
// what the origin can serve within its target (the throughput it delivers while over target, and
// at least any demand it served while healthy), and sets the room's effective total of active
// users so that the room's demand on the origin sits at 90 % of that. The total is recomputed
// from the active users measured now, never from its own previous value, so it cannot wind up;
// it falls at once and rises in steps whose effect is measured before the next one.
#include "origin/guard.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace wr::origin {
namespace {

using std::chrono::duration;

// A window is judged once it holds this many requests: a p95 of fewer is mostly noise.
constexpr uint64_t k_min_requests = 40;
// A window that takes longer than this to fill is judged quiet: too little traffic to protect.
constexpr double k_max_pool_seconds = 30;
// Smoothing: bad news is believed within seconds, good news after a quarter of a minute.
constexpr double k_rise_seconds = 4;
constexpr double k_fall_seconds = 15;
constexpr double k_demand_seconds = 8;
// The share of the origin's capacity the room's demand is held at.
constexpr double k_set_point = 0.9;
// Healthy: latency under this share of the target and errors under this share of the maximum.
constexpr double k_healthy_latency = 0.75;
constexpr double k_healthy_errors = 0.5;
// While content, the guard steps in once demand reaches this share of a known capacity.
constexpr double k_engage_share = 0.85;
// With no one waiting and demand under this share, the limits go back to the configured ones.
constexpr double k_relax_share = 0.75;
// Half the distance to the configured limits is closed every this many seconds while relaxing.
constexpr double k_relax_half_life_seconds = 25;
// Rising toward the set point: half the gap per step, and at most this much a minute.
constexpr double k_rise_gain = 0.5;
constexpr double k_max_rise_per_minute = 0.6;
// … plus this many minutes of the users who stop browsing.
constexpr double k_replace_minutes = 0.5;
// A rise is taken only once the room has used most of the previous one, and this long after it:
// the demand of the users it let in takes a refresh and the smoothing to show.
constexpr double k_used_share = 0.97;
constexpr util::Milliseconds k_rise_spacing{20000};
// While healthy with demand at the set point and people waiting, the capacity estimate creeps up
// this much a minute (the origin may have grown) — but not for a while after it was measured.
constexpr double k_probe_per_minute = 0.1;
constexpr double k_probe_pause_seconds = 300;
// A probe that finds the same capacity as the one before (within this share) doubles the pause,
// up to this long: a steady origin is probed rarely, a changed one soon.
constexpr double k_same_capacity = 0.15;
constexpr double k_max_probe_pause_seconds = 1200;
// … once demand is at least this share of it.
constexpr double k_probe_share = 0.85;
// How long the highest demand per active user is remembered.
constexpr double k_per_user_memory_seconds = 900;
// How long the highest demand per browsing user is remembered (it decays by e over this).
constexpr double k_per_browser_memory_seconds = 180;
// Published limits move only by at least this share (the total) or this (the rate), and apart
// from cuts at most this often: no log line per jitter.
constexpr double k_publish_band = 0.03;
constexpr double k_publish_rate_band = 0.2;
constexpr util::Milliseconds k_publish_spacing{30000};

double seconds_of(util::Milliseconds interval) { return std::max(0.0, duration<double>(interval).count()); }

// The weight of a new reading after `seconds`, for a time constant.
double weight(double seconds, double time_constant) { return 1 - std::exp(-seconds / time_constant); }

double smooth(double previous, double reading, double seconds, double time_constant) {
    return previous + (reading - previous) * weight(seconds, time_constant);
}

// "1,240"
std::string grouped(double value) {
    const auto whole = static_cast<int64_t>(std::llround(value));
    std::string digits = std::to_string(whole < 0 ? -whole : whole);
    for (int64_t at = static_cast<int64_t>(digits.size()) - 3; at > 0; at -= 3) digits.insert(static_cast<size_t>(at), ",");
    return whole < 0 ? "-" + digits : digits;
}

std::string percent(double share) {
    char text[32];
    std::snprintf(text, sizeof text, share < 0.1 ? "%.1f %%" : "%.0f %%", share * 100);
    return text;
}

} // namespace

std::string_view to_string(GuardState state) {
    switch (state) {
    case GuardState::off: return "off";
    case GuardState::content: return "content";
    case GuardState::throttling: return "throttling";
    case GuardState::recovering: return "recovering";
    }
    return "off";
}

Limits guard_floor(const model::OriginGuardSettings& settings, const Limits& configured) {
    const int64_t rate = std::max<int64_t>(1, configured.new_users_per_minute);
    const int64_t total = std::max<int64_t>(1, configured.total_active_users);
    const int64_t rate_floor =
        std::clamp<int64_t>(settings.min_new_users_per_minute > 0 ? settings.min_new_users_per_minute : (rate + 9) / 10, 1, rate);
    const int64_t total_floor = std::clamp<int64_t>(std::max((total + 9) / 10, rate_floor), 1, total);
    return {total_floor, rate_floor};
}

void GuardController::reset() {
    m_pool = {};
    m_measured = false;
    m_last_quiet = false;
    m_readings = {};
    m_served_per_second = 0;
    m_capacity.reset();
    m_capacity_measured_at.reset();
    m_demand_per_user = 0;
    m_demand_per_browser = 0;
    m_content = true;
    m_relaxing = false;
    m_published_at.reset();
    m_risen_at.reset();
    m_over_episode = false;
    m_episode_capacity.reset();
    m_probe_pause_seconds = k_probe_pause_seconds;
    m_browsing_history.clear();
    m_departures_per_minute = 0;
}

GuardController::Judgement GuardController::judge(const model::OriginGuardSettings& settings, const OriginSample& sample) {
    m_pool.seconds += seconds_of(sample.interval);
    m_pool.answers += sample.answers;
    m_pool.errors += sample.errors;
    if (sample.answers > 0 && sample.p95_ttfb_ms >= 0) {
        m_pool.p95_weighted += sample.p95_ttfb_ms * static_cast<double>(sample.answers);
        m_pool.timed_answers += sample.answers;
    }
    const uint64_t requests = m_pool.answers + m_pool.errors;
    Judgement judgement;
    if (requests < k_min_requests && m_pool.seconds < k_max_pool_seconds) return judgement; // not enough yet
    judgement.seconds = m_pool.seconds;
    const double demand = static_cast<double>(requests) / std::max(m_pool.seconds, 0.001);
    if (requests < k_min_requests) {
        // Quiet: too little to judge the origin by, and too little for this room to overload it.
        // The pressure fades, so the limits return to the configured ones even if traffic stops.
        judgement.quiet = true;
        m_last_quiet = true;
        m_readings.requests_per_second = m_measured ? smooth(m_readings.requests_per_second, demand, m_pool.seconds, k_demand_seconds) : demand;
        m_latency_ratio = smooth(m_latency_ratio, 0, m_pool.seconds, k_fall_seconds);
        m_error_ratio = smooth(m_error_ratio, 0, m_pool.seconds, k_fall_seconds);
        m_readings.error_rate = smooth(m_readings.error_rate, 0, m_pool.seconds, k_fall_seconds);
    } else {
        judgement.judged = true;
        m_last_quiet = false;
        const double p95 = m_pool.timed_answers > 0 ? m_pool.p95_weighted / static_cast<double>(m_pool.timed_answers) : -1;
        const double error_rate = static_cast<double>(m_pool.errors) / static_cast<double>(requests);
        const double latency_ratio = p95 >= 0 ? p95 / std::max(1, settings.target_ttfb_ms) : 0;
        const double error_ratio = settings.max_error_rate > 0 ? error_rate / settings.max_error_rate : (m_pool.errors > 0 ? 100.0 : 0.0);
        m_served_per_second = static_cast<double>(m_pool.answers) / std::max(m_pool.seconds, 0.001);
        judgement.over = latency_ratio > 1 || error_ratio > 1;
        if (!m_measured) {
            m_latency_ratio = latency_ratio;
            m_error_ratio = error_ratio;
            m_readings.requests_per_second = demand;
            m_readings.error_rate = error_rate;
            if (p95 >= 0) m_readings.p95_ttfb_ms = p95;
        } else {
            const auto step = [&](double previous, double reading) {
                return smooth(previous, reading, m_pool.seconds, reading > previous ? k_rise_seconds : k_fall_seconds);
            };
            m_latency_ratio = step(m_latency_ratio, latency_ratio);
            m_error_ratio = step(m_error_ratio, error_ratio);
            m_readings.error_rate = step(m_readings.error_rate, error_rate);
            m_readings.requests_per_second = smooth(m_readings.requests_per_second, demand, m_pool.seconds, k_demand_seconds);
            if (p95 >= 0) m_readings.p95_ttfb_ms = m_readings.p95_ttfb_ms < 0 ? p95 : step(m_readings.p95_ttfb_ms, p95);
        }
        m_measured = true;
    }
    m_readings.pressure = std::max(m_latency_ratio, m_error_ratio);
    m_pool = {};
    return judgement;
}

GuardDecision GuardController::update(const model::OriginGuardSettings& settings, const Limits& configured, const OriginSample& sample,
                                      const RoomLoad& load, util::TimePoint now) {
    GuardDecision decision;
    if (!settings.enabled || configured.total_active_users < 1 || configured.new_users_per_minute < 1) {
        reset();
        decision.effective = configured;
        decision.state = GuardState::off;
        decision.reason = settings.enabled ? "origin guard idle: the room has no limits to lower" : "origin guard off";
        decision.changed = m_last.state != decision.state || m_last.effective != decision.effective;
        m_last = decision;
        return decision;
    }
    if (m_last.state == GuardState::off) reset();
    const Limits floor = guard_floor(settings, configured);
    const auto configured_total = static_cast<double>(configured.total_active_users);
    const auto configured_rate = static_cast<double>(configured.new_users_per_minute);
    if (m_content) {
        m_total = configured_total;
        m_rate = configured_rate;
    }

    const Judgement judgement = judge(settings, sample);
    if (judgement.judged || judgement.quiet) step(judgement, configured, floor, load, now);

    // Publish. The limits stay within [floor, configured]; a cut past the band goes out at once,
    // any other move past it at most every k_publish_spacing, so the log gets a line per real change.
    const Limits previous = m_last.state == GuardState::off ? configured : m_last.effective;
    const Limits wanted{std::clamp<int64_t>(std::llround(m_total), floor.total_active_users, configured.total_active_users),
                        std::clamp<int64_t>(std::llround(m_rate), floor.new_users_per_minute, configured.new_users_per_minute)};
    const auto beyond = [](int64_t to, int64_t from, double band) {
        return std::llabs(to - from) >= std::max<int64_t>(1, std::llround(band * static_cast<double>(from)));
    };
    decision.state = m_content ? GuardState::content : m_relaxing ? GuardState::recovering : GuardState::throttling;
    const bool cut = wanted.total_active_users < previous.total_active_users &&
                     beyond(wanted.total_active_users, previous.total_active_users, k_publish_band);
    const bool moved = beyond(wanted.total_active_users, previous.total_active_users, k_publish_band) ||
                       beyond(wanted.new_users_per_minute, previous.new_users_per_minute, k_publish_rate_band);
    const bool due = !m_published_at || now - *m_published_at >= k_publish_spacing;
    if (m_content) decision.effective = configured;
    else if (decision.state != m_last.state || cut || (moved && due)) decision.effective = wanted;
    else decision.effective = {std::clamp(previous.total_active_users, floor.total_active_users, configured.total_active_users),
                               std::clamp(previous.new_users_per_minute, floor.new_users_per_minute, configured.new_users_per_minute)};
    if (decision.effective != previous) m_published_at = now;
    decision.readings = m_readings;
    decision.readings.capacity_per_second = m_capacity.value_or(0);
    decision.reason = explain(settings, configured, floor, decision);
    decision.changed = m_last.state != decision.state || m_last.effective != decision.effective;
    m_last = decision;
    return decision;
}

void GuardController::step(const Judgement& judgement, const Limits& configured, const Limits& floor, const RoomLoad& load,
                           util::TimePoint now) {
    const double seconds = judgement.seconds;
    const bool over = m_readings.pressure > 1;
    // Healthy: latency clearly under target and errors under half the maximum.
    const bool healthy = m_latency_ratio < k_healthy_latency && m_error_ratio < k_healthy_errors;
    const double demand = m_readings.requests_per_second;
    const auto active = static_cast<double>(std::max<int64_t>(0, load.active_users));
    const auto configured_total = static_cast<double>(configured.total_active_users);
    const auto configured_rate = static_cast<double>(configured.new_users_per_minute);

    // Browsing users who stopped in about the last minute: admissions minus the growth in browsing.
    if (load.browsing_users >= 0) {
        m_browsing_history.emplace_back(now, load.browsing_users);
        while (m_browsing_history.size() > 2 && m_browsing_history[1].first <= now - std::chrono::seconds{60}) m_browsing_history.pop_front();
        const double span = seconds_of(now - m_browsing_history.front().first);
        if (span >= 30) {
            const double admitted = static_cast<double>(std::max<int64_t>(0, load.admitted_last_minute)) * std::min(1.0, span / 60);
            const double grown = static_cast<double>(load.browsing_users - m_browsing_history.front().second);
            m_departures_per_minute = std::max(0.0, admitted - grown) * 60 / span;
        }
    }
    // The highest demand per active user seen lately: the fallback for what a user asks.
    if (judgement.judged && active >= 1)
        m_demand_per_user = std::max(demand / active, m_demand_per_user * std::exp(-seconds / k_per_user_memory_seconds));
    // Likewise per browsing user, over a few minutes: the count lags (a user counts as browsing
    // for a minute or two after their last page), so when a cohort stops at once the ratio dips
    // while they are still counted, and a gap divided by it would promise room for far more users
    // than the origin has, who then arrive together as the cohort leaves the count.
    if (judgement.judged && load.browsing_users > 0)
        m_demand_per_browser = std::max(demand / static_cast<double>(load.browsing_users),
                                        m_demand_per_browser * std::exp(-seconds / k_per_browser_memory_seconds));

    // What the origin serves within target: what it serves while over target, at most; what it
    // served while healthy, at least. Learned first at the first sign of strain.
    if (over) {
        // Only a window itself over target shows the capacity: the smoothed reading lags, and
        // once the backlog has drained the origin serves only what it is asked.
        if (judgement.judged && judgement.over) {
            m_capacity = m_capacity ? std::max(std::min(*m_capacity, m_served_per_second), *m_capacity / 2) : m_served_per_second;
            m_capacity_measured_at = now;
            m_over_episode = true;
        }
    } else {
        if (m_over_episode) {
            // A spell over target has ended. When it found the capacity the spell before found,
            // the next probe waits twice as long (probing finds nothing new); if not, soon again.
            m_over_episode = false;
            const bool same = m_episode_capacity && std::fabs(*m_capacity - *m_episode_capacity) <= k_same_capacity * *m_episode_capacity;
            m_probe_pause_seconds = same ? std::min(2 * m_probe_pause_seconds, k_max_probe_pause_seconds) : k_probe_pause_seconds;
            m_episode_capacity = m_capacity;
        }
        if (!healthy && !m_capacity && judgement.judged) {
            m_capacity = demand; // nearing target for the first time: about what it serves now
            m_capacity_measured_at = now;
        } else if (healthy && m_capacity) {
            // Healthy at this demand: it serves at least this much. And now and then, with people
            // waiting and demand near the estimate, a little more (the origin may have grown).
            m_capacity = std::max(*m_capacity, demand);
            const bool paused = m_capacity_measured_at && seconds_of(now - *m_capacity_measured_at) < m_probe_pause_seconds;
            if (!paused && load.queued_users > 0 && demand >= k_probe_share * *m_capacity)
                *m_capacity *= 1 + k_probe_per_minute * seconds / 60;
        }
    }

    // The total of active users that puts the room's demand at the set point: the users there
    // are now, plus (or minus) the users the gap in demand is worth. From the count now, never
    // from the previous limit, so a limit held while sessions run out cannot wind up.
    double target = configured_total;
    if (m_capacity) {
        // What one more user asks of the origin: the demand per browsing user, or failing that
        // the highest demand per active user seen lately (while a room fills, all its users browse).
        const double per_user = load.browsing_users > 0 ? std::max({m_demand_per_browser, demand / static_cast<double>(load.browsing_users), 1e-6})
                                                         : std::max({m_demand_per_user, demand / std::max(active, 1.0), 1e-6});
        const double gap_users = (k_set_point * *m_capacity - demand) / per_user;
        // Rising, the users who stopped browsing lately are replaced as well: without them the
        // room would settle short of the set point by what leaves between two steps.
        target = active + (gap_users > 0 ? k_rise_gain * gap_users + k_replace_minutes * m_departures_per_minute : gap_users);
    }

    // What visitors are held to, and whether an earlier step up is still waiting to go out (a
    // step below the publication band never does, and waits for nothing).
    const auto published_total = static_cast<double>(m_last.effective.total_active_users);
    const bool rise_pending = m_total - published_total >= std::max(1.0, k_publish_band * published_total);

    m_relaxing = false;
    double total = m_total;
    double rate = m_rate;
    if (over) {
        // Down at once (never below half the room per step, never up while over).
        total = std::min(total, std::max(target, active / 2));
        m_content = false;
    } else if (!healthy) {
        // Near target: hold, or lower if demand is past the set point.
        if (!m_content || (m_capacity && demand >= k_engage_share * *m_capacity)) {
            total = std::min(total, target);
            m_content = false;
        }
    } else if (m_content) {
        // Healthy with the configured limits: step in only when demand nears a capacity seen before.
        if (m_capacity && demand >= k_engage_share * *m_capacity) {
            total = std::min(total, target);
            m_content = false;
        }
    } else if (load.queued_users == 0 && (!m_capacity || demand < k_relax_share * *m_capacity)) {
        // The crowd has thinned: back to the configured limits within a few minutes.
        const double closing = weight(seconds * std::log(2.0), k_relax_half_life_seconds);
        total += (configured_total - total) * closing;
        rate += (configured_rate - rate) * closing;
        m_relaxing = true;
        if (total >= configured_total * (1 - k_publish_band) && rate >= configured_rate * (1 - k_publish_band)) m_content = true;
    } else if (target < total) {
        total = target; // demand past the set point: lower at once
    } else if ((active >= k_used_share * published_total || load.queued_users == 0) && !rise_pending &&
               (!m_risen_at || now - *m_risen_at >= k_rise_spacing)) {
        // The last step up has gone out, the room has used what was published (or no one waits),
        // and the demand of the users the last step let in shows in the readings: the next step
        // up. A step still waiting to be published lets no one in yet, so one taken on top of it
        // would go out with it as a single step twice as large as the readings allowed.
        const double raised = std::min(target, total * (1 + k_max_rise_per_minute * std::max(seconds, seconds_of(k_rise_spacing)) / 60));
        if (raised > total) m_risen_at = now;
        total = std::max(total, raised);
    }
    total = std::clamp(total, static_cast<double>(floor.total_active_users), configured_total);

    // The rate: the pace at which browsing users stop (whom the room may replace) or half as much
    // again as the last minute's admissions, whichever is more, plus the room left under the
    // total; over target, only the room left (the floor, as a rule). Never what holds the room
    // back — the total does that — but a room whose total rises fills over a minute rather than
    // in one burst, and the figure shows the pace of admissions.
    if (!m_content && !m_relaxing) {
        const double replacing = std::max(1.2 * m_departures_per_minute, 1.5 * static_cast<double>(std::max<int64_t>(0, load.admitted_last_minute)));
        const double pace = (over ? 0 : replacing) + std::max(0.0, total - active) + 1;
        rate = over ? std::min(rate, pace) : pace;
    }
    rate = std::clamp(rate, static_cast<double>(floor.new_users_per_minute), configured_rate);
    if (m_content) {
        total = configured_total;
        rate = configured_rate;
    }
    m_total = total;
    m_rate = rate;
}

std::string GuardController::explain(const model::OriginGuardSettings& settings, const Limits& configured, const Limits& floor,
                                     const GuardDecision& decision) const {
    const GuardReadings& r = m_readings;
    const std::string target = grouped(settings.target_ttfb_ms) + " ms";
    std::string origin;
    if (!m_measured) origin = "no origin measurements yet";
    // A quiet window measures nothing: the last p95 is history, not the origin now.
    else if (m_last_quiet) origin = r.p95_ttfb_ms >= 0 ? "origin quiet (too few requests to measure; last p95 " + grouped(r.p95_ttfb_ms) + " ms)"
                                                       : "origin quiet (too few requests to measure)";
    else if (m_error_ratio > 1) origin = "origin errors " + percent(r.error_rate) + " over the " + percent(settings.max_error_rate) + " maximum";
    else if (m_latency_ratio > 1) origin = "origin p95 " + grouped(r.p95_ttfb_ms) + " ms over the " + target + " target";
    else if (r.p95_ttfb_ms >= 0) origin = "origin p95 " + grouped(r.p95_ttfb_ms) + " ms, target " + target;
    else origin = "origin healthy";
    if (decision.state == GuardState::content) return origin + ": admitting at the configured limits";
    const Limits& e = decision.effective;
    std::string limits = "admitting " + grouped(static_cast<double>(e.new_users_per_minute)) + " a minute of " +
                         grouped(static_cast<double>(configured.new_users_per_minute));
    if (e.total_active_users < configured.total_active_users)
        limits += ", at most " + grouped(static_cast<double>(e.total_active_users)) + " active of " +
                  grouped(static_cast<double>(configured.total_active_users));
    if (e.new_users_per_minute == floor.new_users_per_minute && e.total_active_users == floor.total_active_users) limits += " (the floor)";
    if (decision.state == GuardState::recovering) return origin + ": back toward the configured limits, " + limits;
    if (m_latency_ratio <= 1 && m_error_ratio <= 1 && m_capacity)
        return origin + ", near its capacity (about " + grouped(*m_capacity) + " requests a second): " + limits;
    return origin + ": " + limits;
}

} // namespace wr::origin
