// Wait estimates: the distribution of one user's admission over the room's forecast admissions.
#include "queue/wait_estimate.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace wr::queue {
namespace {

// Rounded up: 3.0000000001 (floating-point noise) stays 3. Bounded so that absurd inputs cannot overflow.
int64_t whole_minutes(double minutes) { return static_cast<int64_t>(std::ceil(std::clamp(minutes, 0.0, 1.0e9) - 1e-9)); }

// One possible moment of admission and how much of the user's chance lies there.
struct Chance {
    double at_minutes = 0;
    double weight = 0;
};

// FIFO: the user is let in at the forecast admission that reaches their place. Those ahead who
// leave first need no slot, so admissions count e^(λt) each towards the place: D(t) = Σ users·e^(λt)
// is the place reached by t (of n ahead now, n·e^(−λt) are still there at t). The place is
// uniform over (ahead, ahead + own_bucket]; each admission takes the part of it that it reaches,
// weighted by e^(−λt), the user's own chance of still waiting then, at the user's own first
// check-in after it.
constexpr double k_refresh_delay_minutes = 0.1 / 60;

class FifoChances {
public:
    FifoChances(const ForecastInputs& inputs, const FifoPlace& place, double leave_rate)
        : m_forecast(inputs), m_place(place), m_from(std::max(0.0, place.ahead)), m_to(m_from + std::max(1.0, place.own_bucket)),
          m_rate(std::max(0.0, leave_rate)) {}

    bool next(Chance& chance) {
        ForecastAdmission admission;
        while (m_reached < m_to && m_forecast.next(admission)) {
            if (admission.at_minutes > k_estimate_horizon_minutes) break;
            const double before = m_reached;
            m_reached += admission.users * std::exp(std::min(50.0, m_rate * admission.at_minutes));
            const double covered = std::min(m_reached, m_to) - std::max(before, m_from);
            if (covered <= 0) continue;
            const double at = own_check_in(admission.at_minutes);
            chance = {at, covered * std::exp(-m_rate * at)};
            return true;
        }
        // Beyond the horizon (or a room that never admits): the rest of the place, at the horizon.
        if (m_reached < m_to && !m_done) {
            m_done = true;
            chance = {k_estimate_horizon_minutes, (m_to - std::max(m_reached, m_from)) * std::exp(-m_rate * k_estimate_horizon_minutes)};
            return chance.weight > 0;
        }
        return false;
    }

private:
    // The user's first check-in at or after `free_at` (minutes from now), on their own cadence:
    // the k-th after their last one comes k refreshes, each with its delay, after it. (Counted in
    // bare intervals, the delays piled up over a long wait — 10 s over 35 minutes — were left
    // out of how many refreshes it takes to pass `free_at`, and half the time one refresh too
    // many was taken: the wait shown 20 s long for whoever waited long.)
    double own_check_in(double free_at) const {
        if (m_place.refresh_minutes <= 0) return free_at;
        const double refresh = m_place.refresh_minutes + k_refresh_delay_minutes;
        const double since = std::max(0.0, m_place.since_check_in_minutes);
        const double refreshes = std::max(1.0, std::ceil((free_at + since) / refresh - 1e-9));
        return refreshes * refresh - since;
    }

    ForecastCursor m_forecast;
    FifoPlace m_place;
    double m_from, m_to, m_rate;
    double m_reached = 0;
    bool m_done = false;
};

// Random queueing: at each forecast admission of c users into a pool of W, each waiting user is
// in with chance c / W; between admissions the pool loses λ per minute and gains the arrivals.
// How long a surge goes on is not known: having lasted E minutes, it is as likely to end within
// E more minutes as after, and P(more than y) = E / (E + y) (the "Lindy" reading of a duration
// seen from a random moment within it). The chances average three pools, with the surge ending
// after E/5, E and 5E more minutes (the 1/6, 1/2 and 5/6 points of that spread).
class RandomChances {
public:
    RandomChances(const ForecastInputs& inputs, const RandomPool& pool) : m_forecast(inputs), m_rate(std::max(0.0, pool.leave_rate)) {
        constexpr std::array<double, k_pools> k_surge_left = {0.2, 1.0, 5.0};
        for (size_t i = 0; i < k_pools; ++i)
            m_pools[i] = {std::max(1.0, pool.waiting), 1.0, std::max(0.0, pool.arrivals_per_minute),
                          std::max(0.0, pool.arrival_minutes) * k_surge_left[i]};
    }

