// The wait estimators on their own, against distributions worked out by hand: a steady pool
// (the geometric model of Cloudflare's random-queueing article), a draining pool, a FIFO place.
#include <doctest/doctest.h>

#include <vector>

#include "queue/wait_estimate.h"

using wr::queue::FifoPlace;
using wr::queue::ForecastInputs;
using wr::queue::RandomPool;
using wr::queue::WaitEstimate;

namespace {

// A room that admits `per_minute` at the start of every minute from the next one on, for ever:
// far more slots than the cap, and this minute's admissions already made. Now is half a minute
// in, so admissions come 0.5, 1.5, 2.5 … minutes from now.
ForecastInputs steady(int64_t per_minute) {
    ForecastInputs inputs;
    inputs.minute_offset = 0.5;
    inputs.total_active_users = 1'000'000;
    inputs.new_users_per_minute = per_minute;
    inputs.admitted_this_minute = per_minute;
    inputs.session_minutes = 5;
    inputs.claim_minutes = 1e-3; // slots claimed at once: the minute an admission lands is the wait
    return inputs;
}

// Both ways a user's draw can round a percentile that falls between two whole minutes: the
// earlier and the later of the two.
std::pair<WaitEstimate, WaitEstimate> random_both(const ForecastInputs& inputs, const RandomPool& pool) {
    return {wr::queue::random_estimate(inputs, pool, 0.999), wr::queue::random_estimate(inputs, pool, 0.0)};
}

} // namespace

TEST_CASE("wait estimate: a steady random pool follows n = log(1 - p) / log(1 - P)") {
    // 95 waiting and 10 arriving a minute for good, 10 admitted a minute: 100 in the pool at each
    // admission, P = 0.1. The p-th percentile is the n-th admission with 1 − 0.9^n ≥ p — the 3rd,
    // 7th and 14th (log formula: 2.73, 6.58, 13.16) — half a minute before minute n.
    const RandomPool pool{95, 10, 1e6, 0};
    const auto [early, late] = random_both(steady(10), pool);
    CHECK(late.p25_minutes == 3);
    CHECK(late.p50_minutes == 7);
    CHECK(late.p75_minutes == 14);
    // Shown to some users as the minute before, so that over all a share p is in within it.
    CHECK(early.p25_minutes == 2);
    CHECK(early.p50_minutes == 6);
    CHECK(early.p75_minutes == 13);
    CHECK(late.minutes == late.p50_minutes);
}

TEST_CASE("wait estimate: a random pool no one joins any more drains evenly") {
    // 100 waiting, 10 admitted a minute, nobody arriving: every user gets one of the next ten
    // admissions, each as likely — a median of 5 minutes, where the steady model says 7.
    RandomPool pool{100, 0, 0, 0};
    const auto [early, late] = random_both(steady(10), pool);
    CHECK(late.p25_minutes == 3);
    CHECK(late.p50_minutes == 5);
    CHECK(late.p75_minutes == 8);
    CHECK(early.p50_minutes == 5); // exactly half are in by the 5th admission: no draw needed
    // Users who give up shorten everyone's wait: 20 % leaving a minute.
    pool.leave_rate = 0.2;
    CHECK(wr::queue::random_estimate(steady(10), pool, 0.0).p75_minutes < late.p75_minutes);
}

TEST_CASE("wait estimate: a percentile late in one minute's claims counts the next minute's, begun before the whole minute") {
    // 100 waiting, 10 admitted a minute, nobody arriving; now is 0.3 into a minute, so the
    // admissions come 0.7, 1.7, … minutes from now, each claimed over the next half minute. The
    // median is reached as the fifth is all claimed, at 5.2 minutes, between 5 and 6. By 5
    // minutes 46 % are in (four admissions and 60 % of the fifth); by 6, 56 % (the sixth, from
    // 5.7, is 60 % claimed): 6 is shown to 40 % of users and 5 to the others, so that half are in
    // within what they were shown. (Without the sixth, F(6) = 0.5 and everyone was shown 6.)
    ForecastInputs inputs = steady(10);
    inputs.minute_offset = 0.3;
    inputs.claim_minutes = 0.5;
    const RandomPool pool{100, 0, 0, 0};
    CHECK(wr::queue::random_estimate(inputs, pool, 0.39).p50_minutes == 6);
    CHECK(wr::queue::random_estimate(inputs, pool, 0.41).p50_minutes == 5);
    // The same over a walk too long to keep: one admitted a minute from a pool of 100 (99.3 and
    // the arrivals of the 0.7 minute before the first admission), so P = 1 % a minute and over
    // 900 admissions come before the chance of still waiting is negligible. The median lies 69.18
    // minutes ahead; F(69) = 0.4981, and F(70) = 0.5032 with the first 0.3 minute of the
    // seventieth admission: 70 is shown to 37 %.
    inputs = steady(1);
    inputs.minute_offset = 0.3;
    inputs.claim_minutes = 0.5;
    const RandomPool steady_pool{99.3, 1, 1e6, 0};
    CHECK(wr::queue::random_estimate(inputs, steady_pool, 0.36).p50_minutes == 70);
    CHECK(wr::queue::random_estimate(inputs, steady_pool, 0.38).p50_minutes == 69);
}

