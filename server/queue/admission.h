#pragma once
// Decides what happens to one request to a room — admit, queue or reject — and records it in
// the room's ledger. Pure: time and randomness come in as arguments, so every rule is tested
// deterministically and `wr simulate` runs the same code on virtual time.
#include <cstdint>
#include <optional>

#include "queue/ledger.h"
#include "queue/policy.h"
#include "queue/ticket.h"
#include "queue/wait_estimate.h"

namespace wr::queue {

enum class Verdict {
    admit,  // on to the origin, with the (renewed) ticket
    queue,  // the queue page, with the ticket
    reject, // the reject page; nothing counted
};

// What to do with a new user who would have to wait: join the queue, or only be told the
// wait (nothing recorded, no ticket) because something must happen first — a Turnstile
// challenge, or the join limit of their address.
enum class Arrival { join, hold };

struct Outcome {
    Verdict verdict = Verdict::queue;
    Ticket ticket;              // what the cookie should carry now
    bool counted = false;       // the request changed the counts (not an early check-in)
    bool new_user = false;      // arrived without a valid ticket
    bool newly_admitted = false; // admitted by this request
    WaitEstimate estimate;      // for queued users
    bool queue_is_full = false; // the estimate exceeds a day
    bool held = false;          // a new user held back by Arrival::hold: no ticket, nothing counted
    // Queued although the limits had a place for this user (FIFO: no one ahead beyond the free
    // places; random: room for everyone waiting), because `allowance` had none: a node of
    // several waits for its next grant (server/state/room_replica.cpp shortens the refresh).
    bool short_of_allowance = false;
};

// No cap on admissions beyond the room's limits: one node deciding alone.
inline constexpr int64_t k_unlimited_allowance = INT64_MAX;

// `presented` is the ticket from the visitor's cookie, already opened and bound to this room,
// or nullopt. Expired and revoked tickets count as absent. A ticket of the infinite queue is
// never admitted and never counted: it gets the infinite queue's estimate.
// `allowance` caps new admissions further: a node that shares the room with others may let in
// only that many more until it hears from them again (server/state/). Below 1, a user the limits
// would let in waits instead; renewals of admitted users and passthrough rooms are not capped.
Outcome check_in(Ledger& ledger, const Policy& policy, const std::optional<Ticket>& presented, util::TimePoint now,
                 util::Random& random, Arrival arrival = Arrival::join, int64_t allowance = k_unlimited_allowance);

// A ticket for the infinite queue, for a visitor who failed the Turnstile challenge: looks like
// a new arrival's, and is never admitted.
Ticket infinite_queue_ticket(const Policy& policy, util::TimePoint now, util::Random& random);

// Ends an admitted user's session now: their slot frees at once and the ticket stops working.
// Returns false when the ticket was not an admitted, unexpired one.
bool revoke(Ledger& ledger, const Policy& policy, const Ticket& ticket, util::TimePoint now);

// When a ticket stops being valid under the policy.
util::TimePoint ticket_expiry(const Ticket& ticket, const Policy& policy);

// The room-wide figures the status endpoint and the dashboards show.
struct RoomFigures {
    int64_t active_users = 0;
    int64_t queued_users = 0;
    int64_t admitted_last_minute = 0; // admissions in this minute and the one before, scaled to 60 s
    int64_t browsing_users = 0;       // admitted users whose last counted request fell in this minute or the one before
    int64_t max_estimated_minutes = 0; // the wait of the newest arrival
    bool estimate_known = false;
    bool estimate_from_limits = false; // as WaitEstimate::from_limits
};
RoomFigures room_figures(const Ledger& ledger, const Policy& policy, util::TimePoint now);

inline constexpr int64_t k_shuffle_buckets = 1000;

// The virtual arrival a shuffled user gets in [prequeue_start, event_start): uniform over at
// most k_shuffle_buckets steps, and the same every time for the same user and event.
util::TimePoint shuffled_bucket(uint64_t session_id, const Shuffle& shuffle);

} // namespace wr::queue
