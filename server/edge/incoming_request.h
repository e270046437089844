#pragma once
// What the Gate reads of a request, taken from the head the edge parsed (net/http_parser): the
// edge and the request fuzzer build it the same way, so what the fuzzer reaches is what visitors
// reach. Views only; joining several Cookie or X-Forwarded-For headers is the one copy.
#include <string>
#include <string_view>

#include "edge/client_address.h"
#include "edge/gate.h"
#include "net/http_message.h"

namespace wr::edge {

// Every value of a header, joined with `separator`: a view of the one value when there is one
// (no copy), else the values joined into `storage`.
std::string_view joined_values(const net::MessageHead& head, std::string_view name, std::string_view separator, std::string& storage);

// The request as the Gate sees it. It points into `head` and `cookie_storage` (which holds the
// Cookie headers joined when there are several), so both must outlive it. The client is the
// peer, or whom the trusted proxies say X-Forwarded-For names.
IncomingRequest describe_request(const net::MessageHead& head, std::string& cookie_storage, const queue::ClientAddress& peer,
                                 bool https, const TrustedProxies& trusted_proxies);

} // namespace wr::edge
