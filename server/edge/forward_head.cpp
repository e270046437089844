// Writes proxied heads as bytes.
#include "edge/forward_head.h"

#include <charconv>

#include "edge/cookie_caching.h"
#include "edge/request_path.h"
#include "util/trim.h"

namespace wr::edge {
namespace {

// The header names the rewriting cares about. Each name is classified once, by its length first,
// so that a header costs one or two comparisons rather than one per name in the lists.
enum class Known {
    other,
    // hop-by-hop (RFC 9110 §7.6.1)
    connection, keep_alive, proxy_connection, te, trailer, transfer_encoding, upgrade, proxy_authorization, proxy_authenticate,
    // end to end, and never removed by a Connection header
    host, content_length, content_type, x_forwarded_for, x_forwarded_proto, x_forwarded_host, set_cookie, cf_waiting_room_command,
    // end to end, rewritten by the edge
    cookie, expect, x_request_id,
    // a client's address as some proxy would write it: an origin that believes one must not get it from a visitor
    client_address,
    // the request's URL, scheme or port as some proxy would write them (IIS's X-Original-URL, Rack's
    // X-Forwarded-Ssl, …): an origin that routes by one would serve a path the room never judged
    request_override,
};

Known classify(std::string_view name) {
    const auto is = [name](std::string_view candidate) { return net::equals_ignoring_case(name, candidate); };
    switch (name.size()) {
    case 2: return is("te") ? Known::te : Known::other;
    case 4: return is("host") ? Known::host : Known::other;
    case 9: return is("x-real-ip") || is("forwarded") ? Known::client_address : Known::other;
    case 11: return is("x-client-ip") ? Known::client_address : Known::other;
    case 6: return is("cookie") ? Known::cookie : is("expect") ? Known::expect : Known::other;
    case 7: return is("trailer") ? Known::trailer : is("upgrade") ? Known::upgrade : Known::other;
    case 10: return is("connection") ? Known::connection : is("keep-alive") ? Known::keep_alive : is("set-cookie") ? Known::set_cookie : Known::other;
    case 12:
        return is("content-type")   ? Known::content_type
               : is("x-request-id") ? Known::x_request_id
               : is("x-url-scheme") ? Known::request_override
                                    : Known::other;
    case 13: return is("x-rewrite-url") ? Known::request_override : Known::other;
    case 14:
        return is("content-length")   ? Known::content_length
               : is("true-client-ip") ? Known::client_address
               : is("x-original-url") ? Known::request_override
                                      : Known::other;
    case 15:
        return is("x-forwarded-for")                               ? Known::x_forwarded_for
               : is("x-forwarded-ssl") || is("front-end-https") ? Known::request_override
                                                                   : Known::other;
    case 16:
        return is("proxy-connection")   ? Known::proxy_connection
               : is("x-forwarded-host") ? Known::x_forwarded_host
               : is("cf-connecting-ip") ? Known::client_address
               : is("x-forwarded-port") ? Known::request_override
                                        : Known::other;
    case 17: return is("transfer-encoding") ? Known::transfer_encoding : is("x-forwarded-proto") ? Known::x_forwarded_proto : Known::other;
    case 18:
        return is("proxy-authenticate")                                ? Known::proxy_authenticate
               : is("x-forwarded-scheme") || is("x-forwarded-prefix") ? Known::request_override
                                                                       : Known::other;
    case 19: return is("proxy-authorization") ? Known::proxy_authorization : is("x-cluster-client-ip") ? Known::client_address : Known::other;
    case 23: return is("cf-waiting-room-command") ? Known::cf_waiting_room_command : Known::other;
    default: return Known::other;
    }
}

bool always_hop_by_hop(Known kind) { return kind >= Known::connection && kind <= Known::proxy_authenticate; }
bool end_to_end(Known kind) { return kind >= Known::host && kind <= Known::cf_waiting_room_command; }

// Whether a message's Connection headers list names beyond close, keep-alive and upgrade, which
// make more headers hop-by-hop. Most messages list none, and then no header needs looking up.
class ConnectionNames {
public:
    explicit ConnectionNames(const net::MessageHead& message) : m_message(message) {
        for (const net::HeaderField& field : message.headers) {
            if (field.name.size() != 10 || !net::equals_ignoring_case(field.name, "connection")) continue;
            std::string_view rest = field.value;
            while (!rest.empty()) {
                const size_t comma = rest.find(',');
                std::string_view token = rest.substr(0, comma);
                rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
                while (!token.empty() && (token.front() == ' ' || token.front() == '\t')) token.remove_prefix(1);
                while (!token.empty() && (token.back() == ' ' || token.back() == '\t')) token.remove_suffix(1);
                if (!token.empty() && !net::equals_ignoring_case(token, "close") && !net::equals_ignoring_case(token, "keep-alive") &&
                    !net::equals_ignoring_case(token, "upgrade"))
                    m_any = true;
            }
        }
    }
    bool lists(std::string_view name) const {
        if (!m_any) return false;
        for (const net::HeaderField& field : m_message.headers)
            if (net::equals_ignoring_case(field.name, "connection") && net::has_token(field.value, name)) return true;
        return false;
    }

private:
    const net::MessageHead& m_message;
    bool m_any = false;
};

// Whether a header of `kind` named `name` stays out of the rewritten head as hop-by-hop.
bool hop_by_hop(Known kind, std::string_view name, const ConnectionNames& named) {
    if (always_hop_by_hop(kind)) return true;
    if (end_to_end(kind)) return false;
    return named.lists(name);
}

bool method_takes_body(std::string_view method) { return method == "POST" || method == "PUT" || method == "PATCH"; }

void header(std::string& out, std::string_view name, std::string_view value) {
    out += name;
    out += ": ";
    out += value;
    out += "\r\n";
}

void number_header(std::string& out, std::string_view name, uint64_t value) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    header(out, name, std::string_view(digits, static_cast<size_t>(end - digits)));
}

// Cookie: every pair of every Cookie header but the room's, joined with "; "; nothing when none is left.
void write_cookies(std::string& out, const net::MessageHead& request, std::string_view room_cookie) {
    const size_t start = out.size();
    out += "Cookie: ";
    const size_t first = out.size();
    for (const net::HeaderField& field : request.headers) {
        if (!net::equals_ignoring_case(field.name, "cookie")) continue;
        std::string_view rest = field.value;
        while (!rest.empty()) {
            const size_t semicolon = rest.find(';');
            const std::string_view pair = util::trim_blanks(rest.substr(0, semicolon));
            rest = semicolon == std::string_view::npos ? std::string_view{} : rest.substr(semicolon + 1);
            if (pair.empty()) continue;
            const std::string_view name = util::trim_blanks(pair.substr(0, pair.find('=')));
            if (!room_cookie.empty() && name == room_cookie) continue;
            if (out.size() > first) out += "; ";
            out += pair;
        }
    }
    if (out.size() == first) out.resize(start);
    else out += "\r\n";
}

void status_line(std::string& out, int version_minor, const net::MessageHead& response) {
    out += version_minor == 0 ? "HTTP/1.0 " : "HTTP/1.1 ";
    const int status = response.status;
    const char digits[4] = {static_cast<char>('0' + status / 100 % 10), static_cast<char>('0' + status / 10 % 10),
                            static_cast<char>('0' + status % 10), ' '};
    out.append(digits, sizeof digits);
    out += response.reason;
    out += "\r\n";
}

} // namespace

