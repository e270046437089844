// The admission algorithm, on virtual time: the worked examples of Cloudflare's articles
// (see server/queue/admission.cpp) and the rules of docs/design.md.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "queue/admission.h"
#include "queue/join_limiter.h"
#include "support/queue_policy.h"
#include "support/recorded_changes.h"
#include "support/test_server.h"

using namespace std::chrono_literals;
using wr::model::QueueingMethod;
using wr::queue::Ledger;
using wr::queue::Outcome;
using wr::queue::Policy;
using wr::queue::Ticket;
using wr::queue::Verdict;
using wr::util::TimePoint;
using wr::test::limits;

namespace {

// 15:54:00 on the reference's day, so bucket names read like the article's.
const TimePoint k_1554{std::chrono::sys_days{std::chrono::year{2021} / 5 / 27} + 15h + 54min};

// A queued user who arrived at `bucket` and last checked in at `checked_in`.
Ticket queued_ticket(TimePoint bucket, TimePoint checked_in, uint64_t id) {
    Ticket ticket;
    ticket.session_id = id;
    ticket.bucket = bucket;
    ticket.last_check_in = checked_in;
    return ticket;
}

// A crowd of browsers on virtual time: each keeps its own ticket and checks in when its refresh
// interval is over, like the page's Refresh header makes it.
struct VirtualBrowser {
    std::optional<Ticket> ticket;
    TimePoint next_visit;
    TimePoint arrived;
    std::optional<TimePoint> admitted_at;
};

} // namespace

TEST_CASE("queue: slots are reserved for the oldest buckets first (the random-queueing article's example)") {
    // 10,000 total active users, 2,000 new per minute, 7,000 active: 2,000 slots. Waiting:
    // 500 since 15:54, 1,000 since 15:55, 1,000 since 15:56.
    const Policy policy = limits(10000, 2000);
    const TimePoint now = k_1554 + 3min;
    Ledger ledger;
    for (int i = 0; i < 7000; ++i) ledger.add_active(now - 1min);
    const TimePoint buckets[] = {k_1554, k_1554 + 1min, k_1554 + 2min};
    const int waiting[] = {500, 1000, 1000};
    for (int b = 0; b < 3; ++b)
        for (int i = 0; i < waiting[b]; ++i) ledger.add_waiting(buckets[b], now - 30s);
    wr::util::SeededRandom random(1);

    // The newest bucket checks in first: only its share of 500 may enter.
    int admitted_1556 = 0;
    for (int i = 0; i < 1000; ++i)
        if (wr::queue::check_in(ledger, policy, queued_ticket(buckets[2], now - 30s, 100000 + i), now, random).verdict == Verdict::admit)
            ++admitted_1556;
    CHECK(admitted_1556 == 500);
    // A new user takes only what is left after every waiting bucket: nothing.
    CHECK(wr::queue::check_in(ledger, policy, std::nullopt, now, random).verdict == Verdict::queue);
    // The older buckets are covered whole.
    int admitted_older = 0;
    for (int b = 0; b < 2; ++b)
        for (int i = 0; i < waiting[b]; ++i)
            if (wr::queue::check_in(ledger, policy, queued_ticket(buckets[b], now - 30s, 200000 + b * 10000 + i), now, random).verdict ==
                Verdict::admit)
                ++admitted_older;
    CHECK(admitted_older == 1500);
    CHECK(ledger.admitted_in_minute(now) == 2000);
    CHECK(ledger.active_users(now, policy.session_duration) == 9000);
}

