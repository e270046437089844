// Parses and prints listen addresses.
#include "util/address.h"

namespace wr::util {

std::string ListenAddress::text() const {
    const std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return shown + ":" + std::to_string(port);
}

std::optional<ListenAddress> parse_listen_address(std::string_view text) {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return std::nullopt;
    ListenAddress address;
    std::string_view host = text.substr(0, colon);
    if (host.starts_with("[") && host.ends_with("]")) host = host.substr(1, host.size() - 2);
    address.host = host.empty() ? "0.0.0.0" : std::string(host);
    const std::string_view port = text.substr(colon + 1);
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
    address.port = std::stoi(std::string(port));
    if (address.port > 65535) return std::nullopt;
    return address;
}

} // namespace wr::util
