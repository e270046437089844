#pragma once
// The keys that seal TLS session tickets, so that a returning visitor resumes instead of making a
// full handshake. They are derived, never stored: from the cookie key ring (which every edge of a
// cluster already receives with its configuration) and the hour. Every edge derives the same keys
// at the same hour without talking to the others, a visitor moving between edges resumes, and a
// certificate reload changes nothing. Each hour brings a new key; tickets sealed under the hour
// before (and the hour after, for edges whose clocks run a little ahead) still open, older ones
// do not. Pure: the time is given, nothing here reads a clock.
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "util/clock.h"
#include "util/key_ring.h"

namespace wr::edge {

inline constexpr std::chrono::seconds k_ticket_key_period{3600};

struct TicketKey {
    std::array<uint8_t, 16> name{}; // sent in the clear in each ticket: which key sealed it
    std::array<uint8_t, 32> cipher{}; // AES-256-CBC
    std::array<uint8_t, 32> mac{};    // HMAC-SHA256
};

struct TicketKeySet {
    int64_t period = 0;            // hours since the epoch the set was derived for
    TicketKey sealing;             // the newest cookie key's, this hour's
    std::vector<TicketKey> opening; // every cookie key's, the hours before, now and after

    // The key a ticket names, or nullptr when it is none of the accepted ones (a full handshake).
    const TicketKey* find(const uint8_t* name) const;
    bool is_sealing(const TicketKey& key) const { return &key == &sealing || key.name == sealing.name; }
};

int64_t ticket_key_period(util::TimePoint now);
// The keys for the hour of `now`.
TicketKeySet derive_ticket_keys(const util::KeyRing& ring, util::TimePoint now);

} // namespace wr::edge
