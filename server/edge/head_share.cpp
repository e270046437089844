// Counts the request heads being read per client address.
#include "edge/head_share.h"

#include <algorithm>
#include <cstring>

namespace wr::edge {

HeadShare::HeadShare(int per_address) : m_per_address(std::max(1, per_address)) {}

queue::ClientAddress HeadShare::key_of(const queue::ClientAddress& address) {
    // IPv4 arrives mapped (::ffff:a.b.c.d) and is kept whole; IPv6 is cut to its /64.
    static constexpr uint8_t k_mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(address.data(), k_mapped_prefix, sizeof k_mapped_prefix) == 0) return address;
    queue::ClientAddress key{};
    std::copy_n(address.begin(), 8, key.begin());
    return key;
}

size_t HeadShare::KeyHash::operator()(const queue::ClientAddress& key) const {
    uint64_t high = 0;
    uint64_t low = 0;
    std::memcpy(&high, key.data(), 8);
    std::memcpy(&low, key.data() + 8, 8);
    return std::hash<uint64_t>{}(high * 0x9e3779b97f4a7c15ULL ^ low);
}

bool HeadShare::try_begin(const queue::ClientAddress& address) {
    int& reading = m_reading[key_of(address)];
    if (reading >= m_per_address) return false;
    ++reading;
    return true;
}

void HeadShare::end(const queue::ClientAddress& address) {
    const auto it = m_reading.find(key_of(address));
    if (it == m_reading.end()) return;
    if (--it->second <= 0) m_reading.erase(it);
}

int HeadShare::reading(const queue::ClientAddress& address) const {
    const auto it = m_reading.find(key_of(address));
    return it == m_reading.end() ? 0 : it->second;
}

} // namespace wr::edge
