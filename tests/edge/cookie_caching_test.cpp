// Which answers carrying wr's cookie are kept from shared caches, and how the edge says so.
#include <doctest/doctest.h>

#include <string>

#include "edge/cookie_caching.h"
#include "edge/forward_head.h"
#include "edge/h2_fields.h"
#include "net/http_parser.h"

namespace {

bool needs_private(const std::string& headers) {
    const std::string bytes = "HTTP/1.1 200 OK\r\n" + headers + "Content-Length: 0\r\n\r\n";
    wr::net::HttpParser parser(wr::net::HttpParser::Kind::response);
    parser.begin();
    REQUIRE(parser.parse_head(bytes.data(), bytes.size()) == wr::net::HeadStatus::complete);
    return wr::edge::cookie_needs_private(parser.head());
}

} // namespace

TEST_CASE("edge::cookie_needs_private: unless the origin keeps the whole answer from shared caches, the cookie must be") {
    CHECK(needs_private(""));                                           // heuristically cacheable (RFC 9111 §4.2.2)
    CHECK(needs_private("Cache-Control: public, max-age=3600\r\n"));
    CHECK(needs_private("Cache-Control: s-maxage=60\r\n"));
    CHECK(needs_private("Cache-Control: no-cache\r\n"));               // stored, revalidated, then served cookie and all
    CHECK(needs_private("Cache-Control: private=\"x-user\"\r\n"));     // private for one field only
    CHECK(needs_private("Cache-Control: max-age=60\r\nExpires: Thu, 01 Dec 2026 16:00:00 GMT\r\n"));
    CHECK_FALSE(needs_private("Cache-Control: no-store\r\n"));
    CHECK_FALSE(needs_private("Cache-Control: Private, max-age=60\r\n"));
    CHECK_FALSE(needs_private("Cache-Control: max-age=60 ,  NO-STORE\r\n"));
    CHECK_FALSE(needs_private("Cache-Control: public\r\nCache-Control: private\r\n")); // fields combine
}

TEST_CASE("edge: an answer that gets wr's cookie says private=\"set-cookie\" over HTTP/1.1 and HTTP/2, and an answer without it is left alone") {
    const std::string bytes = "HTTP/1.1 200 OK\r\nCache-Control: public, max-age=3600\r\nContent-Length: 2\r\n\r\n";
    wr::net::HttpParser parser(wr::net::HttpParser::Kind::response);
    parser.begin();
    REQUIRE(parser.parse_head(bytes.data(), bytes.size()) == wr::net::HeadStatus::complete);
    const wr::net::MessageHead& response = parser.head();

    std::string out;
    wr::edge::write_visitor_response(out, response,
                                     wr::edge::VisitorResponse{.version_minor = 1, .set_cookie = "__cfwaitingroom=NEW",
                                                               .framing = wr::net::BodyFraming::length, .content_length = 2, .keep_alive = true});
    CHECK(out == "HTTP/1.1 200 OK\r\nCache-Control: public, max-age=3600\r\nSet-Cookie: __cfwaitingroom=NEW\r\n"
                 "Cache-Control: private=\"set-cookie\"\r\nContent-Length: 2\r\n\r\n");
    wr::edge::write_visitor_response(out, response,
                                     wr::edge::VisitorResponse{.version_minor = 1, .framing = wr::net::BodyFraming::length, .content_length = 2,
                                                               .keep_alive = true});
    CHECK(out.find("private") == std::string::npos);

    wr::edge::ResponseFields fields;
    wr::edge::origin_fields(fields, response, "__cfwaitingroom=NEW", true);
    int cache_controls = 0;
    bool private_cookie = false;
    const nghttp2_nv* nv = fields.finish();
    for (size_t i = 0; i < fields.size(); ++i) {
        const std::string name(reinterpret_cast<const char*>(nv[i].name), nv[i].namelen);
        const std::string value(reinterpret_cast<const char*>(nv[i].value), nv[i].valuelen);
        if (name != "cache-control") continue;
        ++cache_controls;
        private_cookie = private_cookie || value == "private=\"set-cookie\"";
    }
    CHECK(cache_controls == 2);
    CHECK(private_cookie);
}
