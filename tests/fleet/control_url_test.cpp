// --control-url: what an edge accepts as its control node's address.
#include <doctest/doctest.h>

#include "fleet/control_url.h"

TEST_CASE("fleet::parse_control_url takes http(s)://HOST[:PORT] and nothing more") {
    struct Case {
        const char* text;
        const char* expected; // the URL as the client uses it, or nullptr when refused
    };
    const Case cases[] = {
        {"https://control.example.net:9443", "https://control.example.net:9443"},
        {"https://control.example.net", "https://control.example.net:443"},
        {"http://127.0.0.1:9090/", "http://127.0.0.1:9090"},
        {"http://[::1]:9090", "http://[::1]:9090"},
        {"http://control_1.internal:80", "http://control_1.internal:80"},
        {"control.example.net:9090", nullptr},
        {"ftp://control:21", nullptr},
        {"https://", nullptr},
        {"https://control:0", nullptr},
        {"https://control:65536", nullptr},
        {"https://control:", nullptr},
        {"https://control:90x", nullptr},
        {"https://control:9090/client/v4", nullptr},
        {"https://user@control:9090", nullptr},
        {"https://control:9090?x=1", nullptr},
        {"http://::1:9090", nullptr},
        {"http://[::1", nullptr},
        {"http://contr ol:9090", nullptr},
    };
    for (const Case& c : cases) {
        CAPTURE(c.text);
        const auto url = wr::fleet::parse_control_url(c.text);
        if (!c.expected) {
            CHECK_FALSE(url);
            continue;
        }
        REQUIRE(url);
        CHECK(url->text() == c.expected);
    }
}

TEST_CASE("fleet::is_loopback_host: only this machine's names") {
    CHECK(wr::fleet::is_loopback_host("127.0.0.1"));
    CHECK(wr::fleet::is_loopback_host("127.1.2.3"));
    CHECK(wr::fleet::is_loopback_host("::1"));
    CHECK(wr::fleet::is_loopback_host("localhost"));
    CHECK_FALSE(wr::fleet::is_loopback_host("10.0.0.1"));
    CHECK_FALSE(wr::fleet::is_loopback_host("localhost.example.net"));
    CHECK_FALSE(wr::fleet::is_loopback_host("1127.0.0.1"));
}
