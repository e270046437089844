// The admin listener's HTTP text: targets into paths and query parameters, replies into heads.
#include <doctest/doctest.h>

#include "api/admin_http.h"

using wr::api::decode_url;
using wr::api::Reply;
using wr::api::Request;

TEST_CASE("api::decode_url decodes percent-escapes, and '+' only in query strings") {
    CHECK(decode_url("/client/v4/zones/example.com", false) == "/client/v4/zones/example.com");
    CHECK(decode_url("/a%2Fb%20c", false) == "/a/b c");
    CHECK(decode_url("a+b", false) == "a+b");
    CHECK(decode_url("a+b", true) == "a b");
    CHECK(decode_url("%e2%80%a6", true) == "\xe2\x80\xa6");
    // Not an escape: kept as written.
    CHECK(decode_url("100%", true) == "100%");
    CHECK(decode_url("%zz%4", true) == "%zz%4");
}

TEST_CASE("api::read_target splits the path from the query parameters, as cpp-httplib did") {
    Request request;
    REQUIRE(wr::api::read_target("/client/v4/zones/example.com/waiting_rooms?per_page=5&page=2&dry_run&=x&name=a%20b+c", request));
    CHECK(request.path == "/client/v4/zones/example.com/waiting_rooms");
    CHECK(request.query_value("per_page") == "5");
    CHECK(request.query_value("page") == "2");
    CHECK(request.query_value("dry_run") == "");
    CHECK(request.query_value("name") == "a b c");
    CHECK(request.query.size() == 4);

    Request bare;
    REQUIRE(wr::api::read_target("/healthz", bare));
    CHECK(bare.path == "/healthz");
    CHECK(bare.query.empty());
    CHECK_FALSE(wr::api::read_target("http://example.com/healthz", bare));
    CHECK_FALSE(wr::api::read_target("*", bare));
}

TEST_CASE("api::reply_head writes the status, the reply's type and headers, no-store, and the framing") {
    Reply reply = wr::api::raw("<svg/>", "image/svg+xml", 404);
    reply.headers.emplace_back("X-Content-Type-Options", "nosniff");
    CHECK(wr::api::reply_head(reply, 6, true) ==
          "HTTP/1.1 404 Not Found\r\nContent-Type: image/svg+xml\r\nContent-Length: 6\r\nCache-Control: no-store\r\n"
          "X-Content-Type-Options: nosniff\r\n\r\n");
    CHECK(wr::api::reply_head(wr::api::raw("", "application/json", 304), 0, false) ==
          "HTTP/1.1 304 Not Modified\r\nContent-Type: application/json\r\nContent-Length: 0\r\nCache-Control: no-store\r\n"
          "Connection: close\r\n\r\n");
}

TEST_CASE("api::address_text writes an IPv4 client as IPv4, even on an IPv6 socket") {
    CHECK(wr::api::address_text(boost::asio::ip::make_address("127.0.0.1")) == "127.0.0.1");
    CHECK(wr::api::address_text(boost::asio::ip::make_address("::ffff:10.1.2.3")) == "10.1.2.3");
    CHECK(wr::api::address_text(boost::asio::ip::make_address("::1")) == "::1");
}
