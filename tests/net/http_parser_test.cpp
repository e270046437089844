// The edge's HTTP/1.x reading (llhttp in strict mode): heads as views, framing, and the requests
// a strict proxy refuses so that no two readers can disagree about where a request ends.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "net/http_parser.h"

using wr::net::BodyFraming;
using wr::net::BodyStatus;
using wr::net::HeadStatus;
using wr::net::HttpParser;

namespace {

HeadStatus parse_request(HttpParser& parser, const std::string& bytes) {
    parser.begin();
    return parser.parse_head(bytes.data(), bytes.size());
}

} // namespace

TEST_CASE("edge::HttpParser reads a request head into views, in pieces as it arrives") {
    const std::string bytes = "POST /shop?x=1 HTTP/1.1\r\nHost: shop.example.com\r\nCookie: a=1\r\nX-Empty:\r\n"
                              "Content-Length: 5\r\nX-Spaced:  v  \r\n\r\nhelloGET";
    HttpParser parser(HttpParser::Kind::request);
    parser.begin();
    // One byte at a time: the same result as all at once.
    HeadStatus status = HeadStatus::incomplete;
    for (size_t available = 1; available <= bytes.size() && status == HeadStatus::incomplete; ++available)
        status = parser.parse_head(bytes.data(), available);
    REQUIRE(status == HeadStatus::complete);
    const auto& head = parser.head();
    CHECK(head.method == "POST");
    CHECK(head.target == "/shop?x=1");
    CHECK(head.version_minor == 1);
    CHECK(head.size == bytes.find("hello"));
    CHECK(head.find("host") == "shop.example.com");
    CHECK(head.find("X-EMPTY") == "");
    CHECK(head.find("x-spaced") == "v");
    CHECK(head.headers.size() == 5);
    CHECK(head.framing == BodyFraming::length);
    CHECK(head.content_length == 5);
    CHECK(head.keep_alive);

    std::vector<std::string_view> pieces;
    size_t consumed = 0;
    const std::string_view rest(bytes.data() + head.size, bytes.size() - head.size);
    CHECK(parser.parse_body(rest.data(), rest.size(), consumed, pieces) == BodyStatus::complete);
    CHECK(consumed == 5); // "GET" belongs to the next request
    REQUIRE(pieces.size() == 1);
    CHECK(pieces[0] == "hello");
}

TEST_CASE("edge::HttpParser takes only a WebSocket handshake for an upgrade; h2c and others are ordinary requests") {
    struct Case {
        const char* upgrade;
        const char* connection;
        bool tunnel;
    };
    const Case cases[] = {
        {"websocket", "Upgrade", true},          {"WebSocket", "keep-alive, Upgrade", true}, {"h2c, websocket", "Upgrade", true},
        {"h2c", "Upgrade, HTTP2-Settings", false}, {"TLS/1.2", "Upgrade", false},            {"websocketx", "Upgrade", false},
        {"websocket", "keep-alive", false},
    };
    HttpParser parser(HttpParser::Kind::request);
    for (const Case& c : cases) {
        CAPTURE(c.upgrade);
        CAPTURE(c.connection);
        const std::string bytes = std::string("GET /ws HTTP/1.1\r\nHost: a.test\r\nConnection: ") + c.connection + "\r\nUpgrade: " +
                                  c.upgrade + "\r\n\r\n";
        REQUIRE(parse_request(parser, bytes) == HeadStatus::complete);
        CHECK(parser.head().upgrade == c.tunnel);
        CHECK(parser.head().keep_alive);
    }
}

TEST_CASE("edge::HttpParser decodes chunked bodies and drops their trailers") {
    const std::string bytes = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\n"
                              "X-Injected: yes\r\n\r\n";
    HttpParser parser(HttpParser::Kind::request);
    REQUIRE(parse_request(parser, bytes) == HeadStatus::complete);
    CHECK(parser.head().framing == BodyFraming::chunked);
    std::vector<std::string_view> pieces;
    size_t consumed = 0;
    const size_t head = parser.head().size;
    CHECK(parser.parse_body(bytes.data() + head, bytes.size() - head, consumed, pieces) == BodyStatus::complete);
    std::string body;
    for (const auto piece : pieces) body += piece;
    CHECK(body == "hello world");
    CHECK(parser.head().find("x-injected") == ""); // never merged into the head
    CHECK(parser.head().headers.size() == 2);
}

TEST_CASE("edge::HttpParser closes after an HTTP/1.0 request framed by Transfer-Encoding (RFC 9112 §6.1)") {
    HttpParser parser(HttpParser::Kind::request);
    REQUIRE(parse_request(parser, "POST / HTTP/1.0\r\nHost: a\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n") ==
            HeadStatus::complete);
    CHECK(parser.head().framing == BodyFraming::chunked);
    CHECK_FALSE(parser.head().keep_alive);
    // Without Transfer-Encoding, HTTP/1.0 keep-alive stays as asked.
    REQUIRE(parse_request(parser, "POST / HTTP/1.0\r\nHost: a\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\n") ==
            HeadStatus::complete);
    CHECK(parser.head().keep_alive);
}

