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
#include <cmath>

namespace wr::queue {
namespace {

// Check-ins up to a second early still count: the browser's refresh timer is not exact.
constexpr util::Milliseconds k_early_tolerance{1000};

// A paced room's minute releases its places evenly, this far ahead of the clock: a twelfth of the
// minute's rate at its start, all of it five seconds before its end.
constexpr double k_pace_lead_seconds = 5;

// The new users the minute lets in by `now`. Unpaced, all of new_users_per_minute from the
// minute's start, as Cloudflare counts it. Paced (the origin guard holds the room back), a share
// growing with the minute: places that free together — a cohort whose sessions end at once —
// are refilled at the guard's pace, over a minute, rather than by the crowd waiting in the
// seconds before the guard's next look at the origin.
int64_t minute_places(const Policy& policy, util::TimePoint now) {
    if (!policy.paced || policy.new_users_per_minute <= 0) return policy.new_users_per_minute;
    const double into = std::chrono::duration<double>(now - minute_start(minute_of(now))).count();
    const double released = std::ceil(static_cast<double>(policy.new_users_per_minute) * std::min(60.0, into + k_pace_lead_seconds) / 60);
    return std::clamp<int64_t>(static_cast<int64_t>(released), 1, policy.new_users_per_minute);
}

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

// Estimates are known once admissions have run two whole minutes: the first fills an empty room
// at once, and the next shows whether those users browse on into it, which decides when their
// slots free (a user last counted in a minute holds the slot a session and a minute past it).
constexpr int64_t k_minutes_before_estimates = 2;

// What the estimates need to know of the room: its counts now, for its admissions to come
// (queue/admission_forecast.h). A slot given out frees again one hold later: the session, the
// minute the user is counted in and whatever they browse before their last request, the longer
// of two measures. Modelled (slot_hold_minutes): the ledger's browse time, how long admitted
// users go on making requests, taken as the same for everyone, after an admission at a moment
// spread over the part of a minute in which this method lets users in; a last request that falls
// in a later minute than the admission holds the slot a minute longer. With 40 s of browsing and
// 5-minute sessions, FIFO (within 20 s of the minute start) holds a slot 6 minutes and random
// queueing (over its first 30 s) 6⅓. Seen from the minutes users were last counted in, this
// would not show early on: the first wave fills an empty room at whatever moments its users
// come (all in the first second of a burst) and holds its slots 6 minutes under either method.
// And by Little's law, active users ÷ the admission rate, the rate that of the last half hour or
// of the last five minutes, whichever is higher (the long one sees through the waves a full room
// admits in, the short one forgets a quiet spell before a surge): once the room has run a while
// it shows how long slots are really held, however much browsing varies between users; right
// after a surge begins, its first minute (an empty room filling) makes the rate high and this
// hold short.
constexpr int64_t k_recent_rate_minutes = 5;
//
// Before that — a room's first two minutes of admitting, or the start of an event nobody has
// been let in to yet — the same forecast runs on the room's limits alone: the slots its counts
// hold free a session and a minute after their users' last counted request, as if nobody went
// on browsing after being let in, so a full room turns over at most total_active_users ÷
// (session + 1 minute) a minute, and new_users_per_minute caps every minute. The first visitor
// to a full room sees a wait at once (marked as worked out from the limits) instead of none for
// two minutes, and it is short rather than long where browsing holds slots longer.
// `from_limits` says which it was. False: the room admits no one (everyone waits).
bool forecast_inputs(const Ledger& ledger, const Policy& policy, util::TimePoint now, ForecastInputs& inputs, bool& from_limits) {
    const double rate = std::max(ledger.admission_rate(now), ledger.admission_rate(now, k_recent_rate_minutes));
    from_limits = ledger.minutes_admitting(now) < k_minutes_before_estimates || rate <= 0;
    if (policy.total_active_users <= 0 || policy.new_users_per_minute <= 0) return false;
    const int64_t session = std::clamp<int64_t>(policy.session_duration.count(), 0, k_forecast_session_minutes);
    const int64_t current = minute_of(now);
    // To the whole second: estimates are shown in minutes, and the room's estimates in one second
    // are then the same (kept, not computed again: queue/wait_estimate.cpp).
    inputs.minute_offset = static_cast<double>((now - minute_start(current)).count() / 1000) / 60.0;
    inputs.total_active_users = policy.total_active_users;
    inputs.new_users_per_minute = policy.new_users_per_minute;
    inputs.admitted_this_minute = ledger.admitted_in_minute(now);
    inputs.session_minutes = session;
    int64_t active = 0;
    for (int64_t k = 0; k <= session; ++k) {
        inputs.counted_minutes_ago[static_cast<size_t>(k)] = ledger.active_counted_in_minute(current - k);
        active += inputs.counted_minutes_ago[static_cast<size_t>(k)];
    }
    // FIFO: the waiting users' next check-ins (one refresh interval) claim a freed slot; random
    // queueing releases a minute's slots over its first part.
    inputs.claim_minutes = policy.method == model::QueueingMethod::random
                               ? static_cast<double>(k_release_span_ms) / 60000.0
                               : static_cast<double>(k_refresh_interval_seconds) / 60.0;
    const double modelled_hold = slot_hold_minutes(session, from_limits ? 0.0 : ledger.browse_minutes(now), inputs.claim_minutes);
    inputs.hold_minutes = from_limits ? modelled_hold : std::max(modelled_hold, static_cast<double>(active) / rate);
    return true;
}

// The chance per minute that a waiting user gives up: measured from check-ins no other followed.
double leave_rate(const Ledger& ledger, util::TimePoint now) {
    return leave_rate_per_minute(ledger.stop_share(now), static_cast<double>(k_refresh_interval_seconds));
}

// New users joining the queue per minute, over the last half minute: short enough that the
// burst a surge starts with has passed by the time the first estimate is known.
constexpr auto k_arrival_rate_span = std::chrono::seconds{30};
double arrivals_per_minute(const Ledger& ledger, util::TimePoint now) {
    return static_cast<double>(ledger.arrivals_within(now, k_arrival_rate_span)) * 60.0 /
           static_cast<double>(std::chrono::seconds{k_arrival_rate_span}.count());
}

// The user's own draw for showing a percentile between two whole minutes: fixed per user, so
// their page does not flip between check-ins for no reason.
double estimate_draw(uint64_t session_id) { return unit_of(mix(session_id ^ 0x6573746d61746573ULL)); }

// FIFO: those in older buckets wait ahead; the user's own bucket, while it is this minute's,
// keeps filling until the minute ends, and later arrivals in it may go before them.
// They are let in at one of their own check-ins, every refresh interval from the last.
WaitEstimate fifo_wait(const Ledger& ledger, const ForecastInputs& inputs, const Ticket& ticket, util::TimePoint now, double draw,
                       int64_t joining = 0) {
    FifoPlace place;
    const int64_t ahead = ledger.waiting_through(ticket.bucket, false, now);
    place.ahead = static_cast<double>(ahead);
    place.own_bucket = static_cast<double>(ledger.waiting_through(ticket.bucket, true, now) + joining - ahead);
    if (ticket.bucket == minute_start(minute_of(now))) place.own_bucket += arrivals_per_minute(ledger, now) * (1 - inputs.minute_offset);
    place.refresh_minutes = static_cast<double>(ticket.refresh_interval_seconds) / 60.0;
    place.since_check_in_minutes = static_cast<double>(std::max<int64_t>(0, (now - ticket.last_check_in).count())) / 60000.0;
    return fifo_estimate(inputs, place, leave_rate(ledger, now), draw);
}

// Random: the pool of everyone waiting, and the surge taken to last as long again as it has so
// far (up to the half hour of arrivals the ledger keeps).
constexpr auto k_arrival_history = std::chrono::minutes{30};
WaitEstimate random_wait(const Ledger& ledger, const ForecastInputs& inputs, util::TimePoint now, double draw, int64_t joining = 0) {
    RandomPool pool;
    pool.waiting = static_cast<double>(ledger.waiting_users(now) + joining);
    pool.arrivals_per_minute = arrivals_per_minute(ledger, now);
    if (pool.arrivals_per_minute > 0)
        pool.arrival_minutes = std::min(static_cast<double>(k_arrival_history.count()),
                                        static_cast<double>(ledger.arrivals_within(now, k_arrival_history)) / pool.arrivals_per_minute);
    pool.leave_rate = leave_rate(ledger, now);
    return random_estimate(inputs, pool, draw);
}

void estimate_wait(Outcome& outcome, const Ledger& ledger, const Policy& policy, util::TimePoint now, int64_t joining = 0) {
    if (policy.queue_all) return; // everyone waits for the start: no estimate
    ForecastInputs inputs;
    bool from_limits = false;
    if (!forecast_inputs(ledger, policy, now, inputs, from_limits)) return;
    const double draw = estimate_draw(outcome.ticket.session_id);
    if (policy.method == model::QueueingMethod::random)
        outcome.estimate = random_wait(ledger, inputs, now, draw, joining);
    else
        outcome.estimate = fifo_wait(ledger, inputs, outcome.ticket, now, draw, joining);
    outcome.estimate.from_limits = outcome.estimate.known && from_limits;
    outcome.queue_is_full = outcome.estimate.known && outcome.estimate.minutes > k_queue_full_minutes;
}

void admit(Outcome& outcome, Ledger& ledger, util::TimePoint now, bool was_waiting, util::TimePoint waiting_since) {
    if (was_waiting) ledger.remove_waiting(outcome.ticket.bucket, waiting_since, now);
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
        // As in the real queue, a check-in before the interval is over moves nothing: the page's
        // Refresh counts down to the next and its lastUpdated stays (a bot must not tell them apart).
        if (now + k_early_tolerance >= presented->last_check_in + std::chrono::seconds{presented->refresh_interval_seconds})
            outcome.ticket.last_check_in = now;
        outcome.estimate = infinite_queue_estimate(presented->session_id, now - presented->arrived);
        return outcome;
    }

