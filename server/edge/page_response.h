#pragma once
// wr's own answers (queue, reject, 429, 303 and error pages) written as one contiguous HTTP/1.x
// response into a buffer the connection reuses. The pages are the edge's hottest path under a
// surge; formatting them directly skips Beast's header container (an allocation per field)
// and its serializer's buffer-sequence walk, which together cost more than the decision itself.
// Pure.
#include <string>
#include <string_view>

namespace wr::edge {

struct PageHead {
    int status = 200;
    std::string_view content_type{};
    int refresh_seconds = 0;     // Refresh header when > 0
    int retry_after_seconds = 0; // Retry-After header when > 0
    std::string_view location{};   // Location header when not empty
    std::string_view set_cookie{}; // Set-Cookie header when not empty
    std::string_view request_id{}; // X-Request-Id header when not empty
};

// Replaces `out` with the whole response: status line, headers (always Content-Type,
// Cache-Control: no-store and Content-Length; Connection as HTTP/1.0 or 1.1 needs for
// `keep_alive`), then `body` — left out for HEAD requests, whose Content-Length still says what
// a GET would get. `version` is 10 or 11.
void write_page_response(std::string& out, unsigned version, const PageHead& head, std::string_view body, bool keep_alive,
                         bool head_request);

// The same head alone (status line to blank line), for a body written beside it without a copy.
void write_page_head(std::string& out, unsigned version, const PageHead& head, size_t body_size, bool keep_alive);

} // namespace wr::edge