bool is_hop_by_hop(const net::MessageHead& message, std::string_view name) {
    return hop_by_hop(classify(name), name, ConnectionNames(message));
}

void write_forwarded_request(std::string& out, const net::MessageHead& request, const ForwardedRequest& how) {
    out.clear();
    out += request.method;
    out += ' ';
    out += how.path_prefix;
    const SplitTarget target = split_target(how.target);
    // Under a prefix, "/../admin" would reach the origin's "/admin", outside the prefix: such a
    // path goes as routing judged it. Rare, so only then is anything allocated.
    if (!how.path_prefix.empty() && climbs_above_root(target.path)) out += normalize_path(target.path);
    else out += target.path;
    if (!target.query.empty()) {
        out += '?';
        out += target.query;
    }
    out += " HTTP/1.1\r\n";

    std::string_view host;
    bool forwarded_for = false;
    for (const net::HeaderField& field : request.headers) {
        const Known kind = classify(field.name);
        if (kind == Known::host && host.empty()) host = field.value;
        if (kind == Known::x_forwarded_for) {
            // Appended to, never replaced: every earlier hop stays in the list.
            out += forwarded_for ? ", " : "X-Forwarded-For: ";
            out += field.value;
            forwarded_for = true;
        }
    }
    if (forwarded_for) {
        out += ", ";
        out += how.client;
        out += "\r\n";
    } else {
        header(out, "X-Forwarded-For", how.client);
    }
    header(out, "X-Forwarded-Proto", how.https ? "https" : "http");
    header(out, "X-Forwarded-Host", host);
    if (!how.request_id.empty()) header(out, "X-Request-Id", how.request_id);

    const ConnectionNames named(request);
    bool length_announced = false;
    for (const net::HeaderField& field : request.headers) {
        const Known kind = classify(field.name);
        length_announced = length_announced || kind == Known::content_length;
        // Written by the edge itself, above or below.
        if (kind == Known::cookie || kind == Known::content_length || kind == Known::expect || kind == Known::x_forwarded_for ||
            kind == Known::x_forwarded_proto || kind == Known::x_forwarded_host || (kind == Known::x_request_id && !how.request_id.empty()))
            continue;
        // The client's address reaches the origin in X-Forwarded-For only, never as a visitor wrote
        // it; the URL and scheme only as the request line and X-Forwarded-Proto say.
        if (kind == Known::client_address || kind == Known::request_override) continue;
        if (hop_by_hop(kind, field.name, named)) continue;
        header(out, field.name, field.value);
    }
    write_cookies(out, request, how.room_cookie);
    if (how.framing == net::BodyFraming::length) number_header(out, "Content-Length", how.content_length);
    // An empty body says so when the visitor said so, or when the method gives a body meaning
    // (RFC 9110 §8.6): origins answer a POST without Content-Length with 411.
    if (how.framing == net::BodyFraming::none && !how.upgrade && (length_announced || method_takes_body(request.method)))
        header(out, "Content-Length", "0");
    if (how.framing == net::BodyFraming::chunked) header(out, "Transfer-Encoding", "chunked");
    if (how.upgrade) {
        header(out, "Upgrade", "websocket"); // the one protocol the edge tunnels (net/http_parser)
        header(out, "Connection", "upgrade");
    }
    out += "\r\n";
}

