// Admission rules one at a time, each at its boundary: tickets from the future, the early
// check-in tolerance, random queueing's spare slots, refresh jitter, the shuffle's edges, the
// rate's partial minute, the held arrival's place, the full queue, revocation replay, a
// session let in at a minute's first millisecond, and the browse time.
#include <doctest/doctest.h>

#include <set>

#include "queue/admission.h"
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

const TimePoint k_start = wr::test::k_test_start;

// A queued user who arrived at `bucket` (its arrival and its place in line) and last checked in
// at `checked_in`.
Ticket queued_since(TimePoint bucket, TimePoint checked_in, uint64_t id) {
    Ticket ticket;
    ticket.session_id = id;
    ticket.bucket = bucket;
    ticket.arrived = bucket;
    ticket.last_check_in = checked_in;
    return ticket;
}

} // namespace

TEST_CASE("queue rules: a ticket dated more than a minute ahead is not trusted") {
    const Policy policy = limits(200, 200);
    Ledger ledger;
    wr::util::SeededRandom random(21);
    const TimePoint now = k_start + 10min;
    Ticket admitted = wr::queue::check_in(ledger, policy, std::nullopt, now, random).ticket;
    REQUIRE(admitted.admitted());
    // A clock a minute ahead (another edge node) is still ours.
    admitted.last_check_in = now + 1min;
    const Outcome skewed = wr::queue::check_in(ledger, policy, admitted, now, random);
    CHECK_FALSE(skewed.new_user);
    CHECK(skewed.ticket.session_id == admitted.session_id);
    // Further ahead is a forged ticket: the visitor is a new user.
    admitted.last_check_in = now + 1min + 1ms;
    const Outcome forged = wr::queue::check_in(ledger, policy, admitted, now, random);
    CHECK(forged.new_user);
    CHECK(forged.ticket.session_id != admitted.session_id);
}

TEST_CASE("queue rules: a check-in up to a second before the interval is over still counts") {
    const Policy policy = limits(1, 200);
    Ledger ledger;
    wr::util::SeededRandom random(22);
    REQUIRE(wr::queue::check_in(ledger, policy, std::nullopt, k_start, random).verdict == Verdict::admit);
    const Outcome queued = wr::queue::check_in(ledger, policy, std::nullopt, k_start + 1s, random);
    REQUIRE(queued.verdict == Verdict::queue);
    REQUIRE(queued.ticket.refresh_interval_seconds == 20);
    const Outcome too_early = wr::queue::check_in(ledger, policy, queued.ticket, k_start + 20s - 1ms, random);
    CHECK_FALSE(too_early.counted);
    CHECK(too_early.ticket.last_check_in == k_start + 1s);
    const Outcome tolerated = wr::queue::check_in(ledger, policy, queued.ticket, k_start + 20s, random);
    CHECK(tolerated.counted);
    CHECK(tolerated.ticket.last_check_in == k_start + 20s);
}

TEST_CASE("queue rules: random queueing lets a user in at once only while slots outnumber the others waiting") {
    // At the first instant of a minute no slot has been released yet: only spare slots admit.
    const TimePoint minute = k_start + 5min;
    const Policy policy = limits(3, 200, QueueingMethod::random);
    for (const int others : {0, 1}) {
        CAPTURE(others);
        Ledger ledger;
        wr::util::SeededRandom random(23);
        ledger.add_active(minute - 1min); // one of three taken, and one admitted a while ago
        ledger.add_waiting(minute - 2min, minute - 30s);     // the user checking in
        for (int i = 0; i < others; ++i) ledger.add_waiting(minute - 2min, minute - 30s);
        // 2 slots: 2 > 0 others → in; with 1 other, 2 > 1 → in.
        CHECK(wr::queue::check_in(ledger, policy, queued_since(minute - 2min, minute - 30s, 1), minute, random).verdict == Verdict::admit);
    }
    Ledger ledger;
    wr::util::SeededRandom random(23);
    ledger.add_active(minute - 1min);
    for (int i = 0; i < 3; ++i) ledger.add_waiting(minute - 2min, minute - 30s); // the user and 2 others: 2 slots, not more
    CHECK(wr::queue::check_in(ledger, policy, queued_since(minute - 2min, minute - 30s, 1), minute, random).verdict == Verdict::queue);
}

TEST_CASE("queue rules: random queueing gives each user their own refresh interval, 15 to 25 seconds; FIFO 20") {
    Ledger ledger;
    wr::util::SeededRandom random(24);
    const Policy random_room = limits(0, 200, QueueingMethod::random);
    std::set<int> intervals;
    for (int i = 0; i < 300; ++i) {
        const Outcome outcome = wr::queue::check_in(ledger, random_room, std::nullopt, k_start, random);
        REQUIRE(outcome.verdict == Verdict::queue);
        intervals.insert(outcome.ticket.refresh_interval_seconds);
    }
    CHECK(*intervals.begin() == 15);
    CHECK(*intervals.rbegin() == 25);
    CHECK(intervals.size() == 11);
    const Policy fifo_room = limits(0, 200);
    for (int i = 0; i < 50; ++i) CHECK(wr::queue::check_in(ledger, fifo_room, std::nullopt, k_start, random).ticket.refresh_interval_seconds == 20);
}

