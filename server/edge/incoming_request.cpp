#include "edge/incoming_request.h"

namespace wr::edge {
namespace {

namespace http = boost::beast::http;

std::string_view view_of(boost::beast::string_view text) { return {text.data(), text.size()}; }

std::string joined(const http::fields& fields, std::string_view name, std::string_view separator) {
    std::string all;
    for (auto [it, end] = fields.equal_range(boost::beast::string_view(name.data(), name.size())); it != end; ++it) {
        if (!all.empty()) all += separator;
        all += view_of(it->value());
    }
    return all;
}

// IncomingRequest::header for a Beast head: any header by (case-insensitive) name.
std::string_view find_header(const void* head, std::string_view name) {
    const http::fields& fields = *static_cast<const RequestHead*>(head);
    const auto it = fields.find(boost::beast::string_view(name.data(), name.size()));
    return it == fields.end() ? std::string_view{} : view_of(it->value());
}

} // namespace

std::string all_cookies(const http::fields& fields) { return joined(fields, "Cookie", "; "); }

std::string forwarded_for(const http::fields& fields) { return joined(fields, "X-Forwarded-For", ", "); }

IncomingRequest describe_request(const RequestHead& head, std::string_view cookies, const queue::ClientAddress& peer,
                                 bool https, const TrustedProxies& trusted_proxies) {
    IncomingRequest incoming;
    incoming.method = view_of(head.method_string());
    incoming.target = view_of(head.target());
    incoming.host = view_of(head[http::field::host]);
    incoming.host_headers = static_cast<int>(head.count(http::field::host));
    incoming.cookie_header = cookies;
    incoming.accept = view_of(head[http::field::accept]);
    incoming.user_agent = view_of(head[http::field::user_agent]);
    incoming.referer = view_of(head[http::field::referer]);
    incoming.https = https;
    incoming.client = trusted_proxies.empty() ? peer : client_address(peer, forwarded_for(head), trusted_proxies);
    incoming.has_client = true;
    incoming.header = find_header;
    incoming.header_context = &head;
    return incoming;
}

} // namespace wr::edge