TEST_CASE("wait estimate: FIFO waits for the admissions that reach the user's place") {
    // 90 ahead in older buckets, alone in their own, 30 let in a minute: the 91st place is
    // reached by the fourth admission, 3.5 minutes from now.
    FifoPlace place{90, 1, 0, 0};
    CHECK(wr::queue::fifo_estimate(steady(30), place, 0, 0.0).minutes == 4);
    // Their place within a bucket of 60 is a draw: the median place is the 30th, in the first
    // admission — showing the whole bucket's wait (2) would break the promise for half of them.
    place = FifoPlace{0, 60, 0, 0};
    CHECK(wr::queue::fifo_estimate(steady(30), place, 0, 0.0).minutes == 1);
    // Those ahead who give up need no slot: with 10 % leaving a minute, 300 ahead at 30 a
    // minute go in well before the eleventh admission.
    place = FifoPlace{300, 1, 0, 0};
    CHECK(wr::queue::fifo_estimate(steady(30), place, 0, 0.0).minutes == 11);
    CHECK(wr::queue::fifo_estimate(steady(30), place, 0.1, 0.0).minutes <= 8);
    // On a 25-second cadence last seen 20 s ago, the user is let in at their own first check-in
    // after the slot frees (3.5 minutes): at 3 min 45 s, still within 4 minutes.
    place = FifoPlace{90, 1, 25.0 / 60, 20.0 / 60};
    CHECK(wr::queue::fifo_estimate(steady(30), place, 0, 0.0).minutes == 4);
}

TEST_CASE("wait estimate: FIFO counts the user's refreshes with the delay each one brings") {
    // 990 ahead at 30 a minute: the 34th admission, 33.75 minutes from now, reaches the place.
    // Refreshing every 20 s, each a tenth of a second late, the user's 101st refresh comes at
    // 2030.1 s (33.84 minutes), the first after it: shown 34. Counted in bare 20-second
    // intervals, 33.75 minutes would take 101.25 refreshes, and the 102nd (34.17 minutes) shows 35.
    ForecastInputs inputs = steady(30);
    inputs.minute_offset = 0.25;
    CHECK(wr::queue::fifo_estimate(inputs, FifoPlace{990, 1, 20.0 / 60, 0}, 0, 0.0).minutes == 34);
}

TEST_CASE("wait estimate: a slot is held a session and a minute past the minute of its user's last request") {
    using wr::queue::slot_hold_minutes;
    // Five-minute sessions, 40 s of browsing after the admission. FIFO lets the user in within
    // 20 s of the minute start: the last request stays in that minute, the slot frees 6 minutes
    // on. Random queueing lets users in over the first 30 s: a third of them make their last
    // request in the next minute and hold the slot 7 minutes, 6⅓ on average.
    CHECK(slot_hold_minutes(5, 40.0 / 60, 1.0 / 3) == doctest::Approx(6));
    CHECK(slot_hold_minutes(5, 40.0 / 60, 0.5) == doctest::Approx(6 + 1.0 / 3));
    // A user who never comes back, and one who browses 1¾ minutes: a whole minute more, and half
    // of them (let in during the first half of the minute's claims, before 15 s) one more still.
    CHECK(slot_hold_minutes(5, 0, 0.5) == doctest::Approx(6));
    CHECK(slot_hold_minutes(5, 1.75, 0.5) == doctest::Approx(7.5));
}

TEST_CASE("wait estimate: a room that can never admit shows the horizon") {
    ForecastInputs closed = steady(0);
    const WaitEstimate fifo = wr::queue::fifo_estimate(closed, FifoPlace{10, 1, 0, 0}, 0, 0.5);
    CHECK(fifo.known);
    CHECK(fifo.minutes >= static_cast<int64_t>(wr::queue::k_estimate_horizon_minutes));
}

TEST_CASE("wait estimate: a room's forecast kept per thread walks exactly as a fresh one, whatever other rooms came between") {
    // Nine rooms, one more than the per-thread memory keeps, visited in turns: a kept forecast
    // must never answer for another room's counts, and an evicted one must be projected again.
    std::vector<ForecastInputs> rooms;
    for (int64_t i = 0; i < 9; ++i) {
        ForecastInputs inputs;
        inputs.minute_offset = 0.25 + 0.05 * static_cast<double>(i);
        inputs.total_active_users = 200;
        inputs.new_users_per_minute = 50;
        inputs.session_minutes = 5;
        // Rooms 0-2 differ in the cap left this minute, 3-5 in the hold, 6-8 in the sessions counted.
        if (i < 3) inputs.admitted_this_minute = i * 20;
        inputs.hold_minutes = i >= 3 && i < 6 ? 6.0 + 0.3 * static_cast<double>(i) : 6.0;
        inputs.counted_minutes_ago[static_cast<size_t>(i < 6 ? 0 : i - 5)] = 40 + (i >= 6 ? 30 : 0);
        rooms.push_back(inputs);
    }
    for (int round = 0; round < 3; ++round)
        for (const ForecastInputs& inputs : rooms) {
            CAPTURE(round);
            wr::queue::AdmissionForecast fresh(inputs);
            wr::queue::ForecastCursor kept(inputs);
            for (int minute = 0; minute < 100; ++minute) {
                wr::queue::ForecastAdmission expected, got;
                REQUIRE(fresh.next(expected));
                REQUIRE(kept.next(got));
                CHECK(got.at_minutes == doctest::Approx(expected.at_minutes));
                CHECK(got.users == doctest::Approx(expected.users));
            }
        }
}

TEST_CASE("wait estimate: random percentiles kept for a room are its own, the user's draw applied after") {
    // The same room asked again after others gives the same answer; a pool one user larger is
    // another room state, not a kept answer.
    const RandomPool pool{95, 10, 1e6, 0};
    const auto first = random_both(steady(10), pool);
    for (int64_t other = 11; other < 30; ++other) random_both(steady(other), pool);
    const auto again = random_both(steady(10), pool);
    CHECK(again.first.p50_minutes == first.first.p50_minutes);
    CHECK(again.second.p75_minutes == first.second.p75_minutes);
    const auto larger = random_both(steady(10), RandomPool{1000, 10, 1e6, 0});
    CHECK(larger.first.p75_minutes > first.first.p75_minutes);
}
