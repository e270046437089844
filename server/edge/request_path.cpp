// Host and path normalisation for routing (RFC 3986 §2.3, §5.2.4).
#include "edge/request_path.h"

#include <cctype>

#include "util/escape.h"

namespace wr::edge {
namespace {

bool is_unreserved(unsigned char c) { return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~'; }

} // namespace

void normalize_host_into(std::string_view host, std::string& out) {
    if (host.starts_with("[")) {
        const size_t close = host.find(']');
        host = host.substr(0, close == std::string_view::npos ? host.size() : close + 1);
    } else if (const size_t colon = host.rfind(':'); colon != std::string_view::npos) {
        host = host.substr(0, colon);
    }
    while (!host.empty() && host.back() == '.') host.remove_suffix(1);
    out.assign(host);
    // ASCII only: host names are ASCII on the wire (IDNs travel as punycode), whatever the locale.
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
}

bool valid_host_header(std::string_view host) {
    std::string_view port;
    if (host.starts_with('[')) {
        // An IPv6 address (hex digits, ':' and an embedded IPv4's '.'); no IPvFuture.
        const size_t close = host.find(']');
        if (close == std::string_view::npos || close == 1) return false;
        for (const char c : host.substr(1, close - 1))
            if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') return false;
        const std::string_view rest = host.substr(close + 1);
        if (!rest.empty() && rest.front() != ':') return false;
        port = rest.empty() ? rest : rest.substr(1);
    } else {
        // A host name or an IPv4 address: unreserved characters only (DNS names never need the
        // sub-delimiters or escapes RFC 3986 would allow in a reg-name).
        const size_t colon = host.find(':');
        const std::string_view name = host.substr(0, colon);
        if (name.empty()) return false;
        for (const char c : name)
            if (!is_unreserved(static_cast<unsigned char>(c))) return false;
        if (colon != std::string_view::npos) port = host.substr(colon + 1);
    }
    if (port.size() > 5) return false;
    int number = 0;
    for (const char c : port) {
        if (c < '0' || c > '9') return false;
        number = number * 10 + (c - '0');
    }
    return number <= 65535;
}

std::string normalize_host(std::string_view host) {
    std::string out;
    normalize_host_into(host, out);
    return out;
}

SplitTarget split_target(std::string_view target) {
    // Absolute form: "http://host/path?query".
    if (const size_t scheme = target.find("://"); scheme != std::string_view::npos && scheme < target.find('/')) {
        const size_t path_start = target.find('/', scheme + 3);
        target = path_start == std::string_view::npos ? std::string_view("/") : target.substr(path_start);
    }
    const size_t fragment = target.find('#');
    if (fragment != std::string_view::npos) target = target.substr(0, fragment);
    const size_t question = target.find('?');
    if (question == std::string_view::npos) return {target, {}};
    return {target.substr(0, question), target.substr(question + 1)};
}

void normalize_path_into(std::string_view raw, std::string& out, std::string& decoded) {
    // 1. Decode escapes of unreserved characters; keep (upper-cased) the others.
    decoded.clear();
    decoded.reserve(raw.size() + 1);
    for (size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '%' && i + 2 < raw.size() + 0 && util::hex_digit_value(raw[i + 1]) >= 0 && util::hex_digit_value(raw[i + 2]) >= 0) {
            const auto c = static_cast<unsigned char>(util::hex_digit_value(raw[i + 1]) * 16 + util::hex_digit_value(raw[i + 2]));
            if (is_unreserved(c)) {
                decoded += static_cast<char>(c);
            } else {
                decoded += '%';
                decoded += static_cast<char>(std::toupper(static_cast<unsigned char>(raw[i + 1])));
                decoded += static_cast<char>(std::toupper(static_cast<unsigned char>(raw[i + 2])));
            }
            i += 2;
        } else {
            decoded += raw[i];
        }
    }
    if (decoded.empty() || decoded[0] != '/') decoded.insert(decoded.begin(), '/');

