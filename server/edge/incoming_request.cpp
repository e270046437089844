// Describes a parsed request for the Gate.
#include "edge/incoming_request.h"

namespace wr::edge {
namespace {

// IncomingRequest::header for a parsed head: any header by (case-insensitive) name.
std::string_view find_header(const void* head, std::string_view name) { return static_cast<const net::MessageHead*>(head)->find(name); }

} // namespace

std::string_view joined_values(const net::MessageHead& head, std::string_view name, std::string_view separator, std::string& storage) {
    std::string_view first;
    bool several = false;
    for (const net::HeaderField& field : head.headers) {
        if (!net::equals_ignoring_case(field.name, name)) continue;
        if (first.data() == nullptr) {
            first = field.value;
            continue;
        }
        if (!several) {
            storage.assign(first);
            several = true;
        }
        storage += separator;
        storage += field.value;
    }
    return several ? std::string_view(storage) : first;
}

IncomingRequest describe_request(const net::MessageHead& head, std::string& cookie_storage, const queue::ClientAddress& peer,
                                 bool https, const TrustedProxies& trusted_proxies) {
    IncomingRequest incoming;
    incoming.method = head.method;
    incoming.target = head.target;
    // One pass over the headers, each name compared only with those of its length.
    int hosts = 0;
    int cookies = 0;
    for (const net::HeaderField& field : head.headers) {
        const std::string_view name = field.name;
        switch (name.size()) {
        case 4:
            if (net::equals_ignoring_case(name, "host") && hosts++ == 0) incoming.host = field.value;
            break;
        case 6:
            if (net::equals_ignoring_case(name, "cookie")) {
                if (cookies++ == 0) incoming.cookie_header = field.value;
            } else if (incoming.accept.empty() && net::equals_ignoring_case(name, "accept")) {
                incoming.accept = field.value;
            }
            break;
        case 7:
            if (incoming.referer.empty() && net::equals_ignoring_case(name, "referer")) incoming.referer = field.value;
            break;
        case 10:
            if (incoming.user_agent.empty() && net::equals_ignoring_case(name, "user-agent")) incoming.user_agent = field.value;
            break;
        default: break;
        }
    }
    incoming.host_headers = hosts;
    // Several Cookie headers (RFC 9110 allows them only as "; "-separated pairs) are read as one.
    if (cookies > 1) incoming.cookie_header = joined_values(head, "cookie", "; ", cookie_storage);
    incoming.https = https;
    if (trusted_proxies.empty()) {
        incoming.client = peer;
    } else {
        std::string forwarded_storage;
        incoming.client = client_address(peer, joined_values(head, "x-forwarded-for", ", ", forwarded_storage), trusted_proxies);
    }
    incoming.has_client = true;
    incoming.header = find_header;
    incoming.header_context = &head;
    return incoming;
}

} // namespace wr::edge
