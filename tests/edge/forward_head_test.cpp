// The heads the edge writes when it proxies, byte for byte.
#include <doctest/doctest.h>

#include <string>

#include "edge/forward_head.h"
#include "net/http_parser.h"

using wr::net::BodyFraming;
using wr::edge::ForwardedRequest;
using wr::net::HeadStatus;
using wr::net::HttpParser;
using wr::edge::VisitorResponse;

namespace {

// Parses `bytes` (kept alive by the caller) as a request or response head.
const wr::net::MessageHead& parsed(wr::net::HttpParser& parser, const std::string& bytes) {
    parser.begin();
    REQUIRE(parser.parse_head(bytes.data(), bytes.size()) == wr::net::HeadStatus::complete);
    return parser.head();
}

} // namespace

TEST_CASE("edge::write_forwarded_request rewrites the head for the origin as bytes") {
    const std::string bytes = "POST /shop/cart?x=1 HTTP/1.1\r\n"
                              "Host: shop.example.com\r\n"
                              "Connection: keep-alive, X-Hop, Host, Content-Type\r\n"
                              "X-Hop: dropped\r\n"
                              "Keep-Alive: timeout=5\r\n"
                              "TE: trailers\r\n"
                              "Proxy-Authorization: Basic eA==\r\n"
                              "Cookie: theme=dark; __cfwaitingroom=SEALED\r\n"
                              "Cookie: lang=en\r\n"
                              "X-Forwarded-For: 203.0.113.7\r\n"
                              "X-Forwarded-For: 198.51.100.2\r\n"
                              "X-Forwarded-Proto: spoofed\r\n"
                              "X-Forwarded-Host: spoofed\r\n"
                              "Expect: 100-continue\r\n"
                              "Content-Type: text/plain\r\n"
                              "Transfer-Encoding: chunked\r\n"
                              "X-Custom: kept\r\n\r\n";
    wr::net::HttpParser parser(wr::net::HttpParser::Kind::request);
    const auto& request = parsed(parser, bytes);
    std::string out;
    wr::edge::write_forwarded_request(out, request,
                                      ForwardedRequest{.target = "/shop/cart?x=1", .path_prefix = "/base", .client = "127.0.0.1",
                                                       .https = true, .room_cookie = "__cfwaitingroom", .framing = wr::net::BodyFraming::chunked});
    CHECK(out == "POST /base/shop/cart?x=1 HTTP/1.1\r\n"
                 "X-Forwarded-For: 203.0.113.7, 198.51.100.2, 127.0.0.1\r\n"
                 "X-Forwarded-Proto: https\r\n"
                 "X-Forwarded-Host: shop.example.com\r\n"
                 "Host: shop.example.com\r\n"
                 "Content-Type: text/plain\r\n"
                 "X-Custom: kept\r\n"
                 "Cookie: theme=dark; lang=en\r\n"
                 "Transfer-Encoding: chunked\r\n\r\n");
}

TEST_CASE("edge::write_forwarded_request drops the client-address headers a visitor could make up") {
    const std::string bytes = "GET / HTTP/1.1\r\nHost: a.test\r\nX-Real-IP: 10.0.0.1\r\nforwarded: for=10.0.0.1\r\n"
                              "True-Client-IP: 10.0.0.1\r\nCF-Connecting-IP: 10.0.0.1\r\nX-Client-IP: 10.0.0.1\r\n"
                              "X-Cluster-Client-IP: 10.0.0.1\r\nX-Real-IP-Note: kept\r\n\r\n";
    wr::net::HttpParser parser(wr::net::HttpParser::Kind::request);
    const auto& request = parsed(parser, bytes);
    std::string out;
    wr::edge::write_forwarded_request(out, request, ForwardedRequest{.target = "/", .client = "192.0.2.1"});
    CHECK(out == "GET / HTTP/1.1\r\nX-Forwarded-For: 192.0.2.1\r\nX-Forwarded-Proto: http\r\nX-Forwarded-Host: a.test\r\n"
                 "Host: a.test\r\nX-Real-IP-Note: kept\r\n\r\n");
}

