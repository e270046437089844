// The client address: the peer, or X-Forwarded-For read from the right behind trusted proxies.
#include <doctest/doctest.h>

#include "edge/client_address.h"
#include "support/ip_address.h"

using wr::edge::TrustedProxies;
using wr::test::ip;

namespace {

std::string client(std::string_view peer, std::string_view forwarded_for, const TrustedProxies& trusted) {
    return wr::edge::address_text(wr::edge::client_address(ip(peer), forwarded_for, trusted));
}

} // namespace

TEST_CASE("edge: without trusted proxies the peer is the client, whatever X-Forwarded-For claims") {
    const TrustedProxies none = TrustedProxies::parse({});
    CHECK(client("203.0.113.9", "", none) == "203.0.113.9");
    CHECK(client("203.0.113.9", "1.2.3.4", none) == "203.0.113.9");
    CHECK(client("2001:db8::9", "1.2.3.4", none) == "2001:db8::9");
}

TEST_CASE("edge: behind trusted proxies the rightmost untrusted X-Forwarded-For address is the client") {
    const TrustedProxies trusted = TrustedProxies::parse({"10.0.0.0/8", "2001:db8:ffff::/48"});
    // A peer that is not trusted cannot speak for anyone.
    CHECK(client("198.51.100.1", "1.2.3.4", trusted) == "198.51.100.1");
    // One trusted proxy: the address it appended.
    CHECK(client("10.0.0.2", "203.0.113.9", trusted) == "203.0.113.9");
    // The client's own forged entries on the left are ignored.
    CHECK(client("10.0.0.2", "6.6.6.6, 203.0.113.9", trusted) == "203.0.113.9");
    // A chain of trusted proxies is skipped.
    CHECK(client("10.0.0.2", "6.6.6.6, 203.0.113.9, 10.1.1.1, 10.2.2.2", trusted) == "203.0.113.9");
    CHECK(client("2001:db8:ffff::1", "2001:db8:1::5", trusted) == "2001:db8:1::5");
    // Ports and brackets some proxies add.
    CHECK(client("10.0.0.2", "203.0.113.9:4711", trusted) == "203.0.113.9");
    CHECK(client("10.0.0.2", "[2001:db8:1::5]:4711", trusted) == "2001:db8:1::5");
    // Empty entries and spaces are tolerated.
    CHECK(client("10.0.0.2", " 203.0.113.9 ,, ", trusted) == "203.0.113.9");
    // Nothing forwarded, or only trusted addresses: the last trusted one is all we know.
    CHECK(client("10.0.0.2", "", trusted) == "10.0.0.2");
    CHECK(client("10.0.0.2", "10.3.3.3", trusted) == "10.3.3.3");
    // Garbage stops the walk at the last good address.
    CHECK(client("10.0.0.2", "203.0.113.9, unknown", trusted) == "10.0.0.2");
    CHECK(client("10.0.0.2", "unknown, 203.0.113.9", trusted) == "203.0.113.9");
}

TEST_CASE("edge: --trusted-proxy takes addresses and networks and names what it cannot read") {
    const TrustedProxies trusted = TrustedProxies::parse({"192.0.2.7", "::1"});
    CHECK(trusted.contains(ip("192.0.2.7")));
    CHECK_FALSE(trusted.contains(ip("192.0.2.8")));
    CHECK(trusted.contains(ip("::1")));
    CHECK_THROWS_WITH(TrustedProxies::parse({"10.0.0.0/33"}),
                      "--trusted-proxy: '10.0.0.0/33' is not an IP address or CIDR network");
    CHECK_THROWS_WITH(TrustedProxies::parse({"proxy.local"}),
                      "--trusted-proxy: 'proxy.local' is not an IP address or CIDR network");
}
