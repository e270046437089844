// HTTP/2 header blocks read as HTTP/1.1 heads and written from them, and the ALPN choice.
#include <doctest/doctest.h>

#include <string>

#include "edge/alpn.h"
#include "edge/forward_head.h"
#include "edge/h2_fields.h"
#include "net/http_parser.h"

using wr::edge::RequestFields;
using wr::edge::ResponseFields;
using wr::net::BodyFraming;

namespace {

const wr::net::MessageHead& parsed(wr::net::HttpParser& parser, const std::string& bytes) {
    parser.begin();
    REQUIRE(parser.parse_head(bytes.data(), bytes.size()) == wr::net::HeadStatus::complete);
    return parser.head();
}

std::string alpn_list(std::initializer_list<std::string> names) {
    std::string list;
    for (const std::string& name : names) list += static_cast<char>(name.size()) + name;
    return list;
}

} // namespace

TEST_CASE("h2 fields: a request block reads as the HTTP/1.1 head the origin gets, :authority as its Host") {
    RequestFields fields;
    fields.add(":method", "POST");
    fields.add(":scheme", "https");
    fields.add(":authority", "shop.example.com");
    fields.add(":path", "/cart?item=3");
    fields.add("host", "other.example.com");
    fields.add("cookie", "a=1");
    fields.add("cookie", "__cfwaitingroom=secret");
    fields.add("content-length", "12");
    wr::net::MessageHead head;
    fields.build(head, false);
    CHECK(head.method == "POST");
    CHECK(head.target == "/cart?item=3");
    CHECK(head.find("host") == "shop.example.com");
    CHECK(head.count("host") == 1);
    CHECK(head.framing == BodyFraming::length);
    CHECK(head.content_length == 12);

    std::string out;
    wr::edge::write_forwarded_request(out, head,
                                      wr::edge::ForwardedRequest{.target = head.target, .client = "192.0.2.7", .https = true,
                                                                 .room_cookie = "__cfwaitingroom", .framing = head.framing,
                                                                 .content_length = head.content_length, .request_id = "abc"});
    CHECK(out.starts_with("POST /cart?item=3 HTTP/1.1\r\n"));
    CHECK(out.find("host: shop.example.com\r\n") != std::string::npos);
    CHECK(out.find("other.example.com") == std::string::npos);
    CHECK(out.find("X-Forwarded-For: 192.0.2.7\r\n") != std::string::npos);
    CHECK(out.find("X-Forwarded-Proto: https\r\n") != std::string::npos);
    CHECK(out.find("X-Request-Id: abc\r\n") != std::string::npos);
    CHECK(out.find("secret") == std::string::npos); // the room's cookie stays with wr
    CHECK(out.find("a=1") != std::string::npos);
    CHECK(out.find("Content-Length: 12\r\n") != std::string::npos);
    CHECK(out.find(":method") == std::string::npos);
}

TEST_CASE("h2 fields: a body without content-length goes chunked; none when HEADERS ended the stream") {
    RequestFields fields;
    fields.add(":method", "PUT");
    fields.add(":path", "/");
    wr::net::MessageHead head;
    fields.build(head, false);
    CHECK(head.framing == BodyFraming::chunked);
    fields.build(head, true);
    CHECK(head.framing == BodyFraming::none);
}

TEST_CASE("h2 fields: a block over the list size or the field count is too large, and keeps nothing more") {
    RequestFields fields;
    CHECK(fields.add(":method", "GET"));
    CHECK(fields.add("x-a", std::string(RequestFields::k_max_list_size - 100, 'a')));
    CHECK_FALSE(fields.too_large());
    CHECK_FALSE(fields.add("x-b", std::string(100, 'b')));
    CHECK(fields.too_large());
    CHECK_FALSE(fields.add("x-c", "c"));

    RequestFields many;
    for (size_t i = 0; i < RequestFields::k_max_fields; ++i) CHECK(many.add("x", "1"));
    CHECK_FALSE(many.add("x", "1"));
    CHECK(many.too_large());
    // Still counted, kept no more: four times over a limit it is far too large.
    for (size_t i = RequestFields::k_max_fields + 1; i < 4 * RequestFields::k_max_fields; ++i) CHECK_FALSE(many.add("x", "1"));
    CHECK_FALSE(many.far_too_large());
    CHECK_FALSE(many.add("x", "1"));
    CHECK(many.far_too_large());
    CHECK_FALSE(fields.far_too_large());
    CHECK_FALSE(fields.add("x-d", std::string(3 * RequestFields::k_max_list_size, 'd')));
    CHECK(fields.far_too_large());

    // Cookie crumbs (a browser sends each cookie as a field) count as one field together.
    RequestFields crumbs;
    for (size_t i = 0; i < RequestFields::k_max_fields - 1; ++i) CHECK(crumbs.add("x", "1"));
    for (int i = 0; i < 200; ++i) CHECK(crumbs.add("cookie", "c=1"));
    CHECK_FALSE(crumbs.too_large());
    CHECK_FALSE(crumbs.add("y", "1"));
}

