// Writes proxied heads as bytes.
#include "edge/forward_head.h"

#include <charconv>

#include "edge/request_path.h"

namespace wr::edge {
namespace {

constexpr std::string_view k_hop_by_hop[] = {"connection", "keep-alive", "proxy-connection", "te", "trailer",
                                             "transfer-encoding", "upgrade", "proxy-authorization", "proxy-authenticate"};

// Headers wr itself relies on end to end: a Connection header naming them does not remove them.
constexpr std::string_view k_end_to_end[] = {"host", "content-length", "content-type", "x-forwarded-for", "x-forwarded-proto",
                                             "x-forwarded-host", "set-cookie", "cf-waiting-room-command"};

bool one_of(std::string_view name, std::initializer_list<std::string_view> names) {
    for (const std::string_view candidate : names)
        if (equals_ignoring_case(name, candidate)) return true;
    return false;
}

template <size_t N> bool one_of(std::string_view name, const std::string_view (&names)[N]) {
    for (const std::string_view candidate : names)
        if (equals_ignoring_case(name, candidate)) return true;
    return false;
}

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

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
}

// Cookie: every pair of every Cookie header but the room's, joined with "; "; nothing when none is left.
void write_cookies(std::string& out, const MessageHead& request, std::string_view room_cookie) {
    const size_t start = out.size();
    out += "Cookie: ";
    const size_t first = out.size();
    for (const HeaderField& field : request.headers) {
        if (!equals_ignoring_case(field.name, "cookie")) continue;
        std::string_view rest = field.value;
        while (!rest.empty()) {
            const size_t semicolon = rest.find(';');
            const std::string_view pair = trim(rest.substr(0, semicolon));
            rest = semicolon == std::string_view::npos ? std::string_view{} : rest.substr(semicolon + 1);
            if (pair.empty()) continue;
            const std::string_view name = trim(pair.substr(0, pair.find('=')));
            if (!room_cookie.empty() && name == room_cookie) continue;
            if (out.size() > first) out += "; ";
            out += pair;
        }
    }
    if (out.size() == first) out.resize(start);
    else out += "\r\n";
}

void status_line(std::string& out, int version_minor, const MessageHead& response) {
    out += version_minor == 0 ? "HTTP/1.0 " : "HTTP/1.1 ";
    const int status = response.status;
    const char digits[4] = {static_cast<char>('0' + status / 100 % 10), static_cast<char>('0' + status / 10 % 10),
                            static_cast<char>('0' + status % 10), ' '};
    out.append(digits, sizeof digits);
    out += response.reason;
    out += "\r\n";
}

} // namespace

bool is_hop_by_hop(const MessageHead& message, std::string_view name) {
    if (one_of(name, k_hop_by_hop)) return true;
    if (one_of(name, k_end_to_end)) return false;
    for (const HeaderField& field : message.headers)
        if (equals_ignoring_case(field.name, "connection") && has_token(field.value, name)) return true;
    return false;
}

void write_forwarded_request(std::string& out, const MessageHead& request, const ForwardedRequest& how) {
    out.clear();
    out += request.method;
    out += ' ';
    out += how.path_prefix;
    const SplitTarget target = split_target(how.target);
    out += target.path;
    if (!target.query.empty()) {
        out += '?';
        out += target.query;
    }
    out += " HTTP/1.1\r\n";

    std::string_view host;
    bool forwarded_for = false;
    for (const HeaderField& field : request.headers) {
        if (equals_ignoring_case(field.name, "host") && host.empty()) host = field.value;
        if (equals_ignoring_case(field.name, "x-forwarded-for")) {
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

    for (const HeaderField& field : request.headers) {
        if (one_of(field.name, {"cookie", "content-length", "expect", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host"}))
            continue;
        if (is_hop_by_hop(request, field.name)) continue;
        header(out, field.name, field.value);
    }
    write_cookies(out, request, how.room_cookie);
    if (how.framing == BodyFraming::length) number_header(out, "Content-Length", how.content_length);
    if (how.framing == BodyFraming::chunked) header(out, "Transfer-Encoding", "chunked");
    if (how.upgrade) {
        header(out, "Upgrade", request.find("upgrade"));
        header(out, "Connection", "upgrade");
    }
    out += "\r\n";
}

void write_visitor_response(std::string& out, const MessageHead& response, const VisitorResponse& how) {
    out.clear();
    status_line(out, how.version_minor, response);
    const bool switching = response.status == 101;
    for (const HeaderField& field : response.headers) {
        if (equals_ignoring_case(field.name, "cf-waiting-room-command")) continue; // never shown to visitors
        if (equals_ignoring_case(field.name, "content-length")) {
            // HEAD and 304 answers keep the origin's length: it says what a GET would get.
            if (how.framing == BodyFraming::none && response.status != 204 && !switching) header(out, field.name, field.value);
            continue;
        }
        if (is_hop_by_hop(response, field.name)) continue;
        header(out, field.name, field.value);
    }
    if (!how.set_cookie.empty()) header(out, "Set-Cookie", how.set_cookie);
    if (switching) {
        header(out, "Upgrade", response.find("upgrade"));
        header(out, "Connection", "upgrade");
        out += "\r\n";
        return;
    }
    if (how.framing == BodyFraming::length) number_header(out, "Content-Length", how.content_length);
    if (how.framing == BodyFraming::chunked) header(out, "Transfer-Encoding", "chunked");
    // HTTP/1.1 keeps connections open unless told; HTTP/1.0 closes them unless told.
    if (how.version_minor == 0 && how.keep_alive) header(out, "Connection", "keep-alive");
    if (how.version_minor != 0 && !how.keep_alive) header(out, "Connection", "close");
    out += "\r\n";
}

void write_interim_response(std::string& out, const MessageHead& response) {
    out.clear();
    status_line(out, 1, response);
    for (const HeaderField& field : response.headers)
        if (!is_hop_by_hop(response, field.name)) header(out, field.name, field.value);
    out += "\r\n";
}

std::string_view waiting_room_command(const MessageHead& response) { return response.find("cf-waiting-room-command"); }

} // namespace wr::edge
