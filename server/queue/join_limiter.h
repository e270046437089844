#pragma once
// Counts new-queue joins per client address per minute, for a room's optional
// join_limit_per_ip_per_minute. Windows are whole clock minutes (like the ledger's buckets):
// the map starts empty each minute, so it holds only the addresses seen this minute. Pure.
#include <array>
#include <cstdint>
#include <unordered_map>

#include "util/clock.h"

namespace wr::queue {

using ClientAddress = std::array<uint8_t, 16>; // IPv4 mapped into IPv6

class JoinLimiter {
public:
    // Counts a join from `client` and says whether it is within `limit` this minute; a refused
    // join is not counted. `limit` ≤ 0 means no limit (and nothing is counted).
    bool try_join(const ClientAddress& client, int64_t limit, util::TimePoint now);
    // Seconds until the current window ends (for Retry-After), at least 1.
    static int64_t seconds_to_next_window(util::TimePoint now);

    size_t tracked_clients() const { return m_joins.size(); }

private:
    struct AddressHash {
        size_t operator()(const ClientAddress& address) const;
    };
    int64_t m_minute = -1;
    std::unordered_map<ClientAddress, int64_t, AddressHash> m_joins;
};

} // namespace wr::queue
