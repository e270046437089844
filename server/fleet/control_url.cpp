// Parses and prints control node URLs.
#include "fleet/control_url.h"

#include <algorithm>
#include <cctype>

namespace wr::fleet {

std::string ControlUrl::text() const {
    const std::string shown_host = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return std::string(https ? "https://" : "http://") + shown_host + ":" + std::to_string(port);
}

std::optional<ControlUrl> parse_control_url(std::string_view text) {
    ControlUrl url;
    if (text.starts_with("https://")) {
        url.https = true;
        text.remove_prefix(8);
        url.port = 443;
    } else if (text.starts_with("http://")) {
        text.remove_prefix(7);
        url.port = 80;
    } else {
        return std::nullopt;
    }
    if (text.ends_with("/")) text.remove_suffix(1);
    if (text.empty() || text.find_first_of("/?#@ ") != std::string_view::npos) return std::nullopt;
    std::string_view port_text;
    if (text.front() == '[') {
        const size_t close = text.find(']');
        if (close == std::string_view::npos) return std::nullopt;
        url.host = std::string(text.substr(1, close - 1));
        const std::string_view rest = text.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') return std::nullopt;
            port_text = rest.substr(1);
            if (port_text.empty()) return std::nullopt;
        }
    } else {
        const size_t colon = text.find(':');
        url.host = std::string(text.substr(0, colon));
        if (colon != std::string_view::npos && text.find(':', colon + 1) != std::string_view::npos) return std::nullopt; // IPv6 needs brackets
        if (colon != std::string_view::npos) {
            port_text = text.substr(colon + 1);
            if (port_text.empty()) return std::nullopt;
        }
    }
    if (url.host.empty()) return std::nullopt;
    for (const char c : url.host)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != ':' && c != '_') return std::nullopt;
    if (!port_text.empty()) {
        if (port_text.size() > 5 || !std::all_of(port_text.begin(), port_text.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return std::nullopt;
        url.port = std::stoi(std::string(port_text));
        if (url.port < 1 || url.port > 65535) return std::nullopt;
    }
    return url;
}

bool is_loopback_host(std::string_view host) {
    return host == "localhost" || host == "::1" || host.starts_with("127.");
}

} // namespace wr::fleet
