// wr's own pages as raw HTTP/1.x bytes: what a client parses.
#include <doctest/doctest.h>

#include "edge/page_response.h"

using wr::edge::PageHead;
using wr::edge::write_page_response;

TEST_CASE("page response: a queue page with every optional header, on a kept-alive HTTP/1.1 connection") {
    std::string out = "left over from the previous request";
    write_page_response(out, 11,
                        PageHead{.status = 200, .content_type = "text/html; charset=utf-8", .refresh_seconds = 20,
                                 .set_cookie = "__cfwaitingroom=abc; Max-Age=300; Path=/; HttpOnly; SameSite=Lax"},
                        "<p>in line</p>", true, false);
    CHECK(out == "HTTP/1.1 200 OK\r\n"
                 "Content-Type: text/html; charset=utf-8\r\n"
                 "Cache-Control: no-store\r\n"
                 "Refresh: 20\r\n"
                 "Set-Cookie: __cfwaitingroom=abc; Max-Age=300; Path=/; HttpOnly; SameSite=Lax\r\n"
                 "Content-Length: 14\r\n"
                 "\r\n"
                 "<p>in line</p>");
}

TEST_CASE("page response: 429 with Retry-After, 303 with Location, and the Connection header each version needs") {
    std::string out;
    write_page_response(out, 11, PageHead{.status = 429, .content_type = "text/html", .retry_after_seconds = 45}, "slow down",
                        false, false);
    CHECK(out == "HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/html\r\nCache-Control: no-store\r\n"
                 "Retry-After: 45\r\nContent-Length: 9\r\nConnection: close\r\n\r\nslow down");
    write_page_response(out, 10, PageHead{.status = 303, .content_type = "text/html", .location = "/checkout?item=7"}, "", true,
                        false);
    CHECK(out == "HTTP/1.0 303 See Other\r\nContent-Type: text/html\r\nCache-Control: no-store\r\n"
                 "Location: /checkout?item=7\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n");
    write_page_response(out, 10, PageHead{.status = 202, .content_type = "application/json"}, "{}", false, false);
    CHECK(out == "HTTP/1.0 202 Accepted\r\nContent-Type: application/json\r\nCache-Control: no-store\r\nContent-Length: 2\r\n\r\n{}");
}

TEST_CASE("page response: HEAD gets the headers a GET would, without the body") {
    std::string out;
    write_page_response(out, 11, PageHead{.status = 200, .content_type = "text/html"}, "<p>in line</p>", true, true);
    CHECK(out == "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nCache-Control: no-store\r\nContent-Length: 14\r\n\r\n");
}