TEST_CASE("edge::HttpParser refuses what a strict proxy refuses") {
    struct Case {
        const char* name;
        std::string bytes;
        HeadStatus expected;
    };
    const Case cases[] = {
        {"Content-Length and Transfer-Encoding", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", HeadStatus::invalid},
        {"Transfer-Encoding and Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", HeadStatus::invalid},
        {"two Content-Lengths", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", HeadStatus::invalid},
        {"a list in Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\n", HeadStatus::invalid},
        {"a sign in Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n", HeadStatus::invalid},
        {"a coding that is not chunked last", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", HeadStatus::invalid},
        {"chunked, then another coding", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", HeadStatus::invalid},
        {"another coding, then chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", HeadStatus::invalid},
        {"obs-fold", "GET / HTTP/1.1\r\nHost: a\r\nX-Folded: one\r\n two\r\n\r\n", HeadStatus::invalid},
        {"bare LF", "GET / HTTP/1.1\nHost: a\n\n", HeadStatus::invalid},
        {"bare LF in a header", "GET / HTTP/1.1\r\nHost: a\nX: b\r\n\r\n", HeadStatus::invalid},
        {"bare CR", "GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n", HeadStatus::invalid},
        {"space before the colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", HeadStatus::invalid},
        {"a control character", std::string("GET / HTTP/1.1\r\nHost: a\x01") + "b\r\n\r\n", HeadStatus::invalid},
        {"a space in the target", "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", HeadStatus::invalid},
        {"HTTP/2.0", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", HeadStatus::unsupported_version},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        HttpParser parser(HttpParser::Kind::request);
        CHECK(parse_request(parser, c.bytes) == c.expected);
    }
    std::string many = "GET / HTTP/1.1\r\n";
    for (size_t i = 0; i <= HttpParser::k_max_header_fields; ++i) many += "X-" + std::to_string(i) + ": 1\r\n";
    HttpParser parser(HttpParser::Kind::request);
    CHECK(parse_request(parser, many + "\r\n") == HeadStatus::too_many_headers);
}

TEST_CASE("edge::HttpParser frames responses: length, chunked, to the close, and none for HEAD, 1xx, 204 and 304") {
    struct Case {
        const char* name;
        std::string bytes;
        bool to_head;
        BodyFraming framing;
    };
    const Case cases[] = {
        {"length", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", false, BodyFraming::length},
        {"empty length", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false, BodyFraming::none},
        {"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", false, BodyFraming::chunked},
        {"to the close", "HTTP/1.1 200 OK\r\n\r\n", false, BodyFraming::until_close},
        {"HEAD", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", true, BodyFraming::none},
        {"204", "HTTP/1.1 204 No Content\r\n\r\n", false, BodyFraming::none},
        {"304", "HTTP/1.1 304 Not Modified\r\nContent-Length: 3\r\n\r\n", false, BodyFraming::none},
        {"103", "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n", false, BodyFraming::none},
        {"101", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", false, BodyFraming::none},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        HttpParser parser(HttpParser::Kind::response);
        parser.begin(c.to_head);
        REQUIRE(parser.parse_head(c.bytes.data(), c.bytes.size()) == HeadStatus::complete);
        CHECK(parser.head().framing == c.framing);
    }
    // A coding beside chunked (or instead of it) would reach the visitor still coded, labelled as
    // neither: refused, as nginx refuses it (502); where no body follows, it does not matter.
    for (const std::string coding : {"gzip, chunked", "gzip", "chunked, gzip"}) {
        CAPTURE(coding);
        HttpParser parser(HttpParser::Kind::response);
        parser.begin();
        const std::string bytes = "HTTP/1.1 200 OK\r\nTransfer-Encoding: " + coding + "\r\n\r\n";
        CHECK(parser.parse_head(bytes.data(), bytes.size()) == HeadStatus::invalid);
        parser.begin(true);
        REQUIRE(parser.parse_head(bytes.data(), bytes.size()) == HeadStatus::complete);
        CHECK(parser.head().framing == BodyFraming::none);
    }
    HttpParser parser(HttpParser::Kind::response);
    parser.begin();
    const std::string close = "HTTP/1.1 200 OK\r\n\r\nabc";
    REQUIRE(parser.parse_head(close.data(), close.size()) == HeadStatus::complete);
    CHECK_FALSE(parser.head().keep_alive);
    std::vector<std::string_view> pieces;
    size_t consumed = 0;
    CHECK(parser.parse_body(close.data() + parser.head().size, 3, consumed, pieces) == BodyStatus::more);
    CHECK(parser.finish_body() == BodyStatus::complete);
    REQUIRE(pieces.size() == 1);
    CHECK(pieces[0] == "abc");

    // A length-delimited body the origin cut short is not complete.
    HttpParser short_body(HttpParser::Kind::response);
    short_body.begin();
    const std::string cut = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc";
    REQUIRE(short_body.parse_head(cut.data(), cut.size()) == HeadStatus::complete);
    CHECK(short_body.parse_body(cut.data() + short_body.head().size, 3, consumed, pieces) == BodyStatus::more);
    CHECK(short_body.finish_body() == BodyStatus::invalid);
}
