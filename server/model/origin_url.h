#pragma once
// The upstream base URL of a zone: "http://127.0.0.1:3000" or "https://shop.internal/base".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace wr::model {

struct OriginUrl {
    bool https = false;
    std::string host;        // a name, an IPv4 address, or an IPv6 address without brackets
    uint16_t port = 80;
    std::string path_prefix; // "" or "/base" (no trailing slash)

    std::string host_header() const; // "host:port", port omitted when it is the scheme's default
};

// nullopt when the text is not an http(s) URL of that shape (no query, fragment or user info).
std::optional<OriginUrl> parse_origin_url(std::string_view text);

} // namespace wr::model
