#pragma once
// How many of each client address's connections are still reading their request head, so that
// one machine trickling heads (a slowloris) cannot hold every connection the edge may keep: a
// connection beyond its address's share is refused as its head begins. Whole heads arrive in a
// packet or two, so even a crowd behind one NAT has few heads in flight at once. An IPv6 /64 is
// one address (one machine can use all of it). One per edge thread, used by it alone. Pure.
#include <cstddef>
#include <unordered_map>

#include "queue/join_limiter.h"

namespace wr::edge {

class HeadShare {
public:
    // `per_address`: the most heads one address may have being read at once (at least 1).
    explicit HeadShare(int per_address);

    // A head begins: true when the address is within its share (and the head is counted),
    // false when it has its share already (nothing counted).
    bool try_begin(const queue::ClientAddress& address);
    // A head counted by try_begin is whole, or its connection ended.
    void end(const queue::ClientAddress& address);

    int reading(const queue::ClientAddress& address) const;
    size_t addresses() const { return m_reading.size(); }
    int per_address() const { return m_per_address; }

private:
    struct KeyHash {
        size_t operator()(const queue::ClientAddress& key) const;
    };
    static queue::ClientAddress key_of(const queue::ClientAddress& address);

    int m_per_address;
    std::unordered_map<queue::ClientAddress, int, KeyHash> m_reading;
};

} // namespace wr::edge