TEST_CASE("queue: eligible slots and the FIFO estimate of the Workers and Durable Objects article") {
    // 200/200 limits, 148 active: 52 slots for buckets of 2, 50 and 60 users; 30 admitted per minute.
    const Policy policy = limits(200, 200);
    const TimePoint now = k_1554 + 40min + 10s;
    Ledger ledger;
    for (int minute = 5; minute >= 1; --minute)
        for (int i = 0; i < 30; ++i) ledger.count_admission(now - std::chrono::minutes{minute});
    for (int i = 0; i < 148; ++i) ledger.add_active(now - 1min);
    const TimePoint buckets[] = {k_1554, k_1554 + 1min, k_1554 + 2min};
    const int waiting[] = {2, 50, 60};
    for (int b = 0; b < 3; ++b)
        for (int i = 0; i < waiting[b]; ++i) ledger.add_waiting(buckets[b], now - 10s);
    wr::util::SeededRandom random(2);

    // Each user last checked in 10 s ago... and 25 s ago for their refresh to be due.
    const auto ticket = [&](int bucket, uint64_t id) {
        Ticket t = queued_ticket(buckets[bucket], now - 10s, id);
        t.refresh_interval_seconds = 5;
        return t;
    };
    const Outcome last = wr::queue::check_in(ledger, policy, ticket(2, 1), now, random);
    CHECK(last.verdict == Verdict::queue); // 52 slots, 52 users ahead
    int admitted = 0;
    for (int b = 0; b < 2; ++b)
        for (int i = 0; i < waiting[b]; ++i)
            admitted += wr::queue::check_in(ledger, policy, ticket(b, 1000 + b * 100 + i), now, random).verdict == Verdict::admit;
    CHECK(admitted == 52);
    // The article divides the users ahead by the admissions of the last minutes (30 a minute):
    // 60/30, 2 minutes. But the room is full now (148 + 52 active), and no slot frees before the
    // 148 sessions counted a minute ago end — 4 min 50 s from now — when 148 free at once: the
    // whole bucket of 60 is let in then, whatever the past rate. The estimate follows the slots.
    const Outcome estimate = wr::queue::check_in(ledger, policy, ticket(2, 2), now, random);
    CHECK(estimate.verdict == Verdict::queue);
    CHECK(estimate.estimate.known);
    CHECK(estimate.estimate.minutes == 5);
    // Behind 40 more in an older bucket: still within the 148 slots.
    for (int i = 0; i < 40; ++i) ledger.add_waiting(buckets[1], now - 10s);
    CHECK(wr::queue::check_in(ledger, policy, ticket(2, 3), now, random).estimate.minutes == 5);
    // The 52 sessions counted this minute free a minute after the 148: 200 slots by 5 min 50 s.
    // Behind 160 more (200 ahead and a bucket of 60), the user's median place (230) waits for the
    // slots given out at 4 min 50 s to free again, a hold later (sessions and browsing: 200
    // active ÷ 30 admitted a minute = 6.7 minutes), split between the 11th and 12th minute.
    for (int i = 0; i < 160; ++i) ledger.add_waiting(buckets[1], now - 10s);
    const int64_t behind = wr::queue::check_in(ledger, policy, ticket(2, 4), now, random).estimate.minutes;
    CHECK(behind >= 11);
    CHECK(behind <= 12);
}

TEST_CASE("queue: a surge never admits more than the limits, and queues no one below them") {
    const Policy policy = limits(300, 200);
    Ledger ledger;
    wr::util::SeededRandom random(3);
    const TimePoint start = wr::test::k_test_start;
    // 150 users in the first minute: all below both limits, none queued.
    for (int i = 0; i < 150; ++i)
        CHECK(wr::queue::check_in(ledger, policy, std::nullopt, start + std::chrono::milliseconds{i * 100}, random).verdict == Verdict::admit);
    // 1,000 more in the same minute: 50 more fit the per-minute limit.
    int admitted = 0;
    std::vector<Ticket> queued;
    for (int i = 0; i < 1000; ++i) {
        const Outcome outcome = wr::queue::check_in(ledger, policy, std::nullopt, start + 35s, random);
        if (outcome.verdict == Verdict::admit) ++admitted; else queued.push_back(outcome.ticket);
    }
    CHECK(admitted == 50);
    CHECK(ledger.waiting_users(start + 35s) == 950);
    // Next minute: the per-minute budget renews but only 100 more fit under 300 active, and a
    // newcomer comes after those who wait.
    CHECK(wr::queue::check_in(ledger, policy, std::nullopt, start + 61s, random).verdict == Verdict::queue);
    admitted = 0;
    for (const Ticket& ticket : queued) admitted += wr::queue::check_in(ledger, policy, ticket, start + 61s, random).verdict == Verdict::admit;
    CHECK(admitted == 100);
    CHECK(ledger.active_users(start + 61s, policy.session_duration) == 300);
}

namespace {

// Admissions by each second of a minute, when 600 new users arrive at its start and each checks
// in again whenever their refresh interval is over.
std::vector<int64_t> admitted_by_second(const Policy& policy) {
    Ledger ledger;
    wr::util::SeededRandom random(5);
    std::vector<VirtualBrowser> browsers(600);
    std::vector<int64_t> admitted;
    int64_t so_far = 0;
    for (int second = 0; second < 60; ++second) {
        const TimePoint now = wr::test::k_test_start + std::chrono::seconds{second};
        for (VirtualBrowser& browser : browsers) {
            if (browser.admitted_at || (browser.ticket && browser.next_visit > now)) continue;
            const Outcome outcome = wr::queue::check_in(ledger, policy, browser.ticket, now, random);
            browser.ticket = outcome.ticket;
            if (outcome.verdict == Verdict::admit) {
                browser.admitted_at = now;
                ++so_far;
            } else {
                browser.next_visit = now + std::chrono::seconds{outcome.ticket.refresh_interval_seconds};
            }
        }
        admitted.push_back(so_far);
    }
    return admitted;
}

} // namespace

