// Host and path normalisation for routing.
#include <doctest/doctest.h>

#include "edge/request_path.h"

TEST_CASE("edge: paths are normalised so no encoding slips past a room") {
    struct Case {
        const char* raw;
        const char* normalized;
    };
    const Case cases[] = {
        {"/shop", "/shop"},           {"/shop/", "/shop/"},         {"/", "/"},
        {"", "/"},                    {"/%73hop", "/shop"},         {"/%7Euser", "/~user"},
        {"/a/./b", "/a/b"},           {"/a/../shop", "/shop"},      {"/../../shop", "/shop"},
        {"//shop//item", "/shop/item"}, {"/shop/%2e%2e/admin", "/admin"}, {"/a%2Fb", "/a%2Fb"},
        {"/a%2fb", "/a%2Fb"},         {"/%zz", "/%zz"},             {"/shop/..", "/"},
    };
    // The Gate normalises into strings it keeps from request to request: what one path left
    // there must not show in the next (long paths first, then short ones).
    std::string kept = "/a-long-path-left-by-an-earlier-request/with/segments";
    std::string scratch = kept + "%2F%2F";
    for (const Case& c : cases) {
        CAPTURE(c.raw);
        CHECK(wr::edge::normalize_path(c.raw) == c.normalized);
        wr::edge::normalize_path_into(c.raw, kept, scratch);
        CHECK(kept == c.normalized);
    }
}

TEST_CASE("edge: hosts lose case, port and trailing dot; targets split at the query") {
    CHECK(wr::edge::normalize_host("Shop.Example.COM:8080") == "shop.example.com");
    CHECK(wr::edge::normalize_host("example.com.") == "example.com");
    CHECK(wr::edge::normalize_host("[::1]:8080") == "[::1]");
    // ASCII case only, whatever the locale; a longer host before leaves nothing behind.
    std::string kept = "a-much-longer-host-name.example.org";
    wr::edge::normalize_host_into("SHOP.example.com", kept);
    CHECK(kept == "shop.example.com");
    CHECK(wr::edge::normalize_host("XN--BCHER-KVA.EXAMPLE") == "xn--bcher-kva.example");
    const auto split = wr::edge::split_target("/a/b?x=1&y#frag");
    CHECK(split.path == "/a/b");
    CHECK(split.query == "x=1&y");
    CHECK(wr::edge::split_target("http://example.com/p?q").path == "/p");
    CHECK(wr::edge::split_target("http://example.com").path == "/");
}

TEST_CASE("edge: a path is ambiguous when an origin could read it as another: %2F making a dot segment, a dot segment with ;parameters, or a backslash") {
    for (const char* raw : {"/static/..%2Fcheckout", "/static/..%2fcheckout", "/static/%2E%2E%2Fcheckout", "/a/.%2Fb",
                            "/static/..\\checkout", "/static/..%5Ccheckout", "/a%5cb", "/%2F..%2Fadmin",
                            // Tomcat, Jetty and Spring drop ";parameters" from a segment before resolving dot segments.
                            "/static/..;/checkout", "/static/%2e%2e;/checkout", "/static/..;jsessionid=1/checkout",
                            "/static/.;x/../checkout", "/static/%2E%2E%3B/checkout", "/static/..;", "/..;/admin"}) {
        CAPTURE(raw);
        CHECK(wr::edge::ambiguous_path(raw));
    }
    for (const char* raw : {"/static/app.css", "/a%2Fb", "/a/../b", "/a/..b%2Fc", "/%2E%2E/shop", "/a%2F...%2Fb",
                            "/shop/cart;jsessionid=1", "/a;b/c", "/a/...;x/b", "/a/..x;y/b", "/;/a"}) {
        CAPTURE(raw);
        CHECK_FALSE(wr::edge::ambiguous_path(raw));
    }
}

TEST_CASE("edge: path parameters come off every segment as servlet containers read them") {
    std::string out = "a-longer-path-left-by-an-earlier-request";
    const std::pair<const char*, const char*> cases[] = {
        {"/shop;x/checkout", "/shop/checkout"}, {"/shop/cart;jsessionid=1", "/shop/cart"}, {"/a/;/b/", "/a/b/"},
        {"/;x", "/"},                           {"/plain/path", "/plain/path"},
    };
    for (const auto& [path, stripped] : cases) {
        CAPTURE(path);
        wr::edge::strip_path_parameters_into(path, out);
        CHECK(out == stripped);
    }
}

TEST_CASE("edge: a Host header is a host name, an IPv4 address or a bracketed IPv6 address, then an optional port of digits") {
    for (const char* host : {"example.com", "Shop.Example.COM:8080", "example.com.", "example.com:", "127.0.0.1:80", "[::1]",
                             "[::1]:8443", "[2001:db8::1]", "[::ffff:192.0.2.1]:80", "xn--bcher-kva.example", "a_b.example", "localhost"}) {
        CAPTURE(host);
        CHECK(wr::edge::valid_host_header(host));
    }
    for (const char* host : {"", "example.com:@evil.com", "example.com:80@evil.com", "user@example.com", "example.com:8o",
                             "example.com:80:80", "example.com:123456", "example.com:65536", "exa mple.com", "example.com/x",
                             "example.com?x", "example.com#x", "[::1", "[::1]x", "[::1]:x", "[v1.x]", "[]", "%65xample.com",
                             "example.com\\evil", ":80", "ex!ample.com"}) {
        CAPTURE(host);
        CHECK_FALSE(wr::edge::valid_host_header(host));
    }
}

TEST_CASE("edge: a path climbs above its root when a dot segment would leave it") {
    for (const char* raw : {"/../admin", "/%2e%2e/admin", "/%2E./admin", "/a/../../admin", "/a/./../..", "..", "/a/b/../../../c"}) {
        CAPTURE(raw);
        CHECK(wr::edge::climbs_above_root(raw));
    }
    for (const char* raw : {"/admin", "/a/../admin", "/a/./b/../c", "/.../x", "/..a/x", "/a/%2e%2ex/..", "/a//..", "/"}) {
        CAPTURE(raw);
        CHECK_FALSE(wr::edge::climbs_above_root(raw));
    }
}

TEST_CASE("edge: a redirect back to the page stays on the site") {
    CHECK(wr::edge::same_site_location("/checkout?item=7") == "/checkout?item=7");
    CHECK(wr::edge::same_site_location("") == "/");
    CHECK(wr::edge::same_site_location("//evil.example/") == "/evil.example/");
    CHECK(wr::edge::same_site_location("///evil.example/?a=1") == "/evil.example/?a=1");
    CHECK(wr::edge::same_site_location("/\\evil.example/") == "/%5Cevil.example/");
    CHECK(wr::edge::same_site_location("http://evil.example/x?y") == "/x?y");
    CHECK(wr::edge::same_site_location("http://evil.example//evil.example/") == "/evil.example/");
}