TEST_CASE("h2 fields: a :path is usable when it starts with '/', or is '*' for OPTIONS") {
    const auto usable = [](std::string_view method, std::string_view path) {
        RequestFields fields;
        fields.add(":method", method);
        fields.add(":path", path);
        wr::net::MessageHead head;
        fields.build(head, true);
        return wr::edge::usable_path(head.method, head.target);
    };
    CHECK(usable("GET", "/"));
    CHECK(usable("GET", "/a/b?c"));
    CHECK(usable("OPTIONS", "*"));
    CHECK_FALSE(usable("GET", "*"));
    CHECK_FALSE(usable("GET", "x/../admin"));
    CHECK_FALSE(usable("GET", ""));
    CHECK_FALSE(usable("GET", "https://shop.example.com/"));
}

TEST_CASE("h2 fields: wr's pages carry the HTTP/1.1 page's headers, without Connection") {
    ResponseFields fields;
    wr::edge::page_fields(fields, wr::edge::PageHead{.status = 429, .content_type = "text/html; charset=utf-8", .refresh_seconds = 0,
                                                     .retry_after_seconds = 30, .set_cookie = "c=1", .request_id = "rid"},
                          5);
    CHECK(fields.find(":status") == "429");
    CHECK(fields.find("cache-control") == "no-store");
    CHECK(fields.find("retry-after") == "30");
    CHECK(fields.find("set-cookie") == "c=1");
    CHECK(fields.find("x-request-id") == "rid");
    CHECK(fields.find("content-length") == "5");
    CHECK(fields.find("connection").empty());
    const nghttp2_nv* nv = fields.finish();
    CHECK(std::string(reinterpret_cast<const char*>(nv[0].name), nv[0].namelen) == ":status");
    // Values new in every answer stay out of HPACK's dynamic table; those that repeat may enter it.
    for (size_t i = 0; i < fields.size(); ++i) {
        const std::string name(reinterpret_cast<const char*>(nv[i].name), nv[i].namelen);
        INFO(name);
        CHECK(((nv[i].flags & NGHTTP2_NV_FLAG_NO_INDEX) != 0) == (name == "set-cookie" || name == "x-request-id"));
    }
}

TEST_CASE("h2 fields: the origin's answer loses its connection-specific headers and names in capitals") {
    wr::net::HttpParser parser{wr::net::HttpParser::Kind::response};
    const std::string bytes = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive, X-Hop\r\n"
                              "Keep-Alive: timeout=5\r\nX-Hop: 1\r\nUpgrade: h2c\r\nProxy-Connection: close\r\nCf-Waiting-Room-Command: revoke\r\n"
                              "Set-Cookie: shop=1\r\n\r\n";
    ResponseFields fields;
    wr::edge::origin_fields(fields, parsed(parser, bytes), "__cfwaitingroom=v", false);
    CHECK(fields.find(":status") == "200");
    CHECK(fields.find("content-type") == "text/plain");
    for (const char* gone : {"transfer-encoding", "connection", "keep-alive", "x-hop", "upgrade", "proxy-connection", "cf-waiting-room-command"}) {
        CAPTURE(gone);
        CHECK(fields.find(gone).empty());
    }
    // :status, content-type, the origin's cookie, the room's, and the cache-control that keeps it
    // out of shared caches (edge/cookie_caching.h)
    CHECK(fields.size() == 5);
    CHECK(fields.find("cache-control") == "private=\"set-cookie\"");
}

TEST_CASE("h2 fields: a length the origin framed the body by is kept, else dropped") {
    wr::net::HttpParser parser{wr::net::HttpParser::Kind::response};
    const std::string bytes = "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n";
    ResponseFields fields;
    wr::edge::origin_fields(fields, parsed(parser, bytes), "", true);
    CHECK(fields.find("content-length") == "7");
    wr::edge::origin_fields(fields, parsed(parser, bytes), "", false);
    CHECK(fields.find("content-length").empty());
}

TEST_CASE("alpn: h2 is chosen before http/1.1 whatever the client's order; neither means no ALPN") {
    bool found = false;
    CHECK(wr::edge::choose_alpn(alpn_list({"http/1.1", "h2"}), found) == wr::edge::AlpnProtocol::h2);
    CHECK(found);
    CHECK(wr::edge::choose_alpn(alpn_list({"http/1.1"}), found) == wr::edge::AlpnProtocol::http1);
    CHECK(found);
    CHECK(wr::edge::choose_alpn(alpn_list({"spdy/3", "h2c"}), found) == wr::edge::AlpnProtocol::http1);
    CHECK_FALSE(found);
    CHECK(wr::edge::choose_alpn(std::string("\x05h2", 3), found) == wr::edge::AlpnProtocol::http1); // malformed
    CHECK_FALSE(found);
}