TEST_CASE("queue: a room the origin guard holds back lets its minute's new users in evenly over the minute") {
    // Unpaced, a crowd takes the minute's 120 places at once, as Cloudflare counts a minute.
    CHECK(admitted_by_second(limits(1000, 120)).front() == 120);

    // Held back by the guard to 120 a minute, the places are released evenly, five seconds
    // ahead of the clock: a cohort's places that free at once are refilled at the guard's pace,
    // not by the crowd in one go.
    const Policy configured = limits(1000, 240);
    const Policy held = wr::queue::held_to(configured, 0, 120);
    REQUIRE(held.paced);
    CHECK(held.new_users_per_minute == 120);
    for (const QueueingMethod method : {QueueingMethod::fifo, QueueingMethod::random}) {
        CAPTURE(static_cast<int>(method));
        Policy room = held;
        room.method = method;
        const std::vector<int64_t> admitted = admitted_by_second(room);
        CHECK(admitted.front() == 10);
        for (size_t second = 0; second < admitted.size(); ++second) {
            CAPTURE(second);
            CHECK(admitted[second] <= std::min<int64_t>(120, 2 * static_cast<int64_t>(second) + 10)); // ceil(120 × (s + 5) ÷ 60)
        }
        // The crowd checks in again at 20 s and 40 s: FIFO then takes every place released so far.
        if (method == QueueingMethod::fifo) {
            CHECK(admitted[20] == 50);
            CHECK(admitted[40] == 90);
        }
        CHECK(admitted[40] > admitted[0]);
    }

    // A lowered total paces the minute too; limits at or above the room's change nothing.
    CHECK(wr::queue::held_to(configured, 500, 0).paced);
    CHECK(wr::queue::held_to(configured, 500, 0).new_users_per_minute == 240);
    CHECK_FALSE(wr::queue::held_to(configured, 0, 0).paced);
    CHECK_FALSE(wr::queue::held_to(configured, 1000, 240).paced);
    CHECK_FALSE(wr::queue::held_to(configured, 5000, 900).paced);
}

TEST_CASE("queue: queued users get in in arrival order as sessions expire") {
    Policy policy = limits(200, 200);
    policy.session_duration = 2min;
    Ledger ledger;
    wr::util::SeededRandom random(4);
    const TimePoint start = wr::test::k_test_start;
    for (int i = 0; i < 200; ++i) wr::queue::check_in(ledger, policy, std::nullopt, start, random);

    // Four minutes of arrivals, 100 a minute, all queued; each browser refreshes on time.
    std::vector<VirtualBrowser> browsers;
    for (int minute = 0; minute < 4; ++minute)
        for (int i = 0; i < 100; ++i) {
            const TimePoint at = start + std::chrono::minutes{minute} + std::chrono::milliseconds{i * 500};
            browsers.push_back({std::nullopt, at, at, std::nullopt});
        }
    // The browsers check in a quarter second into each second. A request at a minute's first
    // millisecond counts in the minute before (its cookie runs out a session later, just as a
    // minute starts): a wave admitted on whole seconds would free the slots of those let in at
    // 2:00.000 a minute before the rest, and within a bucket those go to whoever checks in first.
    for (TimePoint now = start + 250ms; now < start + 20min; now += 1s)
        for (VirtualBrowser& browser : browsers) {
            if (browser.admitted_at || browser.next_visit > now) continue;
            const Outcome outcome = wr::queue::check_in(ledger, policy, browser.ticket, now, random);
            browser.ticket = outcome.ticket;
            if (outcome.verdict == Verdict::admit)
                browser.admitted_at = now;
            else
                browser.next_visit = now + std::chrono::seconds{outcome.ticket.refresh_interval_seconds};
        }
    // Everyone got in, and no one overtook an earlier arrival: a later user enters only once
    // slots are reserved for everyone before them, who then enter at their next check-in.
    for (const VirtualBrowser& browser : browsers) REQUIRE(browser.admitted_at);
    int overtaken = 0;
    for (const VirtualBrowser& earlier : browsers)
        for (const VirtualBrowser& later : browsers)
            if (earlier.arrived < later.arrived && *earlier.admitted_at > *later.admitted_at + 25s) ++overtaken;
    CHECK(overtaken == 0);
}

TEST_CASE("queue: before a room has measured its admissions, the wait comes from its limits, and the status agrees") {
    // The demo's room: 200 active, 200 a minute, one-minute sessions, filled at once, with a line
    // of 100 behind; a browser arriving a few seconds later used to see no estimate for two
    // minutes while the status said 0.
    for (const QueueingMethod method : {QueueingMethod::fifo, QueueingMethod::random}) {
        CAPTURE(method);
        Policy policy = limits(200, 200, method);
        policy.session_duration = 1min;
        Ledger ledger;
        wr::util::SeededRandom random(9);
        const TimePoint start = wr::test::k_test_start + 5s;
        for (int i = 0; i < 200; ++i) wr::queue::check_in(ledger, policy, std::nullopt, start, random);
        for (int i = 0; i < 100; ++i) wr::queue::check_in(ledger, policy, std::nullopt, start + 1s, random);

        const Outcome first = wr::queue::check_in(ledger, policy, std::nullopt, start + 10s, random);
        REQUIRE(first.verdict == Verdict::queue);
        CHECK(first.estimate.known);
        CHECK(first.estimate.from_limits);
        // The 200 slots counted in minute 0 free at the start of minute 2 (a session and a minute
        // later), 1 min 45 s from now, and go to the 101 waiting: in within 2 minutes.
        CHECK(first.estimate.minutes == 2);
        const wr::queue::RoomFigures figures = wr::queue::room_figures(ledger, policy, start + 10s);
        CHECK(figures.estimate_known);
        CHECK(figures.estimate_from_limits);
        CHECK(figures.max_estimated_minutes >= first.estimate.minutes);
    }
}

