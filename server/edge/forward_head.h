#pragma once
// The heads the edge writes when it proxies, as bytes built from the parsed views (no header
// containers): the request to the origin, and the origin's answer to the visitor. Pure.
//
// Towards the origin: hop-by-hop headers out (RFC 9110 §7.6.1), and the headers a Connection
// header names — except those wr relies on end to end (Host, Content-Length, Content-Type, the
// forwarding headers, Set-Cookie, Cf-Waiting-Room-Command); the room's cookie out of every
// Cookie header; X-Forwarded-For appended to, X-Forwarded-Proto, -Host and X-Request-Id set
// (the edge decides the id: a visitor's own is believed only from a trusted proxy); the
// client-address headers other proxies write (X-Real-IP, Forwarded, True-Client-IP,
// CF-Connecting-IP, X-Client-IP, X-Cluster-Client-IP) out, since a visitor can write them too;
// Expect out (the edge answers 100-continue itself); the body framed by the edge (exact
// Content-Length, or chunked); Upgrade: websocket for a WebSocket handshake, any other Upgrade out.
// Towards the visitor: hop-by-hop headers out, Cf-Waiting-Room-Command out (the caller acts on
// it first), the renewed Set-Cookie added, the framing the edge sends, Connection as the
// visitor's version needs.
#include <string>
#include <string_view>

#include "net/http_message.h"

namespace wr::edge {

struct ForwardedRequest {
    std::string_view target = {};            // the visitor's target (Turnstile parameter removed when needed)
    std::string_view path_prefix = {};       // the origin URL's path, put before the path ("" or "/base")
    std::string_view client = {};            // the address appended to X-Forwarded-For
    bool https = false;                      // X-Forwarded-Proto
    std::string_view room_cookie = {};       // the room's cookie name, removed from every Cookie header; "" keeps all
    net::BodyFraming framing = net::BodyFraming::none; // none, length or chunked
    uint64_t content_length = 0;
    bool upgrade = false;                    // keep Upgrade and say Connection: upgrade
    std::string_view request_id = {};        // X-Request-Id, replacing the visitor's; "" passes the visitor's on
};

// Replaces `out` with the HTTP/1.1 request head for the origin.
void write_forwarded_request(std::string& out, const net::MessageHead& request, const ForwardedRequest& how);

struct VisitorResponse {
    int version_minor = 1;                   // the visitor's HTTP/1.x
    std::string_view set_cookie = {};        // a Set-Cookie value to add, or ""
    net::BodyFraming framing = net::BodyFraming::none; // what the edge sends; none keeps the origin's Content-Length (HEAD, 304)
    uint64_t content_length = 0;
    bool keep_alive = true;
};

// Replaces `out` with the response head for the visitor (a 101 keeps Upgrade and says
// Connection: upgrade).
void write_visitor_response(std::string& out, const net::MessageHead& response, const VisitorResponse& how);

// An interim (1xx) answer passed on to the visitor, hop-by-hop headers removed.
void write_interim_response(std::string& out, const net::MessageHead& response);

// The origin's Cf-Waiting-Room-Command value(s), "" when none.
std::string_view waiting_room_command(const net::MessageHead& response);

// Whether a request may be sent again on a fresh origin connection after a pooled one failed
// before any answer. That is usually an origin that had closed the connection, but it may also
// have read the request and acted on it before it went: only a request that does the same when
// repeated is sent again — an idempotent method (RFC 9110 §9.2.2: GET, HEAD, OPTIONS, TRACE, PUT,
// DELETE), or one whose client says it may be repeated with an Idempotency-Key header.
bool safe_to_replay(const net::MessageHead& request);

// Whether a header is hop-by-hop in this message: one of RFC 9110's, or named in its Connection
// header (unless wr relies on it end to end).
bool is_hop_by_hop(const net::MessageHead& message, std::string_view name);

} // namespace wr::edge