TEST_CASE("edge::write_forwarded_request drops the URL and scheme overrides a visitor could make up") {
    // An origin that routes by X-Original-URL or X-Rewrite-URL would serve a path the room never
    // judged; one that believes X-Forwarded-Ssl a scheme the visitor did not use.
    const std::string bytes = "GET /static/a.css HTTP/1.1\r\nHost: a.test\r\nX-Original-URL: /checkout\r\nX-Rewrite-URL: /checkout\r\n"
                              "X-Forwarded-Ssl: on\r\nFront-End-Https: on\r\nX-Forwarded-Scheme: https\r\nX-Url-Scheme: https\r\n"
                              "X-Forwarded-Port: 443\r\nX-Forwarded-Prefix: /admin\r\nX-Original-URL-Note: kept\r\n\r\n";
    wr::net::HttpParser parser(wr::net::HttpParser::Kind::request);
    const auto& request = parsed(parser, bytes);
    std::string out;
    wr::edge::write_forwarded_request(out, request, ForwardedRequest{.target = "/static/a.css", .client = "192.0.2.1"});
    CHECK(out == "GET /static/a.css HTTP/1.1\r\nX-Forwarded-For: 192.0.2.1\r\nX-Forwarded-Proto: http\r\nX-Forwarded-Host: a.test\r\n"
                 "Host: a.test\r\nX-Original-URL-Note: kept\r\n\r\n");
}

TEST_CASE("edge::write_forwarded_request says Content-Length: 0 for an empty body the visitor announced or the method expects") {
    const auto forwarded = [](const std::string& bytes) {
        wr::net::HttpParser parser(wr::net::HttpParser::Kind::request);
        const auto& request = parsed(parser, bytes);
        std::string out;
        wr::edge::write_forwarded_request(out, request, ForwardedRequest{.target = "/", .client = "192.0.2.1"});
        return out;
    };
    // A bodiless fetch(…, {method: 'POST'}): origins that require a length answer 411 without it.
    CHECK(forwarded("POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 0\r\n\r\n").find("\r\nContent-Length: 0\r\n") != std::string::npos);
    // An HTTP/2 POST whose HEADERS ended the stream carries no length at all.
    CHECK(forwarded("PUT / HTTP/1.1\r\nHost: a.test\r\n\r\n").find("\r\nContent-Length: 0\r\n") != std::string::npos);
    CHECK(forwarded("GET / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 0\r\n\r\n").find("\r\nContent-Length: 0\r\n") != std::string::npos);
    CHECK(forwarded("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n").find("Content-Length") == std::string::npos);
}

TEST_CASE("edge::write_forwarded_request frames the body itself, keeps an upgrade, and drops an emptied Cookie") {
    const std::string bytes = "GET /ws HTTP/1.1\r\nHost: a.test\r\nConnection: Upgrade\r\nUpgrade: h2c, WebSocket\r\n"
                              "Cookie: __cfwaitingroom=SEALED\r\nContent-Length: 0\r\n\r\n";
    wr::net::HttpParser parser(wr::net::HttpParser::Kind::request);
    const auto& request = parsed(parser, bytes);
    std::string out;
    wr::edge::write_forwarded_request(out, request,
                                      ForwardedRequest{.target = "http://a.test/ws", .client = "::1", .room_cookie = "__cfwaitingroom",
                                                       .upgrade = true});
    CHECK(out == "GET /ws HTTP/1.1\r\nX-Forwarded-For: ::1\r\nX-Forwarded-Proto: http\r\nX-Forwarded-Host: a.test\r\n"
                 "Host: a.test\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n");
    wr::edge::write_forwarded_request(out, request,
                                      ForwardedRequest{.target = "/ws", .client = "::1", .framing = wr::net::BodyFraming::length, .content_length = 12});
    CHECK(out.find("Content-Length: 12\r\n") != std::string::npos);
    CHECK(out.find("Cookie: __cfwaitingroom=SEALED\r\n") != std::string::npos); // no room: every cookie stays
    CHECK(out.find("Upgrade") == std::string::npos);
}

TEST_CASE("edge::write_visitor_response drops hop-by-hop headers and the origin's command, adds the cookie and the edge's framing") {
    const std::string bytes = "HTTP/1.1 200 Fine\r\n"
                              "Content-Type: text/html\r\n"
                              "Connection: X-Private, close\r\n"
                              "X-Private: secret\r\n"
                              "Upgrade: h2c\r\n"
                              "Proxy-Authenticate: Basic\r\n"
                              "Trailer: X-Checksum\r\n"
                              "Transfer-Encoding: chunked\r\n"
                              "Cf-Waiting-Room-Command: revoke\r\n"
                              "Set-Cookie: origin=1\r\n"
                              "X-End-To-End: kept\r\n\r\n";
    wr::net::HttpParser parser(wr::net::HttpParser::Kind::response);
    const auto& response = parsed(parser, bytes);
    CHECK(wr::edge::waiting_room_command(response) == "revoke");
    std::string out;
    wr::edge::write_visitor_response(out, response,
                                     VisitorResponse{.version_minor = 1, .set_cookie = "__cfwaitingroom=NEW; Max-Age=300",
                                                     .framing = wr::net::BodyFraming::chunked, .keep_alive = true});
    CHECK(out == "HTTP/1.1 200 Fine\r\nContent-Type: text/html\r\nSet-Cookie: origin=1\r\nX-End-To-End: kept\r\n"
                 "Set-Cookie: __cfwaitingroom=NEW; Max-Age=300\r\nCache-Control: private=\"set-cookie\"\r\nTransfer-Encoding: chunked\r\n\r\n");

    // HTTP/1.0 visitors: the edge's length, and keep-alive said out loud.
    wr::edge::write_visitor_response(out, response,
                                     VisitorResponse{.version_minor = 0, .framing = wr::net::BodyFraming::length, .content_length = 42, .keep_alive = true});
    CHECK(out.starts_with("HTTP/1.0 200 Fine\r\n"));
    CHECK(out.ends_with("Content-Length: 42\r\nConnection: keep-alive\r\n\r\n"));
}