TEST_CASE("queue: a queued user's page and the room's status always agree on whether there is an estimate") {
    Policy policy = limits(200, 200);
    policy.session_duration = 1min;
    Ledger ledger;
    wr::util::SeededRandom random(10);
    const TimePoint start = wr::test::k_test_start;
    std::vector<VirtualBrowser> browsers;
    for (int i = 0; i < 400; ++i) {
        const TimePoint at = start + std::chrono::milliseconds{i * 400};
        browsers.push_back({std::nullopt, at, at, std::nullopt});
    }
    bool saw_limits = false, saw_measured = false;
    for (TimePoint now = start + 250ms; now < start + 8min; now += 1s) {
        if (now > start + 3min) policy.queue_all = now < start + 4min; // a pause: no estimate on either side
        for (VirtualBrowser& browser : browsers) {
            if (browser.admitted_at || browser.next_visit > now) continue;
            const Outcome outcome = wr::queue::check_in(ledger, policy, browser.ticket, now, random);
            browser.ticket = outcome.ticket;
            if (outcome.verdict == Verdict::admit) {
                browser.admitted_at = now;
                continue;
            }
            browser.next_visit = now + std::chrono::seconds{outcome.ticket.refresh_interval_seconds};
            if (!outcome.counted) continue;
            const wr::queue::RoomFigures figures = wr::queue::room_figures(ledger, policy, now);
            REQUIRE(outcome.estimate.known == figures.estimate_known);
            REQUIRE(outcome.estimate.known == !policy.queue_all);
            if (!outcome.estimate.known) continue;
            CHECK(outcome.estimate.from_limits == figures.estimate_from_limits);
            CHECK(outcome.estimate.minutes <= figures.max_estimated_minutes);
            (outcome.estimate.from_limits ? saw_limits : saw_measured) = true;
        }
    }
    CHECK(saw_limits);
    CHECK(saw_measured);
}

TEST_CASE("queue: switching fifo to random and back keeps the arrival order of those still waiting") {
    Policy policy = limits(200, 200);
    Ledger ledger;
    wr::util::SeededRandom random(5);
    const TimePoint start = wr::test::k_test_start;
    for (int i = 0; i < 200; ++i) wr::queue::check_in(ledger, policy, std::nullopt, start, random);
    const Outcome early = wr::queue::check_in(ledger, policy, std::nullopt, start + 10s, random);
    const Outcome late = wr::queue::check_in(ledger, policy, std::nullopt, start + 70s, random);
    REQUIRE(early.verdict == Verdict::queue);
    REQUIRE(late.verdict == Verdict::queue);

    policy.method = QueueingMethod::random;
    const Outcome early_random = wr::queue::check_in(ledger, policy, early.ticket, start + 90s, random);
    const Outcome late_random = wr::queue::check_in(ledger, policy, late.ticket, start + 100s, random);
    CHECK(early_random.ticket.bucket == early.ticket.bucket); // the bookkeeping is the same
    CHECK(late_random.ticket.bucket == late.ticket.bucket);
    // Both keep checking in (a place is held for 30–40 s after the last check-in).
    Ticket early_ticket = early_random.ticket, late_ticket = late_random.ticket;
    for (const auto at : {125s, 150s, 175s}) {
        early_ticket = wr::queue::check_in(ledger, policy, early_ticket, start + at, random).ticket;
        late_ticket = wr::queue::check_in(ledger, policy, late_ticket, start + at, random).ticket;
    }

    policy.method = QueueingMethod::fifo;
    // Sessions end after 5 minutes; one slot frees when one admitted user is revoked.
    Ticket admitted;
    admitted.session_id = 77;
    admitted.bucket = start;
    admitted.accepted_at = start;
    admitted.last_check_in = start + 3min;
    ledger.add_active(start + 3min);
    ledger.remove_active(start, start + 3min);
    CHECK(wr::queue::revoke(ledger, policy, admitted, start + 3min));
    // The later arrival checks in first but must let the earlier one go ahead.
    const Outcome late_again = wr::queue::check_in(ledger, policy, late_ticket, start + 3min + 25s, random);
    CHECK(late_again.verdict == Verdict::queue);
    const Outcome early_again = wr::queue::check_in(ledger, policy, early_ticket, start + 3min + 26s, random);
    CHECK(early_again.verdict == Verdict::admit);
}