TEST_CASE("queue rules: the shuffle takes those who arrived from the prequeue start, not those at the event start") {
    Policy policy = limits(0, 200); // full: everyone stays in line, so the ticket shows its place
    const TimePoint prequeue = k_start;
    const TimePoint start = k_start + 10min;
    policy.shuffle = wr::queue::Shuffle{77, prequeue, start};
    Ledger ledger;
    wr::util::SeededRandom random(25);
    const Outcome first = wr::queue::check_in(ledger, policy, queued_since(prequeue, start - 10s, 1234), start + 10s, random);
    CHECK(first.ticket.shuffled);
    CHECK(first.ticket.bucket == wr::queue::shuffled_bucket(1234, *policy.shuffle));
    const Outcome at_start = wr::queue::check_in(ledger, policy, queued_since(start, start, 1235), start + 20s, random);
    CHECK_FALSE(at_start.ticket.shuffled);
    CHECK(at_start.ticket.bucket == start);
}

TEST_CASE("queue rules: the admission rate leaves out the minute under way") {
    Ledger ledger;
    const TimePoint now = k_start + 20min + 30s;
    for (int minute = 1; minute <= 5; ++minute)
        for (int i = 0; i < 30; ++i) ledger.count_admission(now - std::chrono::minutes{minute});
    for (int i = 0; i < 600; ++i) ledger.count_admission(now); // half a minute of a burst
    CHECK(ledger.admission_rate(now) == doctest::Approx(30));
}

TEST_CASE("queue rules: a held arrival is told the wait of one more in the newest bucket") {
    // 100 admitted a minute for ten minutes (the room would allow 1,000 per 5-minute session and a minute: 166.7).
    const Policy policy = limits(1000, 100);
    const TimePoint now = k_start + 30min + 10s;
    Ledger ledger;
    for (int minute = 1; minute <= 10; ++minute)
        for (int i = 0; i < 100; ++i) ledger.count_admission(now - std::chrono::minutes{minute});
    for (int i = 0; i < 1000; ++i) ledger.add_active(now - 1min);
    for (int i = 0; i < 300; ++i) ledger.add_waiting(now - 3min, now - 20s);                       // an older bucket
    for (int i = 0; i < 200; ++i) ledger.add_waiting(wr::queue::minute_start(wr::queue::minute_of(now)), now); // this minute's
    wr::util::SeededRandom random(26);
    const Outcome held = wr::queue::check_in(ledger, policy, std::nullopt, now, random, wr::queue::Arrival::hold);
    REQUIRE(held.held);
    // The room is full: its 1,000 sessions, counted a minute ago, end 4 min 50 s from now, and
    // then 100 a minute go in. 300 ahead, and this minute's 200 + the held user: the median
    // place (about 400) is reached by the 4th minute's admissions after that, at 8 min 50 s.
    CHECK(held.estimate.minutes == 9);
    // Joining counts them in: the same wait.
    const Outcome joined = wr::queue::check_in(ledger, policy, std::nullopt, now, random);
    CHECK(joined.estimate.minutes == 9);
    CHECK(ledger.waiting_users(now) == 501);
}

TEST_CASE("queue rules: queue_is_full and the room's longest wait under a real queue") {
    // One admission a minute: the room allows 1 per 6 minutes (a session and a minute per slot).
    const Policy policy = limits(1, 1);
    const TimePoint now = k_start + 30min + 10s;
    Ledger ledger;
    for (int minute = 1; minute <= 10; ++minute) ledger.count_admission(now - std::chrono::minutes{minute});
    ledger.add_active(now - 1min);
    for (int i = 0; i < 200; ++i) ledger.add_waiting(now - 5min, now - 20s);
    wr::util::SeededRandom random(27);
    // The one slot frees 4 min 50 s from now and then every 6 minutes: the 201st place at
    // 4.8 + 200 × 6 = 1,204.8 minutes, and the user's own check-in just after it (shown as 1,205
    // minutes, or 1,204 to some users so that half are in within what they see), under a day.
    const Outcome shorter = wr::queue::check_in(ledger, policy, std::nullopt, now, random);
    CHECK(shorter.estimate.minutes >= 1204);
    CHECK(shorter.estimate.minutes <= 1205);
    CHECK_FALSE(shorter.queue_is_full);
    // A new arrival behind everyone waiting: what the status endpoint reports.
    const wr::queue::RoomFigures figures = wr::queue::room_figures(ledger, policy, now);
    CHECK(figures.queued_users == 201);
    CHECK(figures.estimate_known);
    CHECK(figures.max_estimated_minutes >= shorter.estimate.minutes);
    CHECK(figures.max_estimated_minutes <= 1212);
    for (int i = 0; i < 40; ++i) ledger.add_waiting(now - 5min, now - 20s);
    // 240 ahead, then the user before and themselves: 4.8 + 240 × 6 = 1,445 minutes and more,
    // beyond a day.
    const Outcome longer = wr::queue::check_in(ledger, policy, std::nullopt, now + 1s, random);
    CHECK(longer.estimate.minutes >= 1445);
    CHECK(longer.estimate.minutes <= 1460);
    CHECK(longer.queue_is_full);
    CHECK(wr::queue::room_figures(ledger, policy, now + 1s).max_estimated_minutes >= longer.estimate.minutes);
}