TEST_CASE("edge::write_visitor_response keeps a HEAD answer's length, and a 101's Upgrade") {
    const std::string head_bytes = "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n";
    wr::net::HttpParser head_parser(wr::net::HttpParser::Kind::response);
    head_parser.begin(true);
    REQUIRE(head_parser.parse_head(head_bytes.data(), head_bytes.size()) == wr::net::HeadStatus::complete);
    std::string out;
    wr::edge::write_visitor_response(out, head_parser.head(), VisitorResponse{.framing = wr::net::BodyFraming::none, .keep_alive = false});
    CHECK(out == "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\nConnection: close\r\n\r\n");

    const std::string switching = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                  "Sec-WebSocket-Accept: abc=\r\n\r\n";
    wr::net::HttpParser parser(wr::net::HttpParser::Kind::response);
    const auto& response = parsed(parser, switching);
    wr::edge::write_visitor_response(out, response, VisitorResponse{.set_cookie = "c=1"});
    CHECK(out == "HTTP/1.1 101 Switching Protocols\r\nSec-WebSocket-Accept: abc=\r\nSet-Cookie: c=1\r\nUpgrade: websocket\r\n"
                 "Connection: upgrade\r\n\r\n");

    // A length on a 1xx (which has no content) and the room's command header stay behind.
    const std::string hints = "HTTP/1.1 103 Early Hints\r\nContent-Length: 17\r\nLink: </a.css>; rel=preload\r\nConnection: close\r\n"
                              "cf-waiting-room-command: revoke\r\n\r\n";
    wr::net::HttpParser interim_parser(wr::net::HttpParser::Kind::response);
    wr::edge::write_interim_response(out, parsed(interim_parser, hints));
    CHECK(out == "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n");
}

TEST_CASE("edge::write_forwarded_request sends the edge's X-Request-Id in place of the visitor's") {
    const std::string bytes = "GET / HTTP/1.1\r\nHost: a.test\r\nX-Request-Id: spoofed\r\nx-request-id: again\r\n\r\n";
    wr::net::HttpParser parser(wr::net::HttpParser::Kind::request);
    const auto& request = parsed(parser, bytes);
    std::string out;
    wr::edge::write_forwarded_request(out, request, ForwardedRequest{.target = "/", .client = "::1", .request_id = "0123abcd"});
    CHECK(out == "GET / HTTP/1.1\r\nX-Forwarded-For: ::1\r\nX-Forwarded-Proto: http\r\nX-Forwarded-Host: a.test\r\n"
                 "X-Request-Id: 0123abcd\r\nHost: a.test\r\n\r\n");
}

TEST_CASE("edge::safe_to_replay: idempotent methods (RFC 9110 §9.2.2) and requests with an Idempotency-Key, nothing else") {
    const auto replayable = [](const std::string& method, const std::string& extra = "") {
        HttpParser parser(HttpParser::Kind::request);
        const std::string bytes = method + " /x HTTP/1.1\r\nHost: a\r\n" + extra + "\r\n";
        return wr::edge::safe_to_replay(parsed(parser, bytes));
    };
    for (const std::string method : {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"}) {
        CAPTURE(method);
        CHECK(replayable(method));
    }
    // (llhttp reads methods case-sensitively, and refuses "get" before this is asked.)
    for (const std::string method : {"POST", "PATCH", "LOCK", "PROPFIND", "MKCOL", "PURGE"}) {
        CAPTURE(method);
        CHECK_FALSE(replayable(method));
    }
    CHECK(replayable("POST", "Idempotency-Key: \"8e03978e-40d5-43e8-bc93-6894a57f9324\"\r\n"));
    CHECK(replayable("PATCH", "idempotency-key: 1\r\n"));
    CHECK_FALSE(replayable("POST", "X-Idempotency: 1\r\n"));
}