void write_visitor_response(std::string& out, const net::MessageHead& response, const VisitorResponse& how) {
    out.clear();
    status_line(out, how.version_minor, response);
    const bool switching = response.status == 101;
    const ConnectionNames named(response);
    for (const net::HeaderField& field : response.headers) {
        const Known kind = classify(field.name);
        if (kind == Known::cf_waiting_room_command) continue; // never shown to visitors
        if (kind == Known::content_length) {
            // HEAD and 304 answers keep the origin's length: it says what a GET would get.
            if (how.framing == net::BodyFraming::none && response.status != 204 && !switching) header(out, field.name, field.value);
            continue;
        }
        if (hop_by_hop(kind, field.name, named)) continue;
        header(out, field.name, field.value);
    }
    if (!how.set_cookie.empty()) {
        header(out, "Set-Cookie", how.set_cookie);
        if (!switching && cookie_needs_private(response)) header(out, "Cache-Control", k_private_cookie);
    }
    if (switching) {
        header(out, "Upgrade", response.find("upgrade"));
        header(out, "Connection", "upgrade");
        out += "\r\n";
        return;
    }
    if (how.framing == net::BodyFraming::length) number_header(out, "Content-Length", how.content_length);
    if (how.framing == net::BodyFraming::chunked) header(out, "Transfer-Encoding", "chunked");
    // HTTP/1.1 keeps connections open unless told; HTTP/1.0 closes them unless told.
    if (how.version_minor == 0 && how.keep_alive) header(out, "Connection", "keep-alive");
    if (how.version_minor != 0 && !how.keep_alive) header(out, "Connection", "close");
    out += "\r\n";
}

void write_interim_response(std::string& out, const net::MessageHead& response) {
    out.clear();
    status_line(out, 1, response);
    const ConnectionNames named(response);
    for (const net::HeaderField& field : response.headers) {
        const Known kind = classify(field.name);
        // A 1xx has no content (RFC 9110 §8.6, §15.2): a length on it is the origin's mistake,
        // and a client or proxy ahead that believed it would take the real answer's head as body.
        if (kind == Known::content_length || kind == Known::cf_waiting_room_command) continue;
        if (!hop_by_hop(kind, field.name, named)) header(out, field.name, field.value);
    }
    out += "\r\n";
}

std::string_view waiting_room_command(const net::MessageHead& response) { return response.find("cf-waiting-room-command"); }

bool safe_to_replay(const net::MessageHead& request) {
    const std::string_view method = request.method; // methods are case-sensitive (RFC 9110 §9.1)
    return method == "GET" || method == "HEAD" || method == "OPTIONS" || method == "TRACE" || method == "PUT" || method == "DELETE" ||
           request.count("idempotency-key") > 0;
}

} // namespace wr::edge