TEST_CASE("queue: random queueing spreads a minute's slots over the minute") {
    const Policy policy = limits(10000, 200, QueueingMethod::random);
    Ledger ledger;
    wr::util::SeededRandom random(6);
    const TimePoint start = wr::test::k_test_start;
    // 2,000 users are waiting; then the minute starts and everyone checks in at random moments.
    std::vector<std::optional<Ticket>> tickets(2000);
    for (auto& ticket : tickets) ticket = wr::queue::check_in(ledger, limits(10000, 200, QueueingMethod::random), std::nullopt, start - 30s, random).ticket;
    // (the first 200 of those were admitted in the previous minute)
    int admitted_in_first_second = 0;
    int admitted_in_minute = 0;
    for (int step = 0; step < 60000; step += 30) {
        const TimePoint now = start + std::chrono::milliseconds{step};
        auto& ticket = tickets[static_cast<size_t>(step / 30)];
        if (!ticket || ticket->admitted()) continue;
        const Outcome outcome = wr::queue::check_in(ledger, policy, ticket, now, random);
        if (outcome.verdict == Verdict::admit) {
            ++admitted_in_minute;
            if (step < 1000) ++admitted_in_first_second;
        }
    }
    CHECK(admitted_in_minute == 200);
    CHECK(admitted_in_first_second <= 5);
}

TEST_CASE("queue: a check-in before the refresh interval gets the page and changes nothing") {
    const Policy policy = limits(200, 200);
    Ledger ledger;
    wr::util::SeededRandom random(7);
    const TimePoint start = wr::test::k_test_start;
    for (int i = 0; i < 200; ++i) wr::queue::check_in(ledger, policy, std::nullopt, start, random);
    const Outcome queued = wr::queue::check_in(ledger, policy, std::nullopt, start + 1s, random);
    REQUIRE(queued.verdict == Verdict::queue);
    const Outcome spam = wr::queue::check_in(ledger, policy, queued.ticket, start + 5s, random);
    CHECK(spam.verdict == Verdict::queue);
    CHECK_FALSE(spam.counted);
    CHECK(spam.ticket == queued.ticket);
    CHECK(ledger.waiting_users(start + 5s) == 1);
    const Outcome on_time = wr::queue::check_in(ledger, policy, queued.ticket, start + 21s, random);
    CHECK(on_time.counted);
    CHECK(on_time.ticket.last_check_in == start + 21s);
}

TEST_CASE("queue: sessions expire, renew on each request, or not with disable_session_renewal") {
    Policy policy = limits(200, 200);
    Ledger ledger;
    wr::util::SeededRandom random(8);
    const TimePoint start = wr::test::k_test_start;
    const Outcome in = wr::queue::check_in(ledger, policy, std::nullopt, start, random);
    REQUIRE(in.verdict == Verdict::admit);
    const Outcome renewed = wr::queue::check_in(ledger, policy, in.ticket, start + 4min, random);
    CHECK(renewed.verdict == Verdict::admit);
    CHECK(renewed.ticket.last_check_in == start + 4min);
    CHECK(ledger.active_users(start + 4min, policy.session_duration) == 1);
    CHECK(wr::queue::ticket_expiry(renewed.ticket, policy) == start + 9min);
    // Past the session: a new user again, in a new bucket.
    const Outcome expired = wr::queue::check_in(ledger, policy, renewed.ticket, start + 9min + 1s, random);
    CHECK(expired.new_user);
    CHECK(expired.ticket.bucket == start + 9min); // the minute of the new arrival

    policy.disable_session_renewal = true;
    Ledger fixed;
    const Outcome first = wr::queue::check_in(fixed, policy, std::nullopt, start, random);
    const Outcome later = wr::queue::check_in(fixed, policy, first.ticket, start + 4min, random);
    CHECK(later.ticket.last_check_in == start);
    CHECK(wr::queue::ticket_expiry(later.ticket, policy) == start + 5min);
    CHECK(wr::queue::check_in(fixed, policy, later.ticket, start + 5min + 1s, random).new_user);
}

TEST_CASE("queue: a revoked session frees its slot at once and cannot be replayed") {
    const Policy policy = limits(200, 200);
    Ledger ledger;
    wr::util::SeededRandom random(9);
    const TimePoint start = wr::test::k_test_start;
    std::vector<Ticket> admitted;
    for (int i = 0; i < 200; ++i) admitted.push_back(wr::queue::check_in(ledger, policy, std::nullopt, start, random).ticket);
    const Outcome waiting = wr::queue::check_in(ledger, policy, std::nullopt, start + 61s, random);
    REQUIRE(waiting.verdict == Verdict::queue);
    CHECK(wr::queue::revoke(ledger, policy, admitted[0], start + 62s));
    CHECK_FALSE(wr::queue::revoke(ledger, policy, admitted[0], start + 62s));
    CHECK(ledger.active_users(start + 62s, policy.session_duration) == 199);
    CHECK(wr::queue::check_in(ledger, policy, waiting.ticket, start + 82s, random).verdict == Verdict::admit);
    const Outcome replay = wr::queue::check_in(ledger, policy, admitted[0], start + 83s, random);
    CHECK(replay.new_user);
    CHECK(replay.verdict == Verdict::queue);
}