TEST_CASE("queue rules: a revoked cookie is refused for as long as it would have been valid") {
    Policy policy = limits(200, 200);
    policy.session_duration = 30min;
    for (const std::chrono::seconds replay_after : {std::chrono::seconds{2min}, std::chrono::seconds{5min}, 29min + 59s}) {
        CAPTURE(replay_after.count());
        Ledger ledger;
        wr::util::SeededRandom random(28);
        const Ticket admitted = wr::queue::check_in(ledger, policy, std::nullopt, k_start, random).ticket;
        REQUIRE(admitted.admitted());
        REQUIRE(wr::queue::revoke(ledger, policy, admitted, k_start));
        // Others come and go meanwhile, and the ledger prunes every minute.
        for (auto at = k_start + 1min; at < k_start + replay_after; at += 1min) wr::queue::check_in(ledger, policy, std::nullopt, at, random);
        REQUIRE(wr::queue::ticket_expiry(admitted, policy) > k_start + replay_after);
        const Outcome replay = wr::queue::check_in(ledger, policy, admitted, k_start + replay_after, random);
        CHECK(replay.new_user);
        CHECK(replay.ticket.session_id != admitted.session_id);
    }
}

TEST_CASE("queue rules: a session holds its slot through the minutes its cookie is valid in, to the millisecond") {
    // Let in at 10:00:00.000, a 5-minute cookie runs out as 10:05 begins: the slot is free for
    // the whole of 10:05, or the room would be full to the ledger while no browser holds it.
    // Let in a millisecond later, the cookie is still valid at 10:05:00.000 and keeps the slot
    // through that minute.
    const Policy policy = limits(1, 200);
    for (const auto let_in : {0ms, 1ms}) {
        CAPTURE(let_in.count());
        Ledger ledger;
        wr::util::SeededRandom random(29);
        const Outcome first = wr::queue::check_in(ledger, policy, std::nullopt, k_start + let_in, random);
        REQUIRE(first.verdict == Verdict::admit);
        const Outcome queued = wr::queue::check_in(ledger, policy, std::nullopt, k_start + 4min + 40s, random);
        REQUIRE(queued.verdict == Verdict::queue);
        const TimePoint minute_five = k_start + 5min;
        CHECK((wr::queue::ticket_expiry(first.ticket, policy) > minute_five) == (let_in == 1ms));
        CHECK(ledger.active_users(minute_five, policy.session_duration) == (let_in == 1ms ? 1 : 0));
        const Outcome next = wr::queue::check_in(ledger, policy, queued.ticket, minute_five, random);
        CHECK(next.verdict == (let_in == 1ms ? Verdict::queue : Verdict::admit));
    }
}

TEST_CASE("queue rules: the browse time is the time between admitted users' counted requests, per admission, over whole minutes") {
    const Policy policy = limits(10, 10);
    Ledger ledger;
    wr::test::RecordedChanges journal;
    ledger.set_journal(&journal);
    wr::util::SeededRandom random(30);
    // A in at 0:05 and back at 0:25 and 0:45; B in at 0:10 and never back.
    Ticket a = wr::queue::check_in(ledger, policy, std::nullopt, k_start + 5s, random).ticket;
    REQUIRE(wr::queue::check_in(ledger, policy, std::nullopt, k_start + 10s, random).verdict == Verdict::admit);
    a = wr::queue::check_in(ledger, policy, a, k_start + 25s, random).ticket;
    a = wr::queue::check_in(ledger, policy, a, k_start + 45s, random).ticket;
    CHECK(ledger.browse_minutes(k_start + 50s) == 0); // no whole minute yet
    // 40 s of browsing for two admissions: 20 s each.
    CHECK(ledger.browse_minutes(k_start + 61s) == doctest::Approx(20.0 / 60));
    // A's request at 1:05 is in the minute under way, left out until it is whole.
    a = wr::queue::check_in(ledger, policy, a, k_start + 65s, random).ticket;
    CHECK(ledger.browse_minutes(k_start + 70s) == doctest::Approx(20.0 / 60));
    CHECK(ledger.browse_minutes(k_start + 2min) == doctest::Approx(30.0 / 60));
    // The same from the journal, as a shared room's nodes rebuild it.
    Ledger rebuilt;
    for (const auto& change : journal.changes) rebuilt.apply(change);
    CHECK(rebuilt.browse_minutes(k_start + 2min) == doctest::Approx(30.0 / 60));
}
