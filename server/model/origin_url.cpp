// Parses a zone's origin URL into the parts the proxy connects with.
#include "model/origin_url.h"

#include <algorithm>
#include <cctype>

namespace wr::model {

std::string OriginUrl::host_header() const {
    const std::string bracketed = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    const uint16_t default_port = https ? 443 : 80;
    return port == default_port ? bracketed : bracketed + ":" + std::to_string(port);
}

std::optional<OriginUrl> parse_origin_url(std::string_view text) {
    OriginUrl url;
    if (text.starts_with("http://")) {
        text.remove_prefix(7);
    } else if (text.starts_with("https://")) {
        url.https = true;
        url.port = 443;
        text.remove_prefix(8);
    } else {
        return std::nullopt;
    }
    if (text.find_first_of("?#@ \t\r\n") != std::string_view::npos) return std::nullopt;
    const size_t slash = text.find('/');
    std::string_view authority = text.substr(0, slash);
    std::string_view path = slash == std::string_view::npos ? std::string_view{} : text.substr(slash);
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    url.path_prefix = std::string(path);

    std::string_view port_text;
    if (authority.starts_with("[")) {
        const size_t close = authority.find(']');
        if (close == std::string_view::npos) return std::nullopt;
        url.host = std::string(authority.substr(1, close - 1));
        std::string_view rest = authority.substr(close + 1);
        if (!rest.empty()) {
            if (rest[0] != ':') return std::nullopt;
            port_text = rest.substr(1);
            if (port_text.empty()) return std::nullopt;
        }
    } else {
        const size_t colon = authority.find(':');
        url.host = std::string(authority.substr(0, colon));
        if (colon != std::string_view::npos) {
            port_text = authority.substr(colon + 1);
            if (port_text.empty()) return std::nullopt;
        }
    }
    if (url.host.empty()) return std::nullopt;
    for (const char c : url.host)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != ':' && c != '_') return std::nullopt;
    if (!port_text.empty()) {
        if (port_text.size() > 5 || !std::all_of(port_text.begin(), port_text.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return std::nullopt;
        const int port = std::stoi(std::string(port_text));
        if (port < 1 || port > 65535) return std::nullopt;
        url.port = static_cast<uint16_t>(port);
    }
    return url;
}

} // namespace wr::model