TEST_CASE("queue: users who close the tab drop out of the count within 40 seconds") {
    const Policy policy = limits(200, 200);
    Ledger ledger;
    wr::util::SeededRandom random(10);
    const TimePoint start = wr::test::k_test_start;
    for (int i = 0; i < 200; ++i) wr::queue::check_in(ledger, policy, std::nullopt, start, random);
    for (int i = 0; i < 50; ++i) wr::queue::check_in(ledger, policy, std::nullopt, start + 1s, random);
    // Counted by the ten-second slot of their last check-in (0–10 s) for three slots more: until 40 s.
    CHECK(ledger.waiting_users(start + 1s) == 50);
    CHECK(ledger.waiting_users(start + 39s) == 50);
    CHECK(ledger.waiting_users(start + 40s) == 0);
    // Kept three minutes longer, to measure how many stop checking in, then pruned.
    ledger.prune(start + 3min);
    CHECK(ledger.bucket_count() == 1);
    CHECK(ledger.waiting_users(start + 3min) == 0);
    ledger.prune(start + 4min);
    CHECK(ledger.bucket_count() == 0);
}

TEST_CASE("queue: queue_all and reject let no one in; passthrough lets everyone in") {
    Policy policy = limits(200, 200);
    wr::util::SeededRandom random(11);
    const TimePoint start = wr::test::k_test_start;
    Ledger ledger;
    const Outcome in = wr::queue::check_in(ledger, policy, std::nullopt, start, random);
    policy.queue_all = true;
    const Outcome held = wr::queue::check_in(ledger, policy, std::nullopt, start, random);
    CHECK(held.verdict == Verdict::queue);
    CHECK_FALSE(held.estimate.known);
    CHECK(wr::queue::check_in(ledger, policy, in.ticket, start + 1s, random).verdict == Verdict::admit); // sessions continue
    policy.queue_all = false;
    policy.method = QueueingMethod::reject;
    CHECK(wr::queue::check_in(ledger, policy, std::nullopt, start, random).verdict == Verdict::reject);
    CHECK(wr::queue::check_in(ledger, policy, in.ticket, start + 2s, random).verdict == Verdict::reject);
    policy.method = QueueingMethod::passthrough;
    int admitted = 0;
    for (int i = 0; i < 1000; ++i) admitted += wr::queue::check_in(ledger, policy, std::nullopt, start + 3s, random).verdict == Verdict::admit;
    CHECK(admitted == 1000);
}

TEST_CASE("queue: an event start shuffles prequeued users uniformly, and the same way for each user") {
    const TimePoint prequeue = wr::test::k_test_start;
    wr::queue::Shuffle shuffle{42, prequeue, prequeue + 10min};
    std::vector<int> deciles(10, 0);
    for (uint64_t id = 1; id <= 10000; ++id) {
        const TimePoint bucket = wr::queue::shuffled_bucket(id, shuffle);
        REQUIRE(bucket >= prequeue);
        REQUIRE(bucket < prequeue + 10min);
        ++deciles[static_cast<size_t>((bucket - prequeue) / 1min)];
        CHECK(wr::queue::shuffled_bucket(id, shuffle) == bucket);
    }
    double chi_square = 0;
    for (const int count : deciles) chi_square += std::pow(count - 1000.0, 2) / 1000.0;
    CHECK(chi_square < 21.67); // 9 degrees of freedom, p = 0.01
    shuffle.event_key = 43;
    int moved = 0;
    for (uint64_t id = 1; id <= 100; ++id) moved += wr::queue::shuffled_bucket(id, shuffle) != wr::queue::shuffled_bucket(id, {42, prequeue, prequeue + 10min});
    CHECK(moved > 90);

    // In the admission path: a prequeued user's ticket is redrawn once, at the first check-in after the start.
    Policy policy = limits(200, 200);
    policy.queue_all = true;
    Ledger ledger;
    wr::util::SeededRandom random(12);
    Outcome prequeued = wr::queue::check_in(ledger, policy, std::nullopt, prequeue + 1min, random);
    for (TimePoint at = prequeue + 1min + 30s; at < prequeue + 10min; at += 30s)
        prequeued = wr::queue::check_in(ledger, policy, prequeued.ticket, at, random);
    REQUIRE(prequeued.verdict == Verdict::queue);
    policy.queue_all = false;
    policy.shuffle = shuffle;
    const Outcome started = wr::queue::check_in(ledger, policy, prequeued.ticket, prequeue + 10min + 1s, random);
    CHECK(started.ticket.shuffled);
    CHECK(started.ticket.bucket == wr::queue::shuffled_bucket(prequeued.ticket.session_id, shuffle));
    CHECK(started.verdict == Verdict::admit);
}

