// Fixed one-minute windows of join counts per client address.
#include "queue/join_limiter.h"

#include <cstring>

#include "queue/ledger.h"

namespace wr::queue {

size_t JoinLimiter::AddressHash::operator()(const ClientAddress& address) const {
    uint64_t high = 0;
    uint64_t low = 0;
    std::memcpy(&high, address.data(), 8);
    std::memcpy(&low, address.data() + 8, 8);
    return std::hash<uint64_t>{}(high * 0x9e3779b97f4a7c15ULL ^ low);
}

bool JoinLimiter::try_join(const ClientAddress& client, int64_t limit, util::TimePoint now) {
    if (limit <= 0) return true;
    const int64_t minute = minute_of(now);
    if (minute != m_minute) {
        m_joins.clear();
        m_minute = minute;
    }
    int64_t& joins = m_joins[client];
    if (joins >= limit) return false;
    ++joins;
    return true;
}

int64_t JoinLimiter::seconds_to_next_window(util::TimePoint now) {
    const util::TimePoint next = minute_start(minute_of(now) + 1);
    return std::max<int64_t>(1, std::chrono::ceil<std::chrono::seconds>(next - now).count());
}

} // namespace wr::queue
