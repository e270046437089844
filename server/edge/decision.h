#pragma once
// What the edge decided about one request, as the access log names it.
#include <cstdint>
#include <string_view>

namespace wr::edge {

enum class Decision : uint8_t {
    none,                  // not decided (a connection that closed before a whole request)
    admitted,              // a room let the visitor in: proxied
    queued,                // the queue page (or its JSON)
    turnstile_challenge,   // the queue page with a Turnstile challenge on it
    turnstile_verified,    // a Turnstile token checked, the visitor sent back to the page (303)
    rejected,              // a reject room's page
    join_limited,          // too many new visitors from one address (429)
    bypassed,              // a bypass rule matched: proxied, not counted
    crawler,               // a verified search engine crawler: proxied, not counted
    passthrough,           // a passthrough or suspended room: proxied
    no_room,               // a host of a zone with no room on that path: proxied untouched
    misdirected,           // no zone serves the host (421)
    bad_request,           // not valid HTTP, or a Host or path wr refuses (400)
    headers_too_large,     // 431
    request_timeout,       // the head or body took too long (408)
    body_too_large,        // 413
    method_not_allowed,    // CONNECT (405)
    version_not_supported, // 505
    internal_error,        // the decision failed (500)
};

std::string_view decision_name(Decision decision);

} // namespace wr::edge