    bool next(Chance& chance) {
        ForecastAdmission admission;
        while (still() > 1e-4 && m_forecast.next(admission)) {
            if (admission.at_minutes > k_estimate_horizon_minutes) break;
            const double t = admission.at_minutes;
            const double staying = std::exp(-m_rate * (t - m_at));
            double weight = 0;
            for (Pool& pool : m_pools) {
                const double arriving = pool.arrivals_per_minute * std::max(0.0, std::min(t, pool.arrival_minutes) - std::min(m_at, pool.arrival_minutes));
                pool.waiting = pool.waiting * staying + arriving;
                pool.still *= staying;
                const double share = std::min(1.0, admission.users / std::max(1.0, pool.waiting));
                weight += pool.still * share / static_cast<double>(k_pools);
                pool.still *= 1 - share;
                pool.waiting = std::max(0.0, pool.waiting - admission.users);
            }
            m_at = t;
            chance = {t, weight};
            return true;
        }
        if (still() > 1e-4 && !m_done) {
            m_done = true;
            chance = {k_estimate_horizon_minutes, still() * std::exp(-m_rate * (k_estimate_horizon_minutes - m_at))};
            return chance.weight > 0;
        }
        return false;
    }

private:
    static constexpr size_t k_pools = 3;
    struct Pool {
        double waiting = 0;
        double still = 1; // the user's chance of still waiting (not let in, not gone)
        double arrivals_per_minute = 0;
        double arrival_minutes = 0;
    };
    double still() const {
        double total = 0;
        for (const Pool& pool : m_pools) total += pool.still / static_cast<double>(k_pools);
        return total;
    }

    ForecastCursor m_forecast;
    std::array<Pool, k_pools> m_pools{};
    double m_rate;
    double m_at = 0;
    bool m_done = false;
};

// The shown minutes for the p-th percentile of the chances `Chances` yields, each admission's
// share spread evenly over the claim time after it. The percentile falls between whole minutes
// k − 1 and k; the user is shown k with the probability that makes the share in within what
// they were shown p over all users, F(k−1)·(1−π) + F(k)·π = p, and k − 1 otherwise. F counts
// every chance's part before the minute: now lies within a minute, so the next minute's
// admissions begin before the whole minute after a percentile that falls late in one minute's
// claim time (left out, F(k) was too low and k shown to too many: in within too often).
// The chances one estimate walks through, kept so that the walk runs once: enough for a wait
// of days at minute steps; a longer walk is taken again instead.
constexpr size_t k_kept_chances = 512;

// A percentile as pages show it: `later` minutes to a share `later_share` of users (by their
// draw), one minute less to the others.
struct ShownPercentile {
    int64_t later = 1;
    double later_share = 1;
    int64_t for_draw(double draw) const { return later <= 1 || draw < later_share ? later : later - 1; }
};

template <class Chances, size_t N>
std::array<ShownPercentile, N> shown_percentiles(const Chances& start, const std::array<double, N>& percentiles, double claim) {
    std::array<ShownPercentile, N> shown{};
    claim = std::max(1e-6, claim);
    std::array<Chance, k_kept_chances> kept;
    size_t count = 0;
    double total = 0;
    {
        Chances chances = start;
        Chance chance;
        while (chances.next(chance)) {
            if (count < kept.size()) kept[count] = chance;
            ++count;
            total += chance.weight;
        }
    }
    if (total <= 0) return shown; // 1 minute each
    const auto cdf_from = [claim](const Chance& c, double x) { return c.weight * std::clamp((x - c.at_minutes) / claim, 0.0, 1.0); };
    // The last few chances: enough to know the distribution a minute before the one found.
    std::array<Chance, 4> recent{};
    size_t seen = 0;
    double cumulative = 0;
    size_t target = 0;
    Chances again = start;
    Chance chance;
    const auto next = [&](Chance& c) {
        if (count <= kept.size()) {
            if (seen >= count) return false;
            c = kept[seen];
            return true;
        }
        return again.next(c);
    };
    // F(x) near the chance found: everything before it, less what of the last few lies after
    // x, plus what of it and of the chances after it lies before x.
    const auto distribution_at = [&](const Chance& found, double x) {
        double below = cumulative + cdf_from(found, x);
        for (size_t i = 0; i < std::min<size_t>(seen, recent.size()); ++i) {
            const Chance& r = recent[(seen - 1 - i) % recent.size()];
            below -= r.weight - cdf_from(r, x);
        }
        if (count <= kept.size()) {
            for (size_t i = seen + 1; i < count && kept[i].at_minutes < x; ++i) below += cdf_from(kept[i], x);
        } else {
            Chances ahead = again;
            Chance c;
            while (ahead.next(c) && c.at_minutes < x) below += cdf_from(c, x);
        }
        return below;
    };
    while (target < N && next(chance)) {
        while (target < N && cumulative + chance.weight >= percentiles[target] * total - 1e-12) {
            const double wanted = percentiles[target] * total;
            const double at = chance.at_minutes + claim * std::clamp((wanted - cumulative) / chance.weight, 0.0, 1.0);
            const int64_t k = std::max<int64_t>(1, whole_minutes(at));
            const double below = distribution_at(chance, static_cast<double>(k - 1));
            const double at_k = distribution_at(chance, static_cast<double>(k));
            const double later_share = at_k > below ? (wanted - below) / (at_k - below) : 1.0;
            shown[target] = {k, later_share};
            ++target;
        }
        recent[seen % recent.size()] = chance;
        ++seen;
        cumulative += chance.weight;
    }
    for (; target < N; ++target) shown[target] = {whole_minutes(k_estimate_horizon_minutes), 1.0};
    return shown;
}

template <size_t N>
std::array<int64_t, N> for_draw(const std::array<ShownPercentile, N>& shown, double draw) {
    std::array<int64_t, N> minutes{};
    for (size_t i = 0; i < N; ++i) minutes[i] = std::max<int64_t>(i == 0 ? 1 : minutes[i - 1], shown[i].for_draw(draw));
    return minutes;
}

// Random queueing: every user of a room is shown the same percentiles (but for their draw), so
// they are kept per thread for the last few (room counts, pool, second), keyed by all the
// estimate depends on: the many queued requests of one room in one second compute them once.
struct RandomMemo {
    ForecastInputs inputs;
    RandomPool pool;
    std::array<ShownPercentile, 3> shown{};
    bool used = false;
};
constexpr size_t k_random_memo_rooms = 8;

bool same_pool(const RandomPool& a, const RandomPool& b) {
    return a.waiting == b.waiting && a.arrivals_per_minute == b.arrivals_per_minute && a.arrival_minutes == b.arrival_minutes &&
           a.leave_rate == b.leave_rate;
}

} // namespace

