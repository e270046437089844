#pragma once
// What a visitor carries in the waiting-room cookie: the facts the algorithm needs about one
// user, sealed by edge/cookie so that the user cannot change them. The server keeps no
// per-user state; the ticket is the state.
#include <cstdint>
#include <optional>

#include "util/clock.h"

namespace wr::queue {

struct Ticket {
    uint64_t session_id = 0;              // random; names the user for revocation and shuffling
    util::TimePoint bucket{};             // arrival minute (FIFO position); shuffled users get a virtual one
    util::TimePoint arrived{};            // the first request, to the second (for observed waits)
    std::optional<util::TimePoint> accepted_at; // set once admitted
    util::TimePoint last_check_in{};      // the last counted request
    int refresh_interval_seconds = 20;    // this user's own (jittered) interval
    bool shuffled = false;                // the bucket was redrawn at an event start
    bool infinite_queue = false;          // failed a challenge: never admitted
    bool turnstile_answered = false;      // answered the Turnstile challenge (either way): not asked again

    bool admitted() const { return accepted_at.has_value(); }
    bool operator==(const Ticket&) const = default;
};

} // namespace wr::queue
