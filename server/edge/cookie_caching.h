#pragma once
// Whether an origin's answer that wr adds its room cookie to must be kept from shared caches.
// RFC 9111 §7.3: Set-Cookie does not stop a cache from storing an answer and serving it, cookie
// and all, to others; the server that sets the cookie is to say so. A CDN or proxy in front of
// wr that honoured an origin's `Cache-Control: public, max-age=3600` would otherwise hand one
// visitor's admission cookie to every visitor after. Pure.
#include <string_view>

#include "net/http_message.h"

namespace wr::edge {

// The directive added (as a Cache-Control field of its own, beside the origin's): a shared cache
// must not store the cookie (RFC 9111 §5.2.2.7); one that does not know the qualified form takes it
// as `private`, and stores nothing.
inline constexpr std::string_view k_private_cookie = "private=\"set-cookie\"";

// False when the origin's Cache-Control already keeps the whole answer out of shared caches
// (`no-store`, or `private` unqualified); true otherwise, heuristically cacheable answers too.
bool cookie_needs_private(const net::MessageHead& response);

} // namespace wr::edge
