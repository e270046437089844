// The admission algorithm (docs/design.md), after Cloudflare's descriptions in
// "Waiting Room: Random Queueing and Custom Web/Mobile Apps"
// (https://blog.cloudflare.com/waiting-room-random-queueing-and-custom-web-mobile-apps/),
// "Building Waiting Room on Workers and Durable Objects"
// (https://blog.cloudflare.com/building-waiting-room-on-workers-and-durable-objects/) and
// "How Waiting Room makes queueing decisions on Cloudflare's highly distributed network"
// (https://blog.cloudflare.com/how-waiting-room-queues/).
//
// Slots this minute = min(total_active_users − active users, new_users_per_minute − users
// admitted this minute). FIFO reserves them for the oldest buckets first: a user may enter
// when fewer users wait in older buckets than there are slots, and a user without a ticket only
// when fewer wait than there are slots. Random queueing keeps the same bookkeeping (so
// switching methods keeps arrival order) but gives every on-time check-in the same chance:
// while more users wait than there are slots, the minute's slots are released one by one at
// random moments spread over the minute, and the next check-in after a release takes it.
#include "queue/admission.h"

#include <algorithm>

namespace wr::queue {
namespace {

// Check-ins up to a second early still count: the browser's refresh timer is not exact.
constexpr util::Milliseconds k_early_tolerance{1000};

// SplitMix64: a fixed, fast mix of 64 bits, so draws derived from ids are the same everywhere.
uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

double unit_of(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

bool valid(const Ledger& ledger, const Policy& policy, const Ticket& ticket, util::TimePoint now) {
    if (ticket.last_check_in > now + std::chrono::minutes{1}) return false; // from the future: not ours to trust
    if (ticket.admitted() && ledger.is_revoked(ticket.session_id)) return false;
    return ticket_expiry(ticket, policy) > now;
}

// Slots come out during the first part of a minute only: every waiting user checks in at least
// once in the rest of it (their interval is at most the base plus the jitter), so no slot
// released late goes unclaimed when the minute ends while people wait.
constexpr int64_t k_release_span_ms = 60000 - (k_refresh_interval_seconds + k_refresh_jitter_seconds + 5) * 1000;

// How many of this minute's `capacity` slots have been released by `now`: slot k comes out at
// a random moment within the k-th of `capacity` equal slices of the release span.
int64_t released_slots(int64_t capacity, uint64_t seed, util::TimePoint now) {
    if (capacity <= 0) return 0;
    const double elapsed =
        std::min(1.0, static_cast<double>((now - minute_start(minute_of(now))).count()) / static_cast<double>(k_release_span_ms));
    const double position = elapsed * static_cast<double>(capacity);
    const auto whole = static_cast<int64_t>(position);
    const double fraction = position - static_cast<double>(whole);
    const int64_t released = whole + (unit_of(mix(seed ^ static_cast<uint64_t>(whole))) <= fraction ? 1 : 0);
    return std::min(capacity, released);
}

int refresh_interval(const Policy& policy, util::Random& random) {
    if (policy.method != model::QueueingMethod::random) return k_refresh_interval_seconds;
    return k_refresh_interval_seconds - k_refresh_jitter_seconds +
           static_cast<int>(random.below(2 * k_refresh_jitter_seconds + 1));
}

// A new visitor's ticket: a random session id, arriving now.
Ticket new_ticket(const Policy& policy, util::TimePoint now, util::Random& random) {
    Ticket ticket;
    ticket.session_id = random.next();
    // Arrivals are grouped by minute: counts stay per minute however many arrive.
    ticket.bucket = minute_start(minute_of(now));
    ticket.arrived = now;
    ticket.last_check_in = now;
    ticket.refresh_interval_seconds = refresh_interval(policy, random);
    return ticket;
}

// The recent admission rate, bounded by what the limits allow in the long run: no more than
// new_users_per_minute, and no more than total_active_users per slot's hold. A slot is held a
// session after the user's last counted minute ends — a session plus, on average, more than
// half a minute of rounding and the user's own requests: a session and a minute, measured
// against `wr simulate`. The bounds matter right after a burst, when the first minutes'
// admissions (an empty room filling) would otherwise extrapolate to a rate the room cannot keep.
double admission_rate(const Ledger& ledger, const Policy& policy, util::TimePoint now) {
    const double measured = ledger.admission_rate(now, policy.session_duration);
    const double per_session = static_cast<double>(policy.total_active_users) / static_cast<double>(std::max<int64_t>(1, policy.session_duration.count() + 1));
    return std::min({measured, static_cast<double>(policy.new_users_per_minute), per_session});
}

// Where a FIFO user stands: behind everyone in older buckets and, on average, half of their own
// bucket (with `joining` more not yet counted in it). A bucket is let in as a whole and whoever
// of it checks in first goes first, so a place within a bucket is a draw; counting the whole
// bucket made estimates too long by half a bucket (a burst's first estimate was twice its wait).
double fifo_users_ahead(const Ledger& ledger, util::TimePoint bucket, util::TimePoint now, int64_t joining = 0) {
    const int64_t before = ledger.waiting_through(bucket, false, now);
    const int64_t through = ledger.waiting_through(bucket, true, now) + joining;
    return static_cast<double>(before) + static_cast<double>(through - before) / 2.0;
}

void estimate_wait(Outcome& outcome, const Ledger& ledger, const Policy& policy, util::TimePoint now) {
    if (policy.queue_all) return; // everyone waits for the start: no estimate
    const double rate = admission_rate(ledger, policy, now);
    if (policy.method == model::QueueingMethod::random)
        outcome.estimate = random_estimate(ledger.waiting_users(now), rate);
    else
        outcome.estimate = fifo_estimate(fifo_users_ahead(ledger, outcome.ticket.bucket, now), rate);
    outcome.queue_is_full = outcome.estimate.known && outcome.estimate.minutes > k_queue_full_minutes;
}

void admit(Outcome& outcome, Ledger& ledger, util::TimePoint now, bool counted_as_waiting, util::TimePoint waiting_since) {
    if (counted_as_waiting) ledger.remove_waiting(outcome.ticket.bucket, waiting_since, now);
    outcome.ticket.accepted_at = now;
    outcome.ticket.last_check_in = now;
    ledger.add_active(now);
    ledger.count_admission(now);
    outcome.verdict = Verdict::admit;
    outcome.counted = true;
    outcome.newly_admitted = true;
}

} // namespace

util::TimePoint ticket_expiry(const Ticket& ticket, const Policy& policy) {
    if (!ticket.admitted()) return ticket.last_check_in + k_queued_ticket_lifetime;
    return (policy.disable_session_renewal ? *ticket.accepted_at : ticket.last_check_in) + policy.session_duration;
}

util::TimePoint shuffled_bucket(uint64_t session_id, const Shuffle& shuffle) {
    // Virtual buckets finer than a minute (a prequeue may last only five), but never more than
    // k_shuffle_buckets of them, so memory stays bounded by the schedule, not by the crowd.
    const int64_t span_ms = std::max<int64_t>(1, (shuffle.event_start - shuffle.prequeue_start).count());
    const int64_t step_ms = std::max<int64_t>(1000, (span_ms + k_shuffle_buckets - 1) / k_shuffle_buckets);
    const int64_t buckets = std::max<int64_t>(1, span_ms / step_ms);
    const uint64_t draw = mix(session_id ^ mix(shuffle.event_key)) % static_cast<uint64_t>(buckets);
    return shuffle.prequeue_start + util::Milliseconds{static_cast<int64_t>(draw) * step_ms};
}

Outcome check_in(Ledger& ledger, const Policy& policy, const std::optional<Ticket>& presented, util::TimePoint now,
                 util::Random& random, Arrival arrival, int64_t allowance) {
    ledger.prune(now);
    Outcome outcome;
    const bool has_ticket = presented && valid(ledger, policy, *presented, now);

    // Reject rooms let no one in (unless everyone is held for an event start anyway).
    if (policy.method == model::QueueingMethod::reject && !policy.queue_all) {
        outcome.verdict = Verdict::reject;
        if (has_ticket) outcome.ticket = *presented;
        return outcome;
    }

    // The infinite queue: outside the ledger, so bots there hold no one up and count nowhere.
    if (has_ticket && presented->infinite_queue) {
        outcome.verdict = Verdict::queue;
        outcome.ticket = *presented;
        outcome.ticket.last_check_in = now;
        outcome.estimate = infinite_queue_estimate(presented->session_id, now - presented->arrived);
        return outcome;
    }

    // An admitted user stays admitted for their session, renewed by each request.
    if (has_ticket && presented->admitted()) {
        outcome.verdict = Verdict::admit;
        outcome.ticket = *presented;
        if (!policy.disable_session_renewal) {
            ledger.remove_active(presented->last_check_in, now);
            ledger.add_active(now);
            outcome.ticket.last_check_in = now;
            outcome.counted = true;
        }
        return outcome;
    }

    if (has_ticket) {
        outcome.ticket = *presented;
    } else {
        outcome.new_user = true;
        outcome.ticket = new_ticket(policy, now, random);
    }
    Ticket& ticket = outcome.ticket;
    const util::TimePoint previous_check_in = ticket.last_check_in;
    bool counted_as_waiting = !outcome.new_user && Ledger::in_waiting_window(previous_check_in, now);

    // A check-in before the user's interval is over gets the page again and changes nothing.
    if (!outcome.new_user && now + k_early_tolerance < previous_check_in + std::chrono::seconds{ticket.refresh_interval_seconds}) {
        outcome.verdict = Verdict::queue;
        estimate_wait(outcome, ledger, policy, now);
        return outcome;
    }

    // At the start of a shuffled event, prequeued users draw their place anew, once.
    if (policy.shuffle && !ticket.shuffled && ticket.bucket >= policy.shuffle->prequeue_start &&
        ticket.bucket < policy.shuffle->event_start) {
        if (counted_as_waiting) ledger.remove_waiting(ticket.bucket, previous_check_in, now);
        counted_as_waiting = false;
        ticket.bucket = shuffled_bucket(ticket.session_id, *policy.shuffle);
        ticket.shuffled = true;
    }

    if (policy.method == model::QueueingMethod::passthrough && !policy.queue_all && !ticket.infinite_queue) {
        admit(outcome, ledger, now, counted_as_waiting, previous_check_in);
        return outcome;
    }

    if (!policy.queue_all && !ticket.infinite_queue) {
        const int64_t admitted_now = ledger.admitted_in_minute(now);
        const int64_t slots = std::max<int64_t>(
            0, std::min(policy.total_active_users - ledger.active_users(now, policy.session_duration),
                        policy.new_users_per_minute - admitted_now));
        const int64_t waiting_others = ledger.waiting_users(now) - (counted_as_waiting ? 1 : 0);
        bool eligible = false;
        if (policy.method == model::QueueingMethod::random) {
            eligible = slots > 0 && (slots > waiting_others ||
                                     admitted_now < released_slots(admitted_now + slots, ledger.release_seed(now, random), now));
        } else {
            const int64_t ahead = outcome.new_user ? waiting_others : ledger.waiting_through(ticket.bucket, false, now);
            eligible = ahead < slots;
        }
        if (eligible && allowance > 0) {
            admit(outcome, ledger, now, counted_as_waiting, previous_check_in);
            return outcome;
        }
    }

    if (outcome.new_user && arrival == Arrival::hold) {
        // Told the wait a new arrival would have, without joining.
        outcome.verdict = Verdict::queue;
        outcome.held = true;
        estimate_wait(outcome, ledger, policy, now);
        if (outcome.estimate.known && !policy.queue_all && policy.method != model::QueueingMethod::random) {
            // The ledger counts only those already there; the held user would join them: +1 in the bucket.
            outcome.estimate = fifo_estimate(fifo_users_ahead(ledger, outcome.ticket.bucket, now, 1), admission_rate(ledger, policy, now));
        }
        return outcome;
    }

    // Queue: the user's count moves to this minute.
    if (counted_as_waiting) ledger.remove_waiting(ticket.bucket, previous_check_in, now);
    ledger.add_waiting(ticket.bucket, now);
    ticket.last_check_in = now;
    if (!outcome.new_user) ticket.refresh_interval_seconds = refresh_interval(policy, random);
    outcome.verdict = Verdict::queue;
    outcome.counted = true;
    estimate_wait(outcome, ledger, policy, now);
    return outcome;
}

Ticket infinite_queue_ticket(const Policy& policy, util::TimePoint now, util::Random& random) {
    Ticket ticket = new_ticket(policy, now, random);
    ticket.infinite_queue = true;
    return ticket;
}

bool revoke(Ledger& ledger, const Policy& policy, const Ticket& ticket, util::TimePoint now) {
    if (!ticket.admitted() || ledger.is_revoked(ticket.session_id) || ticket_expiry(ticket, policy) <= now) return false;
    ledger.remove_active(ticket.last_check_in, now);
    // Remember the id until the cookie would have expired anyway, so it cannot be replayed.
    ledger.revoke(ticket.session_id, std::max(ticket_expiry(ticket, policy), ticket.last_check_in + std::chrono::minutes{30}));
    return true;
}

RoomFigures room_figures(const Ledger& ledger, const Policy& policy, util::TimePoint now) {
    RoomFigures figures;
    figures.active_users = ledger.active_users(now, policy.session_duration);
    figures.queued_users = ledger.waiting_users(now);
    if (policy.queue_all || figures.queued_users == 0) return figures;
    const double rate = admission_rate(ledger, policy, now);
    const WaitEstimate estimate = policy.method == model::QueueingMethod::random
                                      ? random_estimate(figures.queued_users, rate)
                                      : fifo_estimate(static_cast<double>(figures.queued_users), rate);
    figures.estimate_known = estimate.known;
    figures.max_estimated_minutes = policy.method == model::QueueingMethod::random ? estimate.p75_minutes : estimate.minutes;
    return figures;
}

} // namespace wr::queue