TEST_CASE("queue: a held arrival is admitted when there is room, and otherwise told the wait without joining") {
    const Policy policy = limits(2, 100);
    Ledger ledger;
    wr::util::SeededRandom random(11);
    const TimePoint now = k_1554;
    for (int minute = 1; minute <= 2; ++minute) // two admissions a minute before: a known rate
        for (int i = 0; i < 2; ++i) ledger.count_admission(now - std::chrono::minutes{minute});
    // Room for two: a held arrival is simply admitted.
    const Outcome first = wr::queue::check_in(ledger, policy, std::nullopt, now, random, wr::queue::Arrival::hold);
    CHECK(first.verdict == Verdict::admit);
    CHECK_FALSE(first.held);
    CHECK(wr::queue::check_in(ledger, policy, std::nullopt, now, random).verdict == Verdict::admit);
    // Full: a held arrival waits, but nothing is recorded.
    const Outcome held = wr::queue::check_in(ledger, policy, std::nullopt, now + 1s, random, wr::queue::Arrival::hold);
    CHECK(held.verdict == Verdict::queue);
    CHECK(held.held);
    CHECK_FALSE(held.counted);
    CHECK(ledger.waiting_users(now + 1s) == 0);
    // Joining for real is counted.
    const Outcome joined = wr::queue::check_in(ledger, policy, std::nullopt, now + 1s, random);
    CHECK_FALSE(joined.held);
    CHECK(joined.counted);
    CHECK(ledger.waiting_users(now + 1s) == 1);
    // A held arrival is told the wait of one behind those already waiting.
    const Outcome estimate = wr::queue::check_in(ledger, policy, std::nullopt, now + 2s, random, wr::queue::Arrival::hold);
    CHECK(estimate.held);
    CHECK(estimate.estimate.known);
    CHECK(estimate.estimate.minutes >= 1);
    CHECK(ledger.waiting_users(now + 2s) == 1);
    // Tickets already in the queue are never held.
    const Outcome again = wr::queue::check_in(ledger, policy, joined.ticket, now + 25s, random, wr::queue::Arrival::hold);
    CHECK_FALSE(again.held);
    CHECK(again.counted);
}

TEST_CASE("queue: the infinite queue never admits, never counts, and its estimate shrinks without reaching zero") {
    const Policy policy = limits(1000, 1000); // plenty of room: a real user would walk in
    Ledger ledger;
    wr::util::SeededRandom random(12);
    Ticket bot = queued_ticket(k_1554, k_1554, 77);
    bot.arrived = k_1554;
    bot.infinite_queue = true;
    int64_t previous = INT64_MAX;
    for (int minute = 0; minute <= 24 * 60; minute += 4) { // within the queued ticket's lifetime
        const TimePoint now = k_1554 + std::chrono::minutes{minute};
        const Outcome outcome = wr::queue::check_in(ledger, policy, bot, now, random);
        CHECK(outcome.verdict == Verdict::queue);
        CHECK_FALSE(outcome.counted);
        CHECK(outcome.ticket.infinite_queue);
        CHECK(outcome.ticket.last_check_in == now);
        CHECK(outcome.estimate.known);
        CHECK(outcome.estimate.minutes >= 1);
        CHECK(outcome.estimate.minutes <= previous);
        previous = outcome.estimate.minutes;
        bot = outcome.ticket;
    }
    CHECK(previous == 1);
    // A check-in before its interval is over moves nothing, as in the real queue: the same last
    // check-in (so the page's Refresh counts down and its lastUpdated stays).
    const TimePoint early = bot.last_check_in + std::chrono::seconds{bot.refresh_interval_seconds / 2};
    CHECK(wr::queue::check_in(ledger, policy, bot, early, random).ticket.last_check_in == bot.last_check_in);
    CHECK(ledger.waiting_users(k_1554 + 24h) == 0);
    CHECK(ledger.active_users(k_1554 + 24h, policy.session_duration) == 0);
    // Even in a passthrough room, the flag keeps the bot out.
    Policy open = policy;
    open.method = QueueingMethod::passthrough;
    CHECK(wr::queue::check_in(ledger, open, bot, k_1554 + 24h + 1min, random).verdict == Verdict::queue);
}

TEST_CASE("queue: the infinite queue's estimate falls a minute per minute at first, then ever slower") {
    using wr::queue::infinite_queue_estimate;
    for (const uint64_t seed : {0ULL, 7ULL, 20ULL}) {
        const int64_t start = 20 + static_cast<int64_t>(seed % 21);
        CAPTURE(seed);
        CHECK(infinite_queue_estimate(seed, 0ms).minutes == start);
        // Early on it looks like a real queue: about a minute less each minute.
        const int64_t after_ten = infinite_queue_estimate(seed, 10min).minutes;
        CHECK(after_ten >= start - 10);
        CHECK(after_ten <= start - 6);
        CHECK(infinite_queue_estimate(seed, std::chrono::minutes{start}).minutes == (start + 1) / 2);
        CHECK(infinite_queue_estimate(seed, 1000h).minutes == 1);
        CHECK(infinite_queue_estimate(seed, -5min).minutes == start); // a clock step back changes nothing
    }
}

