#pragma once
// Which address a request comes from, for bypass rules (ip.src), join limits, crawler checks and
// Turnstile's remoteip: the connection's peer, unless the peer is a proxy the operator trusts
// (`wr serve --trusted-proxy CIDR`), in which case X-Forwarded-For says — read from the right,
// skipping the trusted proxies, because only the entries they appended can be believed. Pure.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "expr/ast.h"
#include "queue/join_limiter.h"

namespace wr::edge {

class TrustedProxies {
public:
    // "10.0.0.0/8", "2001:db8::/32", "192.0.2.7"; an error names the entry that is not one.
    static TrustedProxies parse(const std::vector<std::string>& networks);

    bool empty() const { return m_networks.empty(); }
    bool contains(const queue::ClientAddress& address) const;

private:
    std::vector<expr::IpNetwork> m_networks;
};

// The client behind `peer`. `forwarded_for` is the X-Forwarded-For value (several headers joined
// with commas); it is read only when the peer is trusted. Entries that are not addresses stop the
// walk: everything left of them is unverifiable, so the last good one (or the peer) is used.
queue::ClientAddress client_address(const queue::ClientAddress& peer, std::string_view forwarded_for,
                                    const TrustedProxies& trusted);

// True for an IPv4 address in its IPv6-mapped form (::ffff:192.0.2.1).
bool is_v4_mapped(const queue::ClientAddress& address);

// "192.0.2.1" for IPv4-mapped addresses, "2001:db8::1" otherwise.
std::string address_text(const queue::ClientAddress& address);

} // namespace wr::edge
