// libFuzzer target for the edge's head parser and rewriter: arbitrary bytes are read as a
// request head (net/http_parser, strict llhttp, 16 KiB limit) and its body as the edge would
// stream it, rewritten for the origin (edge/forward_head), and read again as an origin's answer
// rewritten for the visitor. The rewritten heads must be well-formed HTTP/1.1 that the same strict
// parser accepts, with no header smuggled in through a value, the room's cookie gone, and the
// body framing the edge chose. Build and run with `make fuzz` (fuzz/run.sh proxy_head).
//
// First input byte: bit 0 the answer is to a HEAD request, bit 1 the visitor speaks HTTP/1.0,
// bit 2 HTTPS; the rest is the message.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "edge/forward_head.h"
#include "net/http_parser.h"
#include "room_cookie.h"

namespace {

using namespace wr::edge;

void check(bool condition, const char* what) {
    if (condition) return;
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

// A head the edge wrote: CRLF lines, no bare CR or LF, one blank line at the very end, and
// readable again by the strict parser as the same number of messages.
void check_written(const std::string& head, wr::net::HttpParser::Kind kind, bool to_head) {
    check(head.size() >= 4 && head.compare(head.size() - 4, 4, "\r\n\r\n") == 0, "a head ends with one blank line");
    check(head.find("\r\n\r\n") == head.size() - 4, "no blank line inside a head");
    for (size_t i = 0; i < head.size(); ++i) {
        if (head[i] == '\n') check(i > 0 && head[i - 1] == '\r', "no bare LF");
        if (head[i] == '\r') check(i + 1 < head.size() && head[i + 1] == '\n', "no bare CR");
    }
    wr::net::HttpParser again(kind);
    again.begin(to_head);
    const wr::net::HeadStatus status = again.parse_head(head.data(), head.size());
    check(status == wr::net::HeadStatus::complete, "the edge's own head parses");
    check(again.head().size == head.size(), "and ends where it says");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const uint8_t flags = data[0];
    const std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);

    // As a request.
    wr::net::HttpParser request_parser(wr::net::HttpParser::Kind::request);
    request_parser.begin();
    if (request_parser.parse_head(bytes.data(), std::min(bytes.size(), wr::net::k_max_request_head)) == wr::net::HeadStatus::complete) {
        const wr::net::MessageHead& request = request_parser.head();
        check(request.size <= bytes.size(), "a head within its bytes");
        // The body as the edge would stream it, a piece at a time.
        std::vector<std::string_view> pieces;
        size_t at = request.size;
        for (int round = 0; round < 64 && at < bytes.size(); ++round) {
            size_t consumed = 0;
            const size_t step = std::min<size_t>(bytes.size() - at, 1 + (at * 7) % 97);
            const wr::net::BodyStatus status = request_parser.parse_body(bytes.data() + at, step, consumed, pieces);
            check(consumed <= step, "a body never takes more than it was given");
            at += consumed;
            if (status != wr::net::BodyStatus::more) break;
        }
        const wr::net::BodyFraming framing = request.framing;
        std::string out;
        write_forwarded_request(out, request,
                                ForwardedRequest{.target = request.target, .path_prefix = "/base", .client = "192.0.2.1",
                                                 .https = (flags & 4) != 0, .room_cookie = "__cfwaitingroom", .framing = framing,
                                                 .content_length = request.content_length, .upgrade = request.upgrade});
        check_written(out, wr::net::HttpParser::Kind::request, false);
        wr::net::HttpParser forwarded(wr::net::HttpParser::Kind::request);
        forwarded.begin();
        forwarded.parse_head(out.data(), out.size());
        check(forwarded.head().framing == framing, "the origin sees the framing the edge chose");
        check(forwarded.head().count("host") == request.count("host"), "Host is never added or dropped");
        check(!wr::fuzz::carries_cookie(forwarded.head(), "__cfwaitingroom"), "the room's cookie never reaches the origin");
    }

    // As an origin's answer.
    wr::net::HttpParser response_parser(wr::net::HttpParser::Kind::response);
    const bool to_head = (flags & 1) != 0;
    response_parser.begin(to_head);
    if (response_parser.parse_head(bytes.data(), std::min(bytes.size(), wr::net::k_max_response_head)) == wr::net::HeadStatus::complete) {
        const wr::net::MessageHead& response = response_parser.head();
        if (response.status >= 200 && response.status <= 999 && response.status != 101) {
            const int minor = (flags & 2) != 0 ? 0 : 1;
            wr::net::BodyFraming out_framing = response.framing;
            if (out_framing == wr::net::BodyFraming::chunked || out_framing == wr::net::BodyFraming::until_close)
                out_framing = minor == 1 ? wr::net::BodyFraming::chunked : wr::net::BodyFraming::until_close;
            std::string out;
            write_visitor_response(out, response,
                                   VisitorResponse{.version_minor = minor, .set_cookie = "__cfwaitingroom=x; Path=/",
                                                   .framing = out_framing, .content_length = response.content_length,
                                                   .keep_alive = out_framing != wr::net::BodyFraming::until_close});
            check_written(out, wr::net::HttpParser::Kind::response, to_head);
            wr::net::HttpParser visitor(wr::net::HttpParser::Kind::response);
            visitor.begin(to_head);
            visitor.parse_head(out.data(), out.size());
            check(visitor.head().find("cf-waiting-room-command").empty(), "the origin's command never reaches the visitor");
            if (!to_head && response.status != 204 && response.status != 304)
                check(visitor.head().framing == out_framing, "the visitor sees the framing the edge chose");
        }
    }
    return 0;
}