TEST_CASE("queue: the join limiter counts joins per address per clock minute") {
    wr::queue::JoinLimiter limiter;
    const wr::queue::ClientAddress a{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1};
    const wr::queue::ClientAddress b{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 2};
    const TimePoint now = k_1554 + 10s;
    CHECK(limiter.try_join(a, 2, now));
    CHECK(limiter.try_join(a, 2, now + 1s));
    CHECK_FALSE(limiter.try_join(a, 2, now + 2s));
    CHECK_FALSE(limiter.try_join(a, 2, now + 49s)); // refused joins are not counted, but the window holds
    CHECK(limiter.try_join(b, 2, now + 2s));         // other addresses have their own count
    CHECK(wr::queue::JoinLimiter::seconds_to_next_window(now + 2s) == 48);
    CHECK(limiter.try_join(a, 2, now + 50s));        // the next minute starts afresh
    CHECK(limiter.tracked_clients() == 1);           // and forgets the last one's addresses
    CHECK(limiter.try_join(a, 0, now + 51s));        // no limit
    CHECK(limiter.try_join(a, -1, now + 51s));
}

TEST_CASE("ledger: a node's view of a shared room moves a user another node counted, journaling both halves; within their minute, nothing") {
    using Kind = wr::queue::LedgerChange::Kind;
    Ledger view;
    wr::test::RecordedChanges journal;
    view.set_journal(&journal);
    view.set_shared_view(true);
    // Let in on another node at 15:54:01; that node's push has not reached this view yet.
    const TimePoint first = k_1554 + 1s;
    const int64_t minute = wr::queue::minute_of(first);
    view.renew_active(first, k_1554 + 30s); // within their minute: counted there already
    CHECK(journal.changes.empty());
    CHECK(view.active_users(k_1554 + 30s, 5min) == 0);
    view.renew_active(first, k_1554 + 70s); // the next minute: moved, here as there
    REQUIRE(journal.changes.size() == 2);
    CHECK(journal.changes[0] == wr::queue::LedgerChange{Kind::active, minute, 0, -1});
    CHECK(journal.changes[1] == wr::queue::LedgerChange{Kind::active, minute + 1, 0, 1});
    CHECK(view.active_users(k_1554 + 70s, 5min) == 0); // one less, one more, until the other push comes
    view.apply({Kind::active, minute, 0, 1});          // it comes
    CHECK(view.active_users(k_1554 + 70s, 5min) == 1); // counted once
    CHECK(view.active_counted_in_minute(minute) == 0);

    // A user queued on another node checks in here: moved out of the slot they were last seen in.
    journal.changes.clear();
    const TimePoint bucket = k_1554;
    view.remove_waiting(bucket, k_1554 + 5s, k_1554 + 30s);
    view.add_waiting(bucket, k_1554 + 30s);
    REQUIRE(journal.changes.size() == 2);
    CHECK(journal.changes[0].delta == -1);
    CHECK(view.waiting_users(k_1554 + 30s) == 0);
    view.apply({Kind::waiting, wr::util::TimePoint{bucket}.time_since_epoch().count(), wr::queue::check_in_slot_of(k_1554 + 5s), 1});
    CHECK(view.waiting_users(k_1554 + 30s) == 1);
    // A slot no longer kept is not touched.
    journal.changes.clear();
    view.remove_waiting(bucket, k_1554 + 5s, k_1554 + 10min);
    CHECK(journal.changes.empty());
}

TEST_CASE("ledger: a renewal within the minute its user is counted in changes and journals nothing; across minutes it moves them") {
    Ledger ledger;
    wr::test::RecordedChanges journal;
    ledger.set_journal(&journal);
    // 15:54:01, not 15:54:00.000: a request at a minute's first millisecond counts in the minute before.
    const TimePoint first = k_1554 + 1s;
    const int64_t minute = wr::queue::minute_of(first);
    ledger.add_active(first);
    journal.changes.clear();

    ledger.renew_active(first, k_1554 + 30s);
    CHECK(journal.changes.empty());
    CHECK(ledger.active_counted_in_minute(minute) == 1);

    ledger.renew_active(k_1554 + 30s, k_1554 + 70s);
    CHECK(ledger.active_counted_in_minute(minute) == 0);
    CHECK(ledger.active_counted_in_minute(minute + 1) == 1);
    REQUIRE(journal.changes.size() == 2);
    CHECK(journal.changes[0].delta == -1);
    CHECK(journal.changes[1].delta == 1);

    // A user this ledger never counted (a node restarted, a ticket from before) is counted now,
    // even within the minute of their last check-in.
    Ledger empty;
    empty.renew_active(first, k_1554 + 10s);
    CHECK(empty.active_counted_in_minute(minute) == 1);
}
