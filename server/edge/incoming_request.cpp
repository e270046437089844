// Describes a parsed request for the Gate.
#include "edge/incoming_request.h"

namespace wr::edge {
namespace {

// IncomingRequest::header for a parsed head: any header by (case-insensitive) name.
std::string_view find_header(const void* head, std::string_view name) { return static_cast<const MessageHead*>(head)->find(name); }

} // namespace

std::string_view joined_values(const MessageHead& head, std::string_view name, std::string_view separator, std::string& storage) {
    std::string_view first;
    bool several = false;
    for (const HeaderField& field : head.headers) {
        if (!equals_ignoring_case(field.name, name)) continue;
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

IncomingRequest describe_request(const MessageHead& head, std::string& cookie_storage, const queue::ClientAddress& peer,
                                 bool https, const TrustedProxies& trusted_proxies) {
    IncomingRequest incoming;
    incoming.method = head.method;
    incoming.target = head.target;
    int hosts = 0;
    for (const HeaderField& field : head.headers) {
        if (!equals_ignoring_case(field.name, "host")) continue;
        if (hosts++ == 0) incoming.host = field.value;
    }
    incoming.host_headers = hosts;
    incoming.cookie_header = joined_values(head, "cookie", "; ", cookie_storage);
    incoming.accept = head.find("accept");
    incoming.user_agent = head.find("user-agent");
    incoming.referer = head.find("referer");
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
