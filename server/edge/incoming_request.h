#pragma once
// What the Gate reads of a request, taken from the head Beast parsed: the edge server and the
// request fuzzer build it the same way, so what the fuzzer reaches is what visitors reach.
#include <boost/beast/http/fields.hpp>
#include <boost/beast/http/message.hpp>
#include <string>
#include <string_view>

#include "edge/client_address.h"
#include "edge/gate.h"

namespace wr::edge {

using RequestHead = boost::beast::http::request_header<>;

// Every Cookie header, joined as one (RFC 9110 allows several only as "; "-separated pairs).
std::string all_cookies(const boost::beast::http::fields& fields);

// Every X-Forwarded-For header, joined as one list.
std::string forwarded_for(const boost::beast::http::fields& fields);

// The request as the Gate sees it. It points into `head` and `cookies` (all_cookies(head), which
// the caller keeps), so both must outlive it. The client is the peer, or whom the trusted
// proxies say X-Forwarded-For names.
IncomingRequest describe_request(const RequestHead& head, std::string_view cookies, const queue::ClientAddress& peer,
                                 bool https, const TrustedProxies& trusted_proxies);

} // namespace wr::edge
