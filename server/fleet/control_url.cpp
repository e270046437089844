// Parses and prints control node URLs.
#include "fleet/control_url.h"

#include "model/origin_url.h"

namespace wr::fleet {

std::string ControlUrl::text() const {
    const std::string shown_host = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return std::string(https ? "https://" : "http://") + shown_host + ":" + std::to_string(port);
}

std::optional<ControlUrl> parse_control_url(std::string_view text) {
    // A zone's origin URL without a path: the same scheme, host and port rules.
    const std::optional<model::OriginUrl> origin = model::parse_origin_url(text);
    if (!origin || !origin->path_prefix.empty()) return std::nullopt;
    return ControlUrl{origin->https, origin->host, origin->port};
}

bool is_loopback_host(std::string_view host) {
    return host == "localhost" || host == "::1" || host.starts_with("127.");
}

} // namespace wr::fleet
