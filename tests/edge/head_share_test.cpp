// Each client address's share of the connections still reading their request head.
#include <doctest/doctest.h>

#include "edge/head_share.h"
#include "expr/evaluate.h"

using wr::edge::HeadShare;
using wr::queue::ClientAddress;

namespace {

ClientAddress address(const char* text) {
    ClientAddress parsed{};
    REQUIRE(wr::expr::parse_ip_address(text, parsed));
    return parsed;
}

} // namespace

TEST_CASE("edge::HeadShare lets each address read at most its share of heads at once, others unaffected") {
    HeadShare share(3);
    const ClientAddress slow = address("203.0.113.7");
    const ClientAddress other = address("198.51.100.2");
    for (int i = 0; i < 3; ++i) CHECK(share.try_begin(slow));
    CHECK_FALSE(share.try_begin(slow)); // a fourth slow head is refused, and not counted
    CHECK(share.reading(slow) == 3);
    CHECK(share.try_begin(other));
    // A head that completes (or a connection that ends) gives its place back.
    share.end(slow);
    CHECK(share.try_begin(slow));
    CHECK_FALSE(share.try_begin(slow));
    for (int i = 0; i < 3; ++i) share.end(slow);
    share.end(other);
    CHECK(share.reading(slow) == 0);
    CHECK(share.addresses() == 0); // nothing kept for an address with no head being read
}

TEST_CASE("edge::HeadShare counts an IPv6 /64 as one address, since one machine has all of it") {
    HeadShare share(2);
    CHECK(share.try_begin(address("2001:db8:1:2::1")));
    CHECK(share.try_begin(address("2001:db8:1:2:ffff::9")));
    CHECK_FALSE(share.try_begin(address("2001:db8:1:2:abcd::1")));
    CHECK(share.try_begin(address("2001:db8:1:3::1"))); // another /64
    // IPv4 addresses (mapped) are each their own.
    CHECK(share.try_begin(address("192.0.2.1")));
    CHECK(share.try_begin(address("192.0.2.1")));
    CHECK(share.try_begin(address("192.0.2.2")));
}

TEST_CASE("edge::HeadShare's share is at least one head, whatever it is given") {
    HeadShare share(0);
    CHECK(share.try_begin(address("192.0.2.1")));
    CHECK_FALSE(share.try_begin(address("192.0.2.1")));
}