    // An admitted user stays admitted for their session, renewed by each request.
    if (has_ticket && presented->admitted()) {
        outcome.verdict = Verdict::admit;
        outcome.ticket = *presented;
        if (!policy.disable_session_renewal) {
            ledger.renew_active(presented->last_check_in, now);
            // How long admitted users go on browsing decides how long their slots are held (estimates).
            ledger.count_browse(now, now - presented->last_check_in);
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
    // Counted: still holding a place. A user back after a gap longer than the window is not, but
    // their last check-in may still be kept (as one who stopped) and moves with them all the same.
    bool was_waiting = !outcome.new_user;
    bool counted_as_waiting = was_waiting && Ledger::in_waiting_window(previous_check_in, now);

    // A check-in before the user's interval is over gets the page again and changes nothing.
    if (!outcome.new_user && now + k_early_tolerance < previous_check_in + std::chrono::seconds{ticket.refresh_interval_seconds}) {
        outcome.verdict = Verdict::queue;
        estimate_wait(outcome, ledger, policy, now);
        return outcome;
    }

    // At the start of a shuffled event, prequeued users draw their place anew, once.
    if (policy.shuffle && !ticket.shuffled && ticket.bucket >= policy.shuffle->prequeue_start &&
        ticket.bucket < policy.shuffle->event_start) {
        if (was_waiting) ledger.remove_waiting(ticket.bucket, previous_check_in, now);
        was_waiting = counted_as_waiting = false;
        ticket.bucket = shuffled_bucket(ticket.session_id, *policy.shuffle);
        ticket.shuffled = true;
    }

    if (policy.method == model::QueueingMethod::passthrough && !policy.queue_all && !ticket.infinite_queue) {
        admit(outcome, ledger, now, was_waiting, previous_check_in);
        return outcome;
    }

    if (!policy.queue_all && !ticket.infinite_queue) {
        const int64_t admitted_now = ledger.admitted_in_minute(now);
        const int64_t slots = std::max<int64_t>(
            0, std::min(policy.total_active_users - ledger.active_users(now, policy.session_duration),
                        minute_places(policy, now) - admitted_now));
        const int64_t waiting_others = ledger.waiting_users(now) - (counted_as_waiting ? 1 : 0);
        bool eligible = false;
        bool place_for_all_before = false; // a place for this user whatever the lottery draws
        if (policy.method == model::QueueingMethod::random) {
            place_for_all_before = slots > waiting_others;
            eligible = slots > 0 && (place_for_all_before ||
                                     admitted_now < released_slots(admitted_now + slots, ledger.release_seed(now, random), now));
        } else {
            const int64_t ahead = outcome.new_user ? waiting_others : ledger.waiting_through(ticket.bucket, false, now);
            eligible = place_for_all_before = ahead < slots;
        }
        if (eligible && allowance > 0) {
            admit(outcome, ledger, now, was_waiting, previous_check_in);
            return outcome;
        }
        outcome.short_of_allowance = place_for_all_before && allowance <= 0;
    }

    if (outcome.new_user && arrival == Arrival::hold) {
        // Told the wait a new arrival would have, without joining.
        outcome.verdict = Verdict::queue;
        outcome.held = true;
        // The ledger counts only those already there; the held user would join them.
        estimate_wait(outcome, ledger, policy, now, 1);
        return outcome;
    }

    // Queue: the user's count moves to this slot.
    if (was_waiting) ledger.remove_waiting(ticket.bucket, previous_check_in, now);
    ledger.add_waiting(ticket.bucket, now);
    ledger.count_check_in(now);
    if (outcome.new_user) ledger.count_arrival(now);
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
    // The last 60 s of admissions, from this minute's part and the whole minute before.
    const auto into_minute = now - minute_start(minute_of(now));
    const double before_share = 1.0 - std::chrono::duration<double>(into_minute).count() / 60.0;
    figures.admitted_last_minute = ledger.admitted_in_minute(now) +
                                   static_cast<int64_t>(std::llround(static_cast<double>(ledger.admitted_in_minute(now - std::chrono::minutes{1})) * before_share));
    figures.browsing_users = ledger.active_counted_in_minute(minute_of(now)) + ledger.active_counted_in_minute(minute_of(now) - 1);
    ForecastInputs inputs;
    bool from_limits = false;
    if (policy.queue_all || figures.queued_users == 0 || !forecast_inputs(ledger, policy, now, inputs, from_limits)) return figures;
    // The longest wait: a user arriving now, behind everyone (FIFO), or the 75th percentile of
    // the pool (random), with the even draw of the whole-minute rounding.
    const WaitEstimate estimate =
        policy.method == model::QueueingMethod::random
            ? random_wait(ledger, inputs, now, 0.5)
            : fifo_estimate(inputs, FifoPlace{static_cast<double>(figures.queued_users), 1.0, 0.0, 0.0}, leave_rate(ledger, now), 0.5);
    figures.estimate_known = estimate.known;
    figures.estimate_from_limits = estimate.known && from_limits;
    figures.max_estimated_minutes = policy.method == model::QueueingMethod::random ? estimate.p75_minutes : estimate.minutes;
    return figures;
}

} // namespace wr::queue
