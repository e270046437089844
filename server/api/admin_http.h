#pragma once
// The admin listener's HTTP/1.1 text on either side of the admin API's own types: a request
// target into the Request's path and query, a Reply into the head that precedes its body. Pure:
// no sockets, no HTTP library, unit-tested.
#include <cstddef>
#include <string>
#include <string_view>

#include <boost/asio/ip/address.hpp>

#include "api/request.h"

namespace wr::api {

// Percent-escapes decoded ("%2Fa" → "/a"); '+' becomes a space when `plus_is_space` (query
// strings). A '%' not followed by two hex digits stays as written.
std::string decode_url(std::string_view text, bool plus_is_space);

// Fills request.path and request.query from an origin-form target ("/zones?page=2&per_page=5");
// false when the target does not start with '/'.
bool read_target(std::string_view target, Request& request);

// "127.0.0.1" or "::1" for an address as the socket gives it (an IPv4 address mapped into IPv6
// is written as IPv4).
std::string address_text(const boost::asio::ip::address& address);

// The status line and headers of an answer whose body is `body_size` bytes: the reply's type
// and headers, Cache-Control: no-store (nothing of the admin API is for caches), and
// Connection: close when the connection ends after it.
std::string reply_head(const Reply& reply, size_t body_size, bool keep_alive);

// "Not Found" for 404; "Unknown" for a status without a phrase.
const char* reason_phrase(int status);

} // namespace wr::api