WaitEstimate fifo_estimate(const ForecastInputs& forecast, const FifoPlace& place, double leave_rate, double draw) {
    // On the user's own cadence the moment is exact; without it, anywhere in the claim time.
    const double spread = place.refresh_minutes > 0 ? 0.0 : forecast.claim_minutes;
    const auto shown = for_draw(shown_percentiles(FifoChances(forecast, place, leave_rate), std::array<double, 1>{0.5}, spread), draw);
    WaitEstimate estimate;
    estimate.known = true;
    estimate.minutes = shown[0];
    return estimate;
}

// The pool's size as the random estimate takes it: exact up to 200, then to the nearest step of
// a grid 0.5 % apart. Each new arrival changes the pool by one, and in a surge every queued
// request may be a new arrival; on the grid, the room's percentiles are computed again only when
// the pool has changed by half a percent (a wait of 150 minutes by under half a minute), not at
// every request. A pure function still: the same counts give the same estimate.
constexpr double k_pool_exact_below = 200;
constexpr double k_pool_grid_step = 0.005;
double pool_on_grid(double waiting) {
    if (waiting <= k_pool_exact_below) return waiting;
    const double step = std::log1p(k_pool_grid_step);
    return std::exp(std::round(std::log(waiting) / step) * step);
}

WaitEstimate random_estimate(const ForecastInputs& forecast, const RandomPool& exact_pool, double draw) {
    RandomPool pool = exact_pool;
    pool.waiting = pool_on_grid(exact_pool.waiting);
    thread_local std::array<RandomMemo, k_random_memo_rooms> memos;
    thread_local size_t next_victim = 0;
    RandomMemo* found = nullptr;
    for (RandomMemo& memo : memos)
        if (memo.used && memo.inputs.minute_offset == forecast.minute_offset && memo.inputs.same_room_as(forecast) &&
            same_pool(memo.pool, pool)) {
            found = &memo;
            break;
        }
    if (!found) {
        found = &memos[next_victim];
        next_victim = (next_victim + 1) % k_random_memo_rooms;
        found->shown = shown_percentiles(RandomChances(forecast, pool), std::array<double, 3>{0.25, 0.5, 0.75}, forecast.claim_minutes);
        found->inputs = forecast;
        found->pool = pool;
        found->used = true;
    }
    const auto shown = for_draw(found->shown, draw);
    WaitEstimate estimate;
    estimate.known = true;
    estimate.p25_minutes = shown[0];
    estimate.p50_minutes = shown[1];
    estimate.p75_minutes = shown[2];
    estimate.minutes = estimate.p50_minutes;
    return estimate;
}

double leave_rate_per_minute(double stop_share, double interval_seconds) {
    if (stop_share <= 0 || interval_seconds <= 0) return 0;
    return -std::log(1 - std::min(stop_share, 0.99)) * 60.0 / interval_seconds;
}

WaitEstimate infinite_queue_estimate(uint64_t seed, util::Milliseconds waited) {
    const double start = 20.0 + static_cast<double>(seed % 21);
    const double minutes = std::max(0.0, static_cast<double>(waited.count()) / 60000.0);
    WaitEstimate estimate;
    estimate.known = true;
    estimate.minutes = std::max<int64_t>(1, whole_minutes(start * start / (start + minutes)));
    return estimate;
}

} // namespace wr::queue