    // 2. Remove dot segments and empty segments, segment by segment.
    out.clear();
    out.reserve(decoded.size());
    size_t at = 1;
    bool trailing_slash = false;
    while (at <= decoded.size()) {
        const size_t slash = decoded.find('/', at);
        const std::string_view segment =
            std::string_view(decoded).substr(at, slash == std::string::npos ? std::string::npos : slash - at);
        const bool last = slash == std::string::npos;
        if (segment == "..") {
            const size_t previous = out.rfind('/');
            out.erase(previous == std::string::npos ? 0 : previous);
            trailing_slash = true;
        } else if (segment == "." || segment.empty()) {
            trailing_slash = true;
        } else {
            out += '/';
            out += segment;
            trailing_slash = false;
        }
        if (last) break;
        at = slash + 1;
    }
    if (out.empty() || trailing_slash) out += '/';
}

bool climbs_above_root(std::string_view raw) {
    if (raw.find('.') == std::string_view::npos && raw.find('%') == std::string_view::npos) return false;
    // Each segment as a dot segment: ".", ".." or the same with escaped dots.
    const auto dots = [](std::string_view segment) {
        int count = 0;
        for (size_t i = 0; i < segment.size(); ++i) {
            if (segment[i] == '.') {
                ++count;
            } else if (segment[i] == '%' && i + 2 < segment.size() && segment[i + 1] == '2' &&
                       (segment[i + 2] == 'e' || segment[i + 2] == 'E')) {
                ++count;
                i += 2;
            } else {
                return 0;
            }
        }
        return count;
    };
    int depth = 0;
    size_t at = raw.starts_with('/') ? 1 : 0;
    while (at <= raw.size()) {
        const size_t slash = raw.find('/', at);
        const bool last = slash == std::string_view::npos;
        const std::string_view segment = raw.substr(at, last ? std::string_view::npos : slash - at);
        const int dot_count = dots(segment);
        if (dot_count == 2) {
            if (depth == 0) return true;
            --depth;
        } else if (dot_count != 1 && !segment.empty()) {
            ++depth;
        }
        if (last) break;
        at = slash + 1;
    }
    return false;
}

void strip_path_parameters_into(std::string_view path, std::string& out) {
    out.clear();
    size_t at = path.starts_with('/') ? 1 : 0;
    while (at <= path.size()) {
        const size_t slash = path.find('/', at);
        const bool last = slash == std::string_view::npos;
        std::string_view segment = path.substr(at, last ? std::string_view::npos : slash - at);
        segment = segment.substr(0, segment.find(';'));
        if (!segment.empty()) {
            out += '/';
            out += segment;
        }
        if (last) break;
        at = slash + 1;
    }
    if (out.empty() || path.ends_with('/')) out += '/';
}

std::string normalize_path(std::string_view raw) {
    std::string out;
    std::string scratch;
    normalize_path_into(raw, out, scratch);
    return out;
}

bool ambiguous_path(std::string_view raw) {
    const size_t first = raw.find_first_of("\\%;");
    if (first == std::string_view::npos) return false; // the common path: nothing for an origin to read otherwise
    if (raw.find('\\', first) != std::string_view::npos) return true;
    // Decode everything an origin might, then look for what routing did not see.
    std::string decoded;
    decoded.reserve(raw.size());
    bool encoded_separator = false;
    for (size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '%' && i + 2 < raw.size() && util::hex_digit_value(raw[i + 1]) >= 0 && util::hex_digit_value(raw[i + 2]) >= 0) {
            const auto c = static_cast<char>(util::hex_digit_value(raw[i + 1]) * 16 + util::hex_digit_value(raw[i + 2]));
            if (c == '\\') return true;
            if (c == '/') encoded_separator = true;
            decoded += c;
            i += 2;
        } else {
            decoded += raw[i];
        }
    }
    size_t at = 0;
    while (at <= decoded.size()) {
        const size_t slash = decoded.find('/', at);
        const std::string_view segment = std::string_view(decoded).substr(at, slash == std::string::npos ? std::string::npos : slash - at);
        // Dot segments between real slashes were resolved by routing; one an encoded slash made was not.
        if (encoded_separator && (segment == "." || segment == "..")) return true;
        // Servlet containers (Tomcat, Jetty, Spring) drop a segment's ";parameters" before they
        // resolve dot segments: "..;x" is ".." to them, an ordinary name to routing.
        if (const size_t semicolon = segment.find(';'); semicolon != std::string_view::npos) {
            const std::string_view name = segment.substr(0, semicolon);
            if (name == "." || name == "..") return true;
        }
        if (slash == std::string::npos) break;
        at = slash + 1;
    }
    return false;
}

std::string same_site_location(std::string_view target) {
    const SplitTarget split = split_target(target);
    std::string_view path = split.path;
    while (path.starts_with('/')) path.remove_prefix(1);
    std::string location = "/";
    for (const char c : path) {
        if (c == '\\') location += "%5C";
        else location += c;
    }
    if (!split.query.empty()) {
        location += '?';
        location += split.query;
    }
    return location;
}

bool host_matches_target(std::string_view target, std::string_view host) {
    if (target.starts_with('/')) return true;
    const size_t scheme = target.find("://");
    if (scheme == std::string_view::npos) return true; // "*" (OPTIONS) or authority form: no host to compare
    std::string_view authority = target.substr(scheme + 3);
    authority = authority.substr(0, authority.find_first_of("/?#"));
    if (const size_t at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
    return normalize_host(authority) == host;
}

} // namespace wr::edge
